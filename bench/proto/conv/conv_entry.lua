-- bench/proto/conv/conv_entry.lua: examples/conv2d/problem.lua through its launcher (entry = "launch_conv2d")
-- in place of its launch list, tolerance 1e-3 (tf32 candidates), for hand-edited candidates with launchers of
-- their own (run.sh). What follows is the example spec's own comment.
-- examples/conv2d/problem.lua: direct 2-D convolution, fp32, NCHW (AlexNet conv1 at the
-- benchmark size: x (100,3,224,224), w (96,3,11,11), bias (96), stride 4, padding 2 ->
-- y (100,96,55,55); PERF.md). The output size is P x Q with
--   P = (H + 2*pad - R) / stride + 1,  Q = (W + 2*pad - S) / stride + 1.
-- Tests: tiny, non-square images and filters, strides 1 to 4, paddings 1 to 3, and one case
-- with the benchmark's 11 x 11 filter at stride 4.
local P = "((H + 2 * pad - R) / stride + 1)"
local Q = "((W + 2 * pad - S) / stride + 1)"
return {
  name = "conv2d",
  source = "../../../examples/conv2d/kernel.cu",
  sizes = {
    N = { bench = 100, test = { 1, 2, 1, 2, 1 } },
    C = { bench = 3, test = { 1, 3, 3, 2, 3 } },
    H = { bench = 224, test = { 13, 19, 15, 16, 7 } },
    W = { bench = 224, test = { 17, 14, 15, 13, 9 } },
    K = { bench = 96, test = { 5, 7, 6, 5, 3 } },
    R = { bench = 11, test = { 3, 5, 11, 4, 3 } },
    S = { bench = 11, test = { 5, 3, 11, 4, 3 } },
    stride = { bench = 4, test = { 4, 2, 4, 3, 1 } },
    pad = { bench = 2, test = { 2, 1, 2, 3, 1 } },
  },
  buffers = {
    { name = "x", dtype = "fp32", count = "N * C * H * W", role = "input", fill = { "uniform", -1, 1 } },
    { name = "w", dtype = "fp32", count = "K * C * R * S", role = "input", fill = { "uniform", -1, 1 } },
    { name = "b", dtype = "fp32", count = "K", role = "input", fill = { "uniform", -1, 1 } },
    { name = "y", dtype = "fp32", count = "N * K * " .. P .. " * " .. Q, role = "output" },
  },
  entry = "launch_conv2d",
  tolerance = { rtol = 1e-3 },
  flops = "2 * N * K * " .. P .. " * " .. Q .. " * C * R * S",
  bytes = "4 * (N * C * H * W + K * C * R * S + K + N * K * " .. P .. " * " .. Q .. ")",
  seeds = 3,
}
