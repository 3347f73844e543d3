#!/usr/bin/env python3
"""Coverage estimators tried and left, simulated on whole state graphs.

    go build -o /tmp/mcvm ./cmd/mcvm && python3 benchmarks/coverage-sim.py /tmp/mcvm [MODEL...]

Draws each model's unreduced state graph with `mcvm graph` (SMALL
configuration; node numbers are the depth-first search's discovery
order, so the states a depth-first search stored when a limit of N
states stopped it are 0..N-1) and scores estimators against the truth at
coverage limits of 5, 25, 50 and 75%: the deviation in percentage points,
averaged over the limits, and the worst. `walk` reproduces mcvm's walk
estimator (to check the simulation against benchmarks/coverage.py), and
lp-levels is close to mcvm's levels; the others were tried in this form
and are not in mcvm:

  stratified   walk, but a capture-recapture estimate per depth level (the
               stored states' depths against the walks' hits at each depth)
  progress     depth-first search's progress from its stack (Kilby et al.'s
               weighted backtrack estimate, productive transitions only)
  levels-fit   breadth-first search's level sizes fitted by a beta curve
               over the true depth, extrapolated (truth: breadth-first)
  lp-levels    mcvm's levels estimator simplified (one run, about 50
               states a level): breadth-first search continued from two
               independent hash-thinned samples of the frontier, each
               level's size by Lincoln-Petersen from their overlap (truth:
               breadth-first); its cost in transitions is printed against
               the search's
"""
import math
import os
import random
import re
import subprocess
import sys
from collections import deque

sys.path.insert(0, os.path.dirname(__file__))
from modelconfig import config  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
THESIS = ["diningphil", "boundedbuffer", "ksupipeline", "nestedmonitor", "pipeline",
          "rwvsn", "replicatedworkers", "sleepingbarber", "elevator"]
LIMITS = (5, 25, 50, 75)


def graph(mcvm, model):
    path = os.path.join("benchmarks", "models", model + ".mcasm")
    p = subprocess.run([mcvm, "graph", "--max-states", "10000000"] + (config(os.path.join(ROOT, path), "SMALL") or []) + [path],
                       cwd=ROOT, capture_output=True, text=True)
    if p.returncode not in (0, 1):  # 1: the graph has an error state
        sys.exit("mcvm graph %s: %s" % (model, p.stderr))
    out = p.stdout
    n, edges = 0, []
    for line in out.splitlines():
        m = re.match(r'\s*s(\d+) -> s(\d+)', line)
        if m:
            edges.append((int(m.group(1)), int(m.group(2))))
        elif re.match(r'\s*s(\d+) \[', line):
            n += 1
    adj = [[] for _ in range(n)]
    for a, b in edges:
        adj[a].append(b)
    return adj


def bfs(adj):
    d = [-1] * len(adj)
    d[0], q, order = 0, deque([0]), [0]
    while q:
        s = q.popleft()
        for t in adj[s]:
            if d[t] < 0:
                d[t] = d[s] + 1
                q.append(t)
                order.append(t)
    return d, order


def walks(adj, budget, seed=1, length=4096):
    """The states random walks from state 0 meet, step by step."""
    rng, met = random.Random(seed), []
    while len(met) < budget:
        s = 0
        for _ in range(length):
            if not adj[s] or len(met) >= budget:
                break
            s = adj[s][rng.randrange(len(adj[s]))]
            met.append(s)
    return met


def budget_of(adj, c):
    return int(min(max(0.04 * sum(map(len, adj)) * c / 100, 4000), 2000000))


def walk(adj, c, ctx):
    n = len(adj) * c // 100
    met = walks(adj, budget_of(adj, c))
    return sum(1 for s in met if s < n) / len(met)


def stratified(adj, c, ctx):
    n, d = len(adj) * c // 100, ctx["d"]
    stored, tot, hit = {}, {}, {}
    for s in range(n):
        stored[d[s]] = stored.get(d[s], 0) + 1
    for s in walks(adj, budget_of(adj, c)):
        tot[d[s]] = tot.get(d[s], 0) + 1
        hit[d[s]] = hit.get(d[s], 0) + (s < n)
    total = 1 + sum(stored.get(k, 0) * tot[k] / hit[k] for k in tot if hit.get(k))
    return min(1, n / total)


