#!/bin/sh
# fuzz-soak.sh: run fuzz targets of mcvm's readers of untrusted input for
# a while each, one after the other with -parallel 1, and print a table of
# executions, new corpus entries and results (benchmarks/RESULTS.md,
# "Fuzzing"). A failing input is written to the package's testdata/fuzz,
# where `go test` runs it from then on; commit it with the fix.
#
# Usage: sh benchmarks/fuzz-soak.sh [DURATION [PKG:TARGET...]]
#   (default: 10m each, every target below)
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
d=${1:-10m}
[ $# -gt 0 ] && shift
targets=${*:-asm:FuzzAssemble bytecode:FuzzDecode explorer:FuzzReadTrail cmd/mcvm:FuzzParseTrail \
scc:FuzzRead scc:FuzzReadFPMap scc:FuzzMerge internal/jpfreport:FuzzParse \
explorer:FuzzCheck cmd/mcvm:FuzzReplayImprove}
printf '| target | package | time | executions | new inputs | result |\n|---|---|---:|---:|---:|---|\n'
for t in $targets; do
	pkg=${t%%:*} name=${t#*:}
	out=$(cd "$root" && go test -run '^$' -fuzz "^$name\$" -fuzztime "$d" -parallel 1 "./$pkg" 2>&1)
	last=$(printf '%s\n' "$out" | grep 'fuzz: elapsed' | tail -1)
	execs=$(printf '%s\n' "$last" | sed -n 's/.*execs: \([0-9]*\).*/\1/p')
	new=$(printf '%s\n' "$last" | sed -n 's/.*new interesting: \([0-9]*\).*/\1/p')
	if printf '%s\n' "$out" | grep -q '^ok'; then
		res=pass
	else
		res="FAIL: $(printf '%s\n' "$out" | grep -m1 -E 'Failing input|panic|FAIL' | tr '|' '/')"
	fi
	printf '| %s | %s | %s | %s | %s | %s |\n' "$name" "$pkg" "$d" "${execs:-?}" "${new:-?}" "$res"
done
