#!/usr/bin/env python3
"""check --workers against one process, on the dining philosophers unreduced.

    python3 benchmarks/workers-speed.py [--rounds R] [--workers 2,4,8] [--model PATH] MCVM N [CHECK FLAGS...]

Runs `check --continue --por none -D N=N benchmarks/models/philo.mcasm`
(or --model) depth-first (the default), breadth-first, and with each
--workers count depth-first and by levels (`--search bfs`), with the
check flags given after N (e.g. --hash-compact, -D MEALS=2), in R rounds
(default 5) rotating the order, and prints each one's median wall-clock
and CPU seconds (user and system, from the operating system), its CPU
time over breadth-first search's (the cost of sharing: 1.0 means none),
its speed-up in wall-clock time over depth-first and over breadth-first
search, and its states and transitions, which must be the same in every
row.
"""
import argparse
import json
import os
import resource
import statistics
import subprocess
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ap = argparse.ArgumentParser()
ap.add_argument("--rounds", type=int, default=5)
ap.add_argument("--workers", default="2")
ap.add_argument("--model", default=os.path.join(ROOT, "benchmarks", "models", "philo.mcasm"))
ap.add_argument("mcvm")
ap.add_argument("n")
ap.add_argument("extra", nargs=argparse.REMAINDER)
a = ap.parse_args()
base = ["check", "--json", "--continue", "--no-progress", "--por", "none", "--memory-limit", "0", "-D", "N=" + a.n, a.model]
configs = {"dfs": [], "bfs": ["--search", "bfs"]}
for w in a.workers.split(","):
    configs["workers " + w] = ["--workers", w]
    configs["levels " + w] = ["--workers", w, "--search", "bfs"]
runs = {k: [] for k in configs}
names = list(configs)
for r in range(a.rounds):
    order = names[r % len(names):] + names[:r % len(names)]
    for name in order:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.time()
        p = subprocess.run([a.mcvm] + base + configs[name] + a.extra, capture_output=True, text=True)
        wall = time.time() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        j = json.loads(p.stdout)
        cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
        runs[name].append((wall, cpu, j["states"], j["transitions"]))
med = {k: (statistics.median(x[0] for x in v), statistics.median(x[1] for x in v)) for k, v in runs.items()}
print("%-10s %8s %8s %10s %12s %12s %10s %12s" % ("search", "wall s", "CPU s", "CPU/bfs", "speed-up dfs", "speed-up bfs", "states", "transitions"))
for name, v in runs.items():
    wall, cpu = med[name]
    print("%-10s %8.2f %8.2f %10.2f %12.2f %12.2f %10d %12d" % (
        name, wall, cpu, cpu / med["bfs"][1], med["dfs"][0] / wall, med["bfs"][0] / wall, v[0][2], v[0][3]))
counts = {(x[2], x[3]) for v in runs.values() for x in v}
if len(counts) != 1:
    raise SystemExit("the searches disagree on the states and transitions: %s" % counts)
