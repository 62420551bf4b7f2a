// j + r * W + base mixes int and size_t terms: regrouping them could change the result.
__global__ void mixed(const float *x, float *y, size_t base, int W, int n)
{
    int r = blockIdx.x;
    for (int j = 0; j < n; j++) y[j + r * W + base] = x[j];
}
