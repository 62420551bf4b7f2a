// Kernels for tests/unit/test_emu.c: the CPU emulator's basic behaviour (grid-stride loops,
// shared memory and barriers, warp shuffles, atomics, dynamic shared memory, templates) and
// the errors it must report (out-of-bounds accesses, hangs, deadlocks, crashes, traps).
#include <cuda_runtime.h>
#include <cassert>
#include <cstdio>

__global__ void saxpy(int n, float a, const float *x, float *y)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        y[i] = a * x[i] + y[i];
}

// One partial sum per block; blockDim.x is a power of two up to 256.
__global__ void block_sum(const float *x, float *partial, int n)
{
    __shared__ float s[256];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    s[t] = i < n ? x[i] : 0.0f;
    __syncthreads();
    for (int k = blockDim.x / 2; k > 0; k >>= 1) {
        if (t < k)
            s[t] += s[t + k];
        __syncthreads();
    }
    if (t == 0)
        partial[blockIdx.x] = s[0];
}

// The same with the barrier inside the loop missing: a race the emulator must expose.
__global__ void block_sum_racy(const float *x, float *partial, int n)
{
    __shared__ float s[256];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    s[t] = i < n ? x[i] : 0.0f;
    __syncthreads();
    for (int k = blockDim.x / 2; k > 0; k >>= 1) {
        if (t < k)
            s[t] += s[t + k];
    }
    if (t == 0)
        partial[blockIdx.x] = s[0];
}

__device__ float warp_reduce(float v)
{
    for (int o = warpSize / 2; o > 0; o /= 2)
        v += __shfl_down_sync(0xffffffffu, v, o);
    return v;
}

// One sum per warp, written by lane 0; also the warp's ballot of positive values.
__global__ void warp_sum(const float *x, float *sums, unsigned *ballots)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = warp_reduce(x[i]);
    unsigned b = __ballot_sync(0xffffffffu, x[i] > 0.0f);
    if ((threadIdx.x & 31) == 0) {
        sums[i / 32] = v;
        ballots[i / 32] = b;
    }
}

// Shuffles of 64-bit and half2 values, shuffles with a width, and the votes.
__global__ void shuffles_and_votes(const double *d, const float *f, double *dout, float *hout,
                                   int *votes)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x, lane = threadIdx.x & 31;
    dout[i] = __shfl_xor_sync(0xffffffffu, d[i], 1);
    __half2 h = __floats2half2_rn(f[i], -f[i]);
    __half2 r = __shfl_sync(0xffffffffu, h, 31 - lane);
    hout[2 * i] = __low2float(r);
    hout[2 * i + 1] = __high2float(r);
    votes[3 * i] = __any_sync(0xffffffffu, f[i] > 40.0f);
    votes[3 * i + 1] = __all_sync(0xffffffffu, f[i] >= 0.0f);
    votes[3 * i + 2] = __shfl_up_sync(0xffffffffu, i, 3, 8);
}

// Every kind of atomic, each with a result that does not depend on the order of threads.
__global__ void atomics(int *ci, unsigned *cu, unsigned long long *cull, float *cf, double *cd)
{
    int t = threadIdx.x;
    atomicAdd(&ci[0], t);
    atomicSub(&ci[1], t);
    atomicMax(&ci[2], t * 3 - 50);
    atomicMin(&ci[3], t * 3 - 50);
    int old = ci[4], assumed;
    do {
        assumed = old;
        old = atomicCAS(&ci[4], assumed, assumed + t);
    } while (old != assumed);
    atomicExch(&ci[5], 7);
    atomicAnd(&cu[0], ~(1u << (t % 32)));
    atomicOr(&cu[1], 1u << (t % 32));
    atomicXor(&cu[2], (unsigned)t);
    atomicInc(&cu[3], 9u);
    atomicDec(&cu[4], 9u);
    atomicAdd(&cull[0], (unsigned long long)t << 33);
    atomicMax(&cull[1], (unsigned long long)t);
    atomicAdd(&cf[0], 0.5f);
    atomicAdd(&cd[0], 0.25);
}

__global__ void histogram(const int *x, int n, unsigned *bins, int nbins)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        atomicAdd(&bins[x[i] % nbins], 1u);
}

// The low 10 bits of the dynamic shared memory's address (1024-byte aligned on a GPU, whatever the size).
__global__ void dyn_align(unsigned *out)
{
    extern __shared__ __align__(1024) unsigned char raw[];
    if (threadIdx.x == 0) {
        raw[0] = 1;
        out[blockIdx.x] = (unsigned)__cvta_generic_to_shared(raw) & 1023u;
    }
}

// Reverses each block's chunk through dynamic shared memory.
__global__ void reverse_chunks(const float *x, float *y)
{
    extern __shared__ float buf[];
    int t = threadIdx.x;
    buf[t] = x[blockIdx.x * blockDim.x + t];
    __syncthreads();
    y[blockIdx.x * blockDim.x + t] = buf[blockDim.x - 1 - t];
}

template <typename T, int N>
__global__ void tk(const T *x, T *y, T scale)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
#pragma unroll
    for (int k = 0; k < N; k++)
        y[i * N + k] = x[i * N + k] * scale + T(k);
}

// Writes y[0..n] inclusive: one element too many.
__global__ void write_past_end(float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i <= n)
        y[i] = 1.0f;
}

// Reads x[0..n] inclusive.
__global__ void read_past_end(const float *x, float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i <= n)
        y[i < n ? i : 0] = x[i];
}

__global__ void spin(int *flag)
{
    while (*flag == 0) {
    }
}

__global__ void divergent_barrier(float *y)
{
    if (threadIdx.x < 16)
        __syncthreads();
    y[threadIdx.x] = 1.0f;
}

// Writes through a bad pointer (the test passes one near address 0).
__global__ void null_write(float *p)
{
    p[threadIdx.x] = 1.0f;
}

__global__ void traps(int *x)
{
    if (threadIdx.x == 5)
        __trap();
    x[threadIdx.x] = 1;
}

__global__ void asserts(const int *x)
{
    assert(x[threadIdx.x] >= 0);
}

// Host code is compiled for the emulator but never run; its launches are blanked.
void run_all(int n, float *x, float *y, int *bins)
{
    float *d = nullptr;
    cudaMalloc(&d, n * sizeof(float));
    saxpy<<<(n + 255) / 256, 256>>>(n, 2.0f, x, y);
    block_sum<<<(n + 255) / 256, 256>>>(x,
                                        y, n);
    tk<float, 4><<<1, 32>>>(x, y, 2.0f);
    reverse_chunks<<<4, 64, 64 * sizeof(float)>>>(x, y);
    cudaDeviceSynchronize();
    printf("%s\n", cudaGetErrorString(cudaGetLastError()));
    cudaFree(d);
}
