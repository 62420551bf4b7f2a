-- examples/layernorm/recipe_reduce.lua: 16 rows of 4,194,304 elements. The mean and the variance in
-- one sweep (welford), each row over PARTS blocks of THREADS threads (split_rows): the stats sweep
-- of a row's parts, then, once all parts arrived, the normalising sweep of the same parts, which
-- finds the row (16 MiB) partly in L2. With -D stream=true the rows' own elements move with the
-- evict-first hint (block_reduce's stream), so that weight and bias, which every row reads again,
-- stay in L2; since each thread loads several steps before it uses them, that ran 1.5% slower on
-- the H200 than the default hints (0.283 against 0.279 ms, twice: bench/results/reduce-2026-12-02d.json).
--   krewrite bench examples/layernorm/problem.lua --recipe examples/layernorm/recipe_reduce.lua -D parts=32
-- -D resident=true reads x once: each row over PARTS (128) blocks resident on the GPU together
-- (split_rows' resident), each block keeping its part on chip from the mean's sweep to the
-- normalising one (row_cache: STEPS 16-byte steps a thread in registers, SHARED KiB of shared
-- memory; 4 + 112 KiB hold a 128th of a row), the parts meeting in the workspace for the mean and
-- again for the variance. On the H200 it is slower than the two reads (0.289 ms with -D threads=512
-- -D shared=96 against 0.271: bench/results/reduce-2026-12-02e.json): each row's blocks wait for each
-- other twice, and a row is only 3.9 us of memory time.
local k = kr.kernel("layernorm")
local resident = kr.param("resident", false)
if not resident then k:apply("welford") end
k:apply("block_reduce", { threads = kr.param("threads", 256), vector = kr.param("vector", true),
                          stream = kr.param("stream", false) })
k:apply("split_rows", { parts = kr.param("parts", resident and 128 or 32), resident = resident })
if resident then k:apply("row_cache", { steps = kr.param("steps", 4), shared = kr.param("shared", 112) }) end
