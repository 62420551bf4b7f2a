// 'c' changes inside the loop, so c * W * H is not invariant there.
__global__ void walk(const float *x, float *y, int W, int H, int n)
{
    int c = blockIdx.x;
    for (int j = 0; j < n; ++j) {
        y[j] = x[c * W * H + j];
        c = (c + 1) % 4;
    }
}
