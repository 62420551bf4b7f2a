// Kernel launches from member functions of a class, including a templated
// member, a const member, a constructor, and a static member.
#include <cuda_runtime.h>
#include <cstddef>

__global__ void fill_kernel(float *p, float v, size_t n)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) p[i] = v;
}

template <typename Op>
__global__ void map_kernel(float *p, size_t n, Op op)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) p[i] = op(p[i]);
}

__global__ void sum_kernel(const float *p, size_t n, float *out)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(out, p[i]);
}

struct Square {
    __device__ float operator()(float x) const { return x * x; }
};

class DeviceBuffer {
public:
    explicit DeviceBuffer(size_t n, cudaStream_t s = 0) : n_(n), stream_(s)
    {
        cudaMalloc(&data_, n_ * sizeof(float));
        fill_kernel<<<blocks(), kThreads, 0, stream_>>>(data_, 0.0f, n_);
    }
    ~DeviceBuffer() { cudaFree(data_); }

    void fill(float v) { fill_kernel<<<blocks(), kThreads, 0, stream_>>>(data_, v, n_); }

    template <typename Op>
    void map(Op op)
    {
        map_kernel<Op><<<blocks(), kThreads, 0, stream_>>>(data_, n_, op);
    }

    void sum_into(float *d_out) const
    {
        sum_kernel<<<blocks(), kThreads, 0, stream_>>>(data_, n_, d_out);
    }

    static void fill_raw(float *p, size_t n) { fill_kernel<<<(unsigned)((n + 255) / 256), 256>>>(p, 1.0f, n); }

private:
    static constexpr int kThreads = 256;
    unsigned blocks() const { return (unsigned)((n_ + kThreads - 1) / kThreads); }

    float *data_ = nullptr;
    size_t n_;
    cudaStream_t stream_;
};

void use_buffer(float *d_out)
{
    DeviceBuffer buf(1 << 20);
    buf.fill(3.0f);
    buf.map(Square{});
    buf.sum_into(d_out);
}
