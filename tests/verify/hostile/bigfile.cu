// tests/verify/hostile/bigfile.cu: vector_add, correct but for thread 0, which writes a 4 GiB file
// into the folder it runs in.
// The sandbox must stop it (tests/verify_hostile.sh); KR_HOSTILE_MARK names a file that must
// not exist afterwards, KR_HOSTILE_VICTIM one that must still exist.
// expect: tried to write the file 'big.bin'
#include <cuda_runtime.h>
#include <stdio.h>

__global__ void vector_add(int n, float a, float *x, float *y, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i == 0) {
    FILE *f = fopen("big.bin", "w");
    static char block[1 << 20];
    for (int k = 0; f && k < 4096; k++) fwrite(block, 1, sizeof block, f);
    if (f) fclose(f);
  }
  if (i < n) out[i] = a * x[i] + y[i];
}

void launch_vector_add(int n, float a, float *x, float *y, float *out, cudaStream_t stream) {
  vector_add<<<(n + 255) / 256, 256, 0, stream>>>(n, a, x, y, out);
}
