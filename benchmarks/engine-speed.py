#!/usr/bin/env python3
"""Two mcvm builds on every benchmark model, alternated: CPU time and memory ratios.

    python3 benchmarks/engine-speed.py [--rounds N] [--size SMALL|LARGE] [--configs default,hash-compact] OLD NEW

Runs `check --continue` of every model in benchmarks/models at its SMALL
(or LARGE) configuration, under each configuration (default: the default flags, and
--hash-compact --por=none, the unreduced lossy search), with OLD and NEW
in turn (A B, then B A, so that neither always runs first), and reads
each child's CPU time (user + system, from the operating system) and the
peak resident memory the report gives, and the search's own time
(elapsed_s, without start-up and report). Both builds must explore the same
numbers of states and transitions (checked). Prints, per model and
configuration, the median of the rounds' OLD/NEW CPU-time ratios (above
1: NEW is faster) and NEW's peak memory per state over OLD's, then the
median over the models. On a shared machine compare by these ratios, not
by absolute times.
"""
import argparse
import json
import os
import resource
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
from modelconfig import config  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CONFIGS = {
    "default": [],
    "hash-compact": ["--hash-compact", "--por=none"],
}


def run(binary, args):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    p = subprocess.run([binary, "check", "--json", "--continue", "--no-progress"] + args,
                       cwd=ROOT, capture_output=True, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    j = json.loads(p.stdout)
    return cpu, j["states"], j["transitions"], j["memory"]["peak_rss_bytes"], j["elapsed_s"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=5, help="runs of each build per model and configuration")
    ap.add_argument("--configs", default="default,hash-compact", help="comma-separated: " + ", ".join(CONFIGS))
    ap.add_argument("--size", default="SMALL", choices=["SMALL", "LARGE"], help="the models' configuration")
    ap.add_argument("--models", help="comma-separated model names (default: all)")
    ap.add_argument("old")
    ap.add_argument("new")
    a = ap.parse_args()
    models = sorted(f[:-6] for f in os.listdir(os.path.join(ROOT, "benchmarks", "models")) if f.endswith(".mcasm"))
    if a.models:
        models = [m for m in models if m in a.models.split(",")]
    summary, searches = {}, {}
    print("%-20s %-13s %8s %10s %10s %9s %14s" % ("model", "config", "states", "old cpu s", "new cpu s", "old/new", "search old/new"))
    for cfg in a.configs.split(","):
        for m in models:
            path = os.path.join("benchmarks", "models", m + ".mcasm")
            args = CONFIGS[cfg] + (config(os.path.join(ROOT, path), a.size) or []) + [path]
            olds, news = [], []
            for r in range(a.rounds):
                pair = [(a.old, olds), (a.new, news)]
                if r % 2:
                    pair.reverse()
                for b, out in pair:
                    out.append(run(b, args))
            if {(x[1], x[2]) for x in olds + news} != {(olds[0][1], olds[0][2])}:
                sys.exit("%s %s: the builds explored different state spaces" % (m, cfg))
            ratio = statistics.median(o[0] / n[0] for o, n in zip(olds, news))
            search = statistics.median(o[4] / max(n[4], 1e-9) for o, n in zip(olds, news))
            searches.setdefault(cfg, []).append(search)
            mem = statistics.median(n[3] for n in news) / statistics.median(o[3] for o in olds)
            summary.setdefault(cfg, []).append(ratio)
            print("%-20s %-13s %8d %10.3f %10.3f %9.3f %14.3f  memory new/old %.3f" % (
                m, cfg, olds[0][1], statistics.median(o[0] for o in olds),
                statistics.median(n[0] for n in news), ratio, search, mem), flush=True)
    for cfg, rs in summary.items():
        print("%s: median over %d models %.3f, lowest %.3f; the search's own time (elapsed_s): median %.3f, lowest %.3f" % (
            cfg, len(rs), statistics.median(rs), min(rs), statistics.median(searches[cfg]), min(searches[cfg])))


if __name__ == "__main__":
    main()
