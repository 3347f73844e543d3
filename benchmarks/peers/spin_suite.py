#!/usr/bin/env python3
"""SPIN's pan and mcvm on every equal-count twin in benchmarks/peers, each store mode, in rounds.

Usage: python3 benchmarks/peers/spin_suite.py [--rounds R] [--modes M,...] [--models X,...] [--mcvm PATH]
       python3 benchmarks/peers/spin_suite.py --counts [--mcvm PATH]

For each twin (X.pml and X.mcasm) at its suite size (SUITE below) and each
store mode, pan is built once (spin -a, then gcc -O2 -DSAFETY -DNOREDUCE
-DMEMLIM=16000 plus the mode's flag, cached in a temporary directory) and
run as `pan -m DEPTH -c0 -w W`, and mcvm as `check --json --por=none
--continue --memory-limit 0 [store flag] -D ...`:

    mode          pan               mcvm
    exact         (no flag)         (default store)
    hash-compact  -DHC4             --hash-compact
    collapse      -DCOLLAPSE        --collapse
    bitstate      -DBITSTATE -w B   --bitstate B    (2^B bits on both sides)

-c0: pan does not stop at an error, as mcvm --continue does not (both count
the deadlocked states). One exact run of each tool first checks that they
store the same states, make the same transitions (pan one more, the step
into its initial state) and find the same deadlocked states; it gives the
depth for pan's -m (what pan reached, plus a tenth; the first run's -m
is the number of states, times 4 until it is enough, since the steps
inside atomic sequences are levels of pan's stack too), and W is 2^W >= 2 x
states, B the power of two >= 64 x states. Then R rounds, each running
every (model, mode) pair with pan and mcvm one after the other, the order
rotated so that neither tool always runs first; one process at a time.
Speed is states stored per CPU second (user + sys of the process, from
wait4), memory peak resident bytes (ru_maxrss) per state stored. A round's
speed ratio is mcvm's rate over pan's, its memory ratio mcvm's bytes a
state over pan's; the tables give the medians over rounds, then the
median over models. Lossy modes report the states each tool lost against
the exact count.

--counts instead runs both tools on every configuration of spinFigures in
benchmarks/spin_test.go and checks each against the figures there (and so
against each other). Needs spin, a C compiler and Go (to build mcvm
unless --mcvm is given).
"""
import argparse, math, os, re, shutil, statistics, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

# SUITE: each twin's size for the speed suite, a few hundred thousand to
# a few million states (the server twin is equal only with one client, 10
# states, and is left out).
SUITE = {
    "philo_meals": {"N": 6, "MEALS": 3},
    "philo_ok": {"N": 7, "MEALS": 2},
    "buffer_monitor": {"P": 7, "C": 7, "SIZE": 5},
    "readers_writers": {"R": 6, "W": 5},
    "pipeline": {"S": 5, "K": 2},
    "sleeping_barber": {"B": 3, "C": 9, "CHAIRS": 5},
    "nested_monitor": {"SIZE": 3, "P": 4, "C": 3, "WORK": 2},
    "workers": {"W": 6, "D": 4},
}
MODES = {  # mode: (pan's compile flags, mcvm's flags given B)
    "exact": ([], lambda b: []),
    "hash-compact": (["-DHC4"], lambda b: ["--hash-compact"]),
    "collapse": (["-DCOLLAPSE"], lambda b: ["--collapse"]),
    "bitstate": (["-DBITSTATE"], lambda b: ["--bitstate", str(b)]),
}


def measure(cmd, cwd=None, head=1 << 20):
    """Runs cmd alone, output to a file; returns (the output's first head
    characters, CPU seconds, peak resident bytes).

    Only the head is read so that this process stays small: a child
    starts from its parent's peak resident size in ru_maxrss (the
    kernel carries the old image's peak over exec), about 16 MB here,
    and mcvm's report of a deadlock ends with a trace as long as the
    search was deep."""
    with tempfile.TemporaryFile(mode="w+") as out:
        p = subprocess.Popen(cmd, cwd=cwd, stdout=out, stderr=subprocess.DEVNULL)
        _, status, ru = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        return out.read(head), ru.ru_utime + ru.ru_stime, ru.ru_maxrss * 1024


