template <template <typename> class C>
__global__ void tt(float *y) { y[0] = 1.0f; }
