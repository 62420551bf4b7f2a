// tests/emu/intrin.cu: the fast math intrinsics over a buffer of arguments, one intrinsic per
// launch (op numbers as in tests/emu/intrin_cases.h). Run on the CPU emulator by
// tests/unit/test_emu_intrin.c and, with nvcc, on the GPU by tests/gpu/gpu_intrin.c.
__global__ void intrinsic(int op, int n, const float *x, const float *y, float *out)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        float a = x[i], b = y[i], r = 0.0f;
        switch (op) {
        case 0: r = __expf(a); break;
        case 1: r = __exp10f(a); break;
        case 2: r = __logf(a); break;
        case 3: r = __log2f(a); break;
        case 4: r = __log10f(a); break;
        case 5: r = __sinf(a); break;
        case 6: r = __cosf(a); break;
        case 7: r = __tanf(a); break;
        case 8: r = __powf(a, b); break;
        case 9: r = __fdividef(a, b); break;
        case 10: r = rsqrtf(a); break;
        case 11: r = __saturatef(a); break;
        case 12: { float s, c; __sincosf(a, &s, &c); r = s + c; } break;
        }
        out[i] = r;
    }
}
