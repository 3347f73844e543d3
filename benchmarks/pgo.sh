#!/bin/sh
# pgo.sh: remake cmd/mcvm/default.pgo, the CPU profile that go build uses
# for profile-guided optimisation of the mcvm command (-pgo=auto, Go's
# default, picks up default.pgo in the main package's directory).
#
# The profile is the merge of CPU profiles (check/verify/certify
# --cpuprofile) of the searches mcvm spends its time on: the unreduced
# philosophers with each store, the default reduction on the heap-heavy
# and the monitor-heavy models, and a script verified and certified.
# Run it on an otherwise idle machine after a change that moves the hot
# paths (benchmarks/RESULTS.md, "What the speed layers are worth", says how
# much the profile gives); the search itself is deterministic, only the
# samples differ from run to run.
#
# Usage: sh benchmarks/pgo.sh
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Profiles of a binary built without a profile, so the old one does not
# shape the new.
(cd "$root" && go build -pgo=off -o "$work/mcvm" ./cmd/mcvm)
M=$root/benchmarks/models
n=0
run() {
	n=$((n + 1))
	"$work/mcvm" "$@" --cpuprofile "$work/p$n.prof" --no-progress >/dev/null || [ $? -le 3 ]
}
run check --por=none --continue --memory-limit 0 -D N=8 "$M/philo.mcasm"
run check --por=none --continue --memory-limit 0 --hash-compact -D N=8 "$M/philo.mcasm"
run check --por=none --continue --memory-limit 0 --collapse -D N=8 "$M/philo.mcasm"
run check --continue "$M/moldyn.mcasm"
run check --continue "$M/raytracer.mcasm"
run check --continue "$M/nestedmonitor.mcasm"
run check --continue -D WORKERS=2 "$M/replicatedworkers.mcasm"
run check --continue -D READERS=2 -D WRITERS=2 -D OPS=0 -D BUG=0 "$M/rwvsn.mcasm"
run check --continue -D SIZE=1 -D PRODUCERS=2 -D CONSUMERS=2 -D ITEMS=2 -D BUG=0 "$M/boundedbuffer.mcasm"
run verify --continue --script "$work/rw.scc" -D WORKERS=2 "$M/replicatedworkers.mcasm"
run certify --continue --script "$work/rw.scc" -D WORKERS=2 "$M/replicatedworkers.mcasm"
go tool pprof -proto "$work"/p*.prof >"$work/merged.pgo"
mv "$work/merged.pgo" "$root/cmd/mcvm/default.pgo"
echo "wrote cmd/mcvm/default.pgo from $n profiles" >&2
