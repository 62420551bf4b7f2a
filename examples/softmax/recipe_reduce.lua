-- examples/softmax/recipe_reduce.lua: the reduction schedule. Each row of 65536 floats over a thread
-- block cluster of PARTS blocks of THREADS threads (split_rows with cluster = true; block_reduce's
-- strided loops, warp shuffles and one shared-memory step in each block, the blocks' partial states
-- combined in rank order through distributed shared memory), each block keeping its part of the row
-- on chip (row_cache: STEPS 16-byte steps a thread in registers, the rest in SHARED KiB of shared
-- memory), so the row is read from memory once; the sum sweep leaves expf(x - max) where x was kept
-- and the normalising sweep divides it (one exponential an element).
--   krewrite bench examples/softmax/problem.lua --recipe examples/softmax/recipe_reduce.lua
-- Other schedules through -D: online=true (the max and the sum of exponentials in one sweep,
-- online_softmax), parts=1 (a block per row), cluster=false (the parts meet through a workspace,
-- each sweep in other blocks), steps=0 shared=0 (nothing kept: the row read twice), vector=false,
-- stream=true (the row's loads and stores with the evict-first hint).
-- The defaults (8 blocks of 128 threads a row, each keeping 4 steps a thread in registers and 24 KiB
-- in shared memory) ran 0.578 ms on the H200, twice, against 0.590 ms for 4 blocks of 256 threads
-- with 48 KiB (bench/results/reduce-2026-12-02e.json, calls 6 and 7): smaller blocks, more of them an SM.
-- With the cluster's blocks pushing their states to each other (st.async onto mbarriers, no cluster
-- barrier between the sweeps) and the shared-memory part of a block's row copied by cp.async, the
-- defaults ran 0.545 ms (bench/results/reduce-2026-12-04.json, push_reduce).
local k = kr.kernel("softmax")
k:apply("block_reduce", { threads = kr.param("threads", 128), vector = kr.param("vector", true),
                          stream = kr.param("stream", false) })
if kr.param("online", false) then k:apply("online_softmax") end
local parts = kr.param("parts", 8)
if parts > 1 then k:apply("split_rows", { parts = parts, cluster = kr.param("cluster", true) }) end
local steps, shared = kr.param("steps", 4), kr.param("shared", 24)
if steps > 0 or shared > 0 then k:apply("row_cache", { steps = steps, shared = shared }) end
