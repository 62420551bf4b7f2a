#!/usr/bin/env bash
# scripts/deps.sh: install what krewrite needs to build and test, idempotently.
#
#   scripts/deps.sh [DEPS_DIR]        (default: build/deps)
#
# 1. Debian packages (apt-get, only those missing; needs root or sudo). python3 is for the
#    search tests, which check run.json with python3 -m json.tool. libseccomp-dev builds the
#    system-call filter of the sandbox that candidates run in (runtime/sandbox.c). chromium renders the page of
#    `krewrite report` headless in tests/report.sh (the test fails without it), with
#    fonts-dejavu-core for its text (--no-install-recommends skips the fonts chromium recommends).
# 2. From the npm registry, pinned by version and sha512 integrity:
#      tree-sitter@0.25.1       -> DEPS_DIR/tree-sitter/lib    (the C runtime)
#      tree-sitter-cuda@0.21.1  -> DEPS_DIR/tree-sitter-cuda/src (parser.c, scanner.c)
#    Tarballs are checked before they are unpacked; nothing is committed.
# Set KR_SKIP_APT=1 to skip step 1 (for machines where packages are managed otherwise).
set -euo pipefail

deps_dir=${1:-build/deps}
mkdir -p "$deps_dir"
deps_dir=$(cd "$deps_dir" && pwd)

say() { printf 'deps: %s\n' "$*" >&2; }
die() { printf 'deps: error: %s\n' "$*" >&2; exit 1; }

# ---- Debian packages ---------------------------------------------------------------------------
debs=(cmake make g++ pkg-config liblua5.4-dev libcjson-dev libcurl4-openssl-dev libcmocka-dev
      libseccomp-dev
      clang nodejs npm ca-certificates openssl python3 chromium fonts-dejavu-core)
if [ "${KR_SKIP_APT:-0}" != 1 ]; then
  missing=()
  for p in "${debs[@]}"; do
    # npm and nodejs may come from elsewhere (e.g. a newer Node install); accept the commands.
    case $p in
      nodejs) command -v node >/dev/null 2>&1 && continue ;;
      npm) command -v npm >/dev/null 2>&1 && continue ;;
    esac
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    sudo=""
    [ "$(id -u)" = 0 ] || sudo="sudo"
    say "installing Debian packages: ${missing[*]}"
    $sudo apt-get update -qq || die "apt-get update failed: is a Debian mirror reachable?"
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
      "${missing[@]}" >/dev/null || die "apt-get install ${missing[*]} failed"
  fi
fi

# ---- npm tarballs ------------------------------------------------------------------------------
# name version integrity subdir-to-keep dest
fetch() {
  local name=$1 version=$2 integrity=$3 keep=$4 dest=$5
  local stamp="$deps_dir/$dest/.krewrite-$name-$version"
  [ -f "$stamp" ] && return 0
  command -v npm >/dev/null 2>&1 || die "npm is not installed; it is needed to fetch $name@$version"
  local tmp
  tmp=$(mktemp -d "$deps_dir/.fetch.XXXXXX")
  say "fetching $name@$version from the npm registry"
  if ! (cd "$tmp" && npm pack --silent "$name@$version" >/dev/null 2>"$tmp/npm.err"); then
    cat "$tmp/npm.err" >&2 || true
    rm -rf "$tmp"
    die "could not fetch $name@$version: the npm registry ($(npm config get registry)) did not answer or refused"
  fi
  local tgz
  tgz=$(ls "$tmp"/*.tgz)
  local got="sha512-$(openssl dgst -sha512 -binary "$tgz" | base64 -w0)"
  if [ "$got" != "$integrity" ]; then
    rm -rf "$tmp"
    die "$name@$version: integrity mismatch (want $integrity, got $got)"
  fi
  tar -xzf "$tgz" -C "$tmp"
  rm -rf "${deps_dir:?}/$dest"
  mkdir -p "$deps_dir/$dest"
  cp -R "$tmp/package/$keep/." "$deps_dir/$dest/"
  cp "$tmp/package/LICENSE" "$deps_dir/$dest/LICENSE" 2>/dev/null || true
  rm -rf "$tmp"
  touch "$stamp"
}

fetch tree-sitter 0.25.1 \
  'sha512-mrcEdkYtHfrK1A6fs3O6FxkBo0Qig5XUXqHhxUOQu0bmPo00QF4XaSx4edpazdHwxnSCjlGKGgIqWdaN4dvTLA==' \
  vendor/tree-sitter/lib tree-sitter
fetch tree-sitter-cuda 0.21.1 \
  'sha512-V8zI22cfiQyt0Q3v7KPkM4KVMPXqIgHrcbYCYvfFByLcM7PM6+mpzhRWGvUP4QgmwXkWHdcJoJcJC+ef6V9Z6A==' \
  src tree-sitter-cuda
say "ok ($deps_dir)"
