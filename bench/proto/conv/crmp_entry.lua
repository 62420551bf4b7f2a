-- bench/proto/conv/crmp_entry.lua: examples/conv_relu_maxpool/problem.lua through its launcher (entry =
-- "launch_conv_relu_maxpool"), tolerance 1e-3 (tf32 candidates), for hand-edited candidates (run.sh). What
-- follows is the example spec's own comment.
-- examples/conv_relu_maxpool/problem.lua: conv2d (as examples/conv2d), ReLU, then a 3x3 max-pool
-- with stride 2, fp32, NCHW; three launches through a temporary t (the conv output).
-- Benchmark (PERF.md): x (100,3,224,224), w (96,3,11,11), stride 4, padding 2 -> t (100,96,55,55)
-- -> y (100,96,27,27).
--   P = (H + 2*pad - R) / stride + 1,  Q = (W + 2*pad - S) / stride + 1   (conv output)
--   PO = (P - 3) / 2 + 1,              QO = (Q - 3) / 2 + 1               (pool output)
-- Tests: tiny images with P, Q >= 3 (the pool window must fit), odd and even P and Q, a case
-- with a single pooled pixel, one with the benchmark's 11 x 11 filter at stride 4.
local P = "((H + 2 * pad - R) / stride + 1)"
local Q = "((W + 2 * pad - S) / stride + 1)"
local PO = "((" .. P .. " - 3) / 2 + 1)"
local QO = "((" .. Q .. " - 3) / 2 + 1)"
local nconv = "N * K * " .. P .. " * " .. Q
local npool = "N * K * " .. PO .. " * " .. QO
return {
  name = "conv_relu_maxpool",
  source = "../../../examples/conv_relu_maxpool/kernel.cu",
  sizes = {
    N = { bench = 100, test = { 1, 2, 1, 2, 1 } },
    C = { bench = 3, test = { 1, 3, 3, 2, 3 } },
    H = { bench = 224, test = { 13, 19, 23, 16, 11 } },
    W = { bench = 224, test = { 17, 14, 23, 13, 11 } },
    K = { bench = 96, test = { 5, 7, 6, 5, 3 } },
    R = { bench = 11, test = { 3, 5, 11, 4, 3 } },
    S = { bench = 11, test = { 5, 3, 11, 4, 3 } },
    stride = { bench = 4, test = { 2, 2, 4, 1, 4 } },
    pad = { bench = 2, test = { 1, 1, 2, 2, 2 } },
  },
  buffers = {
    { name = "x", dtype = "fp32", count = "N * C * H * W", role = "input", fill = { "uniform", -1, 1 } },
    { name = "w", dtype = "fp32", count = "K * C * R * S", role = "input", fill = { "uniform", -1, 1 } },
    { name = "b", dtype = "fp32", count = "K", role = "input", fill = { "uniform", -1, 1 } },
    { name = "t", dtype = "fp32", count = nconv, role = "temp" },
    { name = "y", dtype = "fp32", count = npool, role = "output" },
  },
  entry = "launch_conv_relu_maxpool",
  tolerance = { rtol = 1e-3 },
  -- The conv dominates the flops (ReLU and the pool add about 10 per pooled output).
  flops = "2 * " .. nconv .. " * C * R * S + 10 * " .. npool,
  -- The floor for the fused problem: read x, w, b once, write y once; t need never reach memory.
  bytes = "4 * (N * C * H * W + K * C * R * S + K + " .. npool .. ")",
  seeds = 3,
}
