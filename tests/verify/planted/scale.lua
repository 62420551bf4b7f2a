-- tests/verify/planted/scale.lua: `scale` and `scale2` over n elements, both launched with
-- cdiv(n, 256) blocks; verified with scale_recipe.lua, which vectorises `scale` alone.
return {
  name = "scale_prefix",
  source = "scale.cu",
  sizes = { n = { bench = 1048576, test = { 7, 1000, 4099 } } },
  buffers = {
    { name = "x", dtype = "fp32", count = "n", role = "input", fill = { "normal", 0, 1 } },
    { name = "y", dtype = "fp32", count = "n", role = "output" },
    { name = "z", dtype = "fp32", count = "n", role = "output" },
  },
  launches = {
    { kernel = "scale", grid = "cdiv(n, 256)", block = 256, shmem = 0, args = { "n", "x", "y" } },
    { kernel = "scale2", grid = "cdiv(n, 256)", block = 256, shmem = 0, args = { "n", "x", "z" } },
  },
  tolerance = { rtol = 1e-6 },
  seeds = 1,
}
