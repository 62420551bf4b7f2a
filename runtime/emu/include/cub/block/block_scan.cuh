// Stand-in for CUB's <cub/block/block_scan.cuh> in the krewrite CPU emulator: see cub/cub.cuh.
#pragma once
#include "../cub.cuh"
