// A pointer named v: its vector local would be kr_v, the name of the vector index, so one of
// them gets a suffix.
__global__ void square(const int *v, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  // vectorize: whole vectors only when v and out are 16-byte aligned (v + 1 is not)
  const bool kr_aligned = (reinterpret_cast<unsigned long long>(v) | reinterpret_cast<unsigned long long>(out)) % 16 == 0;
  const int kr_nv = kr_aligned ? (n) / 4 : 0;
  if (i < kr_nv) {
    const int kr_v = i;
    const int4 kr_v_1 = reinterpret_cast<const int4 *>(v)[kr_v];
    int4 kr_out;
    kr_out.x = kr_v_1.x * kr_v_1.x;
    kr_out.y = kr_v_1.y * kr_v_1.y;
    kr_out.z = kr_v_1.z * kr_v_1.z;
    kr_out.w = kr_v_1.w * kr_v_1.w;
    reinterpret_cast<int4 *>(out)[kr_v] = kr_out;
  }
  for (int kr_e = kr_nv * 4 + i; kr_e < (n); kr_e += gridDim.x * blockDim.x) {
    const int i = kr_e;
    out[i] = v[i] * v[i];
  }
}
