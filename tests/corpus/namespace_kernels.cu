// Kernels declared inside namespaces: nested, anonymous, C++17 nested-name
// syntax, and launches with qualified names.
#include <cuda_runtime.h>

namespace ops {

__global__ void negate(float *x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = -x[i];
}

namespace detail {
__device__ float twice(float v) { return 2.0f * v; }

__global__ void double_it(float *x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = twice(x[i]);
}
} // namespace detail

template <typename T>
__global__ void offset(T *x, T by, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] += by;
}

} // namespace ops

namespace {
__global__ void local_only(int *flag) { *flag = 1; }
}

namespace nn::layers {
__global__ void bias_add(float *y, const float *bias, int rows, int cols)
{
    int r = blockIdx.x;
    for (int c = threadIdx.x; c < cols; c += blockDim.x)
        y[r * cols + c] += bias[c];
}
} // namespace nn::layers

void run(float *x, int *flag, const float *bias, int n)
{
    ops::negate<<<(n + 255) / 256, 256>>>(x, n);
    ops::detail::double_it<<<(n + 255) / 256, 256>>>(x, n);
    ops::offset<float><<<(n + 255) / 256, 256>>>(x, 1.0f, n);
    local_only<<<1, 1>>>(flag);
    nn::layers::bias_add<<<n / 64, 64>>>(x, bias, n / 64, 64);
    using namespace ops;
    negate<<<1, 32>>>(x, 32);
}
