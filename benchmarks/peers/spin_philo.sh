#!/bin/sh
# spin_philo.sh N [mcvm flags...]: dining philosophers with N philosophers,
# whole state space, in SPIN (philo.pml; plain, -DCOLLAPSE and -DHC4) and in
# mcvm (philo.mcasm, --por=none --continue, plus the flags given). Prints
# states, states/s and bytes per state (peak resident memory divided by the
# states stored, everything included), and mcvm's ratios to each SPIN run.
# W sets SPIN's hash table to 2^W slots (default 23).
# Needs spin and a C compiler (Debian: apt-get install spin gcc).
set -eu
N=${1:-9}
shift || true
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$root" && go build -o "$work/mcvm" ./cmd/mcvm)
cp "$here/philo.pml" "$work/"
cd "$work"
spin -DN="$N" -a philo.pml >/dev/null

# run LABEL CMD...: prints "LABEL states seconds peak_kB"
spinrun() {
	label=$1
	shift
	gcc -O2 -DSAFETY -DNOREDUCE -DMEMLIM=16000 "$@" -o pan pan.c
	/usr/bin/time -f "%M" -o time.txt ./pan -E -m400000 -w"${W:-23}" >pan.txt
	states=$(awk '/states, stored/ {print $1}' pan.txt)
	secs=$(awk '/pan: elapsed time/ {print $4}' pan.txt)
	echo "$label $states $secs $(tail -n 1 time.txt)"
}
mcvmrun() {
	label=$1
	shift
	/usr/bin/time -f "%M" -o time.txt ./mcvm check --json --por=none --continue --memory-limit 0 -D N="$N" "$@" "$root/benchmarks/models/philo.mcasm" >out.json || true
	states=$(grep -o '"states": *[0-9]*' out.json | head -1 | grep -o '[0-9]*$')
	secs=$(grep -o '"elapsed_s": *[0-9.e+-]*' out.json | head -1 | sed 's/.*: *//')
	echo "$label $states $secs $(tail -n 1 time.txt)"
}
{
	spinrun spin
	spinrun spin-collapse -DCOLLAPSE
	spinrun spin-hc4 -DHC4
	mcvmrun "mcvm${*:+ $*}" "$@"
} >runs.txt
grep -v "^\s*$" runs.txt >runs2.txt; cat runs2.txt >&2
awk -v n="$N" '
{ label[NR] = $1; for (i = 2; i < NF - 2; i++) label[NR] = label[NR] " " $i
  st[NR] = $(NF-2); sec[NR] = $(NF-1); kb[NR] = $NF
  rate[NR] = st[NR] / sec[NR]; bps[NR] = kb[NR] * 1024 / st[NR] }
END {
  printf "dining philosophers N=%d, whole state space\n", n
  printf "%-28s %10s %8s %12s %10s %12s\n", "run", "states", "time s", "states/s", "peak MB", "bytes/state"
  for (i = 1; i <= NR; i++)
    printf "%-28s %10d %8.2f %12.0f %10.1f %12.1f\n", label[i], st[i], sec[i], rate[i], kb[i] / 1024, bps[i]
  for (i = 1; i < NR; i++)
    printf "mcvm / %-14s speed ratio %.2f, memory ratio %.2f\n", label[i], rate[NR] / rate[i], bps[NR] / bps[i]
}' runs2.txt
