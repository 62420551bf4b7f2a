// A break leaves the loop early: the copies could not keep it.
__global__ void first_neg(const float *a, int *out)
{
    int found = -1;
    for (int k = 0; k < 8; ++k) {
        if (a[k] < 0.0f) {
            found = k;
            break;
        }
    }
    out[0] = found;
}