class Pan:
    """pan for one twin, size and mode, built on first use in a directory of its own."""

    def __init__(self, work, model, defs, mode):
        self.dir = os.path.join(work, "%s-%s" % (model, mode))
        os.makedirs(self.dir)
        shutil.copy(os.path.join(HERE, model + ".pml"), self.dir)
        subprocess.run(["spin"] + ["-D%s=%d" % kv for kv in defs.items()] + ["-a", model + ".pml"],
                       cwd=self.dir, check=True, capture_output=True)
        subprocess.run(["gcc", "-O2", "-DSAFETY", "-DNOREDUCE", "-DMEMLIM=16000"] + MODES[mode][0] +
                       ["-o", "pan", "pan.c"], cwd=self.dir, check=True, capture_output=True)

    def run(self, depth, w):
        out, cpu, rss = measure([os.path.join(self.dir, "pan"), "-m%d" % depth, "-c0", "-w%d" % w], self.dir)
        if "max search depth too small" in out:
            return None
        def num(pat):
            return int(re.search(pat, out).group(1))
        return {"states": num(r"(\d+) states, stored"), "transitions": num(r"(\d+) transitions \("),
                "errors": num(r"errors: (\d+)"), "depth": num(r"depth reached (\d+)"), "cpu": cpu, "rss": rss}


def run_mcvm(mcvm, model, defs, flags):
    args = [mcvm, "check", "--json", "--por=none", "--continue", "--memory-limit", "0"] + flags
    for kv in defs.items():
        args += ["-D", "%s=%d" % kv]
    out, cpu, rss = measure(args + [os.path.join(HERE, model + ".mcasm")], head=1 << 16)
    def num(key):  # top-level counts, which come before the trace
        return int(re.search(r'"%s": *(\d+)' % key, out).group(1))
    return {"states": num("states"), "transitions": num("transitions"), "errors": num("errors"),
            "depth": num("max_depth"), "cpu": cpu, "rss": rss}


def config(defs):
    return " ".join("%s=%d" % kv for kv in defs.items())


def build_mcvm(work):
    path = os.path.join(work, "mcvm")
    subprocess.run(["go", "build", "-o", path, "./cmd/mcvm"], cwd=ROOT, check=True)
    return path


def counts(mcvm, work):
    """Checks pan and mcvm against every configuration of spinFigures."""
    src = open(os.path.join(ROOT, "benchmarks", "spin_test.go")).read()
    pat = re.compile(r'\{"(\w+)", map\[string\]int64\{([^}]*)\}, (\d+), (\d+), (\d+)\}')
    bad = 0
    for i, m in enumerate(pat.finditer(src)):
        model = m.group(1)
        defs = {k: int(v) for k, v in re.findall(r'"(\w+)": (\d+)', m.group(2))}
        want = tuple(int(m.group(g)) for g in (3, 4, 5))
        pan = Pan(os.path.join(work, str(i)), model, defs, "exact")
        s = pan.run(1000000, 20)
        v = run_mcvm(mcvm, model, defs, [])
        got_s = (s["states"], s["transitions"], s["errors"])
        got_v = (v["states"], v["transitions"] + 1, v["errors"])
        ok = got_s == want and got_v == want
        bad += not ok
        print("%-16s %-28s SPIN %s, mcvm %s (transitions + 1): %s" % (
            model, config(defs), got_s, got_v, "equal" if ok else "DIFFERENT, want %s" % (want,)), flush=True)
    if bad:
        sys.exit("%d configurations differ" % bad)


