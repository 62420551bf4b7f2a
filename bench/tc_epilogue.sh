#!/usr/bin/env bash
# bench/tc_epilogue.sh: the device call behind bench/results/conv-epilogue-2026-12-04.json: the wgmma
# convolutions with their accumulators stored through shared memory (bench/h200_tensor.sh).
export KR_TC_RUNS="conv_tf32|conv2d|recipe_igemm.lua|precision=tf32 api=wgmma bk=32 bn=96
crmp_tf32|conv_relu_maxpool|recipe_fused.lua|precision=tf32 api=wgmma bk=32 bn=96
conv_3xtf32|conv2d|recipe_igemm.lua|precision=3xtf32 api=wgmma bk=32 bn=96
conv_fp16|conv2d|recipe_igemm.lua|precision=fp16 api=wgmma bn=96"
export KR_TC_SET_conv_tf32="stages=3" KR_TC_SET_crmp_tf32="stages=3" KR_TC_SET_conv_3xtf32="stages=4" KR_TC_SET_conv_fp16="stages=1"
export KR_TC_VERIFY="conv2d|recipe_igemm.lua|precision=tf32 api=wgmma bn=96 stages=3"
export KR_DEADLINE=200
bash bench/h200_tensor.sh
