// Double precision throughout: exp(double) and double divisions are never lowered.
__global__ void dsoftmax(const double *x, double *y, int n, double s)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    double e = exp(x[i]);
    y[i] = e / s + x[i] / 2.0;
}
