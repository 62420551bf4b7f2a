// Stand-in for CUB's <cub/device/device_select.cuh> in the krewrite CPU emulator: see cub/cub.cuh.
#pragma once
#include "../cub.cuh"
