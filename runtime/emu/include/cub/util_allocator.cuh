// Stand-in for CUB's <cub/util_allocator.cuh> in the krewrite CPU emulator: see cub/cub.cuh.
#pragma once
#include "cub.cuh"
