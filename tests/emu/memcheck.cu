// Kernels for tests/unit/test_emu.c: the emulator's memory checker. Each check has a kernel it
// must report and a correct one it must not: exact bounds inside a buffer's allocation padding,
// fresh shared memory for every block, and data races on global and shared memory. The tests
// name lines of this file: keep the marked lines where they are or update the tests.
#include <cuda_runtime.h>
#include <cstdio>

// Copies n elements: correct.
__global__ void copy_n(const float *x, float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = x[i];
}

// Reads x[n], one past the end: with n = 1001 floats the allocation's padding up to 16 bytes
// lies there, so no guard page catches it; the checker must.
__global__ void read_one_past(const float *x, float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = x[i + 1];  // line 22: reads x[n] in the last thread
}

// Reads x[-1] in thread 0.
__global__ void read_before_start(const float *x, float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = x[i - 1];  // line 30
}

// Half the threads fill the tile; all read it.
__global__ void uninit_shared(const float *x, float *y, int n)
{
    __shared__ float tile[64];
    int t = threadIdx.x;
    if (t < 32)
        tile[t] = x[t];
    __syncthreads();
    y[t] = tile[t];  // line 41: threads 32-63 read what no thread wrote
}

// Every thread fills its own element first: correct.
__global__ void init_shared(const float *x, float *y, int n)
{
    __shared__ float tile[64];
    int t = threadIdx.x;
    tile[t] = x[t];
    __syncthreads();
    y[t] = tile[63 - t];
}

// Only block 0 writes the shared value; the other blocks read it as if it carried over.
__global__ void carried_shared(const float *x, float *y, int n)
{
    __shared__ float total;
    if (blockIdx.x == 0 && threadIdx.x == 0)
        total = x[0];
    __syncthreads();
    if (threadIdx.x == 0)
        y[blockIdx.x] = total;  // line 62: block 1 reads a value no thread of it wrote
}

// Dynamic shared memory is fresh for every block too.
__global__ void carried_dynamic(const float *x, float *y, int n)
{
    extern __shared__ float buf[];
    if (blockIdx.x == 0)
        buf[threadIdx.x] = x[threadIdx.x];
    __syncthreads();
    y[blockIdx.x * blockDim.x + threadIdx.x] = buf[threadIdx.x];  // line 72
}

// The lost update: every thread adds into y[0] without an atomic.
__global__ void lost_update(const float *x, float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[0] += x[i];  // line 80
}

// Thread 0 of every block writes y[0]: blocks of a launch are never ordered.
__global__ void cross_block(const float *x, float *y, int n)
{
    if (threadIdx.x == 0)
        y[0] = x[blockIdx.x];  // line 87
}

// The same sum with atomics: correct.
__global__ void atomic_sum(const float *x, float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        atomicAdd(&y[0], x[i]);
}

// A tree reduction in shared memory with __syncthreads, one atomic per block: correct.
__global__ void reduce_sync(const float *x, float *y, int n)
{
    __shared__ float s[128];
    int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
    s[t] = i < n ? x[i] : 0.0f;
    __syncthreads();
    for (int k = blockDim.x / 2; k > 0; k >>= 1) {
        if (t < k)
            s[t] += s[t + k];
        __syncthreads();
    }
    if (t == 0)
        atomicAdd(&y[0], s[0]);
}

// The same, its last steps warp-synchronous without __syncwarp: lanes of a warp are not ordered
// by running in one warp (independent thread scheduling since Volta).
__global__ void reduce_warp_unsynced(const float *x, float *y, int n)
{
    __shared__ float s[128];
    int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
    s[t] = i < n ? x[i] : 0.0f;
    __syncthreads();
    for (int k = blockDim.x / 2; k > 32; k >>= 1) {
        if (t < k)
            s[t] += s[t + k];
        __syncthreads();
    }
    if (t < 32) {
        volatile float *v = s;
        for (int k = 32; k > 0; k >>= 1)
            v[t] += v[t + k];  // line 130
    }
    if (t == 0)
        atomicAdd(&y[0], s[0]);
}

// The same with __syncwarp between the steps: correct.
__global__ void reduce_warp_synced(const float *x, float *y, int n)
{
    __shared__ float s[128];
    int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
    s[t] = i < n ? x[i] : 0.0f;
    __syncthreads();
    for (int k = blockDim.x / 2; k > 32; k >>= 1) {
        if (t < k)
            s[t] += s[t + k];
        __syncthreads();
    }
    for (int k = 32; k > 0; k >>= 1) {
        float v = 0.0f;
        if (t < 32)
            v = s[t] + s[t + k];
        __syncwarp();
        if (t < 32)
            s[t] = v;
        __syncwarp();
    }
    if (t == 0)
        atomicAdd(&y[0], s[0]);
}

// A warp shuffle reduction, one atomic per warp: correct.
__global__ void reduce_shuffle(const float *x, float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = i < n ? x[i] : 0.0f;
    for (int o = 16; o > 0; o >>= 1)
        v += __shfl_down_sync(0xffffffffu, v, o);
    if ((threadIdx.x & 31) == 0)
        atomicAdd(&y[0], v);
}

// Lanes exchange through shared memory around __syncwarp: correct; without it (n = 0), a race.
__global__ void warp_exchange(const float *x, float *y, int n)
{
    __shared__ float s[32];
    int lane = threadIdx.x;
    s[lane] = 0.0f;
    __syncthreads();
    s[lane] = x[lane];
    if (n > 0)
        __syncwarp();
    y[lane] = s[lane ^ 1];  // line 182
}

// Prints n lines of 100 characters from thread 0: past the 1 MiB FIFO from about 10486 lines.
__global__ void chatty(const float *x, float *y, int n)
{
    if (threadIdx.x == 0 && blockIdx.x == 0)
        for (int i = 0; i < n; i++)
            printf("%098d\n", i);
}

// Two static shared arrays side by side; a[32] is one past the end of a, not b[0].
__global__ void shared_past_end(const float *x, float *y, int n)
{
    __shared__ float a[32], b[32];
    int t = threadIdx.x;
    a[t] = x[t];
    b[t] = -x[t];
    __syncthreads();
    y[t] = a[t + (n > 0)] + b[t];  // line 201
}

// Shared memory at namespace scope and in a template, each instance its own (correct).
__shared__ int g_count;
template <typename T, int N>
__global__ void shared_in_template(const T *x, T *y, int n)
{
    __shared__ T tile[N];
    if (threadIdx.x == 0)
        g_count = 0;
    tile[threadIdx.x] = x[threadIdx.x];
    __syncthreads();
    atomicAdd(&g_count, 1);
    __syncthreads();
    y[blockIdx.x * N + threadIdx.x] = tile[N - 1 - threadIdx.x] + (T)g_count;
}

// Shared declarations with qualifiers, alignment, `static` and two dimensions, side by side and
// each written before it is read (correct).
__global__ void shared_kinds(const float *x, float *y, int n)
{
    __shared__ __align__(16) float a[64];
    volatile __shared__ int flag;
    static __shared__ float4 v[16];
    __shared__ float m[4][17];
    int t = threadIdx.x;
    a[t] = x[t];
    if (t == 0)
        flag = 1;
    if (t < 16)
        v[t] = make_float4(1.0f, 2.0f, 3.0f, 4.0f);
    m[t % 4][t / 4] = 1.0f;
    __syncthreads();
    y[blockIdx.x * 64 + t] = a[63 - t] + flag + v[t % 16].y + m[t % 4][t / 4] +
                             (float)((uintptr_t)&a[0] % 16);
}
