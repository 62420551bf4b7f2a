// An #ifdef whose #endif was lost: the file does not build, and the message says where the group
// starts.
__global__ void k(float *x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
#ifdef CHECK_BOUNDS
    if (i >= n) return;
    x[i] = 0.0f;
}
