#!/usr/bin/env python3
"""Two mcvm binaries on one search, alternated: the speed and memory of a change.

Usage: python3 benchmarks/pair.py ROUNDS OLD NEW CHECK-ARGS...
  e.g. python3 benchmarks/pair.py 5 /tmp/mcvm-old /tmp/mcvm-new \\
           --por=none --continue --memory-limit 0 -D N=9 benchmarks/models/philo.mcasm

Each round runs `OLD check --json CHECK-ARGS` and `NEW check --json
CHECK-ARGS` (in alternating order, so that neither always runs first) and
reads states_per_s and memory.peak_rss_bytes. Prints the medians of each
and the median of the rounds' new/old speed ratios: on a shared, noisy
machine compare by ratios measured in one run. Both binaries must explore
the same states (checked).
"""
import json, statistics, subprocess, sys


def run(binary, args):
    out = subprocess.run([binary, "check", "--json"] + args, capture_output=True, text=True).stdout
    j = json.loads(out)
    return j["states"], j["states_per_s"], j["memory"]["peak_rss_bytes"]


def main():
    if len(sys.argv) < 5:
        sys.exit(__doc__)
    rounds, old, new, args = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4:]
    o, n = [], []
    for r in range(rounds):
        if r % 2:
            b = run(new, args)
            a = run(old, args)
        else:
            a = run(old, args)
            b = run(new, args)
        if a[0] != b[0]:
            sys.exit(f"the binaries explored {a[0]} and {b[0]} states")
        o.append(a)
        n.append(b)
    ratios = [y[1] / x[1] for x, y in zip(o, n)]
    med = statistics.median
    print(f"states {o[0][0]}")
    print(f"states/s: old {med(x[1] for x in o):.0f}, new {med(x[1] for x in n):.0f}; "
          f"paired ratio new/old median {med(ratios):.3f} ({' '.join(f'{r:.3f}' for r in ratios)})")
    print(f"peak resident MiB: old {med(x[2] for x in o) / 2**20:.1f}, new {med(x[2] for x in n) / 2**20:.1f}")


if __name__ == "__main__":
    main()
