#!/usr/bin/env python3
"""Directed search and trail improvement on the models that have an error.

    python3 benchmarks/directed.py [--mcvm BIN] [--time-limit 60s] [--sizes SMALL,LARGE] [--philo 5,6,7,8,9,10]

For every benchmark model that has a violation at the given sizes (found by
depth-first search), and for the dining philosophers (philo.mcasm) at each
N given, runs check to the first error with every search order and
heuristic, unreduced and with --por all (Edelkamp, Leue and Lluch-Lafuente,
Tables 1, 2, 4, 5 and 6), and prints one markdown table per model: stored
states, states expanded, trail length, CPU time and peak memory. Then it
improves the depth-first trails with mcvm improve (the same error state and
an equivalent one, A* with fsm; BFS for the shortest, also to any state
with the same violation) and reorders them, and prints the lengths before
and after. A run cut by --time-limit shows "limit". The summary at the end
checks the targets of the directed-search issue and says by how much each
is missed; each target takes the heuristic for the kind of error the
depth-first search found: deadlock for a deadlock (admissible for it),
fsm for the others (none is admissible for them: A* with h = 0 is
breadth-first search, and counts as storing as many states).
"""
import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
from modelconfig import config  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

SEARCHES = [
    ("dfs", []),
    ("bfs", ["--search", "bfs"]),
    ("best-first fsm", ["--search", "best-first", "--heuristic", "fsm"]),
    ("best-first active", ["--search", "best-first", "--heuristic", "active"]),
    ("best-first deadlock", ["--search", "best-first", "--heuristic", "deadlock"]),
    ("A* fsm", ["--search", "astar", "--heuristic", "fsm"]),
    ("A* active", ["--search", "astar", "--heuristic", "active"]),
    ("A* deadlock", ["--search", "astar", "--heuristic", "deadlock"]),
    ("IDA* fsm", ["--search", "ida", "--heuristic", "fsm"]),
    ("IDA* deadlock", ["--search", "ida", "--heuristic", "deadlock"]),
]


def kind_heuristic(verdict):
    """The heuristic the targets take for an error of this verdict."""
    return "deadlock" if verdict == "deadlock" else "fsm"


