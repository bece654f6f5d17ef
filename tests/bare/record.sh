#!/bin/sh
# record.sh - the bare-metal runtime end to end on one RISC-V target: a
# program built with `zond config --target`, run under qemu-system with
# semihosting and -icount shift=0 by `zond record`, checked against
#   - the program itself: same output and exit status as without zond, and
#     its own call counters equal zond's counts (a loop, a recursion and its
#     self edge, a block around a critical section with interrupts off);
#   - QEMU's execution log (-singlestep -d exec,nochain): under icount the
#     cycle counter is the number of instructions retired, so the
#     instructions executed between the entry and the exit probes' clock
#     reads of each call of a leaf are its exact raw cycles; zond's per-call
#     min and max must equal them less the probe cost the runtime measured
#     and wrote in the raw header (overhead_inner_ticks);
#   - objdump: the same leaf in a build without instrumentation runs N
#     instructions; zond's cycles differ from N by at most the bound
#     doc/bare-metal.md gives (the instrumentation's own prologue changes).
# A program without the runtime, an unknown target, a missing ELF and a
# Linux-only option give one error line each.
#
# Usage: record.sh ZOND XLEN WORKDIR SRCDIR    (exit 77: cross tools missing)
set -u
zond=$1 xlen=$2 src=$4
dir=$3/rv$xlen
. "$src/../cli/lib.sh"
. "$src/build.sh"

# The program as it is, then under zond: the same output and status.
$run -kernel plain.elf >want.txt 2>&1
check_eq "status without zond" $? 3
check_eq "output" "$(cat want.txt)" "leaf=13 fib=465 critical=3 fixed=7 sum=289"
"$zond" record -q -o zond.db --keep-raw -- $run -kernel app.elf >got.txt 2>record.err
check_eq "status under zond record" $? 3
check_same "output under zond record" got.txt want.txt
kept=$(sed -n 's/^zond record: raw data kept in //p' record.err)
[ -d "$kept" ] || fail "no raw data directory in: $(cat record.err)"

# Counts: the program's own counters, and the recursion's self edge.
"$zond" report -i zond.db --raw -s name >report.txt || fail "report"
calls() { awk -v f="$1" '$NF == f { print $1 }' report.txt; }
check_eq "leaf calls" "$(calls leaf)" 13
check_eq "fib calls" "$(calls fib)" 465
check_eq "fixed calls" "$(calls fixed)" 7
check_eq "critical block" "$(awk 'NF > 2 && $(NF-1) == "critical" && $NF == "[block]" { print $1 }' report.txt)" 3
"$zond" dump -i zond.db >dump.txt || fail "dump"
grep -qx "call fib -> fib calls=464" dump.txt || fail "fib -> fib edge: $(grep 'fib -> fib' dump.txt)"
grep -qx "call critical -> leaf calls=3" dump.txt || fail "critical -> leaf edge: $(grep critical dump.txt)"
check_eq "arch" "$(sed -n 's/^arch: *//p' report.txt)" riscv$xlen

# Calling contexts (the call tree): fib(12)'s calls at each depth of its
# recursion, counted here from fib's definition, and leaf's calls straight
# from main (its 10) apart from those inside the critical block (3).
"$zond" graph --tree -i zond.db >tree.txt || fail "graph --tree"
check_eq "fib calls per depth" "$(awk '$NF == "fib" { printf "%s ", $1 }' tree.txt)" \
	"$(awk 'function f(n, d) { c[d]++; if (n >= 2) { f(n - 1, d + 1); f(n - 2, d + 1) } }
		BEGIN { f(12, 0); for (d = 0; d in c; d++) printf "%d ", c[d] }')"
leaf_ctx() { awk '$NF == "leaf" { match($0, /%  */); print RLENGTH, $1 }' tree.txt | sort -n | awk '{ printf "%s ", $2 }'; }
check_eq "leaf calls per context (main, then the block)" "$(leaf_ctx)" "10 3 "
check_eq "clock" "$(sed -n 's/^clock: *//p' report.txt)" mcycle

# The probe cost the runtime wrote: overhead_inner_ticks, bytes 96..103 of the header.
inner=$(od -An -t u8 -j 96 -N 8 "$kept/zond.zraw" | tr -d ' ')
[ -n "$inner" ] && [ "$inner" -gt 0 ] || fail "no probe cost in the raw header: '$inner'"

