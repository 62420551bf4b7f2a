-- tests/verify/planted/tscale.lua: scale.lua with the templated kernels of tscale.cu, launched as
-- scale<2> and scale2<3>; verified with scale_recipe.lua, which vectorises `scale` alone.
return {
  name = "scale_template",
  source = "tscale.cu",
  sizes = { n = { bench = 1048576, test = { 7, 1000, 4099 } } },
  buffers = {
    { name = "x", dtype = "fp32", count = "n", role = "input", fill = { "normal", 0, 1 } },
    { name = "y", dtype = "fp32", count = "n", role = "output" },
    { name = "z", dtype = "fp32", count = "n", role = "output" },
  },
  launches = {
    { kernel = "scale<2>", grid = "cdiv(n, 256)", block = 256, shmem = 0, args = { "n", "x", "y" } },
    { kernel = "scale2<3>", grid = "cdiv(n, 256)", block = 256, shmem = 0, args = { "n", "x", "z" } },
  },
  tolerance = { rtol = 1e-6 },
  seeds = 1,
}
