#!/usr/bin/env bash
# bench/crmp_torch.sh: the device call behind bench/results/crmp-torch-2026-12-04.json: conv_relu_maxpool's
# recipe_fused in tf32 at 256 x 96 tiles, 4 stages, with the pool as its own kernel and fused (-D pool=true),
# beside PyTorch eager on the same inputs in the same run (bench/h200_tensor.sh).
export KR_TC_RUNS="crmp_tf32|conv_relu_maxpool|recipe_fused.lua|precision=tf32 api=wgmma bk=32 bn=96 bm=256 tm=8 tn=12 stages=4"
export KR_TC_SET_crmp_tf32="pool=false|pool=true"
export KR_TC_VERIFY=""
export KR_DEADLINE=${KR_DEADLINE:-150}
bash bench/h200_tensor.sh
