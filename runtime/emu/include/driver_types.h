// Stand-in for CUDA's <driver_types.h> in the krewrite CPU emulator: everything is in the shim (kr_emu_host.h).
#pragma once
#include "../kr_cuda_shim.h"
