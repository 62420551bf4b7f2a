#!/usr/bin/env bash
# bench/tc_compile.sh: the device call behind bench/results/tc-compile-2026-12-04.json: the tensor-core targets of
# matmul (tf32, 3xtf32), matmul_bf16 and conv2d's fp32-grade 3xtf32 at their best schedules, each beside PyTorch
# eager and torch.compile on the same inputs in the same run (bench/h200_tensor.sh with KR_TC_COMPILE=1).
export KR_TC_RUNS="matmul_tf32|matmul|recipe_tc.lua|precision=tf32 api=wgmma bm=256 bn=128
matmul_3xtf32|matmul|recipe_tc.lua|precision=3xtf32 api=wgmma bk=32 bm=128 bn=128
matmul_bf16|matmul_bf16|recipe.lua|
conv_3xtf32|conv2d|recipe_igemm.lua|precision=3xtf32 api=wgmma bk=32 bn=96"
export KR_TC_SET_matmul_tf32="stages=4" KR_TC_SET_matmul_3xtf32="stages=4" KR_TC_SET_matmul_bf16="stages=4"
export KR_TC_SET_conv_3xtf32="stages=4 persistent=true"
export KR_TC_VERIFY="" KR_TC_COMPILE=1 KR_TC_TORCH_TIMEOUT=${KR_TC_TORCH_TIMEOUT:-120}
export KR_DEADLINE=${KR_DEADLINE:-300}
bash bench/h200_tensor.sh
