-- examples/layernorm/recipe_reduce.lua: 16 rows of 4,194,304 elements. The mean and the variance in
-- one sweep (welford), each row over PARTS blocks of THREADS threads (split_rows): the stats sweep
-- of a row's parts, then, once all parts arrived, the normalising sweep of the same parts, which
-- finds the row (16 MiB) partly in L2. With -D stream=true the rows' own elements move with the
-- evict-first hint (block_reduce's stream), so that weight and bias, which every row reads again,
-- stay in L2; since each thread loads several steps before it uses them, that ran 1.5% slower on
-- the H200 than the default hints (0.283 against 0.279 ms, twice: bench/results/reduce-2026-12-02d.json).
--   krewrite bench examples/layernorm/problem.lua --recipe examples/layernorm/recipe_reduce.lua -D parts=32
local k = kr.kernel("layernorm")
k:apply("welford")
k:apply("block_reduce", { threads = kr.param("threads", 256), vector = kr.param("vector", true),
                          stream = kr.param("stream", false) })
k:apply("split_rows", { parts = kr.param("parts", 32) })
