// Full unrolling by text of a downward loop with a block body that declares a local.
__global__ void taps(const float *x, float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i + 6 >= n) return;
    float acc = 0.0f;
    for (int t = 6; t >= 0; t -= 3) {
        float v = x[i + t];
        acc += v * (t + 1);
    }
    y[i] = acc;
}
