template <typename T>
__global__ void k(T *y) { y[0] = T(1); }

template <>
__global__ void k<float>(float *y) { y[0] = 2.0f; }

template <typename T>
__global__ void j(T *y) { y[0] = T(1); }
