#!/usr/bin/env bash
# tests/report.sh KREWRITE run EXAMPLE | KREWRITE fixture RUN.json [--timed] | KREWRITE best_steps CASE
#
# `krewrite report` rendered by a real browser. "run": a small `krewrite optimize` of
# examples/EXAMPLE on the CPU emulator (2 rounds) and its report, whose best kernel shows the
# steps of the best recipe when run.json records them (best_steps) and says why not when it does
# not; "fixture": the report of a stored trajectory (tests/fixtures/report/timed_run.json, whose
# times and speedups are invented for this rendering test: it stands for a run on a GPU, which
# CI does not have).
# "best_steps": timed_run.json given the fields a search on a GPU records for the best recipe,
# with tests/fixtures/report/best_steps.json (bench --steps --json of its recipe on the emulator)
# as run.json's best_steps; CASE says how:
#   timed       best_steps given invented times in which step 2 (ldg) is a regression; the best's
#               floor_ms, a "pytorch" time and every candidate's stage times: the steps table and
#               chart (the regression marked, each pass linked to its diff), the summary's
#               "33.6% of the floor (0.04715 ms)" and "1.92x PyTorch eager (0.2697 ms)", and the
#               stage times in the candidates table
#   untimed     best_steps as bench wrote it without a GPU: the strip of steps coloured by
#               verification, "not timed: no GPU", and the table
#   absent      no best_steps (and, in a second page, "best_steps": null): one muted line says
#               why, and neither floor, PyTorch nor stage times are shown
#   mismatched  best_steps of three steps, not the best recipe's four: a note that says so, and no
#               steps table or chart
#
# The page is opened in headless Chromium, which writes a screenshot (tests/report_png.py checks
# that it is not blank and that the chart's colour and the diff's added-line and removed-line
# backgrounds are on it; with --timed, the best-so-far line's colour too) and dumps the DOM it
# built (which must hold svg#speedup-chart, .diff blocks with added and removed lines, and no
# <script> element, though the fixture's texts carry markup). Chromium writes only under a
# temporary folder (its profile, HOME, caches). A missing Chromium FAILS the test: scripts/deps.sh
# installs it (Debian package chromium; $CHROMIUM names another binary).
# Set KR_REPORT_KEEP=DIR to keep the page and the screenshot in DIR.
set -uo pipefail
kr=$1
mode=$2
what=$3
timed=${4:-}
cd "$(dirname "$0")/.." || exit 1
root=$PWD
fail() { echo "report $mode $what: $*" >&2; exit 1; }

chromium=${CHROMIUM:-chromium}
command -v "$chromium" >/dev/null 2>&1 ||
  fail "'$chromium' not found: headless Chromium renders the page; scripts/deps.sh installs it (apt-get install chromium)"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/home" "$tmp/profile"

# ---- The page ------------------------------------------------------------------------------------
if [ "$mode" = run ]; then
  "$kr" optimize "examples/$what/problem.lua" --rounds 2 --branch 2 --keep 1 --out "$tmp/out" \
    >"$tmp/optimize.log" 2>&1 || { cat "$tmp/optimize.log"; fail "krewrite optimize failed"; }
  run_json=$tmp/out/run.json
  "$kr" report "$run_json" >"$tmp/report.log" 2>&1 || { cat "$tmp/report.log"; fail "krewrite report failed"; }
  page=$tmp/out/report.html   # the default: next to run.json
  grep -q "^report: $page " "$tmp/report.log" || { cat "$tmp/report.log"; fail "the path written is not printed"; }
elif [ "$mode" = best_steps ]; then
  # The case's run.json, made from the stored trajectory and bench --steps output.
  run_json=$tmp/run.json
  python3 - tests/fixtures/report/timed_run.json tests/fixtures/report/best_steps.json "$what" "$run_json" <<'PY' ||
