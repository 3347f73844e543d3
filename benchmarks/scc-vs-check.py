#!/usr/bin/env python3
"""Tamper-proof certification against checking, alternated round by round.

Usage: go build -o /tmp/mcvm ./cmd/mcvm && [SIZE=large] [ROUNDS=9] python3 benchmarks/scc-vs-check.py /tmp/mcvm [/tmp/mcvm-other ...] -- MODEL...

With --por all and --continue, on each model's SMALL configuration (LARGE
with SIZE=large): writes the script once with the first binary's verify,
then in each round runs the first binary's check --sleep=false (the search
the script records) and every binary's certify, one after the other.
Prints a Markdown row per model: the median times, and for each certifying
binary the median over the rounds of check time / certify time. Giving the
binaries before and after a change compares them in the same rounds. Run
it on an otherwise idle machine.
"""
import os, statistics, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from modelconfig import config  # noqa: E402
sep = sys.argv.index("--")
BINS, MODELS = sys.argv[1:sep], sys.argv[sep + 1:]
SIZE = os.environ.get("SIZE", "small").upper()
ROUNDS = int(os.environ.get("ROUNDS", "9"))


def timed(args):
    t = time.perf_counter()
    p = subprocess.run(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if p.returncode not in (0, 1):
        sys.exit("%s: exit %d\n%s" % (" ".join(args), p.returncode, p.stderr))
    return time.perf_counter() - t


tmp = tempfile.mkdtemp()
cols = ["check (s)"] + ["certify %d (s)" % (i + 1) for i in range(len(BINS))] + ["check / certify %d" % (i + 1) for i in range(len(BINS))]
print("| model | " + " | ".join(cols) + " |")
print("|---|" + "---:|" * len(cols))
for model in MODELS:
    path = os.path.join(HERE, "models", model + ".mcasm")
    defs = config(path, SIZE) or []
    script = os.path.join(tmp, model + ".scc")
    timed([BINS[0], "verify", "--continue", "--script", script] + defs + [path])
    check, cert = [], [[] for _ in BINS]
    for _ in range(ROUNDS):
        check.append(timed([BINS[0], "check", "--sleep=false", "--continue", "--no-progress"] + defs + [path]))
        for i, b in enumerate(BINS):
            cert[i].append(timed([b, "certify", "--continue", "--script", script] + defs + [path]))
    med = statistics.median
    row = ["%.3f" % med(check)] + ["%.3f" % med(c) for c in cert]
    row += ["%.2f" % med([a / b for a, b in zip(check, c)]) for c in cert]
    print("| %s | %s |" % (model, " | ".join(row)))
