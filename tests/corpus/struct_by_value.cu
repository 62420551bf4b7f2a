// Structs passed to kernels by value: a POD parameter block, a small
// templated view, and a struct containing a fixed-size array.
#include <cuda_runtime.h>

struct SaxpyArgs {
    int n;
    float a;
    const float *x;
    float *y;
};

template <typename T>
struct View2D {
    T *data;
    int rows, cols, stride;
    __device__ T &at(int r, int c) const { return data[r * stride + c]; }
};

typedef struct {
    float m[9];
} Mat3;

__global__ void saxpy_struct(SaxpyArgs args)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < args.n)
        args.y[i] = args.a * args.x[i] + args.y[i];
}

__global__ void fill_view(View2D<float> v, float val)
{
    int r = blockIdx.y * blockDim.y + threadIdx.y;
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (r < v.rows && c < v.cols)
        v.at(r, c) = val;
}

__global__ void transform_points(const float3 *in, float3 *out, Mat3 M, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float3 p = in[i];
    out[i] = make_float3(M.m[0] * p.x + M.m[1] * p.y + M.m[2] * p.z,
                         M.m[3] * p.x + M.m[4] * p.y + M.m[5] * p.z,
                         M.m[6] * p.x + M.m[7] * p.y + M.m[8] * p.z);
}

void run(float *x, float *y, float *img, float3 *pts, int n, int rows, int cols)
{
    SaxpyArgs args{n, 2.0f, x, y};
    saxpy_struct<<<(n + 255) / 256, 256>>>(args);

    View2D<float> v{img, rows, cols, cols};
    dim3 block(32, 8);
    dim3 grid((cols + 31) / 32, (rows + 7) / 8);
    fill_view<<<grid, block>>>(v, 0.0f);

    Mat3 rot = {{0, -1, 0, 1, 0, 0, 0, 0, 1}};
    transform_points<<<(n + 127) / 128, 128>>>(pts, pts, rot, n);
}
