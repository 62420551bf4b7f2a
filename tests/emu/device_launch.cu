// A kernel launched from device code (dynamic parallelism): refused by the CPU emulator.
__global__ void child(float *y)
{
    y[threadIdx.x] = 1.0f;
}

__global__ void parent(float *y)
{
    if (threadIdx.x == 0)
        child<<<1, 32>>>(y);
}
