// More template forms: default template arguments, full specialization of a
// device helper, if constexpr, variadic kernel parameters, a functor template
// argument, and launches through a function pointer variable.
#include <cuda_runtime.h>
#include <type_traits>

template <typename T>
__device__ T zero_of() { return T(0); }

template <>
__device__ float zero_of<float>() { return 0.0f; }

template <typename T, int VEC = 1, bool CHECK_BOUNDS = true>
__global__ void vec_zero(T *p, int n)
{
    int i = (blockIdx.x * blockDim.x + threadIdx.x) * VEC;
    for (int k = 0; k < VEC; ++k) {
        if constexpr (CHECK_BOUNDS) {
            if (i + k >= n) return;
        }
        p[i + k] = zero_of<T>();
    }
}

template <typename... Ptrs>
__global__ void zero_many(int n, Ptrs... ptrs)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        ((ptrs[i] = 0), ...);
    }
}

template <typename F, typename T>
__global__ void transform(T *p, int n, F f)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) p[i] = f(p[i]);
}

struct AddK {
    int k;
    __device__ int operator()(int v) const { return v + k; }
};

template <typename T>
void zero(T *p, int n)
{
    if constexpr (std::is_same_v<T, float>)
        vec_zero<T, 4, false><<<n / (256 * 4), 256>>>(p, n);
    else
        vec_zero<T><<<(n + 255) / 256, 256>>>(p, n);
}

void run(float *f, int *i, double *d, int n)
{
    zero(f, n);
    zero(i, n);
    zero_many<<<(n + 255) / 256, 256>>>(n, f, i, d);
    transform<<<(n + 255) / 256, 256>>>(i, n, AddK{3});
    transform<AddK, int><<<(n + 255) / 256, 256>>>(i, n, AddK{-3});

    void (*kp)(double *, int) = vec_zero<double, 1, true>;
    kp<<<(n + 255) / 256, 256>>>(d, n);
}
