// Loop forms inside kernels: grid-stride for, nested for, while, do-while,
// #pragma unroll with and without a count, and a range-for over a local array.
#include <cuda_runtime.h>

__global__ void grid_stride_scale(float *x, float a, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)blockDim.x * gridDim.x) {
        x[i] *= a;
    }
}

__global__ void nested_box_blur(const float *in, float *out, int w, int h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    float sum = 0.0f;
    int cnt = 0;
    for (int dy = -1; dy <= 1; ++dy) {
        for (int dx = -1; dx <= 1; ++dx) {
            int xx = x + dx, yy = y + dy;
            if (xx < 0 || yy < 0 || xx >= w || yy >= h) continue;
            sum += in[yy * w + xx];
            ++cnt;
        }
    }
    out[y * w + x] = sum / cnt;
}

__global__ void collatz_steps(const unsigned *start, unsigned *steps, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned v = start[i];
    unsigned s = 0;
    while (v > 1 && s < 1000) {
        v = (v & 1) ? 3 * v + 1 : v / 2;
        ++s;
    }
    steps[i] = s;
}

__global__ void newton_sqrt(float *x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float a = x[i], g = a > 1.0f ? a / 2.0f : 1.0f, prev;
    int iter = 0;
    do {
        prev = g;
        g = 0.5f * (g + a / g);
        iter++;
    } while (fabsf(g - prev) > 1e-6f && iter < 20);
    x[i] = g;
}

__global__ void unrolled_dot4(const float4 *a, const float4 *b, float *out, int n4)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n4) return;
    float va[4] = {a[i].x, a[i].y, a[i].z, a[i].w};
    float vb[4] = {b[i].x, b[i].y, b[i].z, b[i].w};
    float acc = 0.0f;
#pragma unroll
    for (int k = 0; k < 4; ++k) acc += va[k] * vb[k];
#pragma unroll 2
    for (int k = 0; k < 4; ++k) acc -= 0.0f * va[k];
    float extra = 0.0f;
    for (float v : va) extra += v;
    out[i] = acc + 0.0f * extra;
}

void run_loops(float *x, const float *in, float *out, unsigned *s, unsigned *st, int w, int h)
{
    int n = w * h;
    grid_stride_scale<<<128, 256>>>(x, 2.0f, n);
    nested_box_blur<<<dim3((w + 15) / 16, (h + 15) / 16), dim3(16, 16)>>>(in, out, w, h);
    collatz_steps<<<(n + 255) / 256, 256>>>(s, st, n);
    newton_sqrt<<<(n + 255) / 256, 256>>>(x, n);
}
