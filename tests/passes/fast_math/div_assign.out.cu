// Compound division of a float element and of a float local; the integer division stays.
__global__ void normalize(float *v, const float *norm, int n, int per)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int group = i / per;
    float s = norm[group];
    v[i] = __fdividef(v[i], s);
    float h = v[i];
    h = __fdividef(h, 2);
    v[i] = h;
}
