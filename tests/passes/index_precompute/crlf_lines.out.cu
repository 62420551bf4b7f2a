// CRLF line endings: the hoisted declaration keeps them.
__global__ void rows(const float *x, float *y, int W, int n)
{
    int r = blockIdx.x;
    const int kr_idx0 = r * W * 2;
    for (int j = 0; j < n; ++j)
        y[kr_idx0 + j] = x[kr_idx0 + j];
}
