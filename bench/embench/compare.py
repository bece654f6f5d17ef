#!/usr/bin/env python3
"""compare.py - one row of bench/embench's table: zond's per-function calls
and inclusive cycles (zond report --raw) against the truth (tests/bare/
truth.py, from QEMU's log of the same run's binary).

Usage: compare.py NAME TRUTH ZOND_REPORT PAIR PAID
Row: name; length (the program's instructions, zond's left out: main's
inclusive in the truth); functions: instrumented functions that ran (truth)
and those zond measured; calls zond counted, and whether every count equals
the truth; overhead per call: zond's own instructions per entry probe in
the truth (every hook, start-up included), the mean zond subtracted (PAID,
zr_thread.paid_pair_ticks) and the probe pair on the per-call path (PAIR,
overhead_pair_ticks); absolute error per function (zond's inclusive cycles
minus the truth: range); relative error |error| / truth per function: worst
(with its function) and mean.
"""
import sys

name, truth_path, report_path, pair, paid = sys.argv[1:6]
truth, facts = {}, {}
for line in open(truth_path):
    f = line.split()
    if f[0].startswith("@"):
        facts[f[0][1:]] = int(f[1])
    else:
        truth[f[0]] = (int(f[1]), int(f[2]))
zond = {}
for line in open(report_path):
    f = line.split()
    if len(f) >= 8 and f[0].isdigit() and f[-1] != "[block]":
        zond[f[-1]] = (int(f[0]), int(f[1]))
funcs = sorted(zond)
calls = sum(zond[f][0] for f in funcs)
exact = sum(1 for f in funcs if f in truth and truth[f][0] == zond[f][0])
abs_err = [zond[f][1] - truth[f][1] for f in funcs if f in truth] or [0]
rel = [(abs(zond[f][1] - truth[f][1]) / truth[f][1] * 100, f) for f in funcs
       if f in truth and truth[f][1] > 0] or [(0.0, "-")]
worst = max(rel)
mean = sum(r for r, _ in rel) / len(rel)
extra = [f for f in funcs if f not in truth]
missed = [f for f in truth if f not in zond]
own = facts["zond"] / max(facts["hooks"], 1)
print(f"{name:16} {truth.get('main', (0, 0))[1]:>9} {len(zond):>3}/{len(truth):<3} {calls:>7} "
      f"{'yes' if exact == len(funcs) and not missed else 'NO':>5} {own:>6.0f} {paid:>5} {pair:>4} "
      f"{min(abs_err):>7}..{max(abs_err):<7} {worst[0]:>8.4f}% {mean:>8.4f}%  {worst[1]}"
      + (f"  (not in the truth: {' '.join(extra)})" if extra else "")
      + (f"  (not measured: {' '.join(missed)})" if missed else ""))
