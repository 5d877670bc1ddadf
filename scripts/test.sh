#!/usr/bin/env bash
# scripts/test.sh is `make test`: go vet and every package's tests twice,
# once as built (the plain pass) and once with the race detector (the
# race pass), side by side, then the pipelines on a real one-node SLURM.
#
# - Each pass runs under X displays of its own (xvfb-run; server numbers
#   from 100 for the plain pass, from 200 for the race pass), where the
#   tests that open real windows run and, with VOXLAB_REQUIRE_DISPLAY,
#   fail rather than skip when the display or ImageMagick is missing; no
#   test grabs the other pass's windows. Each line is prefixed with its
#   pass ([plain], [race], [slurm]).
# - The race pass runs with -short: the heavy numeric cases (the ResNet's
#   forward passes in Go loops, which the race detector slows some two
#   hundredfold; field-size planes; every task count of a split) run
#   whole in the plain pass and in a smaller form, through the same
#   goroutines, under -race. Every package runs under -race.
# - The race pass is one `go test -race -short` over ./..., each package
#   compiled once (go test -race -short ./..., in go's order). app's tests are one process
#   and the longest of either pass: scripts/race-exec.sh (go test's -exec)
#   runs its binary as two processes, the heaviest command-line tests
#   (APP_RACE_APART) and the others, so that the tail keeps both cores.
#   Every test still runs raced once.
# - The SLURM test (make test-cluster-optional: scripts/test-cluster.sh
#   --optional) starts when the plain pass ends, beside the race pass's
#   tail: it spends its minute waiting on SLURM's scheduler (5 CPU
#   seconds of it are voxlab's). Without root or passwordless sudo for
#   its daemons it prints a SKIPPED line saying so.
# - The tests' caches (Fyne's font index) go to a temporary
#   XDG_CACHE_HOME, removed afterwards; Go's own build cache stays where
#   it is.
#
# PKGS narrows both passes (PKGS='./viewer/...'); CI runs every package.
# GO chooses the go tool; APP_RACE_APART is the Makefile's.
set -uo pipefail
cd "$(dirname "$0")/.."

GO=${GO:-go}
PKGS=${PKGS:-}
APP_RACE_APART=${APP_RACE_APART:-}

log=$(mktemp)
cache=$(mktemp -d)
trap 'rm -rf "$log" "$cache"' EXIT
GOCACHE="$("$GO" env GOCACHE)"
# XVFB_ARGS: the X servers' arguments, scripts/race-exec.sh's too.
XVFB_ARGS="-screen 0 1280x1024x24 -noreset"
export GOCACHE XDG_CACHE_HOME="$cache" VOXLAB_REQUIRE_DISPLAY=1 APP_RACE_APART XVFB_ARGS

# xvfb N CMD...: CMD under a display of its own, from server number N.
# -noreset: by default Xvfb starts over when its last client leaves, and
# a window opening meanwhile fails ("X11: Failed to open display"),
# which a process whose GUI tests are subprocesses, one after the other
# (app's), meets between two of them.
xvfb() { local n=$1; shift; xvfb-run -a -n "$n" -s "$XVFB_ARGS" "$@"; }
# pass NAME CMD...: CMD with each line of its output prefixed [NAME],
# kept in the log for the summary; its exit status is CMD's.
pass() { local name=$1; shift; "$@" 2>&1 | sed -u "s/^/[$name] /" | tee -a "$log"; }

# racepass: go test -race -short over every package (./..., or PKGS);
# scripts/race-exec.sh runs app's binary as two processes.
racepass() {
	if [ -n "$PKGS" ]; then
		# shellcheck disable=SC2086 # PKGS is a list of patterns
		pass race xvfb 200 "$GO" test -count=1 -race -short -timeout 40m -exec "$PWD/scripts/race-exec.sh" $PKGS
		return
	fi
	pass race xvfb 200 "$GO" test -count=1 -race -short -timeout 40m -exec "$PWD/scripts/race-exec.sh" ./...
}

plainpass() {
	local p=${PKGS:-./...}
	# shellcheck disable=SC2086
	pass plain "$GO" vet $p && pass plain xvfb 100 "$GO" test -count=1 -timeout 30m $p
}

racepass & race=$!
plainpass
p=$?
pass slurm make --no-print-directory test-cluster-optional GO="$GO" & slurm=$!
wait $race
r=$?
wait $slurm
s=$?

ok=$(grep -cE '^\[(plain|race)\] ok ' "$log")
bad=$(grep -cE '^\[(plain|race)\] FAIL[[:space:]]+github' "$log")
echo "make test: plain pass exit $p, race pass exit $r, SLURM exit $s"
echo "packages: $ok passed, $bad failed (both passes)"
[ $p = 0 ] && [ $r = 0 ] && [ $s = 0 ]
