#!/bin/sh
# Size of unreduced search scripts (--por none, --continue) at configurations
# larger than SMALL: the thesis's own where they finish in 150 s, else the
# largest probed that does. Prints a Markdown row per model: states,
# transitions, the text rendering, the binary body, the zstd file, the
# ratio to the text and bytes per transition. Sizes only (no timing); each
# run needs up to a few GB of memory.
#
# Usage: go build -o /tmp/mcvm ./cmd/mcvm && sh benchmarks/scc-sizes.sh /tmp/mcvm [MODEL...]
M=${1:?usage: scc-sizes.sh MCVM [MODEL...]}
shift
D=$(mktemp -d)
trap 'rm -rf "$D"' EXIT
cd "$(dirname "$0")/models"
echo "| model | configuration | verdict | states | transitions | text (bytes) | binary (bytes) | zstd (bytes) | ratio vs text | bytes/transition |"
echo "|---|---|---|---:|---:|---:|---:|---:|---:|---:|"
while read -r name defs; do
	if [ $# -gt 0 ] && ! echo " $* " | grep -q " $name "; then
		continue
	fi
	# shellcheck disable=SC2086
	"$M" verify --por none --continue --json --no-progress --time-limit 150s --script "$D/s" $defs "$name.mcasm" |
		python3 -c '
import json, sys
d = json.load(sys.stdin)
s = d.get("script")
if not s:
    print("| %s | %s | %s after %d states (no script) | | | | | | | |" % (sys.argv[1], sys.argv[2] or "thesis", d["verdict"], d["states"]))
else:
    print("| %s | %s | %s | %d | %d | %d | %d | %d | %.0f | %.3f |" % (sys.argv[1], sys.argv[2] or "thesis", d["verdict"], d["states"], d["transitions"],
        s["text_bytes"], s["raw_bytes"], s["bytes"], s["text_compression_ratio"], s["bytes_per_transition"]))
' "$name" "$defs"
	rm -f "$D/s"
done <<'LIST'
boundedbuffer -D SIZE=2 -D PRODUCERS=3 -D CONSUMERS=3 -D ITEMS=2
diningphil -D N=6
elevator -D ELEVATORS=2 -D FLOORS=1 -D PEOPLE=1
ksupipeline
moldyn
nestedmonitor -D SIZE=3 -D PRODUCERS=3 -D CONSUMERS=3 -D ITEMS=2
philo -D N=8
philo_ok -D N=8
pipeline -D STAGES=4 -D BUG=0
raytracer
replicatedworkers -D WORKERS=2
rwvsn -D READERS=2 -D WRITERS=2
sleepingbarber
LIST
