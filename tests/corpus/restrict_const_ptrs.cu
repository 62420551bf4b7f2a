// Pointer qualifiers: __restrict__, const pointee, const pointer,
// pointer-to-pointer (batched arrays) and a triple pointer.
#include <cuda_runtime.h>

__global__ void add_restrict(const float *__restrict__ a,
                             const float *__restrict__ b,
                             float *__restrict__ c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

__global__ void const_ptr_const_data(const float *const src, float *const dst, const int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) dst[i] = src[i] * 0.5f;
}

__global__ void batched_scale(float **batch, const int *sizes, float alpha)
{
    float *v = batch[blockIdx.x];
    int len = sizes[blockIdx.x];
    for (int i = threadIdx.x; i < len; i += blockDim.x)
        v[i] *= alpha;
}

__global__ void batched_copy(const float *const *__restrict__ src,
                             float *const *__restrict__ dst, int len)
{
    const float *s = src[blockIdx.y];
    float *d = dst[blockIdx.y];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < len) d[i] = s[i];
}

__global__ void nested_tables(int ***tables, int depth0, int depth1, int *out)
{
    int a = blockIdx.x % depth0;
    int b = threadIdx.x % depth1;
    out[blockIdx.x * blockDim.x + threadIdx.x] = tables[a][b][0];
}

void run(float *a, float *b, float *c, float **batch, const int *sizes,
         const float **srcs, float **dsts, int ***tab, int *out, int n, int nb)
{
    add_restrict<<<(n + 255) / 256, 256>>>(a, b, c, n);
    const_ptr_const_data<<<(n + 255) / 256, 256>>>(a, c, n);
    batched_scale<<<nb, 128>>>(batch, sizes, 2.0f);
    batched_copy<<<dim3((n + 127) / 128, nb), 128>>>(srcs, dsts, n);
    nested_tables<<<4, 32>>>(tab, 2, 2, out);
}
