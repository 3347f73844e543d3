#!/bin/sh
# Wall time of mcvm certify --tasks K --jobs 1 and --jobs 2 (whole runs:
# reading, partitioning, tasks, merge) on philo_ok N = 8 unreduced, runs
# interleaved, median and best (minimum) of REPEAT; also plain sequential
# certify. On a shared machine the best of several runs is the better
# estimate of an undisturbed one.
#
# Usage: go build -o /tmp/mcvm ./cmd/mcvm && sh benchmarks/scc-jobs.sh /tmp/mcvm [K...]
# POR=all measures a script of the reduced search instead (default none);
# MODEL and DEFS choose another model, e.g.
# POR=all MODEL=benchmarks/models/replicatedworkers.mcasm DEFS="-D WORKERS=2" SCRIPT=/tmp/rw2.scc.
set -e
MCVM=${1:?usage: scc-jobs.sh MCVM [K...]}
shift
KS=${*:-2 4 10 20}
REPEAT=${REPEAT:-5}
MODEL=${MODEL:-$(dirname "$0")/models/philo_ok.mcasm}
DEFS=${DEFS:--D N=8}
SCRIPT=${SCRIPT:-/tmp/po8.scc}
POR=${POR:-none}
"$MCVM" verify --por "$POR" --continue --no-progress --script "$SCRIPT" $DEFS "$MODEL" | grep -E '^(states|script):'
wall() { # prints the wall time in seconds of mcvm certify "$@"
	s=$(date +%s.%N)
	"$MCVM" certify --por "$POR" --continue --no-progress --script "$SCRIPT" $DEFS "$@" "$MODEL" >/dev/null || [ $? -eq 1 ] # 1: a violation (counted with --continue)
	e=$(date +%s.%N)
	echo "$s $e" | awk '{printf "%.3f\n", $2 - $1}'
}
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
best() { sort -n | head -1; }
echo "uptime before: $(uptime)"
for r in $(seq "$REPEAT"); do wall; done >/tmp/scc-jobs.0
seq=$(median </tmp/scc-jobs.0)
seqb=$(best </tmp/scc-jobs.0)
echo "sequential certify: median $seq s, best $seqb s"
echo "| K | jobs=1 median (s) | jobs=2 median (s) | speed-up | over sequential | jobs=1 best (s) | jobs=2 best (s) | speed-up | over sequential |"
echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
for k in $KS; do
	: >/tmp/scc-jobs.1
	: >/tmp/scc-jobs.2
	for r in $(seq "$REPEAT"); do
		wall --tasks "$k" --jobs 1 >>/tmp/scc-jobs.1
		wall --tasks "$k" --jobs 2 >>/tmp/scc-jobs.2
	done
	j1=$(median </tmp/scc-jobs.1)
	j2=$(median </tmp/scc-jobs.2)
	b1=$(best </tmp/scc-jobs.1)
	b2=$(best </tmp/scc-jobs.2)
	echo "$k $j1 $j2 $seq $b1 $b2 $seqb" | awk '{printf "| %d | %.3f | %.3f | %.2f | %.2f | %.3f | %.3f | %.2f | %.2f |\n", $1, $2, $3, $2 / $3, $4 / $3, $5, $6, $5 / $6, $7 / $6}'
done
echo "uptime after: $(uptime)"
