"""The configurations the benchmark models declare, for the scripts here.

A model's header has a line "; SMALL -D NAME=VALUE ..." and one "; LARGE
..." (benchmarks/RESULTS.md's results table); config(path, "LARGE")
returns the -D arguments of that line as a list ready for the command
line, or None if the model has no such line.
"""
import re


def config(path, size):
    for line in open(path):
        m = re.match(r"; %s(.*)" % size, line)
        if m:
            return [x for d in re.findall(r"-D \S+", m.group(1)) for x in d.split(" ", 1)]
    return None
