export LD_LIBRARY_PATH=$PWD/.gpu PATH=/usr/local/cuda/bin:$PATH
kr=$PWD/.gpu/krewrite
for p in ${KR_SEED_PRECISIONS:-tf32 fp16}; do
  ( time $kr bench examples/conv2d/problem.lua --recipe examples/conv2d/recipe_seed.lua --steps --device cuda --json -D precision=$p > $OUT/steps-$p.json 2> $OUT/steps-$p.err ) 2>&1 | grep real
  python3 -c "
import json
r=json.load(open('$OUT/steps-$p.json'))
for s in r['steps']: print('$p', s.get('index'), s.get('pass'), s.get('verify',{}).get('passed') if isinstance(s.get('verify'),dict) else s.get('verified'), (s.get('times') or {}).get('median_ms') if isinstance(s.get('times'),dict) else s.get('median_ms'))
" 2>&1 | head -12
done
