// A partial unroll of a loop with a run-time trip count; the factor comes from the command line.
__global__ void dot(const float *a, const float *b, float *out, int n)
{
    float acc = 0.0f;
    for (int k = threadIdx.x; k < n; k += blockDim.x)
        acc += a[k] * b[k];
    atomicAdd(out, acc);
}
