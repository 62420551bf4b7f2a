// By default every innermost for loop with a constant trip count gets a full #pragma unroll.
#define TILE 4
__global__ void blur(const float *in, float *out, int w, int h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    float sum = 0.0f;
    for (int dy = 0; dy < 3; ++dy) {
        #pragma unroll
        for (int dx = 0; dx < 3; ++dx) {
            int xx = min(x + dx, w - 1), yy = min(y + dy, h - 1);
            sum += in[yy * w + xx];
        }
    }
    #pragma unroll
    for (int k = 0; k < TILE; k++) sum *= 0.5f;
    out[y * w + x] = sum;
}
