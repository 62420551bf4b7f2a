// i * W has one operator, below the default min_ops of 2.
__global__ void copy2d(const float *x, float *y, int W, int H)
{
    for (int i = 0; i < H; ++i)
        { const int kr_idx0 = i * W;
        for (int j = 0; j < W; ++j) y[kr_idx0 + j] = x[kr_idx0 + j]; }
}
