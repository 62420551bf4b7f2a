#!/usr/bin/env bash
# bench/crmp_pooled.sh: conv_relu_maxpool's recipe_fused with -D pool=true (the max-pool fused by fuse) beside
# recipe_fused as it is (the pool as its own kernel), tf32 wgmma at the same tiles: each
# verified on the GPU, then benched twice; and the fuse_pool fixture verified on the GPU. On the lent H200
# with .gpu carried (scripts/build-gpu.sh); the bench JSONs land in $OUT.
set -u
export LD_LIBRARY_PATH=$PWD/.gpu
kr=$PWD/.gpu/krewrite p=examples/conv_relu_maxpool/problem.lua
tiles="-D precision=tf32 -D api=wgmma -D bk=32 -D bn=96 -D bm=256 -D tm=8 -D tn=12 -D stages=4"
$kr verify tests/fixtures/fuse_pool/problem.lua --recipe tests/fixtures/fuse_pool/recipe.lua --device cuda > $OUT/v_fixture.txt 2>&1
echo "verify fuse_pool fixture rc=$? $(tail -1 $OUT/v_fixture.txt)"
for r in pooled fused; do
  $kr verify $p --recipe examples/conv_relu_maxpool/recipe_fused.lua -D pool=$([ $r = pooled ] && echo true || echo false) $tiles --device cuda > $OUT/v_$r.txt 2>&1
  echo "verify $r rc=$? $(tail -1 $OUT/v_$r.txt)"
done
for i in 1 2; do
  for r in pooled fused; do
    $kr bench $p --recipe examples/conv_relu_maxpool/recipe_fused.lua -D pool=$([ $r = pooled ] && echo true || echo false) $tiles --json > $OUT/b_${r}_$i.json 2>$OUT/b_${r}_$i.err
    echo "bench $r rc=$? $(python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print(r['original']['median_ms'], r['candidate_times']['median_ms'], r['check_rel_l2'])" $OUT/b_${r}_$i.json 2>&1 | tail -1)"
  done
done
