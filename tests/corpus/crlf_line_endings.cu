// This file uses Windows CRLF line endings on every line (including the
// backslash-continued macro below).
#include <cuda_runtime.h>

#define CLAMP01(v) \
    fminf(fmaxf((v), 0.0f), 1.0f)

__global__ void rgb_to_gray(const uchar3 *rgb, unsigned char *gray, int w, int h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    uchar3 p = rgb[y * w + x];
    float l = 0.299f * p.x + 0.587f * p.y + 0.114f * p.z;
    gray[y * w + x] = (unsigned char)(CLAMP01(l / 255.0f) * 255.0f);
}

__global__ void gamma_correct(float *img, int n, float gamma)
{
    /* multi-line comment
       spanning CRLF lines */
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        img[i] = powf(CLAMP01(img[i]), 1.0f / gamma);
}

void convert(const uchar3 *rgb, unsigned char *gray, float *img, int w, int h)
{
    dim3 block(16, 16);
    dim3 grid((w + 15) / 16, (h + 15) / 16);
    rgb_to_gray<<<grid, block>>>(rgb, gray, w, h);
    gamma_correct<<<64, 256>>>(img, w * h, 2.2f);
}
