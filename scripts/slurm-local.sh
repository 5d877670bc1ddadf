#!/bin/bash
# slurm-local.sh: run a one-node SLURM cluster on loopback, for testing
# `voxlab submit slurm` on a single Debian 12 machine.
#
#   scripts/slurm-local.sh [start]   write slurm.conf, start munged, slurmctld
#                                    and slurmd, wait until the node is idle
#   scripts/slurm-local.sh stop      stop the daemons this script started
#   scripts/slurm-local.sh status    show the node and the queue
#
# Needs root and the Debian packages slurmctld, slurmd, munge and
# slurm-client. The configuration (this host as controller and only node,
# at 127.0.0.1; munge authentication; no cgroups; no accounting storage, so
# `sacct` does not work: follow jobs with squeue and voxlab's progress
# files) is written to /etc/slurm/slurm.conf, where the client commands
# look, unless a slurm.conf not written by this script is already there.
# Spool, state and log folders live under $VOXLAB_SLURM_DIR
# (default /var/tmp/voxlab-slurm).
set -euo pipefail

DIR=${VOXLAB_SLURM_DIR:-/var/tmp/voxlab-slurm}
CONF=/etc/slurm/slurm.conf
MARK="# written by voxlab scripts/slurm-local.sh"
WAIT=${VOXLAB_SLURM_WAIT:-60}

die() { echo "slurm-local: $*" >&2; exit 1; }
say() { echo "slurm-local: $*"; }

need() {
	[ "$(id -u)" = 0 ] || die "run as root (the daemons run as root and munge)"
	for c in munged slurmctld slurmd sinfo sbatch squeue scontrol; do
		command -v "$c" >/dev/null || die "$c not found: apt-get install slurmctld slurmd munge slurm-client"
	done
	getent passwd munge >/dev/null || die "no munge user: is the munge package installed?"
}

# pid_alive FILE: the pid in FILE is a running process.
pid_alive() { [ -s "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }

write_conf() {
	local host cpus mem
	host=$(hostname -s)
	cpus=$(nproc)
	# RealMemory in MiB, leaving 5% for the system so slurmd does not
	# drain the node for reporting less than configured.
	mem=$(awk '/^MemTotal:/ {printf "%d", $2 / 1024 * 0.95}' /proc/meminfo)
	mkdir -p "$DIR/state" "$DIR/spool" "$DIR/log" /etc/slurm
	if [ -e "$CONF" ] && ! grep -qF "$MARK" "$CONF"; then
		die "$CONF exists and was not written by this script; move it away or set up the cluster by hand"
	fi
	cat >"$CONF" <<EOF
$MARK
# A one-node cluster on loopback: $host is controller and only node.
ClusterName=voxlab-local
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
MpiDefault=none
ReturnToService=2
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
# Ended jobs stay visible to squeue for this long (seconds).
MinJobAge=600
StateSaveLocation=$DIR/state
SlurmdSpoolDir=$DIR/spool
SlurmctldPidFile=$DIR/slurmctld.pid
SlurmdPidFile=$DIR/slurmd.pid
SlurmctldLogFile=$DIR/log/slurmctld.log
SlurmdLogFile=$DIR/log/slurmd.log
SlurmctldTimeout=30
SlurmdTimeout=60
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP OverSubscribe=NO
EOF
	say "wrote $CONF ($host at 127.0.0.1, $cpus CPUs, $mem MiB)"
}

start_munge() {
	if [ ! -s /etc/munge/munge.key ]; then
		say "creating /etc/munge/munge.key"
		mkdir -p /etc/munge
		dd if=/dev/urandom of=/etc/munge/munge.key bs=1 count=1024 status=none
	fi
	chown munge:munge /etc/munge /etc/munge/munge.key
	chmod 0700 /etc/munge
	chmod 0400 /etc/munge/munge.key
	mkdir -p /run/munge /var/lib/munge /var/log/munge
	chown munge:munge /run/munge /var/lib/munge /var/log/munge
	chmod 0755 /run/munge
	if pid_alive /run/munge/munged.pid && munge -n </dev/null | unmunge >/dev/null 2>&1; then
		say "munged already running"
		return
	fi
	runuser -u munge -- /usr/sbin/munged
	for _ in $(seq 50); do
		munge -n </dev/null | unmunge >/dev/null 2>&1 && return
		sleep 0.1
	done
	die "munged did not come up (see /var/log/munge/munged.log)"
}

start_slurm() {
	if pid_alive "$DIR/slurmctld.pid"; then
		say "slurmctld already running"
	else
		slurmctld -f "$CONF"
	fi
	if pid_alive "$DIR/slurmd.pid"; then
		say "slurmd already running"
	else
		slurmd -f "$CONF"
	fi
	local state=""
	for _ in $(seq $((WAIT * 2))); do
		state=$(sinfo -h -o %T 2>/dev/null | head -n1 || true)
		case $state in
		idle) say "node idle: ready (sbatch, squeue and voxlab submit slurm work now)"; return ;;
		drain* | down*)
			scontrol update NodeName="$(hostname -s)" State=RESUME >/dev/null 2>&1 || true ;;
		esac
		sleep 0.5
	done
	echo "--- slurmctld.log" >&2; tail -n 20 "$DIR/log/slurmctld.log" >&2 || true
	echo "--- slurmd.log" >&2; tail -n 20 "$DIR/log/slurmd.log" >&2 || true
	die "the node is not idle after ${WAIT}s (state: ${state:-none})"
}

# stop_pid NAME FILE: stop the daemon whose pid is in FILE and wait for it.
stop_pid() {
	local name=$1 file=$2 pid
	if ! pid_alive "$file"; then
		return
	fi
	pid=$(cat "$file")
	kill "$pid"
	for _ in $(seq 100); do
		kill -0 "$pid" 2>/dev/null || { say "stopped $name"; return; }
		sleep 0.1
	done
	kill -9 "$pid" 2>/dev/null || true
	say "killed $name"
}

case ${1:-start} in
start)
	need
	t0=$(date +%s%N)
	write_conf
	start_munge
	start_slurm
	ms=$((($(date +%s%N) - t0) / 1000000))
	say "started in $((ms / 1000)).$((ms % 1000 / 100)) s"
	;;
stop)
	[ "$(id -u)" = 0 ] || die "run as root"
	stop_pid slurmd "$DIR/slurmd.pid"
	stop_pid slurmctld "$DIR/slurmctld.pid"
	stop_pid munged /run/munge/munged.pid
	;;
status)
	sinfo
	squeue --array --states=all
	;;
*)
	die "usage: $0 [start|stop|status]"
	;;
esac
