// A definition in an #if group the file settles (nothing defines ROW_MAJOR, no header is included):
// the one the compiler takes, as the parser's view reads the file, is written out.
#ifdef ROW_MAJOR
#define IDX(r, c) ((r) * 64 + (c))
#else
#define IDX(r, c) ((c) * 64 + (r))
#endif
__global__ void k(float *x) { x[((threadIdx.x) * 64 + (threadIdx.y))] = 0.0f; }
