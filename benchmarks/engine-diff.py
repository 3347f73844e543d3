#!/usr/bin/env python3
"""Differential check of two mcvm builds: same verdicts, counts, traces, scripts.

    python3 benchmarks/engine-diff.py [--base REV] [--quick] [--jobs N]

Builds mcvm at REV (default: origin/main, else HEAD) and from the work
tree, then runs both on every conformance program and every benchmark
model at its SMALL and LARGE sizes, under a matrix of stores, reductions
and search orders (check --json --continue with a state cap, check to the
first error with --trail, verify --script), and compares:

  - check: the JSON report with time and memory figures removed (verdict,
    states, transitions, revisits, depth, instructions, reduction and
    chain counts, the trace);
  - the trail file and the search script, byte for byte;
  - the certification of each script (whole, and split into 3 tasks):
    the JSON report without time and memory figures;
  - the exit code, and stderr for runs that fail.

Memory figures may move (a redesign may change the stack's memory), so
they are not compared; bench them instead. Exit status 1 lists each
difference. Generated programs are compared by the recorded figures of
go test ./explorer -run TestEngine_recorded.
"""
import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.dirname(__file__))
from modelconfig import config  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Each check configuration: flags added to check --json --continue.
CHECK = [
    [],
    ["--por", "none"],
    ["--por", "none", "--hash-compact"],
    ["--por", "none", "--bitstate", "22"],
    ["--por", "none", "--collapse"],
    ["--hash-compact"],
    ["--bitstate", "24"],
    ["--collapse"],
    ["--search", "bfs", "--por", "none"],
    ["--search", "bfs"],
    ["--search", "bfs", "--proviso", "static", "--hash-compact"],
    ["--por", "escape"],
    ["--por", "ample", "--proviso", "static"],
    ["--proviso", "duplicate"],
    ["--por", "dpor"],
    ["--por", "ample+dpor", "--sleep"],
    ["--por", "dpor", "--sii=false", "--hash-compact"],
    ["--chain=false", "--sleep=false"],
    ["--chain=false"],
    ["--symmetry"],
    ["--symmetry", "--por", "none", "--collapse"],
    ["--dead-locals"],
    ["--granularity", "instruction", "--por", "none"],
    ["--granularity", "instruction"],
    ["--gc", "memoised"],
    ["--gc", "none", "--collapse"],
    ["--random-order", "7"],
    ["--max-depth", "40", "--por", "none"],
    ["--uncaught", "ignore"],
]
# Configurations run to the first error, writing a trail.
FIRST = [[], ["--por", "none"], ["--search", "bfs"], ["--symmetry"], ["--hash-compact", "--por", "none"]]
# verify configurations: the script is compared byte for byte.
VERIFY = [[], ["--por", "none"], ["--chain=false"], ["--dead-locals", "--symmetry"], ["--collapse"]]

# Figures that depend on time or memory, removed before comparing.
VOLATILE = {"elapsed_s", "states_per_s", "bytes_per_state", "memory", "model", "peak_memory"}


def steady(j):
    """Returns report j without what depends on time, memory or paths."""
    for k in VOLATILE:
        j.pop(k, None)
    sc = j.get("script", {})
    for k in list(sc):
        if k == "file" or k.endswith("_s"):
            sc.pop(k)
    return j


