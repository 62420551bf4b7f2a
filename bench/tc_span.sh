#!/usr/bin/env bash
# bench/tc_span.sh: the device call behind bench/results/conv-span-2026-12-04.json: the convolutions
# after the padding test's two sides became one range test (bench/h200_tensor.sh).
export KR_TC_RUNS="conv_tf32|conv2d|recipe_igemm.lua|precision=tf32 api=wgmma bk=32 bn=96
crmp_tf32|conv_relu_maxpool|recipe_fused.lua|precision=tf32 api=wgmma bk=32 bn=96
conv_3xtf32|conv2d|recipe_igemm.lua|precision=3xtf32 api=wgmma bk=32 bn=96
conv_fp32|conv2d|recipe_igemm.lua|precision=fp32 bm=128 bn=96 bk=16 tm=8 tn=6"
export KR_TC_SET_conv_tf32="stages=3" KR_TC_SET_crmp_tf32="stages=3" KR_TC_SET_conv_3xtf32="stages=4" KR_TC_SET_conv_fp32="stages=2"
export KR_DEADLINE=300
bash bench/h200_tensor.sh
