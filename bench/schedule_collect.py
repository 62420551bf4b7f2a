#!/usr/bin/env python3
"""bench/schedule_collect.py OUT.json DIR [reduce|tensor]: gathers what bench/h200_schedule.sh left in DIR (one
unpacked schedule.tgz: env.txt, log, <problem>/s<i>.json per swept setting, best.json, best.txt and,
for matmul, torch.json) into one results file for bench/results/, with the commands. With
`reduce`, DIR is an unpacked reduce.tgz of bench/h200_reduce.sh (torch.json for every problem); with
`tensor`, an unpacked tensor.tgz of bench/h200_tensor.sh (a folder per run, torch.json with the float64
and TF32 checks, sass-*.txt instruction counts)."""
import json
import os
import sys


def load(path):
    try:
        text = open(path).read()
        return json.loads(text[:text.rindex("}") + 1]) if "}" in text else None
    except (OSError, ValueError):
        return None


def times(t):
    return {k: t.get(k) for k in ("median_ms", "min_ms", "p10_ms", "p90_ms", "reps")} if t else None


def main(out, d, kind="schedule"):
    env = open(os.path.join(d, "env.txt")).read().splitlines()
    res = {"what": "schedule recipes (examples/*/recipe_tiled.lua) on the H200: each setting checked "
                   "against the naive kernel at the benchmark size, then timed interleaved with it; "
                   "the best setting benched again with the default protocol (50 repetitions, 1 s, "
                   "L2 flushed); for matmul, PyTorch eager (cuBLAS, tf32 off) on the same inputs",
           "command": "bash bench/h200_schedule.sh (bench/sweep.sh per problem, bench/torch_seed.py); "
                      "python3 bench/schedule_collect.py OUT.json DIR",
           "environment": env, "problems": {}}
    if kind == "reduce":
        res["what"] = ("reduction recipes (examples/*/recipe_reduce.lua) on the H200: each setting checked against "
                       "the naive kernel at the benchmark size, then timed interleaved with it; the best setting "
                       "benched again with the default protocol (50 repetitions, 1 s, L2 flushed); PyTorch eager "
                       "(and torch.compile for softmax and layernorm) on the same inputs")
        res["command"] = ("KR_SWEEP_REPS=10 KR_DEADLINE=500 bash bench/h200_reduce.sh (bench/sweep.sh per problem, "
                          "bench/torch_seed.py); python3 bench/schedule_collect.py OUT.json DIR reduce")
    if kind == "tensor":
        res["what"] = ("tensor-core recipes on the H200: each setting checked against the naive kernel at the "
                       "benchmark size (with the tolerance its precision declares), then timed interleaved with it; "
                       "the best setting benched again with the default protocol (50 repetitions, 1 s, L2 flushed); "
                       "PyTorch eager on the same inputs with TF32 off and on, and every output's relative L2 error "
                       "against float64 (torch.json check_f64)")
        res["command"] = ("KR_TC_RUNS=... KR_TC_SET_<run>=... KR_TC_SASS=... bash bench/h200_tensor.sh (bench/sweep.sh "
                          "per run, bench/torch_seed.py); python3 bench/schedule_collect.py OUT.json DIR tensor")
        res["sass"] = {f: open(os.path.join(d, f)).read().split("\n")[:25] for f in sorted(os.listdir(d))
                       if f.startswith("sass-") and f.endswith(".txt")}
    for p in sorted(os.listdir(d)):
        pd = os.path.join(d, p)
        if not os.path.isdir(pd):
            continue
        sweep = []
        for i in range(1, 20):
            r = load(os.path.join(pd, f"s{i}.json"))
            if r is None and not os.path.exists(os.path.join(pd, f"s{i}.json")):
                break
            err = open(os.path.join(pd, f"s{i}.err")).read()[-400:] if os.path.exists(os.path.join(pd, f"s{i}.err")) else ""
            st = os.path.join(pd, f"s{i}.txt")
            sweep.append({"setting": open(st).read().strip() if os.path.exists(st) else None,
                          "median_ms": (r or {}).get("candidate_times", {}).get("median_ms"),
                          "original_ms": ((r or {}).get("original") or {}).get("median_ms"),
                          "speedup": (r or {}).get("speedup"), "error": None if r else err})
        best = load(os.path.join(pd, "best.json"))
        entry = {"sweep": sweep}
        if os.path.exists(os.path.join(pd, "best.txt")):
            entry["best_setting"] = open(os.path.join(pd, "best.txt")).read().strip()
        if best:
            entry["best"] = {"candidate": times(best.get("candidate_times")), "original": times(best.get("original")),
                             "speedup": best.get("speedup"), "sizes": best.get("sizes"),
                             "floor_ms": best.get("floor_ms"), "precision": best.get("precision"),
                             "fraction_of_floor": (best.get("floor_ms") / best["candidate_times"]["median_ms"])
                             if best.get("floor_ms") and best.get("candidate_times") else None,
                             "resources": best.get("candidate_resources") or best.get("resources")}
        torch = load(os.path.join(pd, "torch.json"))
        if torch:
            entry["torch_eager_cublas" if kind == "schedule" else "torch"] = torch
            eager = (torch.get("eager") or {}).get("median_ms")
            if eager and best:
                entry["ratio_to_cublas_time" if kind == "schedule" else "time_over_torch_eager"] = \
                    best["candidate_times"]["median_ms"] / eager
            comp = (torch.get("compile") or {}).get("median_ms")
            if comp and best:
                entry["time_over_torch_compile"] = best["candidate_times"]["median_ms"] / comp
        res["problems"][p] = entry
    json.dump(res, open(out, "w"), indent=1)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else "schedule")
