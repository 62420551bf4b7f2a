// A CRLF file: the vector code the pass writes keeps the file's CRLF line endings.
__global__ void saxpy(float a, const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float t = a * x[i];
    y[i] = t + y[i];
  }
}
