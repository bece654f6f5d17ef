#!/usr/bin/env python3
"""truth.py - each function's exact calls and inclusive instruction count,
from QEMU's execution log of an uninstrumented build (-singlestep -d
exec,nochain: one line per executed instruction), independently of zond.

Usage: truth.py ELF OBJDUMP LOG   prints "name calls inclusive" per function
of the whole run (main's inclusive count is the program's length).

A call is an executed jal/jalr that writes ra (a call into code no symbol
starts at opens an unnamed frame); its frame ends when control reaches the
address after the call instruction (so no return instruction has to be
recognised, and the millicode of -msave-restore, which links through t0,
needs no rule).  Reaching a function's first instruction other than by a
call is a tail call: the callee's frame shares its caller's return address.
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


def calls_of(objdump, elf):
    """pc -> length of each call instruction (jal/jalr writing ra, c.jal, c.jalr)."""
    out = subprocess.run([objdump, "-d", "-M", "no-aliases", elf],
                         capture_output=True, text=True, check=True).stdout
    k = {}
    insn = re.compile(r"^\s*([0-9a-f]+):\s+([0-9a-f]+)\s+(\S+)\s*(.*)$")
    for line in out.splitlines():
        m = insn.match(line)
        if not m:
            continue
        pc, size, op, args = int(m.group(1), 16), len(m.group(2)) // 2, m.group(3), m.group(4)
        if op in ("jal", "jalr") and args.replace(" ", "").split(",")[0] == "ra" \
                or op in ("c.jal", "c.jalr"):
            k[pc] = size
    return k


def main():
    elf, objdump, log = sys.argv[1:4]
    starts = functions(elf)
    call_size = calls_of(objdump, elf)
    calls, incl, active = {}, {}, {}
    stack = []  # [name, entered at, return address, tail call]
    waiting = {}  # return address -> frames on the stack waiting for it
    n = 0
    prev = None
    pat = re.compile(r"\[[0-9a-f]+/([0-9a-f]+)/")
    with open(log) as f:
        for line in f:
            m = pat.search(line)
            if not m:
                continue
            pc = int(m.group(1), 16)
            # a return: control reaches the address after a live call
            if waiting.get(pc):
                while stack:
                    name, at, ret, tail = stack.pop()
                    waiting[ret] -= 1
                    if name is not None:
                        active[name] -= 1
                        if not active[name]:
                            incl[name] = incl.get(name, 0) + n - at
                    if ret == pc and not tail:
                        break
            if prev in call_size:
                name = starts.get(pc)
                if name is not None:
                    calls[name] = calls.get(name, 0) + 1
                    active[name] = active.get(name, 0) + 1
                ret = prev + call_size[prev]
                stack.append([name, n, ret, False])
                waiting[ret] = waiting.get(ret, 0) + 1
            elif pc in starts and prev is not None and starts.get(pc) and pc != prev:
                # a jump to a function's first instruction: a tail call, which
                # returns where its caller would (its frame shares that address)
                if stack and not any_frame_is(stack, pc, starts):
                    name = starts[pc]
                    calls[name] = calls.get(name, 0) + 1
                    active[name] = active.get(name, 0) + 1
                    ret = stack[-1][2]
                    stack.append([name, n, ret, True])
                    waiting[ret] += 1
            n += 1
            prev = pc
    for name, at, ret, tail in stack:
        if name is None:
            continue
        active[name] -= 1
        if not active[name]:
            incl[name] = incl.get(name, 0) + n - at
    for name in sorted(calls):
        print(name, calls[name], incl.get(name, 0))


def any_frame_is(stack, pc, starts):
    """A function whose first instruction is reached again by a branch of its
    own code (a loop to its start), not by a tail call."""
    return stack[-1][0] == starts[pc]


main()
