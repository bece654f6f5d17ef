#!/usr/bin/env python3
"""truth.py - each instrumented function's exact calls and inclusive
instruction count, from QEMU's execution log (-singlestep -d exec,nochain:
one line per executed instruction) and the ELF alone, independently of
zond's code: the truth for the bare-metal runtime (tests/bare, bench/embench).

Usage: truth.py ELF OBJDUMP LOG [--until SYMBOL]
prints "name calls inclusive" per instrumented function that ran (one whose
code calls __cyg_profile_func_enter; code built without instrumentation,
libgcc's and picolibc's, is part of its callers), or, in a build without any
instrumentation (what zond inject patches, tests/rsp), per function that ran;
then "@zond N" (the
instructions that were zond's), "@hooks N" (calls of the entry hook) and
"@total N" (every instruction of the run).

What a function's instructions are in an instrumented build: every
instruction it runs from its first to its return, that included, and those
of everything it calls, except zond's.  zond's are the call instruction of
each call of one of its entry points (the -finstrument-functions hooks, the
zond.h API) and everything that runs until control comes back after it.
gcc may jump to the exit hook after the function's epilogue (a tail call):
the jump is then the call instruction, and the hook's return the function's.
Where the runtime replaced a function's return address by zb_return's, the
function's ret is its last instruction and zb_return is zond's.
The rest of what instrumentation adds (saving ra and the values live across
the hook calls, loading the hooks' arguments) is the function's: the program
runs it.

A call is an executed jal/jalr that writes ra (a call into code no symbol
starts at opens an unnamed frame); its frame ends when control reaches the
address after the call instruction (so no return instruction has to be
recognised, and the millicode of -msave-restore, which links through t0,
needs no rule).  Reaching a function's first instruction other than by a
call is a tail call: the callee's frame shares its caller's return address.
A function's inclusive count sums its outermost activations only (recursion).

--until SYMBOL (zond inject over GDB reads its results at a breakpoint on
picolibc's _exit, so what runs after is not its run): the log counts up to
the first instruction of SYMBOL, excluded.  A function still active there
counts its calls, and as inclusive only its activations that returned (zond
counts a call that never returned, untimed); and the first jump to a
function start with no frame open (crt0's _start to _cstart) opens the run's
root frame, which never returns.
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
    """pc -> length of each call instruction (jal/jalr writing ra, c.jal,
    c.jalr)."""
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


ENTRY_POINTS = ("__cyg_profile_func_enter", "__cyg_profile_func_exit", "zond_block_begin",
                "zond_block_end", "zond_start", "zond_stop", "zb_return")


def instrumented(objdump, elf):
    """Functions whose code calls the entry hook."""
    out = subprocess.run([objdump, "-d", elf], capture_output=True, text=True, check=True).stdout
    found, name = set(), None
    for line in out.splitlines():
        m = re.match(r"^[0-9a-f]+ <(.+)>:$", line)
        if m:
            name = m.group(1)
        elif name and "<__cyg_profile_func_enter>" in line:
            found.add(name)
    return found


def main():
    elf, objdump, log = sys.argv[1:4]
    starts = functions(elf)
    until = None
    if sys.argv[4:5] == ["--until"]:
        until = next(a for a, name in starts.items() if name == sys.argv[5])
    call_size = calls_of(objdump, elf)
    probed = instrumented(objdump, elf)
    hooks = {a for a, name in starts.items() if name in ENTRY_POINTS}
    enter_hook = {a for a, name in starts.items() if name == ENTRY_POINTS[0]}
    z = 0  # zond's instructions so far
    hook_calls = 0
    zond_until = None  # inside zond: the address its entry point returns to
    calls, incl, active = {}, {}, {}
    stack = []  # [name, entered at, return address, tail call]
    waiting = {}  # return address -> frames on the stack waiting for it
    n = 0
    prev = None
    with open(log) as f:
        for pc in executed(f):
            if pc == until:
                for _ in f:
                    pass  # QEMU writes on to the end: a pipe must not close on it
                break
            if zond_until is not None:
                if pc != zond_until:
                    z += 1
                    n += 1
                    prev = pc
                    continue
                zond_until = None
            elif prev in call_size and pc in hooks:
                # the call instruction (counted as the program's a line ago) and the hook
                z += 2
                hook_calls += pc in enter_hook
                zond_until = prev + call_size[prev]
                n += 1
                prev = pc
                continue
            elif pc in hooks and prev is not None and stack:
                # a tail call of a hook (gcc jumps to the exit hook after the
                # epilogue), or the function's return into zond's zb_return (the
                # ret is the function's): it returns where the function on top would
                z += 1 if starts[pc] == "zb_return" else 2
                zond_until = stack[-1][2]
                n += 1
                prev = pc
                continue
            # a return: control reaches the address after a live call
            if waiting.get(pc):
                while stack:
                    name, at, ret, tail = stack.pop()
                    waiting[ret] -= 1
                    if name is not None:
                        active[name] -= 1
                        if not active[name]:
                            incl[name] = incl.get(name, 0) + n - z - at
                    if ret == pc and not tail:
                        break
            if prev in call_size:
                name = starts.get(pc)
                if name is not None:
                    calls[name] = calls.get(name, 0) + 1
                    active[name] = active.get(name, 0) + 1
                ret = prev + call_size[prev]
                stack.append([name, n - z, ret, False])
                waiting[ret] = waiting.get(ret, 0) + 1
            elif pc in starts and prev is not None and starts.get(pc) and pc != prev:
                # a jump to a function's first instruction: a tail call, which
                # returns where its caller would (its frame shares that address)
                if stack and not any_frame_is(stack, pc, starts):
                    name = starts[pc]
                    calls[name] = calls.get(name, 0) + 1
                    active[name] = active.get(name, 0) + 1
                    ret = stack[-1][2]
                    stack.append([name, n - z, ret, True])
                    waiting[ret] += 1
                elif not stack and until is not None:
                    name = starts[pc]  # the run's root: it never returns
                    calls[name] = calls.get(name, 0) + 1
                    active[name] = active.get(name, 0) + 1
                    stack.append([name, n - z, None, True])
                    waiting[None] = 1
            n += 1
            prev = pc
    for name, at, ret, tail in stack:
        if name is None or until is not None:
            continue
        active[name] -= 1
        if not active[name]:
            incl[name] = incl.get(name, 0) + n - z - at
    for name in sorted(calls):
        if name in probed or not probed:
            print(name, calls[name], incl.get(name, 0))
    print("@zond", z)
    print("@hooks", hook_calls)
    print("@total", n)


def executed(log):
    """The pc of each instruction that ran.  QEMU logs an instruction (a
    one-instruction block with -singlestep) before it runs it; when it then
    stops before running it (an exit request, icount's budget), it says so
    on the next line, "Stopped execution of TB chain before ... [PC]", and
    logs the instruction again when it does run it."""
    trace = re.compile(r"\[[0-9a-f]+/([0-9a-f]+)/")
    stopped = re.compile(r"^Stopped execution of TB chain before .*\[([0-9a-f]+)\]")
    pending = None
    for line in log:
        m = trace.search(line)
        if m:
            if pending is not None:
                yield pending
            pending = int(m.group(1), 16)
            continue
        m = stopped.match(line)
        if m and pending == int(m.group(1), 16):
            pending = None
    if pending is not None:
        yield pending


def any_frame_is(stack, pc, starts):
    """A function whose first instruction is reached again by a branch of its
    own code (a loop to its start), not by a tail call."""
    return stack[-1][0] == starts[pc]


if __name__ == "__main__":
    main()
