// Stand-in for CUB's <cub/warp/warp_reduce.cuh> in the krewrite CPU emulator: see cub/cub.cuh.
#pragma once
#include "../cub.cuh"
