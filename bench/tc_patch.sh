#!/usr/bin/env bash
# bench/tc_patch.sh: the device call behind bench/results/conv-patch-2026-12-04.json: the wgmma
# convolutions with the input's k tiles loaded as patches of its rows (implicit_gemm's patch), against
# the element-by-element gather (patch=false), each verified on the GPU first (bench/h200_tensor.sh); then
# the seed's tf32 trajectory step by step (bench/seed_steps.sh, $OUT/steps-tf32.json).
export KR_TC_RUNS="conv_tf32|conv2d|recipe_igemm.lua|precision=tf32 api=wgmma bk=32 bn=96
crmp_tf32|conv_relu_maxpool|recipe_fused.lua|precision=tf32 api=wgmma bk=32 bn=96
conv_3xtf32|conv2d|recipe_igemm.lua|precision=3xtf32 api=wgmma bk=32 bn=96"
export KR_TC_SET_conv_tf32="stages=3|stages=3 patch=false|bm=256 tm=8 tn=12 stages=3|bm=256 tm=8 tn=12 stages=4"
export KR_TC_SET_crmp_tf32="stages=3|stages=3 patch=false|bm=256 tm=8 tn=12 stages=3"
export KR_TC_SET_conv_3xtf32="stages=4|stages=4 patch=false|stages=3"
export KR_TC_VERIFY="conv2d|recipe_igemm.lua|precision=tf32 api=wgmma bn=96 stages=3
conv2d|recipe_igemm.lua|precision=3xtf32 api=wgmma bn=96 stages=4
conv_relu_maxpool|recipe_fused.lua|precision=tf32 api=wgmma bn=96 stages=3
tests/fixtures/implicit_gemm/conv_rows.lua|examples/conv2d/recipe_igemm.lua|precision=tf32 api=wgmma bn=32 stages=3
tests/fixtures/implicit_gemm/conv_rows.lua|examples/conv2d/recipe_igemm.lua|precision=3xtf32 api=wgmma bn=32 stages=4"
export KR_DEADLINE=400
bash bench/h200_tensor.sh
# the seed's trajectory in tf32 (its new last schedule step: the patches), every step verified first
KR_SEED_PRECISIONS=tf32 bash bench/seed_steps.sh
