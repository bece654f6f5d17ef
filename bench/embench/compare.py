#!/usr/bin/env python3
"""compare.py - one row of bench/embench's table: zond's per-function calls
and inclusive cycles (zond report --raw) against the truth (truth.py).

Usage: compare.py NAME TRUTH ZOND_REPORT PAIR
Row: name, length (main's inclusive instructions, uninstrumented), functions
zond measured, their calls, calls equal to the truth, overhead per call (the
probe pair zond measured and took out), absolute error per function (zond's
inclusive cycles minus the truth's instructions: range), relative error
(worst, with its function, and mean of |error| / truth, functions with a
truth of 0 left out).
"""
import sys

name, truth_path, report_path, pair = sys.argv[1:5]
truth = {}
for line in open(truth_path):
    f, calls, incl = line.split()
    truth[f] = (int(calls), int(incl))
zond = {}
for line in open(report_path):
    f = line.split()
    if len(f) >= 8 and f[0].isdigit() and f[-1] != "[block]":
        zond[f[-1]] = (int(f[0]), int(f[1]))
funcs = sorted(zond)
calls = sum(zond[f][0] for f in funcs)
exact = sum(1 for f in funcs if f in truth and truth[f][0] == zond[f][0])
abs_err = [zond[f][1] - truth[f][1] for f in funcs if f in truth]
rel = [(abs(zond[f][1] - truth[f][1]) / truth[f][1] * 100, f) for f in funcs
       if f in truth and truth[f][1] > 0]
worst = max(rel)
mean = sum(r for r, _ in rel) / len(rel)
missing = [f for f in funcs if f not in truth]
print(f"{name:16} {truth.get('main', (0, 0))[1]:>10} {len(funcs):>5} {calls:>9} "
      f"{exact:>3}/{len(funcs):<3} {pair:>5} {min(abs_err):>9}..{max(abs_err):<9} "
      f"{worst[0]:>8.1f}% {mean:>7.1f}%  {worst[1]}"
      + (f"  (not in the truth: {' '.join(missing)})" if missing else ""))
