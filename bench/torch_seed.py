#!/usr/bin/env python3
"""bench/torch_seed.py DUMP_DIR [DUMP_DIR ...]: PyTorch eager and torch.compile on the inputs
krewrite used, timed by the same rules, checked against krewrite's output.

`krewrite bench PROBLEM.lua --dump DIR` writes DIR/manifest.json (problem, sizes, buffers with
dtype, count and role) and one raw file per buffer: the inputs it timed on and the outputs the
original kernel and the candidate produced (DIR/<name>.bin, DIR/<name>.candidate.bin). This
script loads them, computes the same function with PyTorch, reports ||torch - ours|| / ||ours||
for both of our outputs, and times torch eager and torch.compile with CUDA events around the op
only: warm-up, at least 50 repetitions and 1 s, the L2 flushed (a 256 MiB buffer zeroed) before
each repetition, three input sets rotated. Prints one JSON object per problem.
KR_TORCH_EAGER_ONLY=1 leaves torch.compile out (its compile takes most of the run). KR_TORCH_F64=1 adds
each output's error against float64 on the same inputs; KR_TORCH_TF32=1 times eager with TF32 allowed too.
"""
import json
import math
import os
import statistics
import sys

import numpy as np
import torch
import torch.nn.functional as F

NP_DTYPES = {"fp32": np.float32, "int32": np.int32, "int64": np.int64, "fp16": np.float16}


def load(d, name, dtype, count, suffix=""):
    path = os.path.join(d, f"{name}{suffix}.bin")
    if dtype == "bf16":
        raw = np.fromfile(path, dtype=np.uint16, count=count).astype(np.uint32) << 16
        return torch.from_numpy(raw.view(np.float32).copy())
    return torch.from_numpy(np.fromfile(path, dtype=NP_DTYPES[dtype], count=count))


def problem_fn(name, s):
    """The PyTorch definition of each seed problem (PERF.md), on krewrite's flat buffers."""
    if name == "matmul":
        return lambda A, B: A.view(s["M"], s["K"]) @ B.view(s["K"], s["N"])
    if name == "matmul_bf16":   # bf16 operands, fp32 accumulation and output (cuBLAS bf16)
        def mm(A, B):
            a, b = A.view(s["M"], s["K"]), B.view(s["K"], s["N"])
            if a.dtype == torch.float64:
                return a @ b
            try:
                return torch.mm(a, b, out_dtype=torch.float32)
            except TypeError:   # a torch without out_dtype: bf16 output, widened
                return (a @ b).float()
        return mm
    if name in ("conv2d", "conv_relu_maxpool"):
        def conv(x, w, b):
            y = F.conv2d(x.view(s["N"], s["C"], s["H"], s["W"]), w.view(s["K"], s["C"], s["R"], s["S"]),
                         b, stride=s["stride"], padding=s["pad"])
            return y if name == "conv2d" else F.max_pool2d(F.relu(y), 3, 2)
        return conv
    if name == "softmax":
        return lambda x: torch.softmax(x.view(s["rows"], s["cols"]), dim=1)
    if name == "layernorm":
        shape = (s["C"], s["H"], s["W"])
        return lambda x, weight, bias: F.layer_norm(x.view(s["N"], *shape), shape,
                                                    weight.view(shape), bias.view(shape), eps=1e-5)
    if name == "softmax_rowthread":
        return lambda x: torch.softmax(x.view(s["rows"], s["cols"]), dim=1)
    if name == "rmsnorm_bf16":
        return lambda x, w: F.rms_norm(x.view(s["rows"], s["cols"]), (s["cols"],), w, eps=1e-6)
    if name == "matvec":
        return lambda A, x: A.view(s["M"], s["N"]) @ x
    if name == "matvec_t":
        return lambda A, x: A.view(s["M"], s["N"]).t() @ x
    if name == "colsum":
        return lambda A: A.view(s["M"], s["N"]).sum(0)
    if name == "mean_var":   # the last output, var
        return lambda x: x.view(s["rows"], s["cols"]).var(1, unbiased=False)
    if name == "rowmax_argmax":   # the last output, the index of the first maximum
        return lambda x: torch.argmax(x.view(s["rows"], s["cols"]), dim=1)
    if name == "reduce_sum":   # the output, out[0]
        return lambda x: x.sum().view(1)
    if name == "spmv_csr":
        def spmv(rowptr, colind, values, x):
            a = torch.sparse_csr_tensor(rowptr, colind, values, (s["m"], s["n"]))
            return a @ x
        return spmv
    raise SystemExit(f"torch_seed.py: no PyTorch definition for problem '{name}'")


