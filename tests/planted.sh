#!/usr/bin/env bash
# tests/planted.sh KREWRITE [--device cuda] [--only NAME] [--list]: the planted-bug suite
# (tests/planted/cases.txt, README.md there). Runs `krewrite verify SPEC --candidate CU --json`
# (or --recipe R.lua) for every case from the source root, compares the outcome with the
# expectation (fail with the message fragment, pass, or pass saying the fragment), prints a table
# and the catch rate (planted bugs caught for the right reason; correct ones passed), and exits 1
# on any mismatch. With --device cuda the cases run on the GPU; without one it exits 77 (skipped).
# --only NAME runs one case (one ctest each); --list prints the case names.
#
# A bug case is caught only when verify rejects it (exit 1 or 2), its output contains the
# fragment, and an untrusted candidate left none of the /tmp/kr-planted-* files it tries to
# create. krewrite itself killed by a signal, or running past 300 s, is a mismatch whatever the
# expectation. On the emulator each verify runs under a 64 GiB address-space limit (ulimit -v).
set -uo pipefail

# All of it in one function, so bash has read the whole script before running any of it.
main() {
kr=${1:?usage: planted.sh KREWRITE [--device cuda] [--only NAME] [--list]}
shift
case $kr in /*) ;; *) kr=$PWD/$kr ;; esac
device=cpu only= list=0
while [ $# -gt 0 ]; do
  case $1 in
    --device) device=${2:?--device needs cpu or cuda}; shift 2 ;;
    --only) only=${2:?--only needs a case name}; shift 2 ;;
    --list) list=1; shift ;;
    *) echo "planted.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
cd "$(dirname "$0")/.." || exit 2
manifest=tests/planted/cases.txt

trim() { local s=$1; s=${s#"${s%%[![:space:]]*}"}; printf '%s' "${s%"${s##*[![:space:]]}"}"; }
# A field's value on this device: "X cuda: Y" is Y with --device cuda and X otherwise.
for_device() {
  case $1 in
    *' cuda: '*) if [ "$device" = cuda ]; then trim "${1#* cuda: }"; else trim "${1%% cuda: *}"; fi ;;
    *) printf '%s' "$1" ;;
  esac
}

# The manifest's cases as name|class|expect|spec|input|args|fragment, trimmed, checked.
cases=()
lineno=0
while IFS= read -r line || [ -n "$line" ]; do
  lineno=$((lineno + 1))
  case $line in '' | '#'*) continue ;; esac
  IFS='|' read -r f1 f2 f3 f4 f5 f6 f7 extra <<<"$line"
  if [ -n "${extra:-}" ] || [ -z "${f7:-}" ]; then
    echo "$manifest:$lineno: error: a case has 7 fields separated by '|'" >&2
    exit 2
  fi
  n=$(trim "$f1") e=$(for_device "$(trim "$f3")") fr=$(for_device "$(trim "$f7")")
  case $e in fail | pass | warn) ;; *)
    echo "$manifest:$lineno: error: case '$n': expect must be fail, pass or warn, not '$e'" >&2
    exit 2 ;;
  esac
  cases+=("$n|$(trim "$f2")|$e|$(trim "$f4")|$(trim "$f5")|$(trim "$f6")|$fr")
done <"$manifest"

if [ "$list" = 1 ]; then
  for c in "${cases[@]}"; do printf '%s\n' "${c%%|*}"; done
  exit 0
fi
if [ -n "$only" ] && ! printf '%s\n' "${cases[@]}" | grep "^$only|" >/dev/null; then   # not -q: under pipefail an early exit would fail printf (SIGPIPE)
  echo "planted.sh: no case '$only' in $manifest" >&2
  exit 2
fi

if [ "$device" = cuda ]; then
  probe=$("$kr" verify examples/vector_add/problem.lua --candidate examples/vector_add/kernel.cu \
          --device cuda --seeds 1 --max-cases 1 2>&1)
  if [ $? = 2 ] && grep -q 'no GPU' <<<"$probe"; then
    echo "skipped: no GPU ($(grep -m1 'no GPU' <<<"$probe"))"
    exit 77
  fi
fi

out=$(mktemp) || exit 2
trap 'rm -f "$out"' EXIT

# The first reason verify gave: a case's failure, the run's error, or a diagnostic line.
reason() {
  local r
  if [ "$rc" = 0 ]; then
    r=$(grep -o '"passed": [0-9]*, "failed": [0-9]*' "$out" | head -1 | tr -d '"')
    [ -n "$r" ] && printf '%s' "$r" && return
  fi
  r=$(grep -o '"failure": "[^"]*"' "$out" | head -1 | sed 's/^"failure": "//; s/"$//')
  [ -z "$r" ] && r=$(grep -o '"error": "[^"]*"' "$out" | head -1 | sed 's/^"error": "//; s/"$//')
  [ -z "$r" ] && r=$(grep -m1 -E 'error|warning|FAIL' "$out")
  [ -z "$r" ] && r=$(grep -m1 . "$out")
  printf '%.110s' "$r"
}

# An AddressSanitizer build of krewrite reserves terabytes of shadow address space at start, so it
# cannot run under the address-space limit (its own allocator bounds what it takes instead).
asan=0
{ [ -n "${ASAN_OPTIONS:-}" ] || grep -qa __asan_init "$kr"; } && asan=1
bugs=0 caught=0 goods=0 passed=0 bad=0
declare -A cls_bugs cls_caught
printf '%-30s %-12s %-6s %-4s  %-13s %s\n' case class expect rc verdict "reason given"
for c in "${cases[@]}"; do
  IFS='|' read -r name cls expect spec input args frag <<<"$c"
  [ -n "$only" ] && [ "$name" != "$only" ] && continue
  [ "$input" = - ] && input=tests/planted/$name.cu
  flag=--candidate
  case $input in *.lua) flag=--recipe ;; esac
  extra=()
  [ "$args" != - ] && read -r -a extra <<<"$args"
  # The files an untrusted candidate tries to create: none may exist before or after.
  traces=$(grep -ho '/tmp/kr-planted-[A-Za-z0-9_-]*' "$input" 2>/dev/null | sort -u)
  for t in $traces; do rm -f "$t"; done
  # On the emulator, a 64 GiB address-space limit: a case that asks for more memory than the
  # machine has (huge_buffers, on a krewrite without the memory check) fails at once instead of
  # taking the machine, whatever vm.overcommit_memory says. Not on the GPU: its driver reserves
  # more address space than that; not for an AddressSanitizer build (above).
  (
    [ "$device" = cpu ] && [ "$asan" = 0 ] && ulimit -v $((64 << 20))
    exec timeout 300 "$kr" verify "$spec" "$flag" "$input" --json --device "$device" "${extra[@]}"
  ) >"$out" 2>&1
  rc=$?
  left=
  for t in $traces; do [ -e "$t" ] && left="$left $t" && rm -f "$t"; done
  # The fragment, or any of its ' OR '-separated alternatives.
  found=1
  if [ "$frag" != - ]; then
    found=0
    rest=$frag
    while :; do
      alt=$(trim "${rest%% OR *}")
      grep -qF -- "$alt" "$out" && found=1
      [ "$rest" = "${rest#* OR }" ] && break
      rest=${rest#* OR }
    done
  fi
  if [ "$rc" -ge 124 ]; then
    verdict="KREWRITE DIED"
  elif [ "$expect" = pass ]; then
    if [ "$rc" = 0 ] && [ "$found" = 1 ]; then verdict=ok; else verdict=REJECTED; fi
  elif [ "$expect" = warn ]; then
    if [ "$rc" != 0 ]; then verdict=REJECTED; elif [ "$found" = 1 ]; then verdict=caught; else verdict=MISSED; fi
  else
    if [ "$rc" = 0 ]; then verdict=MISSED
    elif [ -n "$left" ]; then verdict="LEFT A FILE"
    elif [ "$found" = 1 ]; then verdict=caught
    else verdict="WRONG REASON"; fi
  fi
  if [ "$expect" = pass ]; then
    goods=$((goods + 1))
    [ "$verdict" = ok ] && passed=$((passed + 1))
  else
    bugs=$((bugs + 1))
    cls_bugs[$cls]=$(( ${cls_bugs[$cls]:-0} + 1 ))
    [ "$verdict" = caught ] && caught=$((caught + 1)) && cls_caught[$cls]=$(( ${cls_caught[$cls]:-0} + 1 ))
  fi
  case $verdict in ok | caught) ;; *) bad=$((bad + 1)) ;; esac
  why=$(reason)
  [ -n "$left" ] && why="left$left; $why"
  [ "$verdict" = "WRONG REASON" ] && why="wanted '$frag'; got: $why"
  [ "$verdict" = MISSED ] && [ "$expect" = warn ] && why="passed without saying '$frag'"
  printf '%-30s %-12s %-6s %-4s  %-13s %s\n' "$name" "$cls" "$expect" "$rc" "$verdict" "$why"
done

echo
if [ "$bugs" -gt 0 ]; then
  line="by class:"
  for k in launch untrusted oob-read shared race device-state fast-math sizes resources bad-input usual; do
    [ -n "${cls_bugs[$k]:-}" ] && line="$line $k ${cls_caught[$k]:-0}/${cls_bugs[$k]}"
  done
  echo "$line"
  echo "caught $caught of $bugs planted bugs ($(( 100 * caught / bugs ))%) on the $device device"
fi
[ "$goods" -gt 0 ] && echo "correct ones passed: $passed of $goods"
[ "$bad" -gt 0 ] && echo "mismatches: $bad" && exit 1
exit 0
}
main "$@"
