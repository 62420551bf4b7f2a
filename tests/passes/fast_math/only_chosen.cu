// Two kernels and a device helper: only the chosen kernel's own body is rewritten.
__device__ float sigmoid(float v) { return 1.0f / (1.0f + expf(-v)); }

__global__ void act(const float *x, float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = sigmoid(x[i]) + expf(x[i]);
}

__global__ void other(const float *x, float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = expf(x[i]) / 3.0f;
}
