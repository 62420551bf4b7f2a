#!/usr/bin/env bash
# bench/tc_divs.sh: the device call behind bench/results/conv-divs-2026-12-04.json: the implicit GEMMs with
# their fastdiv multipliers computed once per block (a divisor a thread) and the staged epilogue's output
# row recovered once per thread, each verified on the GPU first (bench/h200_tensor.sh).
export KR_TC_RUNS="conv_tf32|conv2d|recipe_igemm.lua|precision=tf32 api=wgmma bk=32 bn=96
crmp_tf32|conv_relu_maxpool|recipe_fused.lua|precision=tf32 api=wgmma bk=32 bn=96
conv_3xtf32|conv2d|recipe_igemm.lua|precision=3xtf32 api=wgmma bk=32 bn=96
conv_fp32|conv2d|recipe_igemm.lua|bn=96 bk=16 tm=8 tn=6 stages=2
conv_fp16|conv2d|recipe_igemm.lua|precision=fp16 api=wgmma bn=96"
export KR_TC_SET_conv_tf32="stages=3|bm=256 tm=8 tn=12 stages=3|bm=256 tm=8 tn=12 stages=4"
export KR_TC_SET_crmp_tf32="stages=3|bm=256 tm=8 tn=12 stages=3|bm=256 tm=8 tn=12 stages=4"
export KR_TC_SET_conv_3xtf32="stages=4"
export KR_TC_SET_conv_fp32="restrict=false"
export KR_TC_SET_conv_fp16="stages=1"
export KR_TC_VERIFY="conv2d|recipe_igemm.lua|precision=tf32 api=wgmma bn=96 bm=256 tm=8 tn=12 stages=4
conv_relu_maxpool|recipe_fused.lua|precision=tf32 api=wgmma bn=96 bm=256 tm=8 tn=12 stages=3
conv2d|recipe_igemm.lua|bn=96 bk=16 tm=8 tn=6 stages=2"
export KR_DEADLINE=420
bash bench/h200_tensor.sh
