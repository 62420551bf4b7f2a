// The inner loop is the unbraced body of the outer one and carries a pragma: the declaration
// goes above the pragma, inside new braces.
__global__ void tile_copy(const float *in, float *out, int ld, int n)
{
    int tx = blockIdx.x * 16, ty = blockIdx.y * 16;
    for (int i = 0; i < 16; ++i)
#pragma unroll 4
        for (int j = 0; j < 16; ++j) out[(ty + i) * ld + tx + j] = in[(tx + j) * ld + ty + i];
}
