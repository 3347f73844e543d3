#!/usr/bin/env python3
"""Measures search-carrying code on the benchmark models' SMALL configurations
and prints the thesis's Tables 3.2, 3.3, 3.4 and 4.3 (Taleghani) as Markdown.

Usage: go build -o /tmp/mcvm ./cmd/mcvm && [POR=all] [SIZE=large] python3 benchmarks/scc-tables.py /tmp/mcvm [MODEL...]

Every model is checked with --continue so the whole graph is explored even
where the configuration has an error. Times are the best of REPEAT runs.
POR=all (environment) measures scripts of the reduced search, compared with
check --por all --sleep=false (with chains, as verify runs them by default;
CHAIN=false measures scripts without, against check --chain=false); the
default is POR=none.
SIZE=large takes each model's LARGE configuration instead of its SMALL one.
"""
import json, os, subprocess, sys, tempfile

REPEAT = 2
POR = os.environ.get("POR", "none")
CHAIN = os.environ.get("CHAIN", "true")
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from modelconfig import config  # noqa: E402
MCVM = sys.argv[1]
only = sys.argv[2:]


SIZE = os.environ.get("SIZE", "small").upper()  # SMALL, or LARGE (the results table's sizes)


def run(args):
    out = subprocess.run([MCVM] + args + ["--json", "--memory-limit", "0", "--no-progress"],
                         capture_output=True, text=True)
    if out.returncode not in (0, 1):
        raise SystemExit("mcvm %s: %s" % (" ".join(args), out.stderr))
    return json.loads(out.stdout)


def best(args):
    rs = [run(args) for _ in range(REPEAT)]
    return min(rs, key=lambda r: r["elapsed_s"])


models = []
for f in sorted(os.listdir(os.path.join(HERE, "models"))):
    name = f[:-6]
    if not f.endswith(".mcasm") or (only and name not in only):
        continue
    defs = config(os.path.join(HERE, "models", f), SIZE)
    if defs is None:
        continue
    models.append((name, os.path.join(HERE, "models", f), defs))

def script_trans(r):
    # The transition entries of a complete script: its entries less one
    # backtrack per state. Without chains, the search's transitions; with
    # them, a transition and its chain are one entry.
    return r["ver"]["script"]["entries"] - r["chk"]["states"]


tmp = tempfile.mkdtemp()
rows = []
for name, path, defs in models:
    base = defs + ["--continue", "--por", POR, path]
    if POR != "none":
        base = ["--chain=" + CHAIN] + base
    full, trust = os.path.join(tmp, name + ".scc"), os.path.join(tmp, name + ".tscc")
    chk = best(["check", "--sleep=false"] + base)  # what scripts record
    ver = best(["verify", "--script", full] + base)
    tver = best(["verify", "--trustful-script", trust] + base)
    cert = best(["certify", "--script", full] + base)
    forget = run(["certify", "--forget", "--script", full] + base)
    tcert = best(["certify", "--trustful", "--script", trust] + base)
    assert cert["states"] == chk["states"] and cert["transitions"] == chk["transitions"], name
    assert tcert["states"] == chk["states"], name
    par = {}
    for k in (10, 50, 100):
        par[k] = best(["certify", "--tasks", str(k), "--jobs", "1", "--script", full] + base)
        par["t%d" % k] = best(["certify", "--trustful", "--tasks", str(k), "--jobs", "1", "--script", trust] + base)
    jobs = {}
    for k in (2, 10):
        for j in (1, 2):
            jobs[(k, j)] = best(["certify", "--tasks", str(k), "--jobs", str(j), "--script", full] + base)
    rows.append(dict(name=name, defs=" ".join(defs), chk=chk, ver=ver, tver=tver, cert=cert, forget=forget,
                     tcert=tcert, par=par, jobs=jobs))
    print("measured", name, file=sys.stderr)

print("### Table 3.2: verification and certification\n")
print("check: plain verification (no script); verify: verification writing the script; "
      "speed-ups are check time over certification time.\n")
