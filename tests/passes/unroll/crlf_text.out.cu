// CRLF line endings: the copies keep them.
__global__ void taps3(const float *x, float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i + 2 >= n) return;
    float acc = 0.0f;
    {
        const int t = 0;
        acc += x[i + t];
    }
    {
        const int t = 1;
        acc += x[i + t];
    }
    {
        const int t = 2;
        acc += x[i + t];
    }
    y[i] = acc;
}
