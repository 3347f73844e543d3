#!/usr/bin/env python3
"""Two-job certification timed on a shared machine, keeping only runs during
which other processes used less than LIMIT (default 5%) of the machine's
CPU (from /proc/stat, less the run's own CPU time) and starting a run only
when the machine has been idle for half a second. Prints each kept run and
a table: best and median wall times of certify --tasks K --jobs 1 and 2.

Usage: go build -o /tmp/mcvm ./cmd/mcvm
       /tmp/mcvm verify --continue --script /tmp/po8.scc -D N=8 benchmarks/models/philo_ok.mcasm
       WANT=4 MAXSECS=1500 python3 benchmarks/scc-jobs-gated.py /tmp/mcvm /tmp/po8.scc benchmarks/models/philo_ok.mcasm 2 4 10 20
"""
import os, subprocess, sys, time, resource
MCVM, SCRIPT, MODEL = sys.argv[1], sys.argv[2], sys.argv[3]
KS = [int(x) for x in sys.argv[4:]] or [4, 10]
WANT = int(os.environ.get("WANT", "3"))
LIMIT = float(os.environ.get("LIMIT", "0.05"))
DEADLINE = time.time() + float(os.environ.get("MAXSECS", "900"))
HZ = os.sysconf("SC_CLK_TCK")
NCPU = os.cpu_count()

def busy():
    f = open("/proc/stat").readline().split()[1:]
    v = [int(x) for x in f]
    idle = v[3] + v[4]
    return (sum(v) - idle) / HZ

def run(extra):
    args = ["nice", MCVM, "certify", "--por", os.environ.get("POR", "none"), "--no-progress", "--script", SCRIPT, "-D", "N=8"] + extra + [MODEL]
    b0 = busy(); t0 = time.time()
    p = subprocess.Popen(args, stdout=subprocess.DEVNULL)
    _, st, ru = os.wait4(p.pid, 0)
    t1 = time.time(); b1 = busy()
    mine = ru.ru_utime + ru.ru_stime
    others = (b1 - b0) - mine
    return t1 - t0, others / ((t1 - t0) * NCPU), mine

def idle_now():
    b0 = busy(); time.sleep(0.5); b1 = busy()
    return (b1 - b0) / (0.5 * NCPU) < LIMIT

res = {}
configs = [("seq", [])] + [(f"K={k} jobs={j}", ["--tasks", str(k), "--jobs", str(j)]) for k in KS for j in (1, 2)]
for name, _ in configs:
    res[name] = []
while time.time() < DEADLINE and any(len(v) < WANT for v in res.values()):
    for name, extra in configs:
        if len(res[name]) >= WANT:
            continue
        if not idle_now():
            time.sleep(2)
            continue
        w, oth, mine = run(extra)
        if oth < LIMIT:
            res[name].append(w)
            print(f"{name}: {w:.3f} s wall, {mine:.2f} s CPU, others {100*oth:.1f}%", flush=True)
        else:
            print(f"{name}: rejected ({w:.3f} s, others {100*oth:.1f}%)", flush=True)
print(time.strftime("%H:%M:%S"), open("/proc/loadavg").read().strip())
def best(v): return min(v) if v else float("nan")
def med(v): return sorted(v)[(len(v)-1)//2] if v else float("nan")
s = res["seq"]
print(f"sequential: best {best(s):.3f} median {med(s):.3f} (n={len(s)})")
for k in KS:
    a, b = res[f"K={k} jobs=1"], res[f"K={k} jobs=2"]
    print(f"| {k} | {best(a):.3f} | {best(b):.3f} | {best(a)/best(b):.2f} | {best(s)/best(b):.2f} | {med(a):.3f} | {med(b):.3f} | {med(a)/med(b):.2f} | n={len(a)},{len(b)} |")
