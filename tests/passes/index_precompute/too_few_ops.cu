// i * W has one operator, below the default min_ops of 2.
__global__ void copy2d(const float *x, float *y, int W, int H)
{
    for (int i = 0; i < H; ++i)
        for (int j = 0; j < W; ++j) y[i * W + j] = x[i * W + j];
}
