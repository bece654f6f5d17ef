#!/usr/bin/env python3
"""compare.py - bench/embench's table: zond's per-function calls and
inclusive cycles (zond report --raw) against the truth (tests/bare/truth.py,
from QEMU's log of the same binary's run), beside the thesis' Table 1
(../shared/seeds/000_*: a debugger-driven profiler on an embedded core).

Usage: compare.py header
       compare.py row NAME TRUTH ZOND_REPORT PAIR SUMMARY
       compare.py inject NAME TRUTH ZOND_REPORT COVERAGE SUMMARY ELF
       compare.py summary SUMMARY

A row: the benchmark; length (main's inclusive instructions, zond's left
out); functions zond measured; calls zond counted, "=" when every count
equals the truth; absolute error per function (zond's inclusive cycles
less the truth's instructions: range); overhead per call: zond's own
instructions per entry probe in the truth (every hook and start-up), and
the per-call path's probe pair (PAIR, overhead_pair_ticks); relative error
|error| / truth per function: range and mean; functions instrumentable:
those zond measured of the instrumented functions that ran.  Under it, the
thesis' row for the same benchmark where it has one (its length and errors
are in cycles of its core; its overhead is per call, in cycles).
Each row adds one line to SUMMARY (errors of every function), which
`summary` totals.

`inject` makes the row of zond inject's functions scenario (the program
built without instrumentation, the truth cut at _exit where zond reads its
results): its overhead per call is the payload's instructions (cpair, from
the report's overhead line); functions instrumentable: those zond measured
of every function that ran, less those that are not functions entered by
a call, which are listed: the ELF's entry point (readelf) and libgcc's
millicode for -msave-restore (__riscv_save_N, called with jal t0 and
returning through it, __riscv_restore_N, jumped to from epilogues: parts
of their callers' prologues and epilogues).  Functions zond refuses that
ran are listed with --coverage's reason (COVERAGE).  Aliases (one
address, two names: picolibc's cos and _cos) are one function, named as
truth.py names it (ELF's nm).
"""
import re
import subprocess
import sys

# Table 1 of the thesis: length, functions, abs errors, calls, overhead per call, rel errors (%)
THESIS = {
    "aha-mont64": ("34734", "5", "13..859", "21", "40.9", "0.2..2.47"),
    "crc32": ("194253", "2", "14..81", "2", "40.5", "0.01..0.04"),
    "cubic": ("201084", "1", "18..18", "1", "18.0", "0.01..0.01"),
    "edn": ("553189", "9", "4..253", "9", "28.1", "0.0..0.84"),
    "huffbench": ("907810", "3", "818..3277", "96", "34.1", "0.35..3.39"),
    "matmult-int": ("1253556", "4", "61..7412", "803", "9.2", "0.0..5.81"),
    "minver": ("23416", "3", "27..379", "11", "34.5", "0.33..2.57"),
    "nettle-aes": ("138350", "10", "12..659", "12", "54.9", "0.02..1.76"),
    "nettle-sha256": ("14077", "7", "13..499", "9", "55.4", "0.34..12.05"),
    "slre": ("92523", "13", "77..45949", "1168", "39.3", "13.44..65.09"),
    "st": ("701853", "9", "9..29018", "613", "47.3", "0.05..6.48"),
    "statemate": ("4403", "4", "110..239", "5", "47.8", "2.86..5.43"),
    "ud": ("17212", "2", "19..70", "2", "35.0", "0.15..0.41"),
}
FORMAT = "{:<16} {:>10} {:>5} {:>8} {:>17} {:>13} {:>19} {:>9} {:>9}"


def header():
    print(FORMAT.format("benchmark", "length", "funcs", "calls", "abs error (insns)",
                        "own/call (pair)", "rel error (%)", "mean (%)", "instr."))


def read_truth(truth_path):
    truth, facts = {}, {}
    for line in open(truth_path):
        f = line.split()
        if f[0].startswith("@"):
            facts[f[0][1:]] = int(f[1])
        else:
            truth[f[0]] = (int(f[1]), int(f[2]))
    return truth, facts


def read_report(report_path):
    zond = {}
    for line in open(report_path):
        f = line.split()
        if len(f) >= 8 and f[0].isdigit() and f[-1] != "[block]":
            zond[f[-1]] = (int(f[0]), int(f[1]))
    return zond


def row(name, truth_path, report_path, pair, summary):
    truth, facts = read_truth(truth_path)
    own = facts["zond"] / max(facts["hooks"], 1)
    put_row(name, truth, read_report(report_path), f"{own:.0f} ({pair})", summary)


