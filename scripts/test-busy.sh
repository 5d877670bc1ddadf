#!/usr/bin/env bash
# test-busy.sh: `make test` on fresh clones of one commit, RUNS times in a
# row with both cores kept busy by `stress-ng --cpu N` (N = nproc), then
# once on an idle machine, each timed. This is how the suite is shown to
# wait for events rather than for wall-clock time (issue 24): a test whose
# outcome depends on the machine's load fails here.
#
#   scripts/test-busy.sh [RUNS] [COMMIT]     # defaults: 3, HEAD
#
# Clones go to $BUSY_DIR (default /tmp/voxlab-test-busy), one log per run;
# the summary (result and seconds per run) is printed and kept in
# $BUSY_DIR/summary.txt. Stops at the first failing run. Needs Debian's
# stress-ng (apt-get install stress-ng); the caches in ~/go and
# ~/.cache/go-build are shared, results are not (make test uses -count=1).
set -uo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
commit=$(git rev-parse --short "${2:-HEAD}") || exit 2
dir=${BUSY_DIR:-/tmp/voxlab-test-busy}
command -v stress-ng >/dev/null || { echo "test-busy: stress-ng is missing: apt-get install stress-ng" >&2; exit 2; }
repo=$(pwd)
mkdir -p "$dir"
: > "$dir/summary.txt"

# one NAME LOAD: clone $commit afresh into $dir/NAME and time its make test.
one() {
  local name=$1 load=$2 src=$dir/$1 stress=
  rm -rf "$src"
  git clone -q "$repo" "$src" && git -C "$src" checkout -q "$commit" || return 2
  if [ "$load" = busy ]; then
    stress-ng --cpu "$(nproc)" --timeout 0 >/dev/null 2>&1 &
    stress=$!
  fi
  local start rc
  start=$(date +%s)
  (cd "$src" && make test) > "$dir/$name.log" 2>&1
  rc=$?
  [ -n "$stress" ] && { kill "$stress"; wait "$stress" 2>/dev/null; }
  echo "$name commit=$commit load=$load rc=$rc seconds=$(( $(date +%s) - start ))" | tee -a "$dir/summary.txt"
  return $rc
}

for i in $(seq 1 "$runs"); do
  one "busy$i" busy || { echo "test-busy: run busy$i failed: $dir/busy$i.log" >&2; exit 1; }
done
one idle idle || { echo "test-busy: the idle run failed: $dir/idle.log" >&2; exit 1; }
