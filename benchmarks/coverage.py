#!/usr/bin/env python3
"""Coverage estimation against the truth: the thesis's Table 5.1 for mcvm.

    go build -o /tmp/mcvm ./cmd/mcvm && python3 benchmarks/coverage.py [--size SMALL] [--por none,all]
        [--limits 3,5,10,25,50,75] [--seeds 10] [--estimators walk,thesis] /tmp/mcvm [MODEL...]

For each benchmark model (default: the nine programs of the thesis), each
reduction and estimator, runs the complete search once for the true
number of states N, then, for each coverage limit L%, searches with
--max-states L*N/100 and each seed, and compares the estimate with the
true coverage (the states stored over N, the search's own figure: the
thesis's "actual percentage"). Prints one Markdown table per reduction
and estimator, in the thesis's form: per model and limit the best, worst
average deviation and its standard deviation in percentage points over the seeds, and the
average overhead (the limited search's CPU time with the estimate over
without it, for walk and levels, which leave the search as it is; thesis
changes it). The complete search is the one the estimator's search is
cut from: --search bfs for levels and thesis (their states are those of
breadth-first search without chains).
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
THESIS = ["diningphil", "boundedbuffer", "ksupipeline", "nestedmonitor", "pipeline",
          "rwvsn", "replicatedworkers", "sleepingbarber", "elevator"]


def run(mcvm, args):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    p = subprocess.run([mcvm, "check", "--json", "--continue", "--no-progress", "--memory-limit", "0"] + args,
                       cwd=ROOT, capture_output=True, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode not in (0, 1, 3):
        sys.exit("mcvm %s: %s" % (" ".join(args), p.stderr))
    j = json.loads(p.stdout)
    j["cpu"] = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return j


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--size", default="SMALL", choices=["SMALL", "LARGE"])
    ap.add_argument("--por", default="none,all")
    ap.add_argument("--limits", default="3,5,10,25,50,75")
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--estimators", default="walk,levels,thesis,chao")
    ap.add_argument("mcvm")
    ap.add_argument("models", nargs="*")
    a = ap.parse_args()
    models = a.models or THESIS
    limits = [int(x) for x in a.limits.split(",")]
    for por in a.por.split(","):
        for est in a.estimators.split(","):
            print("\n`--por %s --coverage %s`: deviation in percentage points (best / worst / average / standard deviation over %d seeds)\n"
                  % (por, est, a.seeds))
            print("| model | states | " + " | ".join("%d%%" % l for l in limits) + " | overhead |")
            print("|---|---:|" + "---:|" * len(limits) + "---:|")
            devs = []
            for m in models:
                path = os.path.join("benchmarks", "models", m + ".mcasm")
                base = (config(os.path.join(ROOT, path), a.size) or []) + ["--por", por]
                if est in ("thesis", "levels"):
                    base += ["--search", "bfs"]
                full = run(a.mcvm, base + [path])["states"]
                cells, over = [], []
                for l in limits:
                    cap = max(int(full * l / 100), 2)
                    ds = []
                    for seed in range(1, a.seeds + 1):
                        j = run(a.mcvm, base + ["--max-states", str(cap), "--coverage", est, "--seed", str(seed), path])
                        if "coverage_estimate" not in j:
                            continue  # complete (no limit reached)
                        true = j["states"] / full
                        ds.append(abs(j["coverage_estimate"] - true) * 100)
                        if est in ("walk", "levels") and seed <= 3:
                            off = run(a.mcvm, base + ["--max-states", str(cap), "--coverage", "off", path])
                            over.append(j["cpu"] / max(off["cpu"], 1e-3))
                    if ds:
                        devs += ds
                        cells.append("%.0f / %.0f / %.1f / %.1f" % (min(ds), max(ds), statistics.mean(ds), statistics.pstdev(ds)))
                    else:
                        cells.append("complete")
                ov = "%.2f" % statistics.median(over) if over else ""
                print("| %s | %d | %s | %s |" % (m, full, " | ".join(cells), ov), flush=True)
            if devs:
                print("\nall: average %.1f, worst %.1f, standard deviation %.1f points over %d runs"
                      % (statistics.mean(devs), max(devs), statistics.pstdev(devs), len(devs)))


if __name__ == "__main__":
    main()
