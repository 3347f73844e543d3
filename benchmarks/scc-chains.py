#!/usr/bin/env python3
"""Search scripts with and without chains, side by side (verify/certify --chain).

Usage: go build -o /tmp/mcvm ./cmd/mcvm && [SIZE=large] [ROUNDS=5] python3 benchmarks/scc-chains.py /tmp/mcvm [MODEL...]

For every model (its SMALL configuration, or LARGE with SIZE=large), with
--por all and --continue, runs in each round, one after the other:
verify --chain=false, certify --chain=false, verify, certify (chains, the
default). Prints a Markdown row per model: states, transitions and script
size of each, and the medians over the rounds of the verify and certify
times, with the ratios chains / none. Run it on an otherwise idle machine.
"""
import json, os, statistics, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from modelconfig import config  # noqa: E402
MCVM = sys.argv[1]
only = sys.argv[2:]
SIZE = os.environ.get("SIZE", "small").upper()
ROUNDS = int(os.environ.get("ROUNDS", "5"))


def run(args):
    out = subprocess.run([MCVM] + args + ["--json", "--memory-limit", "0", "--no-progress"], capture_output=True, text=True)
    if out.returncode not in (0, 1):
        raise SystemExit("mcvm %s: %s" % (" ".join(args), out.stderr))
    return json.loads(out.stdout)


tmp = tempfile.mkdtemp()
print("| model | config | states: none / chains | transitions: none / chains | script KB: none / chains | verify s: none / chains | ratio | certify s: none / chains | ratio | certify / verify with chains |")
print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
for f in sorted(os.listdir(os.path.join(HERE, "models"))):
    name = f[:-6]
    if not f.endswith(".mcasm") or (only and name not in only):
        continue
    path = os.path.join(HERE, "models", f)
    defs = config(path, SIZE)
    if defs is None:
        continue
    base = defs + ["--continue", "--por", "all", path]
    times = {k: [] for k in ("vn", "cn", "vc", "cc")}
    fig = {}
    for _ in range(ROUNDS):
        for chain, v, c in (("false", "vn", "cn"), ("true", "vc", "cc")):
            script = os.path.join(tmp, name + "-" + chain + ".scc")
            rv = run(["verify", "--chain=" + chain, "--script", script] + base)
            rc = run(["certify", "--chain=" + chain, "--script", script] + base)
            if (rc["states"], rc["transitions"]) != (rv["states"], rv["transitions"]):
                raise SystemExit("%s --chain=%s: certify %d/%d, verify %d/%d" % (name, chain, rc["states"], rc["transitions"], rv["states"], rv["transitions"]))
            times[v].append(rv["elapsed_s"])
            times[c].append(rc["elapsed_s"])
            fig[chain] = (rv["states"], rv["transitions"], rv["script"]["bytes"])
    med = {k: statistics.median(x) for k, x in times.items()}
    n, c = fig["false"], fig["true"]
    print("| %s | %s | %d / %d | %d / %d | %.1f / %.1f | %.3f / %.3f | %.2f | %.3f / %.3f | %.2f | %.2f |" % (
        name, " ".join(defs) or "(defaults)", n[0], c[0], n[1], c[1], n[2] / 1024, c[2] / 1024,
        med["vn"], med["vc"], med["vc"] / med["vn"], med["cn"], med["cc"], med["cc"] / med["cn"], med["cc"] / med["vc"]), flush=True)
    print("measured", name, file=sys.stderr, flush=True)
