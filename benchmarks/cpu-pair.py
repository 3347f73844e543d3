#!/usr/bin/env python3
"""Two commands alternated: their median CPU times and the median ratio.

    python3 benchmarks/cpu-pair.py ROUNDS -- COMMAND A... -- COMMAND B...

Runs A and B in turn ROUNDS times (A B A B ...), each with its output
discarded, reads each child's CPU time (user + system, from the
operating system) and prints the median of each and the median of the
rounds' A/B ratios: on a shared, noisy machine compare by that ratio.
"""
import os
import statistics
import sys


def cpu(argv):
    pid = os.fork()
    if pid == 0:
        fd = os.open(os.devnull, os.O_WRONLY)
        os.dup2(fd, 1)
        os.dup2(fd, 2)
        try:
            os.execvp(argv[0], argv)
        finally:
            os._exit(127)
    _, _, ru = os.wait4(pid, 0)
    return ru.ru_utime + ru.ru_stime


def main():
    args = sys.argv[1:]
    if len(args) < 4 or args[1] != "--" or "--" not in args[2:]:
        raise SystemExit(__doc__)
    rounds = int(args[0])
    rest = args[2:]
    i = rest.index("--")
    a, b = rest[:i], rest[i + 1:]
    ta, tb = [], []
    for _ in range(rounds):
        ta.append(cpu(a))
        tb.append(cpu(b))
    print("A %.1f ms, B %.1f ms, A/B %.3f (medians of %d)" % (
        1e3 * statistics.median(ta), 1e3 * statistics.median(tb),
        statistics.median(x / y for x, y in zip(ta, tb)), rounds))


main()
