// Stand-in for <curand_kernel.h>: not supported by the krewrite CPU emulator.
#pragma once
#error "cuRAND device functions are not supported by the krewrite CPU emulator"
