// x is read as floats but written as float4 through a cast.
__global__ void bump(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float s = x[0];
  if (i < n / 4) ((float4 *)x)[i] = make_float4(s, s, s, s);
}