def table(mode, models, res, exact):
    med = statistics.median
    print("\n%s (pan%s; mcvm%s)" % (mode, " " + " ".join(MODES[mode][0]) if MODES[mode][0] else "",
                                     " " + " ".join(MODES[mode][1]("B")) if MODES[mode][1]("B") else ""))
    lossy = mode in ("hash-compact", "bitstate")
    head = "| model | configuration | states | SPIN states/s | mcvm states/s | speed ratio | SPIN bytes a state | mcvm bytes a state | memory ratio |"
    if lossy:
        head += " lost: SPIN, mcvm |"
    print(head)
    print("|---|---|" + "---:|" * (7 + lossy))
    speed, mem = [], []
    for model in models:
        rs = res[(model, mode)]
        s_rate = [r["pan"]["states"] / r["pan"]["cpu"] for r in rs]
        v_rate = [r["mcvm"]["states"] / r["mcvm"]["cpu"] for r in rs]
        s_bps = [r["pan"]["rss"] / r["pan"]["states"] for r in rs]
        v_bps = [r["mcvm"]["rss"] / r["mcvm"]["states"] for r in rs]
        sr = med(v / s for v, s in zip(v_rate, s_rate))
        mr = med(v / s for v, s in zip(v_bps, s_bps))
        speed.append(sr)
        mem.append(mr)
        line = "| %s | %s | %s | %s | %s | %.2f | %.1f | %.1f | %.2f |" % (
            model, config(SUITE[model]), "{:,}".format(exact[model]), "{:,.0f}".format(med(s_rate)),
            "{:,.0f}".format(med(v_rate)), sr, med(s_bps), med(v_bps), mr)
        if lossy:
            line += " {:,}, {:,} |".format(exact[model] - rs[0]["pan"]["states"], exact[model] - rs[0]["mcvm"]["states"])
        print(line)
    print("median over %d models: speed ratio %.2f, memory ratio %.2f" % (len(models), med(speed), med(mem)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--modes", default=",".join(MODES))
    ap.add_argument("--models", default=",".join(SUITE))
    ap.add_argument("--mcvm", help="mcvm binary (default: go build ./cmd/mcvm into a temporary directory)")
    ap.add_argument("--counts", action="store_true", help="check both tools on spin_test.go's configurations")
    a = ap.parse_args()
    modes, models = a.modes.split(","), a.models.split(",")
    for m in modes:
        if m not in MODES:
            sys.exit("unknown mode %r (modes: %s)" % (m, ", ".join(MODES)))
    for m in models:
        if m not in SUITE:
            sys.exit("unknown model %r (models: %s)" % (m, ", ".join(SUITE)))
    work = tempfile.mkdtemp()
    try:
        mcvm = os.path.abspath(a.mcvm) if a.mcvm else build_mcvm(work)
        if a.counts:
            counts(mcvm, work)
            return
        # One exact run of each tool: equal counts, the exact count, pan's depth.
        exact, depth, jobs = {}, {}, []
        for model in models:
            defs = SUITE[model]
            v = run_mcvm(mcvm, model, defs, [])
            pan = Pan(work, model, defs, "exact")
            m, s = v["states"] + 1000, None
            while s is None:  # atomic sequences' steps are levels of pan's stack too
                s = pan.run(m, max(10, math.ceil(math.log2(2 * v["states"]))))
                m *= 4
            same = (s["states"], s["transitions"], s["errors"]) == (v["states"], v["transitions"] + 1, v["errors"])
            print("%-16s %-26s states %d, transitions %d, deadlocked %d; mcvm %d, %d (+1), %d: %s" % (
                model, config(defs), s["states"], s["transitions"], s["errors"], v["states"], v["transitions"],
                v["errors"], "equal" if same else "DIFFERENT"), flush=True)
            if not same:
                sys.exit("%s: the counts differ" % model)
            exact[model], depth[model] = s["states"], s["depth"] + s["depth"] // 10 + 100
            for mode in modes:
                jobs.append((model, mode, pan if mode == "exact" else Pan(work, model, defs, mode)))
        res = {(m, mode): [] for m, mode, _ in jobs}
        for r in range(a.rounds):
            for i, (model, mode, pan) in enumerate(jobs):
                n = exact[model]
                w = max(10, math.ceil(math.log2(2 * n)))
                b = max(16, math.ceil(math.log2(64 * n)))
                order = ["pan", "mcvm"] if (r + i) % 2 == 0 else ["mcvm", "pan"]
                got = {}
                for o in order:
                    if o == "pan":
                        got[o] = pan.run(depth[model], b if mode == "bitstate" else w)
                        if got[o] is None:
                            sys.exit("%s %s: pan's -m%d is too small" % (model, mode, depth[model]))
                    else:
                        got[o] = run_mcvm(mcvm, model, SUITE[model], MODES[mode][1](b))
                res[(model, mode)].append(got)
                s, v = got["pan"], got["mcvm"]
                print("round %d %-16s %-12s SPIN %d states %.2f s %.0f MB, mcvm %d states %.2f s %.0f MB: ratio %.3f" % (
                    r, model, mode, s["states"], s["cpu"], s["rss"] / 1e6, v["states"], v["cpu"], v["rss"] / 1e6,
                    (v["states"] / v["cpu"]) / (s["states"] / s["cpu"])), flush=True)
        for mode in modes:
            table(mode, models, res, exact)
    finally:
        shutil.rmtree(work)


if __name__ == "__main__":
    main()
