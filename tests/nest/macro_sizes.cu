// expect 0: reduce    k in [0, NK)
#define NI 100
#define NK 37
constexpr int NJ = 50;
__global__ void k(const double *A, const double *B, double *C) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < NI && j < NJ) {
    double s = 0;
    for (int k = 0; k < NK; k++) s += A[k * NI + i] * B[j * NK + k];
    C[i * NJ + j] = s;
  }
}