def run(binary, args, tl):
    """Runs binary with args; returns (json or None, cpu seconds, exit code)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    try:
        p = subprocess.run([binary] + args, cwd=ROOT, capture_output=True, text=True,
                           timeout=max(60, 4 * tl))
    except subprocess.TimeoutExpired:
        return None, 0.0, -1
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    try:
        return json.loads(p.stdout), cpu, p.returncode
    except json.JSONDecodeError:
        return None, cpu, p.returncode


def cases(sizes, philos):
    models = os.path.join(ROOT, "benchmarks", "models")
    for f in sorted(os.listdir(models)):
        if not f.endswith(".mcasm") or f == "philo.mcasm":
            continue
        path = os.path.join("benchmarks", "models", f)
        for size in sizes:
            d = config(os.path.join(ROOT, path), size)
            if d is not None:
                yield "%s %s" % (f[:-6], size), path, d
    for n in philos:
        yield "philo N=%d" % n, os.path.join("benchmarks", "models", "philo.mcasm"), ["-D", "N=%d" % n]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mcvm", default=None, help="the mcvm binary (default: build one)")
    ap.add_argument("--time-limit", default="60s", help="per run")
    ap.add_argument("--sizes", default="SMALL,LARGE")
    ap.add_argument("--philo", default="5,6,7,8,9,10")
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="mcvm-directed-")
    binary = a.mcvm
    if binary is None:
        binary = os.path.join(tmp, "mcvm")
        subprocess.run(["go", "build", "-o", binary, "./cmd/mcvm"], cwd=ROOT, check=True)
    tl = float(a.time_limit.rstrip("s"))
    lim = ["--time-limit", a.time_limit, "--no-progress", "--json"]
    philos = [int(x) for x in a.philo.split(",") if x]
    improve_rows = []
    targets = {"astar_vs_bfs": [], "astar_half": {"none": [], "all": []}, "bf_fewer": {"none": [], "all": []},
               "improve": [], "reorder": []}
    for name, path, d in cases(a.sizes.split(","), philos):
        first, _, _ = run(binary, ["check"] + lim + d + [path], tl)
        if first is None or first["verdict"] in ("ok", "limit"):
            continue
        print("\n### %s (%s)\n" % (name, first["verdict"]))
        print("| search | por | verdict | stored | expanded | trail | cpu s | peak MiB |")
        print("|---|---|---|---:|---:|---:|---:|---:|")
        res = {}
        for por in ("none", "all"):
            for sname, flags in SEARCHES:
                j, cpu, _ = run(binary, ["check"] + lim + ["--por", por] + flags + d + [path], tl)
                if j is None:
                    print("| %s | %s | error | | | | | |" % (sname, por))
                    continue
                trail = len(j["trace"]) if j["verdict"] != "limit" else None
                res[(sname, por)] = (j["verdict"], j["states"], j.get("expanded_states", 0), trail, cpu)
                print("| %s | %s | %s | %d | %s | %s | %.2f | %.0f |" % (
                    sname, por, j["verdict"], j["states"], j.get("expanded_states", "") or "",
                    trail if trail is not None else "limit", cpu, j["memory"]["peak_rss_bytes"] / 2**20))
        hname = kind_heuristic(first["verdict"])
        for por in ("none", "all"):
            bfs = res.get(("bfs", por))
            ast = res.get(("A* " + hname, por))
            dfs = res.get(("dfs", por))
            bf = res.get(("best-first " + hname, por))
            if bfs and bfs[3] is not None:
                if hname != "deadlock":
                    targets["astar_half"][por].append((name, 1.0))  # h = 0: BFS
                elif ast and ast[3] is not None:
                    targets["astar_half"][por].append((name, ast[1] / max(bfs[1], 1)))
                    if por == "none":
                        targets["astar_vs_bfs"].append((name, ast[3], bfs[3]))
            if dfs and bf and bf[3] is not None and dfs[3] is not None:
                targets["bf_fewer"][por].append((name, bf[1], dfs[1]))
        # Trail improvement from the depth-first trails.
        for por in ("none", "all"):
            trail = os.path.join(tmp, "t.trail")
            run(binary, ["check", "--no-progress", "--time-limit", a.time_limit, "--por", por, "--trail", trail] + d + [path], tl)
            if not os.path.exists(trail):
                continue
            row = {"model": name, "por": por}
            for mode, flags in (("same", []), ("equivalent", ["--equivalent"]),
                                ("same bfs", ["--search", "bfs"]), ("equivalent bfs", ["--search", "bfs", "--equivalent"]),
                                ("violation bfs", ["--search", "bfs", "--violation"]), ("reorder", ["--reorder"])):
                extra = [] if mode == "reorder" else ["--time-limit", a.time_limit]
                j, cpu, _ = run(binary, ["improve", "--json", "--out", os.path.join(tmp, "n.trail")] + extra + flags + d + [trail, path], tl)
                if j is None:
                    continue
                row["old"] = j["old_length"]
                row[mode] = (j["new_length"] if j["verdict"] != "limit" else None, cpu)
            os.remove(trail)
            improve_rows.append(row)
            best = row.get("equivalent bfs", (None,))[0]
            if best and row.get("equivalent", (None,))[0]:
                targets["improve"].append((name + " por=" + por, row["equivalent"][0] / best,
                                           row["equivalent"][1], row.get("equivalent bfs", (0, 0))[1]))
            shortest = row.get("violation bfs", (None,))[0]
            if por == "all" and shortest and row.get("reorder", (None,))[0] is not None:
                excess = row["old"] - shortest
                if excess > 0:
                    targets["reorder"].append((name, (row["old"] - row["reorder"][0]) / excess))
    print("\n### Trail improvement (from the depth-first trail)\n")
    print("| model | por | DFS trail | A* same state | A* equivalent | shortest same | shortest equivalent | shortest same violation | reordered |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|")

    def cell(r, k):
        v = r.get(k)
        if v is None:
            return ""
        return ("limit" if v[0] is None else str(v[0])) + " (%.2fs)" % v[1]
    for r in improve_rows:
        print("| %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (r["model"], r["por"], r.get("old", ""), cell(r, "same"),
                                                             cell(r, "equivalent"), cell(r, "same bfs"),
                                                             cell(r, "equivalent bfs"), cell(r, "violation bfs"),
                                                             cell(r, "reorder")))
    print("\n### Targets\n")
    t = targets
    miss = [x for x in t["astar_vs_bfs"] if x[1] != x[2]]
    print("- A* (deadlock, admissible for deadlocks) returns BFS's length: %d of %d models%s" % (
        len(t["astar_vs_bfs"]) - len(miss), len(t["astar_vs_bfs"]),
        "" if not miss else "; missed: " + ", ".join("%s %d vs %d" % m for m in miss)))
    for por in ("none", "all"):
        if t["astar_half"][por]:
            print("- --por %s: A* with an admissible heuristic stores %.2f of BFS's states on the median model (target at most 0.5): %s" % (
                por, statistics.median(x[1] for x in t["astar_half"][por]),
                ", ".join("%s %.2f" % x for x in t["astar_half"][por])))
        if t["bf_fewer"][por]:
            k = sum(1 for x in t["bf_fewer"][por] if x[1] < x[2])
            print("- --por %s: best-first stores fewer states than DFS on %d of %d models (target two thirds): %s" % (
                por, k, len(t["bf_fewer"][por]), ", ".join("%s %d/%d" % x for x in t["bf_fewer"][por])))
    if t["improve"]:
        worst = max(t["improve"], key=lambda x: x[1])
        faster = sum(1 for x in t["improve"] if x[2] < x[3])
        print("- improve (equivalent, A* fsm) within %.2fx of the shortest at worst (%s; target 1.2x); faster than BFS on %d of %d" % (
            worst[1], worst[0], faster, len(t["improve"])))
    if t["reorder"]:
        print("- --reorder removes %.2f of the excess over the shortest trail to the same violation on the median model"
              " (target at least 0.5): %s" % (statistics.median(x[1] for x in t["reorder"]),
                                              ", ".join("%s %.2f" % x for x in t["reorder"])))


if __name__ == "__main__":
    main()