def progress(adj, c, ctx):
    n = len(adj) * c // 100
    seen = bytearray(len(adj))
    seen[0], count, stack = 1, 1, [[0, 0, []]]
    while stack and count < n:
        fr = stack[-1]
        s = fr[0]
        if fr[1] < len(adj[s]):
            i = fr[1]
            fr[1] += 1
            t = adj[s][i]
            if not seen[t]:
                seen[t] = 1
                count += 1
                fr[2].append(i)
                stack.append([t, 0, []])
        else:
            stack.pop()
    p, w = 0.0, 1.0
    for s, nxt, tree in stack:
        prod = len(tree) + sum(1 for t in adj[s][nxt:] if not seen[t])
        done = len(tree) - (1 if tree and tree[-1] == nxt - 1 else 0)
        if prod:
            p += w * done / prod
            w /= prod
    return p


def levels_fit(adj, c, ctx):
    d, order = ctx["d"], ctx["order"]
    n = len(adj) * c // 100
    depth = max(d)
    lv = [0] * (depth + 1)
    for x in d:
        lv[x] += 1
    k = d[order[n - 1]]
    known = lv[:k]
    xs = [(i + 0.5) / (depth + 1) for i in range(depth + 1)]
    best = None
    for a in [x / 10 for x in range(11, 80, 2)]:
        for b in [x / 10 for x in range(11, 80, 2)]:
            f = [x ** (a - 1) * (1 - x) ** (b - 1) for x in xs]
            den = sum(f[i] ** 2 for i in range(k))
            if not den:
                continue
            sc = sum(known[i] * f[i] for i in range(k)) / den
            err = sum((known[i] - sc * f[i]) ** 2 for i in range(k))
            if best is None or err < best[0]:
                best = (err, sc, f)
    _, sc, f = best
    return min(1, n / max(sum(known) + sum(sc * x for x in f[k:]), n))


def mix(x, seed):
    z = (x + seed * 0x9E3779B97F4A7C15) & (2 ** 64 - 1)
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & (2 ** 64 - 1)
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & (2 ** 64 - 1)
    return (z ^ (z >> 31)) / 2.0 ** 64


def lp_levels(adj, c, ctx, cap=50):
    d, order = ctx["d"], ctx["order"]
    n = len(adj) * c // 100
    pos = ctx["pos"]
    stored = lambda s: pos[s] < n
    front = [s for s in order[:n] if any(not stored(t) for t in adj[s])]
    q = min(1.0, cap / max(len(front), 1))
    s1 = [s for s in front if mix(s, 1) < q]
    s2 = [s for s in front if mix(s, 2) < q]
    seen1, seen2, unvisited, level, cost = set(), set(), 0.0, 0, 0
    while s1 or s2:
        n1, n2 = set(), set()
        for src, dst, seen in ((s1, n1, seen1), (s2, n2, seen2)):
            for s in src:
                cost += len(adj[s])
                dst.update(t for t in adj[s] if not stored(t) and t not in seen)
        seen1 |= n1
        seen2 |= n2
        unvisited += (len(n1) + 1) * (len(n2) + 1) / (len(n1 & n2) + 1) - 1
        r1, r2 = min(1.0, cap / max(len(n1), 1)), min(1.0, cap / max(len(n2), 1))
        s1 = [t for t in n1 if mix(t, 3 + 2 * level) < r1]
        s2 = [t for t in n2 if mix(t, 4 + 2 * level) < r2]
        level += 1
    ctx["cost"].append(cost / (sum(map(len, adj)) * c / 100))
    return n / (n + unvisited)


ESTIMATORS = [("walk", walk), ("stratified", stratified), ("progress", progress),
              ("levels-fit", levels_fit), ("lp-levels", lp_levels)]


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    mcvm, models = sys.argv[1], sys.argv[2:] or THESIS
    devs = {name: [] for name, _ in ESTIMATORS}
    cost = []
    print("| model | states | " + " | ".join(name for name, _ in ESTIMATORS) + " |")
    print("|---|---:|" + "---:|" * len(ESTIMATORS))
    for model in models:
        adj = graph(mcvm, model)
        d, order = bfs(adj)
        pos = [0] * len(adj)
        for i, s in enumerate(order):
            pos[s] = i
        ctx = {"d": d, "order": order, "pos": pos, "cost": cost}
        cells = []
        for name, est in ESTIMATORS:
            ds = [abs(est(adj, c, ctx) - c / 100) * 100 for c in LIMITS]
            devs[name] += ds
            cells.append("%.0f" % (sum(ds) / len(ds)))
        print("| %s | %d | %s |" % (model, len(adj), " | ".join(cells)), flush=True)
    print("| all: average / worst | | " + " | ".join("%.1f / %.0f" % (sum(v) / len(v), max(v)) for v in devs.values()) + " |")
    print("\nlp-levels' transitions over the limited search's: median %.2f" % sorted(cost)[len(cost) // 2])


if __name__ == "__main__":
    main()