import json, sys
run, steps, case, out = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), sys.argv[3], sys.argv[4]
if case == "timed":
    steps.update(gpu="NVIDIA H200", arch="sm_90", timed=True, timing_note=None, no_gpu=None,
                 verified_on="cuda", timed_steps=3)
    medians = [0.2100, 0.2050, 0.2200, 0.1405]   # ldg's step is slower than restrict's
    for i, (row, ms) in enumerate(zip(steps["steps"], medians)):
        row.update(times={"median_ms": ms, "min_ms": ms * 0.98, "max_ms": ms * 1.05, "p10_ms": ms * 0.99,
                          "p90_ms": ms * 1.02, "reps": 50},
                   vs_original=medians[0] / ms, timing_note=None,
                   vs_previous=medians[i - 1] / ms if i else None, previous_step=i - 1 if i else None,
                   regression=bool(i) and medians[i - 1] / ms < 1 - steps["regression_threshold"])
    run["pytorch"] = {"median_ms": 0.2697, "label": "PyTorch eager"}
    for r in run["rounds"]:
        for c in r["candidates"]:
            if c["times"]:
                c["times"]["floor_ms"] = 0.04715
            c["stages"] = {"apply_s": 0.021, "build_s": 1.34, "verify_s": 4.12, "time_s": 2.0}
            if c["status"] != "verified":
                c["stages"]["time_s"] = None
            if c["status"] == "recipe error":
                c["stages"].update(apply_s=0.004, build_s=None, verify_s=None)
elif case == "mismatched":
    del steps["steps"][-1]
elif case != "untimed":
    steps = None
run["best_steps"] = steps
if case == "absent":
    del run["best_steps"]
    nulled = dict(run, best_steps=None)
    json.dump(nulled, open(out.replace(".json", "_null.json"), "w"), indent=1)
json.dump(run, open(out, "w"), indent=1)
PY
    fail "cannot make the case's run.json"
  page=$tmp/report.html
  "$kr" report "$run_json" -o "$page" >"$tmp/report.log" 2>&1 || { cat "$tmp/report.log"; fail "krewrite report failed"; }
  if [ "$what" = absent ]; then
    "$kr" report "$tmp/run_null.json" -o "$tmp/report_null.html" >"$tmp/report.log" 2>&1 ||
      { cat "$tmp/report.log"; fail "krewrite report of \"best_steps\": null failed"; }
  fi
else
  page=$tmp/report.html
  "$kr" report "$what" -o "$page" >"$tmp/report.log" 2>&1 || { cat "$tmp/report.log"; fail "krewrite report failed"; }
fi
[ -s "$page" ] || fail "no page at $page"

# ---- Headless Chromium -----------------------------------------------------------------------------
height=3000   # tall enough for the diffs below the best kernel's steps
browse() {   # browse OUTPUT-ARGS...: runs Chromium on the page, stdout to $tmp/browse.out
  HOME=$tmp/home XDG_CONFIG_HOME=$tmp/home/.config XDG_CACHE_HOME=$tmp/home/.cache \
    timeout 120 "$chromium" --headless --no-sandbox --disable-gpu --disable-dev-shm-usage \
    --disable-background-networking --disable-extensions --no-first-run --hide-scrollbars \
    --user-data-dir="$tmp/profile" --window-size=1280,$height "$@" "file://$page" \
    >"$tmp/browse.out" 2>"$tmp/browse.err"
  local rc=$?
  if [ $rc != 0 ]; then
    tail -n 20 "$tmp/browse.err" >&2
    fail "chromium $* exited $rc"
  fi
}

browse --screenshot="$tmp/shot.png"
[ -s "$tmp/shot.png" ] || { tail -n 20 "$tmp/browse.err" >&2; fail "chromium wrote no screenshot"; }
if [ -n "${KR_REPORT_KEEP:-}" ]; then
  mkdir -p "$KR_REPORT_KEEP" && cp "$page" "$tmp/shot.png" "$KR_REPORT_KEEP/"
fi
[ "$mode" = best_steps ] && timed=--timed   # timed_run.json's candidates are timed
colours=(CHART_COLOR ADD_BG DEL_BG)
[ "$timed" = --timed ] && colours+=(BEST_COLOR)
python3 tests/report_png.py "$tmp/shot.png" search/report.h "${colours[@]}" ||
  fail "the screenshot lacks what the page should show"

