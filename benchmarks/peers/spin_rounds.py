#!/usr/bin/env python3
"""SPIN's pan and mcvm binaries one after the other, in rounds: speed ratios on a noisy machine.

Usage: python3 benchmarks/peers/spin_rounds.py N ROUNDS MCVM [MCVM...]
  e.g. go build -o /tmp/mcvm ./cmd/mcvm &&
       python3 benchmarks/peers/spin_rounds.py 8 21 /tmp/mcvm-old /tmp/mcvm

Builds pan from philo.pml for N philosophers as spin_philo.sh does (gcc -O2
-DSAFETY -DNOREDUCE -DMEMLIM=16000; run -E -m400000 -w23, W in the
environment sets -w), then runs pan and each binary (`check --json
--por=none --continue --memory-limit 0 --hash-compact -D N=N` on
benchmarks/models/philo.mcasm) once per round, rotating the order so that
none always runs first. A round's ratio is a binary's states/s over pan's
in that round (each as it reports its own elapsed time); the medians of
those ratios are what benchmarks/RESULTS.md quotes as "interleaved
rounds", since the load of a shared machine moves both. Prints each
round, then SPIN's median rate and, per binary, the median ratio and the
median peak resident bytes a state. Needs spin and a C compiler.
"""
import os, re, shutil, statistics, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
MODEL = os.path.join(HERE, "..", "models", "philo.mcasm")
sys.path.insert(0, os.path.join(HERE, ".."))
from pair import run  # benchmarks/pair.py: one `check --json` of a binary


def build_pan(n, work):
    shutil.copy(os.path.join(HERE, "philo.pml"), work)
    subprocess.run(["spin", "-DN=%d" % n, "-a", "philo.pml"], cwd=work, check=True, capture_output=True)
    subprocess.run(["gcc", "-O2", "-DSAFETY", "-DNOREDUCE", "-DMEMLIM=16000", "-o", "pan", "pan.c"],
                   cwd=work, check=True, capture_output=True)
    return os.path.join(work, "pan")


def run_pan(pan, work):
    out = subprocess.run([pan, "-E", "-m400000", "-w" + os.environ.get("W", "23")],
                         cwd=work, capture_output=True, text=True).stdout
    states = int(re.search(r"(\d+) states, stored", out).group(1))
    secs = float(re.search(r"pan: elapsed time ([\d.e+-]+)", out).group(1))
    return states / secs


def run_mcvm(binary, n):
    states, rate, rss = run(binary, ["--por=none", "--continue", "--memory-limit", "0", "--hash-compact",
                                     "-D", "N=%d" % n, MODEL])
    return rate, rss / states


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    n, rounds, bins = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3:]
    work = tempfile.mkdtemp()
    try:
        pan = build_pan(n, work)
        spin, ratio, bps = [], {b: [] for b in bins}, {b: [] for b in bins}
        for r in range(rounds):
            order = ["pan"] + bins
            order = order[r % len(order):] + order[:r % len(order)]
            got = {}
            for o in order:
                got[o] = run_pan(pan, work) if o == "pan" else run_mcvm(o, n)
            spin.append(got["pan"])
            for b in bins:
                ratio[b].append(got[b][0] / got["pan"])
                bps[b].append(got[b][1])
            print(r, "SPIN %.0f" % got["pan"],
                  " ".join("%s %.0f (%.3f)" % (b, got[b][0], got[b][0] / got["pan"]) for b in bins), flush=True)
        print("SPIN states/s: median %.0f (%.0f-%.0f)" % (statistics.median(spin), min(spin), max(spin)))
        for b in bins:
            print("%s: ratio to SPIN median %.3f (%.3f-%.3f); bytes a state median %.2f (%.2f-%.2f)" % (
                b, statistics.median(ratio[b]), min(ratio[b]), max(ratio[b]),
                statistics.median(bps[b]), min(bps[b]), max(bps[b])))
    finally:
        shutil.rmtree(work)


if __name__ == "__main__":
    main()
