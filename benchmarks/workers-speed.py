#!/usr/bin/env python3
"""check --workers 2 against one process, on the dining philosophers unreduced.

    python3 benchmarks/workers-speed.py MCVM N [CHECK FLAGS...]

Runs `check --continue --por none -D N=N benchmarks/models/philo.mcasm`
depth-first (the default), breadth-first and with --workers 2, with the
flags given after N (e.g. --hash-compact), in 5 rounds alternating the
order, and prints each one's median wall-clock and CPU seconds (user and
system, from the operating system) and its states and transitions, which
must be the same in every row.
"""
import json
import os
import resource
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
mcvm, n, extra = sys.argv[1], sys.argv[2], sys.argv[3:]
base = ["check", "--json", "--continue", "--no-progress", "--por", "none", "-D", "N=" + n,
        os.path.join(ROOT, "benchmarks", "models", "philo.mcasm")]
configs = {"dfs": [], "bfs": ["--search", "bfs"], "workers 2": ["--workers", "2"]}
runs = {k: [] for k in configs}
for r in range(5):
    order = list(configs.items())
    if r % 2:
        order.reverse()
    for name, args in order:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.time()
        p = subprocess.run([mcvm] + base + args + extra, capture_output=True, text=True)
        wall = time.time() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        j = json.loads(p.stdout)
        cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
        runs[name].append((wall, cpu, j["states"], j["transitions"]))
for name, v in runs.items():
    print("%-10s wall %.2f s, CPU %.2f s, %d states, %d transitions" % (
        name, statistics.median(x[0] for x in v), statistics.median(x[1] for x in v), v[0][2], v[0][3]))