def build(rev, out):
    if rev is None:
        subprocess.run(["go", "build", "-o", out, "./cmd/mcvm"], cwd=ROOT, check=True)
        return
    tmp = tempfile.mkdtemp(prefix="mcvm-base-")
    subprocess.run(["git", "worktree", "add", "--detach", tmp, rev], cwd=ROOT, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        subprocess.run(["go", "build", "-o", out, "./cmd/mcvm"], cwd=tmp, check=True)
    finally:
        subprocess.run(["git", "worktree", "remove", "--force", tmp], cwd=ROOT, check=True)


def programs(quick):
    conf = os.path.join(ROOT, "testdata", "conformance")
    for f in sorted(os.listdir(conf)):
        if f.endswith(".mcasm"):
            yield os.path.join("testdata", "conformance", f), []
    models = os.path.join(ROOT, "benchmarks", "models")
    for f in sorted(os.listdir(models)):
        if not f.endswith(".mcasm"):
            continue
        path = os.path.join("benchmarks", "models", f)
        for size in (["SMALL"] if quick else ["SMALL", "LARGE"]):
            d = config(os.path.join(ROOT, path), size)
            if d is not None:
                yield path, d


def certify(binary, args, script):
    """Certifies script with binary, whole and in 3 tasks, as verify args wrote it."""
    out = {}
    flags = [a for a in args[1:] if a not in ("--script", script)]
    for extra in ([], ["--tasks", "3", "--jobs", "2"]):
        p = subprocess.run([binary, "certify", "--json", "--script", script] + extra + flags,
                           cwd=ROOT, capture_output=True, text=True)
        key = "certify" + "".join(extra[:2])
        out[key + " exit"] = p.returncode
        try:
            out[key] = steady(json.loads(p.stdout))
        except json.JSONDecodeError:
            out[key] = p.stdout + p.stderr.replace(binary, "mcvm")
    return out


def run(binary, args):
    """Runs binary with args; returns what is compared (for verify, also its
    script's certification)."""
    out = {}
    p = subprocess.run([binary] + args, cwd=ROOT, capture_output=True, text=True)
    out["exit"] = p.returncode
    if p.returncode == 2:
        out["stderr"] = p.stderr.replace(binary, "mcvm")
    if "--json" in args and p.stdout.strip():
        try:
            out["json"] = steady(json.loads(p.stdout))
        except json.JSONDecodeError:
            out["stdout"] = p.stdout
    for flag in ("--trail", "--script"):
        if flag in args:
            path = args[args.index(flag) + 1]
            if os.path.exists(path):
                out[flag] = hashlib.sha256(open(path, "rb").read()).hexdigest()
                if args[0] == "verify":
                    out.update(certify(binary, args, path))
                os.remove(path)
            else:
                out[flag] = None
    return out


def cases(quick):
    cap = "20000" if quick else "100000"
    for path, d in programs(quick):
        for c in CHECK:
            yield ["check", "--json", "--continue", "--no-progress", "--max-states", cap] + c + d + [path]
        for c in FIRST:
            yield ["check", "--json", "--no-progress", "--max-states", cap, "--trail", "TRAIL"] + c + d + [path]
        if path.startswith("testdata") or quick:
            for c in VERIFY:
                yield ["verify", "--no-progress", "--max-states", cap, "--script", "SCRIPT"] + c + d + [path]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--base", help="git revision to compare against (default origin/main, else HEAD)")
    ap.add_argument("--base-binary", help="an mcvm binary to compare against instead of building --base")
    ap.add_argument("--quick", action="store_true", help="SMALL sizes only, 20,000 states a run")
    ap.add_argument("--jobs", type=int, default=2, help="runs at a time")
    a = ap.parse_args()
    tmpdir = tempfile.mkdtemp(prefix="mcvm-diff-")
    old, new = os.path.join(tmpdir, "old"), os.path.join(tmpdir, "new")
    if a.base_binary:
        old = a.base_binary
    else:
        rev = a.base
        if rev is None:
            rev = "origin/main" if subprocess.run(["git", "rev-parse", "-q", "--verify", "origin/main"], cwd=ROOT,
                                                  capture_output=True).returncode == 0 else "HEAD"
        build(rev, old)
    build(None, new)

    all_cases = list(cases(a.quick))

    def one(i_args):
        i, args = i_args
        res = []
        for b in (old, new):
            x = [s.replace("TRAIL", os.path.join(tmpdir, "t%d.trail" % i)).replace(
                "SCRIPT", os.path.join(tmpdir, "s%d.scc" % i)) for s in args]
            res.append(run(b, x))
        return args, res

    diffs = 0
    with ThreadPoolExecutor(a.jobs) as ex:
        for n, (args, (o, w)) in enumerate(ex.map(one, enumerate(all_cases)), 1):
            if o != w:
                diffs += 1
                print("DIFF mcvm " + " ".join(args))
                for k in sorted(set(o) | set(w)):
                    if o.get(k) != w.get(k):
                        if k == "json":
                            for f in sorted(set(o[k] or {}) | set(w[k] or {})):
                                if (o[k] or {}).get(f) != (w[k] or {}).get(f):
                                    print("  %s: old %s new %s" % (f, str(o[k].get(f))[:200], str(w[k].get(f))[:200]))
                        else:
                            print("  %s: old %s new %s" % (k, str(o.get(k))[:300], str(w.get(k))[:300]))
            if n % 200 == 0:
                print("%d/%d runs compared, %d differ" % (n, len(all_cases), diffs), file=sys.stderr)
    print("%d runs compared, %d differ" % (len(all_cases), diffs))
    sys.exit(1 if diffs else 0)


if __name__ == "__main__":
    main()
