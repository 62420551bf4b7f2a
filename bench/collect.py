#!/usr/bin/env python3
"""bench/collect.py OUT.json RUN_DIR [RUN_DIR ...]: gathers what bench/h200.sh left (each RUN_DIR
is one unpacked all.tgz: env.json, run.log, v-*.json, s-*.txt, b-*.json, t-*.json) into one
results file for bench/results/, with the exact commands that produced it."""
import glob
import json
import os
import re
import sys


def last_json(path):
    text = open(path).read()
    return json.loads(text[:text.rindex("}") + 1]) if "}" in text else None


def main(out, dirs):
    res = {"commands": {
        "build": "scripts/build-gpu.sh  (here; .gpu/ carried to the GPU machine)",
        "verify": "krewrite verify examples/NAME/problem.lua --recipe RECIPE --device cuda --json",
        "sanitize": "compute-sanitizer --tool memcheck|racecheck --target-processes all --error-exitcode 99 "
                    "krewrite verify ... --device cuda --seeds 1 --max-cases 1",
        "bench": "krewrite bench examples/NAME/problem.lua --recipe RECIPE --json --dump DIR",
        "torch": "python3 bench/torch_seed.py DIR",
        "driver": "bench/h200.sh PHASE...",
    }, "verify": {}, "sanitizer": {}, "bench": {}, "torch": {}}
    for d in dirs:
        env = json.load(open(os.path.join(d, "env.json")))
        res.setdefault("environment", env)
        for f in sorted(glob.glob(os.path.join(d, "v-*.json"))):
            v = last_json(f)
            name = os.path.basename(f)[2:-5]
            res["verify"][name] = {"passed": v["passed"], "failed": v["failed"],
                                   "precision": v["precision"], "tolerance": v["tolerance"],
                                   "failures": [c["failure"] for c in v["cases"] if not c["pass"]]}
        for f in sorted(glob.glob(os.path.join(d, "s-*.txt"))):
            m = re.match(r"s-(.*)-(memcheck|racecheck)\.txt", os.path.basename(f))
            text = open(f).read()
            summary = re.findall(r"(ERROR SUMMARY: \d+ errors?|RACECHECK SUMMARY: .*)", text)
            api = len(re.findall(r"Program hit CUDA_ERROR", text))
            kernel = len(re.findall(r"Invalid (global|shared|local) (read|write)|Race reported", text))
            res["sanitizer"].setdefault(m.group(1), {})[m.group(2)] = {
                "summary": summary[-1] if summary else None,
                "kernel_errors": kernel, "api_errors": api,
                "verify_line": (re.findall(r"\d+ passed, \d+ failed", text) or [None])[-1]}
        for f in sorted(glob.glob(os.path.join(d, "b-*.json"))):
            res["bench"][os.path.basename(f)[2:-5]] = last_json(f)
        for f in sorted(glob.glob(os.path.join(d, "t-*.json"))):
            res["torch"][os.path.basename(f)[2:-5]] = last_json(f)
    json.dump(res, open(out, "w"), indent=1, sort_keys=True)
    print(f"wrote {out}")


if __name__ == "__main__":
    if len(sys.argv) < 3:
        raise SystemExit(__doc__)
    main(sys.argv[1], sys.argv[2:])
