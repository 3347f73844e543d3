#!/bin/sh
# slurm-local.sh: a single-node Slurm cluster on this machine, for the
# tests of mcvm swarm --slurm and certify --slurm, and as a recipe.
#
#   sh benchmarks/slurm-local.sh start DIR   # then: export SLURM_CONF=DIR/slurm.conf
#   sh benchmarks/slurm-local.sh stop DIR
#
# Needs Debian's slurm-wlm and munge packages (apt-get install slurm-wlm
# munge) and root: it starts munged, slurmctld and slurmd directly, without
# systemd, with their sockets, state, logs and pid files in DIR, on ports
# 16817 and 16818. One node, this machine, with all its cores, in one
# partition, "debug".
set -eu
cmd=${1:-}
dir=${2:-}
if [ -z "$cmd" ] || [ -z "$dir" ]; then
	echo "usage: $0 start|stop DIR" >&2
	exit 2
fi
case $cmd in
start)
	for p in munged slurmctld slurmd sinfo; do
		command -v $p >/dev/null || PATH=$PATH:/usr/sbin
		command -v $p >/dev/null || { echo "$0: $p not found (apt-get install slurm-wlm munge)" >&2; exit 1; }
	done
	mkdir -p "$dir/state" "$dir/spool" "$dir/munge"
	dir=$(cd "$dir" && pwd)
	host=$(hostname)
	cat >"$dir/slurm.conf" <<CONF
ClusterName=mcvm
SlurmctldHost=$host
SlurmctldPort=16817
SlurmdPort=16818
AuthType=auth/munge
AuthInfo=socket=$dir/munge/munge.socket
CredType=cred/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ReturnToService=2
MpiDefault=none
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
NodeName=$host CPUs=$(nproc) RealMemory=$(awk '/^MemTotal/ {print int($2 / 1024)}' /proc/meminfo) State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
	munged --socket="$dir/munge/munge.socket" --pid-file="$dir/munge/munged.pid" \
		--log-file="$dir/munge/munged.log" --seed-file="$dir/munge/seed" --force
	SLURM_CONF=$dir/slurm.conf slurmctld -f "$dir/slurm.conf"
	SLURM_CONF=$dir/slurm.conf slurmd -f "$dir/slurm.conf"
	# Up once the node is idle.
	i=0
	until SLURM_CONF=$dir/slurm.conf sinfo -h -o %T 2>/dev/null | grep -q idle; do
		i=$((i + 1))
		if [ $i -gt 100 ]; then
			echo "$0: the node did not come up; see $dir/*.log" >&2
			exit 1
		fi
		sleep 0.2
	done
	;;
stop)
	# Each daemon in turn, waiting (up to 10 s) until it has exited, so that
	# DIR can be removed.
	for f in "$dir/slurmd.pid" "$dir/slurmctld.pid" "$dir/munge/munged.pid"; do
		[ -f "$f" ] || continue
		pid=$(cat "$f")
		kill "$pid" 2>/dev/null || continue
		i=0
		while kill -0 "$pid" 2>/dev/null && [ $i -lt 50 ]; do
			i=$((i + 1))
			sleep 0.2
		done
		kill -9 "$pid" 2>/dev/null || true
	done
	;;
*)
	echo "usage: $0 start|stop DIR" >&2
	exit 2
	;;
esac