MILLICODE = re.compile(r"__riscv_(save|restore)_\d+$")


def symbols(elf):
    """(address, name) of every function symbol, in nm's order."""
    out = subprocess.run(["riscv64-unknown-elf-nm", "--defined-only", elf],
                         capture_output=True, text=True, check=True).stdout
    return [(int(f[0], 16), f[2]) for f in (line.split() for line in out.splitlines())
            if len(f) == 3 and f[1] in "tTwW"]


def alias(elf):
    """name -> the first (nm's order) of the names of its address."""
    first, names = {}, {}
    for addr, name in symbols(elf):
        names[name] = first.setdefault(addr, name)
    return names


def addr_name(elf, addr):
    return next((name for a, name in symbols(elf) if a == addr), None)


def entry_point(elf):
    out = subprocess.run(["riscv64-unknown-elf-readelf", "-h", elf], capture_output=True,
                         text=True, check=True).stdout
    return int(re.search(r"Entry point address:\s+0x([0-9a-f]+)", out).group(1), 16)


def inject(name, truth_path, report_path, coverage, summary, elf):
    truth, _ = read_truth(truth_path)
    names = alias(elf)
    pair = re.search(r"probe overhead of (\d+)", open(report_path).read())
    entry = entry_point(elf)
    skipped = [f for f in truth if MILLICODE.match(f) or names.get(f) == addr_name(elf, entry)]
    for f in skipped:
        del truth[f]
    why = {}
    for line in open(coverage):
        m = re.match(r"refused (\S+) \(0x[0-9a-f]+\): (.*)", line)
        if m:
            why[m.group(1)] = m.group(2)
    zond = {names.get(f, f): v for f, v in read_report(report_path).items()}
    put_row(name, truth, zond, pair.group(1) if pair else "-", summary, why)
    if skipped:
        print(f"  not functions entered by a call: {' '.join(sorted(skipped))}")


def put_row(name, truth, zond, own, summary, why=None):
    both = sorted(f for f in zond if f in truth)
    calls = sum(zond[f][0] for f in zond)
    exact = all(truth[f][0] == zond[f][0] for f in both) and len(both) == len(zond)
    err = [zond[f][1] - truth[f][1] for f in both] or [0]
    rel = [abs(zond[f][1] - truth[f][1]) / truth[f][1] * 100 for f in both if truth[f][1]]
    rel = rel or [0.0]
    print(FORMAT.format(name, truth.get("main", (0, 0))[1], len(zond),
                        f"{calls}{'=' if exact else '!'}", f"{min(err)}..{max(err)}", own,
                        f"{min(rel):.4f}..{max(rel):.4f}",
                        f"{sum(rel) / len(rel):.4f}", f"{len(both)}/{len(truth)}"))
    if name in THESIS:
        t = THESIS[name]
        print(FORMAT.format("  thesis", t[0], t[1], t[3], t[2], t[4], t[5], "", ""))
    odd = [f for f in zond if f not in truth] + [f for f in truth if f not in zond]
    for f in odd:
        print(f"  not in both: {f}" + (f": refused, {why[f]}" if why and f in why else ""))
    with open(summary, "a") as out:
        print(name, len(both), len(truth), int(exact), min(err), max(err), *rel, file=out)


def total(summary):
    rel, measured, ran, exact, benches, lo, hi = [], 0, 0, 0, 0, 0, 0
    for line in open(summary):
        f = line.split()
        benches += 1
        measured, ran, exact = measured + int(f[1]), ran + int(f[2]), exact + int(f[3])
        lo, hi = min(lo, int(f[4])), max(hi, int(f[5]))
        rel += [float(x) for x in f[6:]]
    print(f"zond, {benches} benchmarks: relative error per function mean {sum(rel) / len(rel):.4f}%, "
          f"worst {max(rel):.4f}% (target 1% and 5%); absolute {lo}..{hi} instructions; "
          f"calls exact in {exact} of {benches}; functions instrumentable {measured} of {ran}")
    print("thesis (Table 1): relative error mean 3%, worst 65.09% (slre); "
          "9.2-55.4 cycles per call; 100 of 117 functions instrumentable")


if sys.argv[1] == "header":
    header()
elif sys.argv[1] == "row":
    row(*sys.argv[2:7])
elif sys.argv[1] == "inject":
    inject(*sys.argv[2:8])
else:
    total(sys.argv[2])
