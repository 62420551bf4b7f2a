// A size_t subtree is hoisted as it stands (its own type), so no conversion moves.
__global__ void gather(const float *x, float *y, size_t stride, int n)
{
    int r = blockIdx.x;
    const size_t kr_idx0 = (size_t)r * stride + 3 * stride;
    for (int j = 0; j < n; ++j)
        y[kr_idx0 + j] = x[j];
}
