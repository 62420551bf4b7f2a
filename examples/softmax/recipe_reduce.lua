-- examples/softmax/recipe_reduce.lua: the reduction schedule. The row's maximum and its sum of
-- exponentials in one sweep (online_softmax), then the normalising sweep, with one block of
-- THREADS threads per row (block_reduce): warp shuffles and one shared-memory step instead of a
-- barrier per tree level. The row is read twice (the second sweep mostly from L2: a row is 256 KiB).
--   krewrite bench examples/softmax/problem.lua --recipe examples/softmax/recipe_reduce.lua -D threads=512 -D parts=2
local k = kr.kernel("softmax")
k:apply("block_reduce", { threads = kr.param("threads", 256), vector = kr.param("vector", true) })
if kr.param("online", true) then k:apply("online_softmax") end
-- row_cache (-D steps=S -D shared=KIB): the first sweep's 16-byte steps kept on chip for the
-- normalising sweep, S per thread in registers and the rest in shared memory, so the row is read once.
local steps, shared = kr.param("steps", 0), kr.param("shared", 0)
if steps > 0 or shared > 0 then k:apply("row_cache", { steps = steps, shared = shared }) end
-- split_rows (-D parts=P): each row over P blocks; -D cluster=true makes them one thread block cluster,
-- so with row_cache each block keeps its part of the row on chip (a 65536-float row over 4 blocks:
-- 64 KiB a block) and the row is read from memory once.
local parts = kr.param("parts", 1)
if parts > 1 then k:apply("split_rows", { parts = parts, cluster = kr.param("cluster", false) }) end
