// Stand-in for <cuda_fp8.h>: not supported by the krewrite CPU emulator.
#pragma once
#error "fp8 types (cuda_fp8.h) are not supported by the krewrite CPU emulator"
