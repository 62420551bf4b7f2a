// Row softmax: one thread per row (naive). fast_math lowers expf and the float division.
__global__ void softmax(const float *x, float *y, int rows, int cols)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    const float *xr = x + r * cols;
    float m = xr[0];
    for (int c = 1; c < cols; ++c) m = fmaxf(m, xr[c]);
    float s = 0.0f;
    for (int c = 0; c < cols; ++c) s += expf(xr[c] - m);
    for (int c = 0; c < cols; ++c) y[r * cols + c] = expf(xr[c] - m) / s;
}