browse --dump-dom
python3 - "$tmp/browse.out" "$timed" <<'PY' || fail "the DOM Chromium built lacks what the page should hold"
import html.parser, sys

class Dom(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags, self.chart, self.diffs, self.lines, self.points = [], 0, 0, set(), 0
        self.fetches, self.in_style, self.style = [], False, ""
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        classes = (a.get("class") or "").split()
        self.tags.append(tag)
        self.in_style = tag == "style"
        if tag in ("script", "link", "iframe", "img", "object", "embed", "image", "use"):
            self.fetches.append("<%s>" % tag)
        self.fetches += ["%s=%s" % (k, v) for k, v in attrs   # links within the page fetch nothing
                         if k in ("src", "href", "xlink:href") and not (v or "").startswith("#")]
        if tag == "svg" and a.get("id") == "speedup-chart":
            self.chart += 1
        if "diff" in classes:
            self.diffs += 1
        if tag == "span" and classes and classes[0] in ("add", "del"):
            self.lines.add(classes[0])
        if tag == "circle" and a.get("r") == "5.5" and a.get("stroke"):
            self.points += 1
    def handle_endtag(self, tag):
        self.in_style = False
    def handle_data(self, data):
        if self.in_style:
            self.style += data

dom = Dom()
dom.feed(open(sys.argv[1], encoding="utf-8").read())
timed = sys.argv[2] == "--timed"
problems = []
if dom.chart != 1: problems.append("%d svg#speedup-chart elements, not 1" % dom.chart)
if dom.diffs < 1: problems.append("no .diff block")
if dom.lines != {"add", "del"}: problems.append("diff lines found: %s" % sorted(dom.lines))
if "script" in dom.tags: problems.append("a <script> element: text from run.json was not escaped")
if dom.fetches: problems.append("not self-contained: %s" % ", ".join(dom.fetches[:5]))
if "url(" in dom.style or "@import" in dom.style: problems.append("the CSS loads something")
if timed and dom.points < 1: problems.append("no speedup points in the chart")
print("DOM: %d chart, %d diff blocks, %d speedup points, %d elements"
      % (dom.chart, dom.diffs, dom.points, len(dom.tags)))
for p in problems: print("report dom: " + p, file=sys.stderr)
sys.exit(1 if problems else 0)
PY
if [ "$timed" != --timed ]; then
  grep -q "not timed: no GPU" "$tmp/browse.out" || fail "the untimed chart does not say 'not timed: no GPU'"
fi

# ---- The best recipe's steps, the floor, PyTorch and stage times ----------------------------------
# Checked on the DOM Chromium built (and, for "best_steps": null, on the second page as written).
[ "$mode" = fixture ] && exit 0
pages=("$tmp/browse.out")
[ "$mode:$what" = best_steps:absent ] && pages+=("$tmp/report_null.html")
for dom in "${pages[@]}"; do
  python3 - "$dom" "$mode" "$what" "$run_json" <<'PY' || fail "$(basename "$dom"): the best kernel's steps, the floor, PyTorch or the stage times are not as they should be"
import html.parser, json, re, sys

VOID = {"br", "meta", "link", "img", "input", "hr", "col", "area", "base", "embed", "source", "wbr"}

class Node:
    def __init__(self, tag, attrs, parent):
        self.tag, self.attrs, self.parent, self.kids = tag, dict(attrs), parent, []
    def text(self):
        return "".join(k if isinstance(k, str) else k.text() for k in self.kids)
    def all(self, tag=None, **attrs):
        for k in self.kids:
            if isinstance(k, str):
                continue
            if (tag is None or k.tag == tag) and all(k.attrs.get(a) == v for a, v in attrs.items()):
                yield k
            yield from k.all(tag, **attrs)
    def classes(self):
        return (self.attrs.get("class") or "").split()

class Tree(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.root = self.cur = Node("#root", [], None)
    def handle_starttag(self, tag, attrs):
        n = Node(tag, attrs, self.cur)
        self.cur.kids.append(n)
        if tag not in VOID:
            self.cur = n
    def handle_startendtag(self, tag, attrs):
        self.cur.kids.append(Node(tag, attrs, self.cur))
    def handle_endtag(self, tag):
        n = self.cur
        while n is not self.root and n.tag != tag:
            n = n.parent
        if n is not self.root:
            self.cur = n.parent
    def handle_data(self, data):
        self.cur.kids.append(data)

tree = Tree()
tree.feed(open(sys.argv[1], encoding="utf-8").read())
root, mode, case, run = tree.root, sys.argv[2], sys.argv[3], json.load(open(sys.argv[4]))
problems = []
def check(ok, what):
    if not ok:
        problems.append(what)
def by_id(i):
    found = list(root.all(id=i))
    return found[0] if len(found) == 1 else None
def rows(table):
    return [[td for td in tr.all() if td.tag in ("td", "th") and td.parent is tr] for tr in table.all("tr")]
def cell(r, i):
    return r[i].text().strip() if len(r) > i else ""

summary = {cell(r, 0): cell(r, 1) for r in rows(by_id("summary"))}
chart, table = by_id("steps-chart"), by_id("steps")
notes = [p.text() for p in root.all("p") if "steps-note" in p.classes()]
best_log = run.get("best_log") or {}
passes = [p["pass"] for p in best_log.get("passes", [])]
cands = [c for r in run["rounds"] for c in r["candidates"]]
head = [th.text() for th in root.all("th")]
stage_cells = {}
for r in rows(by_id("candidates"))[1:]:
    m = re.match(r"\d+", cell(r, 0))
    s = [td for td in r if "stages" in td.classes()]
    if m and s:
        stage_cells[int(m.group())] = s[0].text()

def steps_drawn(n_steps):
    """The steps table and chart of the best recipe, each pass linked to its diff."""
    check(chart is not None and chart.tag == "svg", "no svg#steps-chart")
    check(table is not None and table.tag == "table", "no table#steps")
    if not table:
        return []
    body = rows(table)[1:]
    check(len(body) == n_steps, "table#steps has %d steps, not %d" % (len(body), n_steps))
    for i, name in enumerate(passes, 1):
        links = [a for a in body[i][1].all("a")] if len(body) > i else []
        check([(a.attrs.get("href"), a.text()) for a in links] == [("#pass-%d" % i, name)],
              "step %d does not link to #pass-%d (%s)" % (i, i, name))
        target = by_id("pass-%d" % i)
        check(target is not None and target.text().startswith("Pass %d: %s" % (i, name)),
              "no h3#pass-%d for the link to land on" % i)
    check(not notes, "a note beside the steps: %s" % notes)
    return body

if mode == "best_steps" and case == "timed":
    body = steps_drawn(4)
    regressed = [r for r in table.all("tr") if "regressed" in r.classes()] if table else []
    check(len(regressed) == 1, "%d regressed rows, not 1" % len(regressed))
    if regressed:
        r = [td for td in regressed[0].all("td")]
        check(cell(r, 0) == "2" and cell(r, 1) == "ldg", "the regressed row is not step 2 (ldg): %s" % cell(r, 1))
        check("0.932\u00d7regression: slower than step 1" in regressed[0].text(),
              "the regressed row lacks 'regression: slower than step 1' beside 0.932x")
    bars = [rc for rc in chart.all("rect") if any(t.text().startswith("step ") for t in rc.all("title"))] if chart else []
    check(len(bars) == 4, "%d bars in the steps chart, not 4" % len(bars))
    bad = [rc for rc in bars if "a regression" in rc.text()]
    check([(rc.attrs.get("fill"), rc.text()) for rc in bad] == [("#d1242f", "step 2 (ldg): 0.22 ms, a regression")],
          "the regression's bar: %s" % [(rc.attrs.get("fill"), rc.text()) for rc in bad])
    check(chart is not None and any(t.text() == "regression" for t in chart.all("text")), "no 'regression' label")
    para = [p.text() for p in root.all("p") if "timed on NVIDIA H200 (sm_90)" in p.text()]
    check(para and "Regressions: step 2 (ldg)." in para[0], "no 'Regressions: step 2 (ldg)' line: %s" % para)
    check(summary.get("best vs the floor", "").startswith("33.6% of the floor (0.04715 ms); the best's median is 0.1405 ms"),
          "floor row: %r" % summary.get("best vs the floor"))
    check(summary.get("best vs PyTorch eager", "").startswith("1.92\u00d7 PyTorch eager (0.2697 ms): faster"),
          "PyTorch row: %r" % summary.get("best vs PyTorch eager"))
    check("stage times" in head, "no 'stage times' column")
    want = {17: "apply 0.02 s, build 1.3 s, verify 4.1 s, time 2.0 s", 5: "apply 0.02 s, build 1.3 s, verify 4.1 s",
            19: "apply <0.01 s"}
    for cid, text in want.items():
        check(stage_cells.get(cid) == text, "candidate %d's stage times: %r, not %r" % (cid, stage_cells.get(cid), text))
    check(len(stage_cells) == len(cands), "%d stage cells for %d candidates" % (len(stage_cells), len(cands)))
elif mode == "best_steps" and case == "untimed":
    body = steps_drawn(4)
    boxes = [(rc.attrs.get("fill"), rc.text()) for rc in chart.all("rect") if list(rc.all("title"))] if chart else []
    check([f for f, _ in boxes] == ["#8c959f", "#7b2ff7", "#7b2ff7", "#7b2ff7"],
          "the strip's boxes are not the original's grey and three verified: %s" % boxes)
    check(chart is not None and "not timed: no GPU" in chart.text(), "the strip does not say 'not timed: no GPU'")
    check(len(body) == 4 and cell(body[3], 5) == "verified: 19 passed, 0 failed",
          "step 3's verification: %r" % (cell(body[3], 5) if len(body) == 4 else None))
    check(table is None or not [r for r in table.all("tr") if "regressed" in r.classes()], "a regression without times")
elif mode == "best_steps":
    check(chart is None and table is None, "a steps table or chart drawn from %s best_steps" % case)
    want = ("they hold 3 steps, the recipe makes 4 (the original and 3 passes)" if case == "mismatched"
            else "run.json records no step timings for the best recipe")
    check(len(notes) == 1 and want in notes[0], "the note is not %r: %s" % (want, notes))
    check(case != "absent" or "DIR/cand-17.lua" in notes[0], "the note does not name the best recipe's file")
    check(by_id("pass-3") is not None, "the passes' diffs are gone")
if mode == "best_steps" and case != "timed":
    check("best vs the floor" not in summary and not [k for k in summary if k.startswith("best vs PyTorch")],
          "a floor or PyTorch row without the fields: %s" % list(summary))
    check("stage times" not in head, "a 'stage times' column without the field")
if mode == "run":
    best, steps = run.get("best") or {}, run.get("best_steps")
    if best.get("id") is not None and best_log:
        if isinstance(steps, dict):
            steps_drawn(len(passes) + 1)
        else:
            check(len(notes) == 1 and "run.json records no step timings" in notes[0],
                  "best_steps is %r but the note is %s" % (steps, notes))
    staged = [c for c in cands if isinstance(c.get("stages"), dict)]
    check(("stage times" in head) == bool(staged), "stage times column shown: %s, candidates with stages: %d"
          % ("stage times" in head, len(staged)))
    if staged:
        check(len(stage_cells) == len(cands), "%d stage cells for %d candidates" % (len(stage_cells), len(cands)))
    bc = [c for c in cands if c.get("id") == best.get("id")]
    has_floor = bool(bc) and isinstance(bc[0].get("times"), dict) and isinstance(bc[0]["times"].get("floor_ms"), (int, float))
    check(("best vs the floor" in summary) == has_floor, "floor row shown: %s, floor_ms recorded: %s"
          % ("best vs the floor" in summary, has_floor))
print("steps: %s; notes: %d; summary rows: %s" % ("table" if table else "none", len(notes), ", ".join(summary)))
for p in problems:
    print("report best kernel: " + p, file=sys.stderr)
sys.exit(1 if problems else 0)
PY
done
exit 0
