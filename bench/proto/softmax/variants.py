# bench/proto/softmax/variants.py: writes variants of emitted.cu (krewrite apply of
# examples/softmax/recipe_reduce.lua at its defaults) that change how the cluster's blocks meet:
#   v1_relaxed  cluster.sync() as fence.acq_rel.cluster + a relaxed arrive; the last arrive relaxed
#   v2_push     each block pushes its partial into every block's shared memory with st.async,
#               completing on that block's mbarrier; no cluster barrier after the start
import re, sys
src = open('emitted.cu').read()
helpers = r'''
__device__ __forceinline__ void kr_csync_relaxed() {
  asm volatile("fence.acq_rel.cluster;\n\tbarrier.cluster.arrive.relaxed.aligned;\n\tbarrier.cluster.wait.aligned;" ::: "memory");
}
__device__ __forceinline__ void kr_carrive_relaxed() { asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory"); }
__device__ __forceinline__ void kr_cwait() { asm volatile("barrier.cluster.wait.aligned;" ::: "memory"); }
__device__ __forceinline__ unsigned kr_smem(const void *p) { return (unsigned)__cvta_generic_to_shared(p); }
__device__ __forceinline__ void kr_bar_init(unsigned long long *b, unsigned bytes) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(kr_smem(b)) : "memory");
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"(kr_smem(b)), "r"(bytes) : "memory");
}
__device__ __forceinline__ void kr_push(float *slot, unsigned long long *bar, unsigned rank, float v) {
  unsigned s, b;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(s) : "r"(kr_smem(slot)), "r"(rank));
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(b) : "r"(kr_smem(bar)), "r"(rank));
  asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.b32 [%0], %1, [%2];" :: "r"(s), "r"(__float_as_uint(v)), "r"(b) : "memory");
}
__device__ __forceinline__ void kr_bar_wait(unsigned long long *b) {
  unsigned done = 0;
  while (!done)
    asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%1], 0; selp.u32 %0, 1, 0, p; }"
                 : "=r"(done) : "r"(kr_smem(b)) : "memory");
}
'''
def head(s):
    i = s.index('__global__')
    return s[:i] + helpers + s[i:]

v1 = head(src).replace('kr_cluster.sync();', 'kr_csync_relaxed();').replace('kr_cluster.barrier_arrive();', 'kr_carrive_relaxed();').replace('kr_cluster.barrier_wait();', 'kr_cwait();')
open('v1_relaxed.cu', 'w').write(v1)

v2 = head(src)
start = '''  __shared__ float kr_slots[2][8];
  __shared__ unsigned long long kr_bars[2];
  if (threadIdx.x == 0) { kr_bar_init(&kr_bars[0], 32); kr_bar_init(&kr_bars[1], 32); }
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  kr_carrive_relaxed();
'''
v2 = v2.replace('  int row = blockIdx.x / 8;\n', '  int row = blockIdx.x / 8;\n' + start, 1)
def exchange(s, var, blockvar, k, op):
    # the block's value `var` (held by every thread after the block step) pushed to all 8 blocks
    pat = re.compile(r'  __shared__ float ' + blockvar + r';\n  if \(threadIdx.x == 0\) \{\n    ' + blockvar + r' = ' + var + r';\n  \}\n  kr_cluster.sync\(\);\n  ' + var + r' = \*kr_cluster.map_shared_rank\(&' + blockvar + r', 0\);\n  for \(int (\w+) = 1; \1 < 8; \1\+\+\) \{\n    float (\w+) = \*kr_cluster.map_shared_rank\(&' + blockvar + r', \1\);\n    ' + var + ' = ' + re.escape(op) + r';\n  \}\n')
    m = pat.search(s)
    assert m, var
    wait = '  kr_cwait();\n' if k == 0 else ''
    new = (wait + f'  if (threadIdx.x < 8) kr_push(&kr_slots[{k}][kr_part], &kr_bars[{k}], threadIdx.x, {var});\n'
           f'  kr_bar_wait(&kr_bars[{k}]);\n  {var} = kr_slots[{k}][0];\n'
           f'  for (int {m.group(1)} = 1; {m.group(1)} < 8; {m.group(1)}++) {{\n    float {m.group(2)} = kr_slots[{k}][{m.group(1)}];\n    {var} = {op};\n  }}\n')
    return s[:m.start()] + new + s[m.end():]
v2 = exchange(v2, 'm', 'kr_m_block', 0, 'fmaxf(m, m_part_1)')
v2 = exchange(v2, 'sum', 'kr_sum_block', 1, 'sum + sum_part_1')
v2 = v2.replace('  kr_cluster.barrier_arrive();', '  // (no remote reads: nothing to wait for at the end)').replace('  kr_cluster.barrier_wait();', '')
assert 'kr_cluster.sync' not in v2 and 'map_shared_rank' not in v2
open('v2_push.cu', 'w').write(v2)

# v3_push9: v2_push with __launch_bounds__(128, 9): at most 56 registers, so that 9 blocks fit an SM (shared memory's limit)
open('v3_push9.cu', 'w').write(v2.replace('__launch_bounds__(128)', '__launch_bounds__(128, 9)'))

# v4_cpasync / v5_push_cpasync: the first sweep's shared-memory steps copied by cp.async
# (__pipeline_memcpy_async), all of them issued before the register steps' loads, then read back
# for the maximum once they arrived: every step of the block's part in flight at once.
def cpasync(s):
    lines = s.split('\n')
    a = next(i for i, l in enumerate(lines) if l.startswith('  #pragma unroll') and 'kr_m = 0; kr_m < 4' in lines[i + 1])
    b = next(i for i, l in enumerate(lines) if l.startswith('  for (int kr_j0_1 ='))
    # the end of the kr_j0_1 loop: the next line at depth 2 that closes it
    e = next(i for i in range(b + 1, len(lines)) if lines[i] == '  }')
    pre = ['  if (kr_row_fits) {   // the shared-memory steps copied straight there, all in flight at once',
           '    for (int j0 = (int)(kr_vbeg + kr_lane * 4 + 2048); j0 < kr_vend; j0 += 512)',
           '      __pipeline_memcpy_async(&kr_row_shared[j0 - kr_vbeg - 2048], &x[row * cols + j0], 16);',
           '    __pipeline_commit();',
           '  }']
    post = ['  if (kr_row_fits) {',
            '    __pipeline_wait_prior(0);',
            '    #pragma unroll 4',
            '    for (int j0 = (int)(kr_vbeg + kr_lane * 4 + 2048); j0 < kr_vend; j0 += 512) {',
            '      float4 v = reinterpret_cast<const float4 *>(&kr_row_shared[j0 - kr_vbeg - 2048])[0];',
            '      m = fmaxf(m, v.x); m = fmaxf(m, v.y); m = fmaxf(m, v.z); m = fmaxf(m, v.w);',
            '    }',
            '  } else {']
    body = ['  ' + l for l in lines[b:e + 1]]
    return '\n'.join(lines[:a] + pre + lines[a:b] + post + body + ['  }'] + lines[e + 1:])
open('v4_cpasync.cu', 'w').write('#include <cuda_pipeline.h>\n' + cpasync(src))
open('v5_push_cpasync.cu', 'w').write('#include <cuda_pipeline.h>\n' + cpasync(v2))
open('v6_push_cpasync9.cu', 'w').write('#include <cuda_pipeline.h>\n' + cpasync(v2).replace('__launch_bounds__(128)', '__launch_bounds__(128, 9)'))
