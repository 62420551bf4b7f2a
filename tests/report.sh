#!/usr/bin/env bash
# tests/report.sh KREWRITE run EXAMPLE | KREWRITE fixture RUN.json [--timed]
#
# `krewrite report` rendered by a real browser. "run": a small `krewrite optimize` of
# examples/EXAMPLE on the CPU emulator (2 rounds) and its report; "fixture": the report of a
# stored trajectory (tests/fixtures/report/timed_run.json, whose times and speedups are invented
# for this rendering test: it stands for a run on a GPU, which CI does not have).
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
else
  page=$tmp/report.html
  "$kr" report "$what" -o "$page" >"$tmp/report.log" 2>&1 || { cat "$tmp/report.log"; fail "krewrite report failed"; }
fi
[ -s "$page" ] || fail "no page at $page"

# ---- Headless Chromium -----------------------------------------------------------------------------
browse() {   # browse OUTPUT-ARGS...: runs Chromium on the page, stdout to $tmp/browse.out
  HOME=$tmp/home XDG_CONFIG_HOME=$tmp/home/.config XDG_CACHE_HOME=$tmp/home/.cache \
    timeout 120 "$chromium" --headless --no-sandbox --disable-gpu --disable-dev-shm-usage \
    --disable-background-networking --disable-extensions --no-first-run --hide-scrollbars \
    --user-data-dir="$tmp/profile" --window-size=1280,2000 "$@" "file://$page" \
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
        self.fetches += ["%s=%s" % (k, v) for k, v in attrs if k in ("src", "href", "xlink:href")]
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
exit 0