# The truth from QEMU's log: instructions from the clock read the entry
# probe keeps to the exit probe's, in each call of fixed.  The first call
# takes the slow path (a new function): the runtime takes its own work out
# of the callers (zb_discount) and keeps a clock read made after it.
riscv64-unknown-elf-objdump -d app.elf >app.dis
clock_read() { # the address of the last (low half of a) cycle read in function $1
	awk -v f="<$1>:" '$2 == f { on = 1; next } on && /^$/ { exit }
		on && /csrr.*mcycle$/ { sub(":", "", $1); at = $1 } END { print at }' app.dis
}
enter=$(clock_read __cyg_profile_func_enter)
# every cycle read of zb_discount: the last one executed is the one kept
slow=$(awk '$2 == "<zb_discount>:" { on = 1; next } on && /^$/ { exit }
	on && /csrr.*mcycle$/ { sub(":", "", $1); printf "%s ", $1 }' app.dis)
exit_=$(awk -v f="<__cyg_profile_func_exit>:" '$2 == f { on = 1; next } on && /^$/ { exit }
	on && /csrr.*mcycle$/ { sub(":", "", $1); print $1; exit }' app.dis)
entry=$(awk '$2 == "<fixed>:" { print $1 }' app.dis | sed 's/^0*//')
[ -n "$enter" ] && [ -n "$slow" ] && [ -n "$exit_" ] && [ -n "$entry" ] ||
	fail "addresses not found: '$enter' '$slow' '$exit_' '$entry'"
$run -singlestep -d exec,nochain -D exec.log -kernel app.elf >/dev/null 2>&1
awk -v entry="$entry" -v enter="$enter" -v slow="$slow" -v leave="$exit_" '
	BEGIN { n = split(slow, s, " "); for (i = 1; i <= n; i++) kept[s[i]] = 1; kept[enter] = 1 }
	{ split($4, f, "/"); pc = f[2]; sub(/^0*/, "", pc) }
	pc == entry { state = 1 }
	state == 1 && (pc in kept) { start = NR }
	state == 1 && pc == leave && start { print NR - start; state = 0; start = 0 }' exec.log >truth.txt
check_eq "calls of fixed in QEMU's log" "$(wc -l <truth.txt)" 7
check_eq "every later call of fixed runs the same instructions" "$(sed 1d truth.txt | sort -u | wc -l)" 1
raw=$(sed -n 2p truth.txt)
want=$((raw - inner))
least=$(sort -n truth.txt | head -1) most=$(sort -n truth.txt | tail -1)
sum=$(awk '{ s += $1 } END { print s }' truth.txt)
check_eq "fixed: min cycles = truth - probe cost" "$(awk '$NF == "fixed" { print $5 }' report.txt)" $((least - inner))
check_eq "fixed: max cycles = truth - probe cost" "$(awk '$NF == "fixed" { print $6 }' report.txt)" $((most - inner))
check_eq "fixed: total cycles" "$(awk '$NF == "fixed" { print $2 }' report.txt)" $((sum - 7 * inner))

# Against the uninstrumented build's own instruction count (objdump: straight-line code).
plain=$(riscv64-unknown-elf-objdump -d plain.elf |
	awk '$2 == "<fixed>:" { on = 1; next } on && /^$/ { exit } on && /^ *[0-9a-f]+:\t/ { n++ } END { print n }')
diff=$((want - plain))
[ ${diff#-} -le 4 ] || fail "fixed: zond $want cycles, uninstrumented code $plain instructions (bound 4)"
echo "rv$xlen: fixed runs $plain instructions uninstrumented; zond: $want cycles (raw $raw, probe cost $inner)"

# A program without the runtime: one line, and its own status.
check_error "no runtime" "left no profile data" "$zond" record -q -o zond.db -- $run -kernel plain.elf
check_error "unknown target" "unknown target 'rv99'" "$zond" config --target rv99 --cflags
check_error "missing ELF" "nothere.elf" "$zond" record -q -o zond.db --elf nothere.elf -- $run -kernel app.elf
check_error "bare target with a Linux option" "bare-metal target" "$zond" record -q -o zond.db --no-time -- $run -kernel app.elf
rm -rf "$kept"
finish
