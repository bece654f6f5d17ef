#!/usr/bin/env python3
"""truth.py - each function's exact calls and inclusive instruction count,
from QEMU's execution log of an uninstrumented build (-singlestep -d
exec,nochain: one line per executed instruction), independently of zond.

Usage: truth.py ELF OBJDUMP LOG   prints "name calls inclusive" per function
of the whole run (main's inclusive count is the program's length).

A call is an executed jal/jalr that writes ra; a return one that jumps to ra
without writing it; a jump (no link) to a function's first instruction is a
tail call: the callee runs inside the caller's activation and leaves with it.
A function's inclusive count sums its outermost activations only (recursion).
"""
import re
import subprocess
import sys


def functions(elf):
    out = subprocess.run(["riscv64-unknown-elf-nm", "-S", "--defined-only", elf],
                         capture_output=True, text=True, check=True).stdout
    starts = {}
    for line in out.splitlines():
        f = line.split()
        if len(f) == 4 and f[2] in "tTwW":
            starts.setdefault(int(f[0], 16), f[3])
    return starts


def kinds(objdump, elf):
    """pc -> 'call' | 'ret' | 'jump' for the control transfers of the ELF."""
    out = subprocess.run([objdump, "-d", "-M", "no-aliases", elf],
                         capture_output=True, text=True, check=True).stdout
    k = {}
    insn = re.compile(r"^\s*([0-9a-f]+):\s+[0-9a-f]+\s+(\S+)\s*(.*)$")
    for line in out.splitlines():
        m = insn.match(line)
        if not m:
            continue
        pc, op, args = int(m.group(1), 16), m.group(2), m.group(3).replace(" ", "")
        if op in ("jal", "jalr"):
            rd = args.split(",")[0]
            if rd == "ra":
                k[pc] = "call"
            elif op == "jalr" and args.startswith("zero,0(ra)") or args.startswith("zero,ra"):
                k[pc] = "ret"
            else:
                k[pc] = "jump"
        elif op in ("c.jal", "c.jalr"):
            k[pc] = "call"
        elif op == "c.jr":
            k[pc] = "ret" if args == "ra" else "jump"
        elif op == "c.j":
            k[pc] = "jump"
    return k


def main():
    elf, objdump, log = sys.argv[1:4]
    starts = functions(elf)
    kind = kinds(objdump, elf)
    calls, incl, active = {}, {}, {}
    stack = []  # [name, entered at, tail]
    n = 0
    prev = None
    pat = re.compile(r"\[[0-9a-f]+/([0-9a-f]+)/")
    with open(log) as f:
        for line in f:
            m = pat.search(line)
            if not m:
                continue
            pc = int(m.group(1), 16)
            k = kind.get(prev)
            if k == "ret":
                while stack:
                    name, at, tail = stack.pop()
                    active[name] -= 1
                    if not active[name]:
                        incl[name] = incl.get(name, 0) + n - at
                    if not tail:
                        break
            if pc in starts and k in ("call", "jump"):
                name = starts[pc]
                calls[name] = calls.get(name, 0) + 1
                active[name] = active.get(name, 0) + 1
                stack.append([name, n, k == "jump"])
            n += 1
            prev = pc
    for name, at, tail in stack:
        active[name] -= 1
        if not active[name]:
            incl[name] = incl.get(name, 0) + n - at
    for name in sorted(calls):
        print(name, calls[name], incl.get(name, 0))


main()