def time_fn(fn, input_sets, flush, min_reps=50, min_seconds=1.0, warmup=5):
    for _ in range(warmup):
        fn(*input_sets[0])
    torch.cuda.synchronize()
    times, total, rep = [], 0.0, 0
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    while (rep < min_reps or total < min_seconds * 1e3) and rep < 10000:
        flush.zero_()
        args = input_sets[rep % len(input_sets)]
        start.record()
        fn(*args)
        stop.record()
        stop.synchronize()
        t = start.elapsed_time(stop)
        times.append(t)
        total += t
        rep += 1
    times.sort()
    q = lambda p: times[min(len(times) - 1, int(p * len(times)))]
    return {"median_ms": statistics.median(times), "min_ms": times[0], "max_ms": times[-1],
            "p10_ms": q(0.10), "p90_ms": q(0.90), "reps": len(times)}


def rel_l2(a, b):
    a, b = a.double().flatten(), b.double().flatten()
    den = torch.linalg.vector_norm(b).item()
    return torch.linalg.vector_norm(a - b).item() / den if den else math.inf


def run(d):
    m = json.load(open(os.path.join(d, "manifest.json")))
    s = m["sizes"]
    ins = [b for b in m["buffers"] if b["role"] == "input"]
    out = [b for b in m["buffers"] if b["role"] == "output"][-1]
    # bf16 buffers stay bf16 on the GPU (their values are exact in it), as a bf16 model holds them.
    inputs = [load(d, b["name"], b["dtype"], b["count"]).cuda() for b in ins]
    inputs = [t.bfloat16() if b["dtype"] == "bf16" else t for t, b in zip(inputs, ins)]
    ours = {k: load(d, out["name"], out["dtype"], out["count"], suffix).cuda()
            for k, suffix in (("original", ""), ("candidate", ".candidate"))}
    fn = problem_fn(m["problem"], s)
    flush = torch.empty(256 << 20, dtype=torch.uint8, device="cuda")
    sets = [inputs] + [[t.clone() for t in inputs] for _ in range(2)]
    # PyTorch's defaults, as measured: TF32 off for matmul, on for cuDNN convolutions.
    res = {"problem": m["problem"], "torch": torch.__version__,
           "tf32_matmul": torch.backends.cuda.matmul.allow_tf32,
           "tf32_cudnn": torch.backends.cudnn.allow_tf32}
    with torch.no_grad():
        ref = fn(*inputs)
        res["check"] = {k: rel_l2(v, ref) for k, v in ours.items()}
        res["eager"] = time_fn(fn, sets, flush)
        if os.environ.get("KR_TORCH_F64") == "1":
            # The error of each against float64 on the same inputs (fp32-grade claims need this).
            ref64 = fn(*[t.double() for t in inputs])
            res["check_f64"] = {k: rel_l2(v, ref64) for k, v in ours.items()}
            res["check_f64"]["eager"] = rel_l2(ref, ref64)
            del ref64
        if os.environ.get("KR_TORCH_TF32") == "1":
            # cuBLAS/cuDNN with TF32 allowed: the tensor-core baseline for a tf32 candidate.
            old = torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32
            torch.backends.cuda.matmul.allow_tf32 = torch.backends.cudnn.allow_tf32 = True
            res["check"]["eager_tf32"] = rel_l2(fn(*inputs), ref)
            res["eager_tf32"] = time_fn(fn, sets, flush)
            torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32 = old
        if os.environ.get("KR_TORCH_EAGER_ONLY") != "1":
            compiled = torch.compile(fn)
            res["check"]["compile_vs_eager"] = rel_l2(compiled(*inputs), ref)
            res["compile"] = time_fn(compiled, sets, flush)
    print(json.dumps(res), flush=True)


if __name__ == "__main__":
    if len(sys.argv) < 2:
        raise SystemExit(__doc__)
    for d in sys.argv[1:]:
        run(d)
