#!/usr/bin/env python3
"""region_truth.py - the region scenario's truth from QEMU's execution log
(-singlestep -d exec,nochain: one line per instruction), independent of
zond: a pass starts when FROM's instruction is reached with no pass open
and ends when TO's is reached with one open; its count is the instructions
from FROM (included) to TO (excluded).

Usage: region_truth.py LOG FROM TO   (addresses in hex)
prints "passes sum min max" ("0 0 - -" when there was none).
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bare"))
from truth import executed  # noqa: E402


def main():
    log, start, end = sys.argv[1], int(sys.argv[2], 16), int(sys.argv[3], 16)
    passes, n, opened = [], 0, None
    with open(log) as f:
        for pc in executed(f):
            if pc == start and opened is None:
                opened = n
            elif pc == end and opened is not None:
                passes.append(n - opened)
                opened = None
            n += 1
    if passes:
        print(len(passes), sum(passes), min(passes), max(passes))
    else:
        print("0 0 - -")


main()
