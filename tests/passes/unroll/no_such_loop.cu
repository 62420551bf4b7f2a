// 128 iterations: above the default cap of 64 for a full unroll.
__global__ void big(const float *a, float *out)
{
    float s = 0.0f;
    for (int k = 0; k < 128; ++k) s += a[k];
    out[0] = s;
}
