// Stand-in for CUB: not supported by the krewrite CPU emulator.
#pragma once
#error "CUB is not supported by the krewrite CPU emulator"
