template <typename T, int N>
__global__ void k(T *y) { y[0] = T(N); }
