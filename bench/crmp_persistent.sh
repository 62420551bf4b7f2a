#!/usr/bin/env bash
# bench/crmp_persistent.sh: the device call behind bench/results/crmp-persistent-2026-12-04.json: conv_relu_maxpool's
# recipe_fused and conv2d's recipe_igemm in tf32 at 256 x 96 tiles, with and without `persistent` (a block an SM
# walking the m tiles), the pool as its own kernel and fused (-D pool=true), each verified on the GPU at the test
# sizes, swept at the benchmark size against the naive program, the best beside PyTorch (bench/h200_tensor.sh).
# KR_TC_COMPILE=1 times torch.compile too.
tiles="precision=tf32 api=wgmma bk=32 bn=96 bm=256 tm=8 tn=12"
export KR_TC_VERIFY="conv_relu_maxpool|recipe_fused.lua|$tiles stages=4 pool=true persistent=true
conv_relu_maxpool|recipe_fused.lua|$tiles stages=3 persistent=true order=descending
conv2d|recipe_igemm.lua|$tiles stages=3 persistent=true"
export KR_TC_RUNS="crmp_tf32|conv_relu_maxpool|recipe_fused.lua|$tiles
conv_tf32|conv2d|recipe_igemm.lua|$tiles"
export KR_TC_SET_crmp_tf32=${KR_TC_SET_crmp_tf32:-"stages=4 pool=false|stages=3 pool=false persistent=true|stages=3 pool=false persistent=true order=descending|stages=4 pool=false persistent=true order=descending|stages=4 pool=true|stages=4 pool=true persistent=true"}
export KR_TC_SET_conv_tf32=${KR_TC_SET_conv_tf32:-"stages=3|stages=3 persistent=true"}
export KR_DEADLINE=${KR_DEADLINE:-450}
bash bench/h200_tensor.sh
