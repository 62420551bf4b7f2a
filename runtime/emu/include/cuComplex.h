// Stand-in for CUDA's <cuComplex.h> in the krewrite CPU emulator: the complex types of the CUDA
// libraries' host APIs, as CUDA lays them out (float2, double2), with their basic helpers.
#pragma once
#include "../kr_cuda_shim.h"

typedef float2 cuFloatComplex;
typedef double2 cuDoubleComplex;
typedef cuFloatComplex cuComplex;

inline float cuCrealf(cuFloatComplex x) { return x.x; }
inline float cuCimagf(cuFloatComplex x) { return x.y; }
inline cuFloatComplex make_cuFloatComplex(float r, float i) { return make_float2(r, i); }
inline cuFloatComplex make_cuComplex(float r, float i) { return make_float2(r, i); }
inline double cuCreal(cuDoubleComplex x) { return x.x; }
inline double cuCimag(cuDoubleComplex x) { return x.y; }
inline cuDoubleComplex make_cuDoubleComplex(double r, double i) { return make_double2(r, i); }
