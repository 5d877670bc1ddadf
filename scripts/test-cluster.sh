#!/bin/bash
# test-cluster.sh: run voxlab's SLURM support against a real one-node
# cluster (scripts/slurm-local.sh) and stop it again.
#
#  1. the cluster package's real-SLURM test: scripts with hostile file
#     names (spaces, quotes, $, backticks, newlines, ;) submitted with
#     sbatch; every task and the merge job must get their arguments intact
#     and nothing else may run;
#  2. `voxlab submit slurm` of a split test pipeline (built with -tags
#     clustertest until the real pipelines split into tasks) into a shared
#     folder with a hostile name, one task failing on its first attempt:
#     `voxlab status --wait` must report the failure, `--resubmit` must run
#     that task alone and a new merge job, and the merged result must equal
#     the single-process result.
#
# Needs root and the Debian packages slurmctld, slurmd, munge, slurm-client.
# Set KEEP_SLURM=1 to leave the daemons running, GO to choose the go tool.
set -euo pipefail
cd "$(dirname "$0")/.."

GO=${GO:-go}
BIN=bin/voxlab-clustertest
now() { date +%s%N; }
# elapsed START: seconds since START (from now), to a tenth.
elapsed() { local ms=$((($(now) - $1) / 1000000)); printf '%d.%d' $((ms / 1000)) $((ms % 1000 / 100)); }
T0=$(now)
say() { echo "test-cluster: $*"; }
fail() { echo "test-cluster: FAIL: $*" >&2; exit 1; }

command -v slurmctld >/dev/null || fail "slurmctld not installed (apt-get install slurmctld slurmd munge slurm-client)"

t=$(now)
mkdir -p bin
"$GO" build -tags clustertest -o "$BIN" ./app
say "built $BIN in $(elapsed "$t") s"

t=$(now)
scripts/slurm-local.sh start
if [ -z "${KEEP_SLURM:-}" ]; then
	trap 'scripts/slurm-local.sh stop' EXIT
fi
say "cluster up in $(elapsed "$t") s"

# 1. Quoting, end to end through sbatch.
t=$(now)
VOXLAB_TEST_SLURM=1 "$GO" test -count=1 -run '^TestRealSlurm$' -v ./processing/cluster | grep -E '^(---|ok|FAIL)|realslurm' || fail "real-SLURM quoting test"
say "quoting test in $(elapsed "$t") s"

# 2. A split pipeline with a failure and a resubmission.
WORK=$(mktemp -d /tmp/voxlab-cluster-test.XXXXXX)
SHARED="$WORK/shared \"dq\" 'sq' \$HOME;\`touch PWNED\` \$(touch PWNED) %j"
OUT="$WORK/out dir 'x'"
UNITS=3000
export XDG_STATE_HOME="$WORK/state"

"$BIN" clustertest "$WORK/single" --units $UNITS --quiet
t=$(now)
json=$("$BIN" submit slurm clustertest "$OUT" --units $UNITS --delay 1ms --tasks 4 \
	--fail-task 2 --fail-once "$WORK/failed-once" --time 5:00 --shared "$SHARED" --json)
job=$(grep -o '"array_job":"[0-9]*"' <<<"$json" | tr -dc 0-9)
[ -n "$job" ] || fail "no job id in: $json"
say "submitted job array $job: $json"

set +e
"$BIN" status "$job" --wait --interval 1s >"$WORK/status1.txt" 2>"$WORK/status1.err"
code=$?
set -e
cat "$WORK/status1.txt"
[ $code = 1 ] || fail "status --wait exited $code, want 1 (task 2 fails on its first attempt)"
grep -q -- "--resubmit 2" "$WORK/status1.err" || fail "status did not say how to resubmit task 2: $(cat "$WORK/status1.err")"
grep -Eq '^2 +[0-9]+_2 +FAILED +.*simulated failure' "$WORK/status1.txt" || fail "task 2 not shown as failed"
say "first attempt ended, task 2 failed as planned, in $(elapsed "$t") s"

t=$(now)
"$BIN" status "$job" --resubmit 2 --wait --interval 1s
say "task 2 resubmitted alone and merged in $(elapsed "$t") s"

cmp "$WORK/single/result.txt" "$OUT/result.txt" || fail "merged result differs from the single-process result"
say "merged result equals the single-process result: $(cat "$OUT/result.txt")"
ls "$SHARED/logs" | grep -q '^merge-' || fail "no merge log in the shared folder"
for i in 0 1 2 3; do
	tail -n1 "$SHARED/progress/task-$i.jsonl" | grep -q '"kind":"finished"' || fail "task $i's progress file does not end finished"
done
if find "$WORK" . -maxdepth 3 -name PWNED | grep -q .; then fail "a file name ran a command"; fi

rm -rf "$WORK"
say "PASS in $(elapsed "$T0") s"