print("trans/state: the script's transitions per state (with chains, a transition and its chain count as one, as a JPF transition runs to the next choice).\n")
print("| model | config | states | trans/state | check (s) | verify (s) | script (KB) | certify (s) | speed-up | trustful script (KB) | trustful certify (s) | speed-up |")
print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
for r in rows:
    c, s = r["chk"], r["ver"]["script"]
    print("| %s | %s | %d | %.2f | %.3f | %.3f | %.1f | %.3f | %.2f | %.1f | %.3f | %.1f |" % (
        r["name"], r["defs"], c["states"], script_trans(r) / c["states"], c["elapsed_s"], r["ver"]["elapsed_s"],
        s["bytes"] / 1024, r["cert"]["elapsed_s"], c["elapsed_s"] / r["cert"]["elapsed_s"],
        r["tver"]["script"]["bytes"] / 1024, r["tcert"]["elapsed_s"], c["elapsed_s"] / r["tcert"]["elapsed_s"]))

print("\n### Script size and compression\n")
print("| model | transitions | entries | text (bytes) | binary (bytes) | zstd (bytes) | ratio vs text | ratio vs binary | bytes/transition | trustful bytes/state |")
print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
for r in rows:
    s, c = r["ver"]["script"], r["chk"]
    print("| %s | %d | %d | %d | %d | %d | %.0f | %.1f | %.3f | %.3f |" % (
        r["name"], c["transitions"], s["entries"], s["text_bytes"], s["raw_bytes"], s["bytes"], s["text_compression_ratio"],
        s["compression_ratio"], s["bytes_per_transition"], r["tver"]["script"]["bytes"] / c["states"]))

print("\n### Table 3.3: parallel certification (largest task, speed-up)\n")
print("Largest task as a percentage of the script's transitions; speed-up = check time / "
      "(largest task + partitioning + merging), as the thesis measures it.\n")
print("| model | k=10 max | speed-up | k=50 max | speed-up | k=100 max | speed-up | trustful k=10 | speed-up | k=50 | speed-up | k=100 | speed-up |")
print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
for r in rows:
    cells = []
    for key, total in [(10, None), (50, None), (100, None), ("t10", None), ("t50", None), ("t100", None)]:
        p = r["par"][key]["script"]
        # A script's transitions: its entries less one backtrack per state
        # (a trustful one's: the productive transitions, and faulting ones).
        trans = script_trans(r) if not str(key).startswith("t") else r["tver"]["script"]["entries"] - r["chk"]["states"]
        t = p["largest_task_s"] + p["partition_s"] + p["merge_s"]
        cells.append("%.1f%%" % (100 * p["largest_task_transitions"] / trans))
        cells.append("%.1f" % (r["chk"]["elapsed_s"] / t))
    print("| %s | %s |" % (r["name"], " | ".join(cells)))

print("\n### Table 3.4: init path lengths (tamper-proof tasks)\n")
print("| model | max depth | k=10 avg | max | k=50 avg | max | k=100 avg | max |")
print("|---|---:|---:|---:|---:|---:|---:|---:|")
for r in rows:
    cells = []
    for k in (10, 50, 100):
        p = r["par"][k]["script"]
        cells += ["%.1f" % p["avg_init_path"], "%d" % p["max_init_path"]]
    print("| %s | %d | %s |" % (r["name"], r["chk"]["max_depth"], " | ".join(cells)))

print("\n### Table 4.3: peak FP entries with --forget\n")
print("| model | states | peak FP entries | % of states |")
print("|---|---:|---:|---:|")
for r in rows:
    s = r["forget"]["script"]
    print("| %s | %d | %d | %.1f%% |" % (r["name"], r["chk"]["states"], s["peak_fp_entries"], s["peak_fp_percent"]))

print("\n### Two jobs: wall time of certify --tasks K --jobs N (whole run: partition, tasks, merge)\n")
print("| model | sequential certify (s) | K=2 jobs=1 | K=2 jobs=2 | speed-up | K=10 jobs=1 | K=10 jobs=2 | speed-up |")
print("|---|---:|---:|---:|---:|---:|---:|---:|")
for r in rows:
    j = r["jobs"]
    print("| %s | %.3f | %.3f | %.3f | %.2f | %.3f | %.3f | %.2f |" % (
        r["name"], r["cert"]["elapsed_s"], j[(2, 1)]["elapsed_s"], j[(2, 2)]["elapsed_s"],
        j[(2, 1)]["elapsed_s"] / j[(2, 2)]["elapsed_s"], j[(10, 1)]["elapsed_s"], j[(10, 2)]["elapsed_s"],
        j[(10, 1)]["elapsed_s"] / j[(10, 2)]["elapsed_s"]))
