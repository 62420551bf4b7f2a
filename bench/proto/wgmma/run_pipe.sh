#!/usr/bin/env bash
# bench/proto/wgmma/run_pipe.sh: builds and runs wgmma_pipe.cu on the H200.
cd "$(dirname "$0")"
export PATH=/usr/local/cuda/bin:$PATH
python3 gen.py imm > /tmp/wgmma_imm.h
nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -DWGH="\"/tmp/wgmma_imm.h\"" -Xptxas -v -o /tmp/wg_pipe wgmma_pipe.cu > /tmp/wg_pipe.log 2>&1 || { head -30 /tmp/wg_pipe.log; exit 1; }
grep -E 'registers|spill|C75' /tmp/wg_pipe.log | sort | uniq -c
/tmp/wg_pipe
