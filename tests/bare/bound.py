#!/usr/bin/env python3
"""bound.py - an upper bound of each named function's instructions in a
run with interrupts, from QEMU's execution log (-singlestep -d exec,nochain)
and the ELF alone: isr.sh's reference where truth.py's exact figure depends
on where each interrupt landed.

Usage: bound.py ELF OBJDUMP LOG LIB FUNCTION...
prints "name inclusive longest" per FUNCTION: of its outermost calls, the sum
and the largest of every instruction run from its first to its return,
zond's left out: the code of the runtime library LIB (libzond-*.a) and the
call instruction of each call into it.  An interrupt handler's instructions
are all counted as the program's, also where the handler interrupted zond
(there zond counts them as its own): zond's figure must not exceed this.
"""
import bisect
import subprocess
import sys

from truth import calls_of, executed, functions  # the log and ELF readers (same directory)


def lib_names(lib):
    out = subprocess.run(["riscv64-unknown-elf-nm", "--defined-only", lib],
                         capture_output=True, text=True, check=True).stdout
    return {f[2] for f in (line.split() for line in out.splitlines())
            if len(f) == 3 and f[1] in "tTwW"}


def main():
    elf, objdump, log, lib = sys.argv[1:5]
    wanted = sys.argv[5:]
    starts = functions(elf)
    addrs = sorted(starts)
    zond = set(lib_names(lib))
    call_size = calls_of(objdump, elf)

    def owner(pc):
        i = bisect.bisect_right(addrs, pc) - 1
        return starts[addrs[i]] if i >= 0 else None

    res = {f: [] for f in wanted}
    open_calls = []  # [function, return address, instructions]
    prev = None
    with open(log) as f:
        for pc in executed(f):
            if prev in call_size and starts.get(pc) in wanted and \
                    not any(c[0] == starts[pc] for c in open_calls):
                open_calls.append([starts[pc], prev + call_size[prev], 0])
            while open_calls and pc == open_calls[-1][1]:
                name, _, k = open_calls.pop()
                res[name].append(k)
            mine = owner(pc) not in zond
            for c in open_calls:
                c[2] += mine
                if prev in call_size and starts.get(pc) in zond:
                    c[2] -= 1  # the call instruction into zond, counted a line ago
            prev = pc
    for name in wanted:
        print(name, sum(res[name]), max(res[name], default=0))


if __name__ == "__main__":
    main()
