// sinf, cosf, logf and powf on floats; exp() and pow() on float arguments use the float overloads.
__global__ void waves(const float *t, float *out, int n, float f)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float a = t[i] * f;
    out[i] = sinf(a) * cosf(a) + logf(1.0f + a * a) + powf(a, 1.5f) + exp(a) + pow(a, f);
}
