#!/usr/bin/env python3
"""bench/collect_optimize.py OUT.json RUN_DIR...: gathers `bench/h200.sh optimize` results.

Each RUN_DIR is an unpacked $OUT archive of one device call (run.log, env.json, opt-<problem>/
with run.json, ob-<problem>.json from `krewrite bench` of the best candidate, ot-<problem>.json
from torch_seed.py on the same inputs). Writes one JSON object: the environment, the command,
and per problem the search (rounds, candidates tried, verified, timed, stop reason, the best
recipe and its speedup in the search), the re-bench of the best against the naive kernel in a
fresh process, and PyTorch eager on the same inputs in the same call. Copies each run.json and
report.html next to OUT.json under optimize-<date>/<problem>/.
"""
import json
import os
import shutil
import sys


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def problem_of(run_dir, name, keep_dir):
    t = load(os.path.join(run_dir, f"opt-{name}", "run.json"))
    if t is None:
        return None
    cands = [c for r in t["rounds"] for c in r["candidates"]]
    res = {
        "rounds": len(t["rounds"]), "candidates": len(cands),
        "verified": sum(c["status"] == "verified" for c in cands),
        "timed": sum(c["speedup"] is not None for c in cands),
        "stop_reason": t["stop_reason"],
        "best_in_search": t["best"],
        "candidates_tried": [{"id": c["id"], "round": c["round"], "idea": c["idea"],
                              "status": c["status"], "speedup": c["speedup"],
                              "times": c["times"]} for c in cands],
    }
    b = load(os.path.join(run_dir, f"ob-{name}.json"))
    if b:
        res["rebench"] = {"naive_median_ms": b["original"]["median_ms"],
                          "best_median_ms": b["candidate_times"]["median_ms"],
                          "speedup_vs_naive": b["speedup"], "precision": b["precision"],
                          "check_rel_l2": b["check_rel_l2"], "reps": b["original"]["reps"]}
    tr = load(os.path.join(run_dir, f"ot-{name}.json"))
    if tr:
        res["torch_eager"] = {"median_ms": tr["eager"]["median_ms"], "check": tr["check"],
                              "tf32_cudnn": tr["tf32_cudnn"], "tf32_matmul": tr["tf32_matmul"],
                              "torch": tr["torch"]}
        if b:
            res["speedup_vs_torch_eager"] = tr["eager"]["median_ms"] / b["candidate_times"]["median_ms"]
    dst = os.path.join(keep_dir, name)
    os.makedirs(dst, exist_ok=True)
    for f in ("run.json", "report.html"):
        src = os.path.join(run_dir, f"opt-{name}", f)
        if os.path.exists(src):
            shutil.copy(src, os.path.join(dst, f))
    return res


def main():
    if len(sys.argv) < 3:
        raise SystemExit(__doc__)
    out, dirs = sys.argv[1], sys.argv[2:]
    keep = os.path.splitext(out)[0]
    result = {"command": "bench/h200.sh optimize (KR_OPT_MIN minutes per problem, --rounds 3 "
                         "--branch 2 --keep 2 --jobs 16 --device cuda, heuristic proposer)",
              "calls": [], "problems": {}}
    for d in dirs:
        result["calls"].append({"dir": os.path.basename(d.rstrip("/")),
                                "env": load(os.path.join(d, "env.json"))})
        for e in sorted(os.listdir(d)):
            if e.startswith("opt-") and os.path.isdir(os.path.join(d, e)):
                name = e[4:]
                r = problem_of(d, name, keep)
                if r:
                    result["problems"][name] = r
    with open(out + ".tmp", "w") as f:
        json.dump(result, f, indent=1)
        f.write("\n")
    os.replace(out + ".tmp", out)


if __name__ == "__main__":
    main()
