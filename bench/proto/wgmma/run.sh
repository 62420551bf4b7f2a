#!/usr/bin/env bash
# bench/proto/wgmma/run.sh: builds and runs the wgmma prototype on the H200 (both spellings of scale-d).
cd "$(dirname "$0")"
export PATH=/usr/local/cuda/bin:$PATH
for v in pred imm; do
  python3 gen.py $v > /tmp/wgmma_$v.h
  if nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -DWGH="\"/tmp/wgmma_$v.h\"" -Xptxas -v -o /tmp/wg_$v wgmma_tf32.cu > /tmp/wg_$v.log 2>&1; then
    echo "== $v: built"; grep -E 'registers|spill' /tmp/wg_$v.log | sort | uniq -c | head -20
    /tmp/wg_$v
  else
    echo "== $v: build failed"; head -20 /tmp/wg_$v.log
  fi
done
