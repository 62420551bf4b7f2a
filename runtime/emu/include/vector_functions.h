// Stand-in for CUDA's <vector_functions.h> in the krewrite CPU emulator: everything is in the shim.
#pragma once
#include "../kr_cuda_shim.h"
