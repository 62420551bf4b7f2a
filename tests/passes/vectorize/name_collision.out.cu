// A pointer named v: its vector local would be kr_v, the name of the vector index, so one of
// them gets a suffix.
__global__ void square(const int *v, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < (n) / 4) {
    const int kr_v = i;
    const int4 kr_v_1 = reinterpret_cast<const int4 *>(v)[kr_v];
    int4 kr_out;
    kr_out.x = kr_v_1.x * kr_v_1.x;
    kr_out.y = kr_v_1.y * kr_v_1.y;
    kr_out.z = kr_v_1.z * kr_v_1.z;
    kr_out.w = kr_v_1.w * kr_v_1.w;
    reinterpret_cast<int4 *>(out)[kr_v] = kr_out;
  }
  for (int kr_e = (n) / 4 * 4 + i; kr_e < (n); kr_e += gridDim.x * blockDim.x) {
    const int i = kr_e;
    out[i] = v[i] * v[i];
  }
}
