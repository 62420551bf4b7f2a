template <typename T>
__global__ void k(T *y) { y[0] = T(1); }
