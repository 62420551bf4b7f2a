-- examples/conv2d/recipe_seed.lua: the seed work's conv2d trajectory (SEEDS.md, "The conv2d
-- trajectory": 7.02 ms for the plain kernel, 0.795 ms after round 13, on an L40S) as one recipe,
-- a pass application for each of its rounds that krewrite's passes express. Time every step with
--   krewrite bench examples/conv2d/problem.lua --recipe examples/conv2d/recipe_seed.lua --steps --json >steps.json
--   krewrite report examples/conv2d/problem.lua --recipe examples/conv2d/recipe_seed.lua --timings steps.json
--
-- The order differs from the seed's in one place: round 1 (read-only loads) comes last. A schedule
-- pass regenerates the kernel from its nest, so the driver applies a kernel's schedule passes
-- (implicit_gemm, tensor_core, double_buffer) before its text passes (restrict, ldg); __ldg is
-- then written into the loads the schedule passes emitted.
-- Rounds no pass expresses: 9 (the B fragments software-pipelined against the MMAs), 10 (the
-- output's N decomposition reused for its addresses: the epilogue recomputes it). Round 13 (half2
-- shared-memory writes) comes with round 5's table under fp16: the gathered input goes in pairs.
-- Measured on the H200: bench/results/seed-steps-2026-12-04c-*.json (render with krewrite report).
-- Tile sizes are the fastest of recipe_igemm.lua on the H200: block 128 x 96, k 32, warp 32 x 32.
-- The last schedule steps go past the seed: Hopper's wgmma (k 64 in fp16), and in tf32 the input's k
-- tiles as patches of its rows.
local block = { kr.param("bm", 128), kr.param("bn", 96) }
local bk = kr.param("bk", 32)
local k = kr.kernel("conv2d")

-- Round 2, "convolution as implicit GEMM": the output positions (n, p, q) are the GEMM's m, the
-- output channels (k) its n, the window (c, r, s) its k; tiles of x and w gathered into shared
-- memory, each element's window position (c, r, s) and input row divided out where it is loaded
-- (table = false), as the seed's first GEMM kernel did.
k:apply("implicit_gemm", { block = block, k = bk, thread = { kr.param("tm", 4), kr.param("tn", 4) },
                           table = false })

-- Round 2, "in fp16 on tensor cores": the operands lowered to fp16 for the MMAs, so the recipe opts
-- in to lowering (the verifier then holds the steps to the pass's tolerance, 1e-3).
kr.allow_lowering()
k:apply("tensor_core", { precision = kr.param("precision", "fp16"), warp = { kr.param("wm", 32), kr.param("wn", 32) } })

-- Rounds 3 and 12, "double-buffered tile loads overlapping the tensor-core math": cp.async stages
-- filled ahead of the math. Tried, not applied: with fp16 the fp32 operands are converted as they
-- are staged, which cp.async (a byte copy) cannot do, and the pass refuses; the reason is in the
-- audit log's "skipped". With -D precision=tf32 (no conversion while staging) it applies.
local pipelined = k:try("double_buffer", { stages = kr.param("stages", 3) })

-- Rounds 5 and 6, "precompute and reuse the index decompositions in shared memory": the same GEMM
-- view re-tiled with the decomposition of each k position (c, r, s and its offsets) computed once
-- per block into a shared-memory table (table = true) instead of divided out per element, and each
-- thread's rows once. With fp16, round 13 too: a thread gathers two rows of the input's tile and
-- stores each pair converted as one half2. The thread tile is left out: after tensor_core the warp
-- tile decides the threads.
k:apply("implicit_gemm", { block = block, k = bk, table = true, patch = false })

-- Past the seed, "Hopper's warpgroup products": the same tiles' products by wgmma.mma_async (sm_90a),
-- a warpgroup 64 of the block's output positions by all its channels; the weights (contiguous along
-- the window, the GEMM's k) read from a 128-byte-swizzled shared tile, the gathered input from
-- registers. A row of that tile is a k tile of 128 bytes: 64 elements in fp16 and bf16, 32 in tf32.
-- Tried: a block of output positions not a multiple of 64 (-D bm) leaves the previous step's mma.sync.
local precision = kr.param("precision", "fp16")
local wgmma = k:try("tensor_core", { precision = precision, api = "wgmma",
                                     k = (precision == "fp16" or precision == "bf16") and 64 or 32 })

-- Past the seed, "the input's k tiles as patches of its rows": under wgmma in tf32 (the input staged
-- as it is in memory, fp32), each image row that a k tile of the block's output rows touches is
-- loaded whole, 16 bytes at a time, and each fragment element read at its row's offset plus its
-- column, where the gather made a 4-byte copy per element (implicit_gemm's patch; checked at run
-- time, the gather otherwise). In fp16 the input is converted as it is gathered, so it stays so.
if wgmma and (precision == "tf32" or precision == "3xtf32") then
  k:apply("implicit_gemm", { block = block, k = bk, table = true, patch = true })
end

-- Round 1, "read-only cache loads (__ldg) for invariant tensors": restrict first (x, w and b become
-- const __restrict__; the audit log records that the pointers do not alias), then their loads
-- through the read-only data cache. Pipelined, the tiles of x and w go to shared memory by
-- cp.async, which leaves b's loads (the bias) alone to route.
k:apply("restrict")
k:apply("ldg", { params = pipelined and { "b" } or { "x", "w", "b" } })
