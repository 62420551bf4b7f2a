// Stand-in for CUB's <cub/device/device_scan.cuh> in the krewrite CPU emulator: see cub/cub.cuh.
#pragma once
#include "../cub.cuh"
