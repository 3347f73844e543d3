#!/usr/bin/env python3
"""Measures state-space caching and prints the thesis's Tables 4.1 and 4.2
(Taleghani, chapter 4) for mcvm as Markdown: for each model, policy and
cache size (a percentage of the states of the uncached search), the CPU
time as a factor of the uncached search's and RW, the transitions explored
over the uncached search's.

Usage: go build -o /tmp/mcvm ./cmd/mcvm && [POR=all] [SIZE=large] [REPEAT=3] python3 benchmarks/cache-tables.py /tmp/mcvm [MODEL[:small|:large]...]

The tables are printed again after each model (so a run cut short leaves
the models done).

Every run is check --continue (the whole graph). POR=all is the default
reduction without sleep sets (which a cache leaves out) with chains;
POR=none is unreduced. A search that stores more than 25 times the
uncached search's states is stopped and reported TO (a count, not a
time, so that the cut is the same on a loaded machine). Policies with
random choices (random, stratified, tinylfu) run REPEAT times with seeds 1..REPEAT
and report the mean; the others' ties are broken with seed 1. CPU times
are the child processes' user+system time (resource.getrusage), runs of
one model interleaved.
"""
import json, os, resource, subprocess, sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from modelconfig import config  # noqa: E402

MCVM = sys.argv[1]
only = sys.argv[2:]
POR = os.environ.get("POR", "none")
SIZE = os.environ.get("SIZE", "small").upper()
REPEAT = int(os.environ.get("REPEAT", "3"))
FRACS = [15, 25, 50, 75, 95]
POLICIES = os.environ.get("POLICIES", "cost,random,age,hits,stratified,depth,tinylfu").split(",")
RANDOM = {"random", "stratified", "tinylfu"}
TO = 25


def run(args):
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = subprocess.run([MCVM, "check", "--json", "--continue", "--memory-limit", "0", "--no-progress",
                          "--por", POR, "--sleep=false"] + args, capture_output=True, text=True)
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    if out.returncode not in (0, 1, 3):
        raise SystemExit("mcvm check %s: %s" % (" ".join(args), out.stderr))
    r = json.loads(out.stdout)
    r["cpu"] = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    return r


models = []
for arg in only or sorted(f[:-6] for f in os.listdir(os.path.join(HERE, "models")) if f.endswith(".mcasm")):
    name, _, size = arg.partition(":")
    path = os.path.join(HERE, "models", name + ".mcasm")
    defs = config(path, (size or SIZE).upper())
    if defs is not None:
        models.append((arg, path, defs))

def tables(done):
    print("Uncached: states, transitions, median CPU s; peak resident MiB uncached / cost at 25%\n")
    print("| model | configuration | states | transitions | CPU s | peak MiB (uncached / cost 25%) |")
    print("|---|---|---:|---:|---:|---:|")
    for name in done:
        s, t, c0, mem, defs = info[name]
        print("| %s | %s | %d | %d | %.3f | %.1f / %.1f |" % (name, (" ".join(defs[1::2]) or "defaults"), s, t, c0,
              mem["uncached"] / 2**20, mem["cost 25%"] / 2**20) if "cost 25%" in mem else
              "| %s | %s | %d | %d | %.3f | %.1f / TO |" % (name, (" ".join(defs[1::2]) or "defaults"), s, t, c0, mem["uncached"] / 2**20))
    for frac in FRACS:
        print("\n%d%% cache: time factor / RW (TO: over %d times the states)\n" % (frac, TO))
        print("| model | " + " | ".join(POLICIES) + " |")
        print("|---|" + "---:|" * len(POLICIES))
        for name in done:
            cells = []
            for pol in POLICIES:
                v = table[name, frac, pol]
                cells.append("TO" if v is None else "%.2f / %.2f" % (v[0], v[1]))
            print("| %s | %s |" % (name, " | ".join(cells)))


table = {}  # (model, frac, policy) -> (time factor, RW) or None (TO)
info = {}
for name, path, defs in models:
    base = run(defs + [path])
    s, t = base["states"], base["transitions"]
    cpu0 = [base["cpu"]]
    mem = {"uncached": base["memory"]["peak_rss_bytes"]}
    for frac in FRACS:
        for pol in POLICIES:
            runs = []
            for seed in range(1, (REPEAT if pol in RANDOM else 1) + 1):
                r = run(defs + ["--cache", "%d%%" % frac, "--cache-space", str(s), "--cache-policy", pol,
                                "--seed", str(seed), "--max-states", str(TO * s), path])
                if r.get("limit") == "states":
                    runs = None
                    break
                assert r["verdict"] == base["verdict"], (name, frac, pol, r["verdict"])
                runs.append(r)
                if frac == 25 and pol == "cost":
                    mem["cost 25%"] = r["memory"]["peak_rss_bytes"]
            # The uncached search again, interleaved, for its CPU time.
            cpu0.append(run(defs + [path])["cpu"])
            if runs is None:
                table[name, frac, pol] = None
                continue
            cpu = sum(r["cpu"] for r in runs) / len(runs)
            rw = sum(r["transitions"] for r in runs) / len(runs) / t
            table[name, frac, pol] = (cpu, rw)
    c0 = sorted(cpu0)[len(cpu0) // 2]
    for k, v in list(table.items()):
        if k[0] == name and v is not None and len(v) == 2:
            table[k] = (v[0] / c0, v[1], True)
    info[name] = (s, t, c0, mem, defs)
    tables(list(info))
    print("\n----\n", flush=True)

