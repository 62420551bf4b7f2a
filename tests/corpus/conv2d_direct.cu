// Direct 2-D convolution, NCHW layout, stride/padding, one thread per output
// element, plus a variant that stages the filter in shared memory.
#include <cuda_runtime.h>

struct ConvShape {
    int N, C, H, W;      // input
    int K, R, S;         // filters: K outputs, R x S window
    int P, Q;            // output spatial size
    int stride, pad;
};

__global__ void conv2d_nchw(const float *__restrict__ in, const float *__restrict__ filt,
                            const float *__restrict__ bias, float *__restrict__ out, ConvShape s)
{
    int q = blockIdx.x * blockDim.x + threadIdx.x;
    int p = blockIdx.y * blockDim.y + threadIdx.y;
    int nk = blockIdx.z;
    int n = nk / s.K, k = nk % s.K;
    if (p >= s.P || q >= s.Q) return;

    float acc = bias ? bias[k] : 0.0f;
    for (int c = 0; c < s.C; ++c) {
        for (int r = 0; r < s.R; ++r) {
            int h = p * s.stride - s.pad + r;
            if (h < 0 || h >= s.H) continue;
            for (int t = 0; t < s.S; ++t) {
                int w = q * s.stride - s.pad + t;
                if (w < 0 || w >= s.W) continue;
                acc += in[((n * s.C + c) * s.H + h) * s.W + w] *
                       filt[((k * s.C + c) * s.R + r) * s.S + t];
            }
        }
    }
    out[((n * s.K + k) * s.P + p) * s.Q + q] = acc;
}

template <int R, int S>
__global__ void conv2d_smem_filter(const float *in, const float *filt, float *out, ConvShape s)
{
    __shared__ float f[64][R * S];   // up to 64 input channels
    int k = blockIdx.z % s.K;
    int n = blockIdx.z / s.K;
    int tid = threadIdx.y * blockDim.x + threadIdx.x;
    for (int i = tid; i < s.C * R * S; i += blockDim.x * blockDim.y)
        f[i / (R * S)][i % (R * S)] = filt[k * s.C * R * S + i];
    __syncthreads();

    int q = blockIdx.x * blockDim.x + threadIdx.x;
    int p = blockIdx.y * blockDim.y + threadIdx.y;
    if (p >= s.P || q >= s.Q) return;
    float acc = 0.0f;
    for (int c = 0; c < s.C; ++c)
#pragma unroll
        for (int r = 0; r < R; ++r)
#pragma unroll
            for (int t = 0; t < S; ++t) {
                int h = p - s.pad + r, w = q - s.pad + t;
                if (h >= 0 && h < s.H && w >= 0 && w < s.W)
                    acc += in[((n * s.C + c) * s.H + h) * s.W + w] * f[c][r * S + t];
            }
    out[((n * s.K + k) * s.P + p) * s.Q + q] = acc;
}

void conv2d(const float *in, const float *filt, const float *bias, float *out, ConvShape s)
{
    dim3 block(16, 16);
    dim3 grid((s.Q + 15) / 16, (s.P + 15) / 16, s.N * s.K);
    if (s.R == 3 && s.S == 3 && s.stride == 1 && s.C <= 64)
        conv2d_smem_filter<3, 3><<<grid, block>>>(in, filt, out, s);
    else
        conv2d_nchw<<<grid, block>>>(in, filt, bias, out, s);
}
