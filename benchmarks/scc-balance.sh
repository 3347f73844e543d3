#!/bin/sh
# Largest task of `mcvm partition` for k = 10, 50, 100, as a percentage of
# the script's transitions, on every model's SMALL configuration: tamper-proof
# and trustful scripts, unreduced (--por none) and reduced (--por all).
# Sizes only (no timing), so it may run beside other work.
#
# Usage: go build -o /tmp/mcvm ./cmd/mcvm && sh benchmarks/scc-balance.sh /tmp/mcvm [OLD_BINARY]
# With OLD_BINARY each cell reads "old / new" (both split the same scripts,
# written by the first binary).
set -e
M=${1:?usage: scc-balance.sh MCVM [OLD_MCVM]}
OLD=$2
D=$(mktemp -d)
trap 'rm -rf "$D"' EXIT
cd "$(dirname "$0")/models"
largest() { # binary script k
	"$1" partition --tasks "$3" --script "$2" -o "$D/tasks" | grep -o '([0-9.]*%)' | tr -d '(%)' | sort -g | tail -1
}
echo "| script | transitions | k=10 | k=50 | k=100 |"
echo "|---|---:|---:|---:|---:|"
for f in *.mcasm; do
	n=${f%.mcasm}
	defs=$(grep '^; SMALL' "$f" | grep -o -- '-D [^ ]*' | tr '\n' ' ') || continue
	[ -n "$defs" ] || continue
	for por in none all; do
		for kind in script trustful-script; do
			s="$D/$n.$por.$kind"
			# shellcheck disable=SC2086
			"$M" verify --por $por --continue --no-progress --$kind "$s" $defs "$f" >/dev/null || [ $? -eq 1 ]
			t=$("$M" partition --tasks 1 --script "$s" -o "$D/tasks" | head -1 | grep -o '[0-9]* transitions' | cut -d' ' -f1)
			row="| $n --por $por ${kind%-script} | $t"
			[ "$kind" = script ] && row="| $n --por $por tamper-proof | $t"
			for k in 10 50 100; do
				if [ -n "$OLD" ]; then
					row="$row | $(largest "$OLD" "$s" $k) / $(largest "$M" "$s" $k)"
				else
					row="$row | $(largest "$M" "$s" $k)"
				fi
			done
			echo "$row |"
		done
	done
done
