#!/usr/bin/env bash
# bench/tc_run.sh: the device call behind bench/results/conv-occupancy-2026-12-04.json: bench/h200_tensor.sh
# on the convolutions' tensor-core schedules at two blocks per SM (stages 2 and 3, and 64-row tiles),
# with the matmul schedules as a check that nothing else moved.
export KR_TC_RUNS="conv_tf32|conv2d|recipe_igemm.lua|precision=tf32 api=wgmma bk=32 bn=96
crmp_tf32|conv_relu_maxpool|recipe_fused.lua|precision=tf32 api=wgmma bk=32 bn=96
conv_fp16|conv2d|recipe_igemm.lua|precision=fp16 api=wgmma bn=96
conv_3xtf32|conv2d|recipe_igemm.lua|precision=3xtf32 api=wgmma bk=32 bn=96
matmul_bf16|matmul_bf16|recipe.lua|
matmul_tf32|matmul|recipe_tc.lua|precision=tf32 api=wgmma bm=256 bn=128"
export KR_TC_SET_conv_tf32="stages=3|stages=2|bm=64 stages=4|bm=64 stages=3|stages=4"
export KR_TC_SET_crmp_tf32="stages=3|stages=2|bm=64 stages=4"
export KR_TC_SET_conv_fp16="stages=3|stages=2|stages=1"
export KR_TC_SET_conv_3xtf32="stages=4|bm=64 stages=4"
export KR_TC_SET_matmul_bf16="stages=4" KR_TC_SET_matmul_tf32="stages=4"
export KR_TC_VERIFY="conv2d|recipe_igemm.lua|precision=tf32 api=wgmma bn=96 stages=3
conv_relu_maxpool|recipe_fused.lua|precision=tf32 api=wgmma bn=96 stages=3"
export KR_DEADLINE=520
bash bench/h200_tensor.sh
