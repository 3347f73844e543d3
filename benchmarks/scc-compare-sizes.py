#!/usr/bin/env python3
"""Script sizes of two mcvm binaries on every model's SMALL configuration.

Usage: python3 benchmarks/scc-compare-sizes.py OLD NEW [POR,...]

For each model with a "; SMALL" line and each reduction (default
"none,all"), writes a tamper-proof script with each binary (`verify --por
P --continue --script`) and prints a Markdown row: the transitions, both
files' sizes, their ratio and the new bytes per transition. Sizes only, so
it may run beside other work. Used to measure a change of the script
format (benchmarks/RESULTS.md, "Script size").
"""
import json, os, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from modelconfig import config  # noqa: E402

if len(sys.argv) < 3:
    sys.exit(__doc__)
old, new = sys.argv[1], sys.argv[2]
pors = (sys.argv[3] if len(sys.argv) > 3 else "none,all").split(",")
tmp = tempfile.mkdtemp()
models = sorted(f[:-6] for f in os.listdir(os.path.join(HERE, "models")) if f.endswith(".mcasm"))
print("| model | por | transitions | old bytes | new bytes | new/old | new bytes/transition |")
print("|---|---|---:|---:|---:|---:|---:|")
for m in models:
    path = os.path.join(HERE, "models", m + ".mcasm")
    defs = config(path, "SMALL")
    if defs is None:
        continue
    for por in pors:
        size, trans = {}, 0
        for tag, b in (("old", old), ("new", new)):
            out = os.path.join(tmp, tag + ".scc")
            p = subprocess.run([b, "verify", "--por", por, "--continue", "--json", "--no-progress", "--script", out] + defs + [path],
                               capture_output=True, text=True)
            if p.returncode not in (0, 1):
                sys.exit("%s verify %s: exit %d\n%s" % (b, m, p.returncode, p.stderr))
            trans = json.loads(p.stdout)["transitions"]
            size[tag] = os.path.getsize(out)
        print("| %s | %s | %d | %d | %d | %.3f | %.3f |" % (m, por, trans, size["old"], size["new"],
                                                             size["new"] / size["old"], size["new"] / trans))
