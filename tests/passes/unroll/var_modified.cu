// The body skips ahead by changing the induction variable.
__global__ void skip(const float *a, float *out)
{
    float s = 0.0f;
    for (int k = 0; k < 16; ++k) {
        s += a[k];
        if (s > 1.0f) k += 2;
    }
    out[0] = s;
}
