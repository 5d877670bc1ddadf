#!/bin/bash
# test-cluster.sh: run voxlab's pipelines on a real one-node SLURM cluster
# (scripts/slurm-local.sh) and stop it again.
#
#  1. the cluster package's real-SLURM test: scripts with hostile file
#     names (spaces, quotes, $, backticks, newlines, ;) submitted with
#     sbatch; every task and the merge job must get their arguments intact
#     and nothing else may run;
#  2. app's TestSubmitRealSlurm: `voxlab demo` writes the demo data into a
#     folder with a hostile name; each demo pipeline (dezing, detect,
#     distance) runs single-process, then `voxlab submit slurm … --tasks N`
#     submits them all as job arrays with merge jobs into shared folders
#     with hostile names; one dezing task fails on its first attempt and is
#     resubmitted alone (`voxlab status --resubmit`); every merged output
#     must equal the single-process output; then TestGUIRunOnRealSlurm:
#     the viewer's processing panel runs detection with "Run on: SLURM
#     cluster" and its result must equal a local run's.
#
# Needs root (or passwordless sudo) for the daemons, and the Debian
# packages slurmctld, slurmd, munge and slurm-client (`make test-cluster`
# installs them). With --optional (what `make test` uses), a machine that
# cannot run the daemons prints a SKIPPED line saying why and exits 0;
# without it that is an error. Set KEEP_SLURM=1 to leave the daemons
# running, GO to choose the go tool.
set -euo pipefail
cd "$(dirname "$0")/.."

GO=${GO:-go}
BIN=$PWD/bin/voxlab
OPTIONAL=
[ "${1:-}" = --optional ] && OPTIONAL=1
now() { date +%s%N; }
# elapsed START: seconds since START (from now), to a tenth.
elapsed() { local ms=$((($(now) - $1) / 1000000)); printf '%d.%d' $((ms / 1000)) $((ms % 1000 / 100)); }
T0=$(now)
say() { echo "test-cluster: $*"; }
fail() { echo "test-cluster: FAIL: $*" >&2; exit 1; }
# cannot REASON: the machine cannot run the test.
cannot() {
	if [ -n "$OPTIONAL" ]; then
		echo "test-cluster: SKIPPED: $* (the SLURM end-to-end test did not run)"
		exit 0
	fi
	fail "$*"
}

SUDO=
if [ "$(id -u)" != 0 ]; then
	if command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
		SUDO="sudo -n"
	else
		cannot "not root and no passwordless sudo: the SLURM and munge daemons must start as root"
	fi
fi
for c in slurmctld slurmd munged sbatch; do
	command -v "$c" >/dev/null || cannot "$c not installed (apt-get install slurmctld slurmd munge slurm-client, or make test-cluster)"
done
if [ -e /etc/slurm/slurm.conf ] && ! grep -q "written by voxlab scripts/slurm-local.sh" /etc/slurm/slurm.conf; then
	cannot "/etc/slurm/slurm.conf belongs to another SLURM set-up, which this test will not replace"
fi

t=$(now)
mkdir -p bin
"$GO" build -o "$BIN" ./app
say "built $BIN in $(elapsed "$t") s"

t=$(now)
$SUDO scripts/slurm-local.sh start
if [ -z "${KEEP_SLURM:-}" ]; then
	trap '$SUDO scripts/slurm-local.sh stop' EXIT
fi
say "cluster up in $(elapsed "$t") s"

# 1. Quoting, end to end through sbatch.
t=$(now)
VOXLAB_TEST_SLURM=1 "$GO" test -count=1 -run '^TestRealSlurm$' -v ./processing/cluster |
	grep -E '^(---|ok|FAIL|panic)|realslurm' || fail "real-SLURM quoting test"
say "quoting test in $(elapsed "$t") s"

# 2. The demo pipelines, submitted, one task failing once, merged.
t=$(now)
VOXLAB_TEST_SLURM=1 VOXLAB_BIN="$BIN" "$GO" test -count=1 -timeout 15m -run '^(TestSubmitRealSlurm|TestGUIRunOnRealSlurm)$' -v ./app |
	grep -E '^(---|ok|FAIL|panic)|task_slurm_test' || fail "pipelines on SLURM"
say "pipelines test in $(elapsed "$t") s"

say "PASS in $(elapsed "$T0") s"
