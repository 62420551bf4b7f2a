// Stand-in for CUDA's <cooperative_groups/reduce.h> in the krewrite CPU emulator: see kr_emu_cg.h.
#pragma once
#include "../../kr_cuda_shim.h"
