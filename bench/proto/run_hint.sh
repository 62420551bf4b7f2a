#!/bin/bash
# bench/proto/run_hint.sh: the split_rows layernorm kernel (examples/layernorm/recipe_reduce.lua at
# parts 16, 32, 64) with L2 hints put on its x loads (stats sweep LDX1, normalising sweep LDX2), its
# weight/bias loads (LDW) and its y stores (STY), each variant built and timed by ln_hint.cu.
#   KREWRITE=.gpu/krewrite bench/proto/run_hint.sh      (on the GPU machine; nvcc on PATH)
set -e
cd "$(dirname "$0")"
K=${KREWRITE:-build/release/krewrite}   # relative to the repository root
mkdir -p /tmp/hb
for P in 16 32 64; do
  (cd ../.. && $K apply examples/layernorm/recipe_reduce.lua examples/layernorm/kernel.cu -D parts=$P) |
    sed -n '/__global__/,/^void launch_layernorm/p' | sed '$d' |
    sed -e 's/kr_word = reinterpret_cast<const uint4 \*>(&(x\[row \* cols + j\]))\[0\];/kr_word = LDX1(reinterpret_cast<const uint4 *>(\&(x[row * cols + j])));/' \
        -e 's/= reinterpret_cast<const uint4 \*>(&(x\[row \* cols + j\]))\[0\];/= LDX2(reinterpret_cast<const uint4 *>(\&(x[row * cols + j])));/' \
        -e 's/= reinterpret_cast<const uint4 \*>(&(weight\[j\]))\[0\];/= LDW(reinterpret_cast<const uint4 *>(\&(weight[j])));/' \
        -e 's/= reinterpret_cast<const uint4 \*>(&(bias\[j\]))\[0\];/= LDW(reinterpret_cast<const uint4 *>(\&(bias[j])));/' \
        -e 's/reinterpret_cast<uint4 \*>(&(y\[row \* cols + j\]))\[0\] = kr_word_1;/STY(reinterpret_cast<uint4 *>(\&(y[row * cols + j])), kr_word_1);/' \
    > /tmp/hb/k$P.cu
  test "$(grep -c 'LDX1\|LDX2\|LDW\|STY' /tmp/hb/k$P.cu)" = 5 || { echo "run_hint: the kernel's accesses moved; update the seds" >&2; exit 1; }
done
V=( "plain|" "x2cs_ycs|-DLDX2=ld_cs -DSTY=st_cs" "x1last_x2cs_ycs|-DLDX1=ld_last -DLDX2=ld_cs -DSTY=st_cs"
    "x1last_x2first_ycs|-DLDX1=ld_last -DLDX2=ld_first -DSTY=st_cs" "x1last_ycs|-DLDX1=ld_last -DSTY=st_cs"
    "x1last_x2lu_ycs|-DLDX1=ld_last -DLDX2=ld_lu -DSTY=st_cs" "x1last_x2cs_ycs_wlast|-DLDX1=ld_last -DLDX2=ld_cs -DSTY=st_cs -DLDW=ld_last"
    "ycs|-DSTY=st_cs" "wlast_x1cs_x2cs_ycs|-DLDW=ld_last -DLDX1=ld_cs -DLDX2=ld_cs -DSTY=st_cs" )
for P in 16 32 64; do for v in "${V[@]}"; do name=${v%%|*}; fl=${v#*|};
  nvcc -O3 -arch=sm_90 -DKFILE="\"/tmp/hb/k$P.cu\"" -DPARTS=$P -DNAME="\"P$P $name\"" $fl -o /tmp/hb/$P-$name ln_hint.cu &
done; done; wait
for P in 16 32 64; do for v in "${V[@]}"; do name=${v%%|*}; /tmp/hb/$P-$name; done; done
