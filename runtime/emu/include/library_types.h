// Stand-in for CUDA's <library_types.h> in the krewrite CPU emulator: the data types that the
// CUDA libraries' host APIs (cuBLAS's GemmEx, …) name.
#pragma once
#include "../kr_cuda_shim.h"

typedef enum cudaDataType_t {
  CUDA_R_32F = 0,
  CUDA_R_64F = 1,
  CUDA_R_16F = 2,
  CUDA_R_8I = 3,
  CUDA_C_32F = 4,
  CUDA_C_64F = 5,
  CUDA_C_16F = 6,
  CUDA_C_8I = 7,
  CUDA_R_8U = 8,
  CUDA_C_8U = 9,
  CUDA_R_32I = 10,
  CUDA_C_32I = 11,
  CUDA_R_16BF = 14,
  CUDA_C_16BF = 15,
  CUDA_R_8F_E4M3 = 28,
  CUDA_R_8F_E5M2 = 29
} cudaDataType;

typedef enum libraryPropertyType_t { MAJOR_VERSION, MINOR_VERSION, PATCH_LEVEL } libraryPropertyType;
