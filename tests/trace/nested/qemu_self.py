#!/usr/bin/env python3
"""qemu_self.py READELF_SYMS QEMU_LOG: the self instructions of every function
symbol, by start address, from QEMU's -d in_asm,exec,nochain log of a run
(`readelf -sW` output gives the FUNC symbols): each executed instruction
counts in the innermost symbol holding it, as objdump and QEMU's IN: labels
place it.  Independent of zond: nested.sh compares zond's self costs with
it.  Prints "START SELF" lines (hex start), sorted."""
import re
import sys

syms = []
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) >= 8 and f[3] == "FUNC" and f[2].isdigit() and int(f[2]) > 0:
        start = int(f[1], 16)
        syms.append((start, start + int(f[2])))

blocks, counts = {}, {}
block = None
for line in open(sys.argv[2]):
    if line.startswith("IN:"):
        block = []
    elif block is not None and re.match(r"0x[0-9a-f]+:", line):
        block.append(int(line.split(":")[0], 16))
    elif block is not None:
        if block:
            blocks[block[0]] = block
        block = None
    if line.startswith("Trace "):
        pc = int(line.split("[")[1].split("/")[1], 16)
        for addr in blocks.get(pc, []):
            counts[addr] = counts.get(addr, 0) + 1

self_cost = {}
for addr, n in counts.items():
    holding = [s for s in syms if s[0] <= addr < s[1]]
    if holding:
        start = max(holding)[0]
        self_cost[start] = self_cost.get(start, 0) + n
for start in sorted(self_cost):
    print("%x %d" % (start, self_cost[start]))
