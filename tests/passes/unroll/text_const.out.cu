// Full unrolling by text: a constant trip count from a #define, a one-line body.
#define K 4
__global__ void dot4(const float *a, const float *b, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float acc = 0.0f;
    { const int k = 0; acc += a[i * K + k] * b[k]; }
    { const int k = 1; acc += a[i * K + k] * b[k]; }
    { const int k = 2; acc += a[i * K + k] * b[k]; }
    { const int k = 3; acc += a[i * K + k] * b[k]; }
    out[i] = acc;
}
