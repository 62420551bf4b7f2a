// LayerNorm forward over the last dimension with gamma/beta, using Welford's
// online algorithm per thread and a shared-memory merge.
#include <cuda_runtime.h>

struct Welford {
    float mean, m2, count;
};

__device__ __forceinline__ Welford welford_merge(Welford a, Welford b)
{
    float n = a.count + b.count;
    if (n == 0.0f) return a;
    float delta = b.mean - a.mean;
    Welford r;
    r.mean = a.mean + delta * b.count / n;
    r.m2 = a.m2 + b.m2 + delta * delta * a.count * b.count / n;
    r.count = n;
    return r;
}

template <int THREADS>
__global__ void __launch_bounds__(THREADS)
layernorm_fwd(const float *x, const float *gamma, const float *beta, float *y,
              float *mean_out, float *rstd_out, int D, float eps)
{
    __shared__ Welford part[THREADS];
    const float *xr = x + (size_t)blockIdx.x * D;
    float *yr = y + (size_t)blockIdx.x * D;

    Welford w = {0.0f, 0.0f, 0.0f};
    for (int i = threadIdx.x; i < D; i += THREADS) {
        float v = xr[i];
        w.count += 1.0f;
        float d = v - w.mean;
        w.mean += d / w.count;
        w.m2 += d * (v - w.mean);
    }
    part[threadIdx.x] = w;
    __syncthreads();

    for (int s = THREADS / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s)
            part[threadIdx.x] = welford_merge(part[threadIdx.x], part[threadIdx.x + s]);
        __syncthreads();
    }

    float mean = part[0].mean;
    float rstd = rsqrtf(part[0].m2 / D + eps);
    if (threadIdx.x == 0) {
        mean_out[blockIdx.x] = mean;
        rstd_out[blockIdx.x] = rstd;
    }
    for (int i = threadIdx.x; i < D; i += THREADS)
        yr[i] = (xr[i] - mean) * rstd * gamma[i] + beta[i];
}

void layernorm(const float *x, const float *g, const float *b, float *y,
               float *mean, float *rstd, int rows, int D)
{
    if (D <= 256)
        layernorm_fwd<128><<<rows, 128>>>(x, g, b, y, mean, rstd, D, 1e-5f);
    else
        layernorm_fwd<256><<<rows, 256>>>(x, g, b, y, mean, rstd, D, 1e-5f);
}
