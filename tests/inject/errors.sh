#!/bin/sh
# errors.sh - zond inject on bad input: one line naming what is wrong, status
# 1 (or 2 for usage), never a crash, and no store left behind.
#
# Usage: errors.sh ZOND CALLS WORKDIR
set -u
zond=$1 calls=$2 dir=$3/errors
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1
status=0
stripped=$dir/stripped
strip -o "$stripped" "$calls"
printf '#!/bin/sh\necho hi\n' >script.sh && chmod +x script.sh

# check STATUS MESSAGE ARGS...: zond inject ARGS prints exactly MESSAGE on stderr.
check() {
	want_rc=$1 want=$2
	shift 2
	err=$("$zond" inject -q -o e.db "$@" 2>&1 >/dev/null)
	rc=$?
	if [ $rc -ne "$want_rc" ] || [ "$err" != "$want" ]; then
		echo "FAIL: zond inject $*: status $rc, '$err'"
		echo "      wanted $want_rc, '$want'"
		status=1
	fi
}
check 127 "zond inject: /nonexistent/prog: program not found" -- /nonexistent/prog
check 1 "zond inject: $dir/script.sh: not an ELF file" -- "$dir/script.sh"
check 1 "zond inject: $stripped: no function to measure (no function symbols: stripped?)" -- "$stripped"
# -f on a stripped program: the reason, not what reads like a typo (QA s16 X2 F9)
check 1 "zond inject: -f fib matched no function of $stripped: it has no function symbols (stripped? its debug symbols give them; -f MODULE:GLOB measures a library's)
zond inject: $stripped: no function to measure (no function symbols: stripped?)" -f fib -- "$stripped"
check 1 "zond inject: -f nosuch matched no function of $calls
zond inject: $calls: no function to measure (-f matched none that can be injected)" -f nosuch -- "$calls"
check 1 "zond inject: nosuch: no function nosuch in $calls" --region nosuch,main -- "$calls"
check 1 "zond inject: main+100000: past the end of main ($(nm -S "$calls" | awk '$4 == "main" { printf "%d", "0x" $2 }') bytes)" \
	--region main+100000,fib -- "$calls"
check 1 "zond inject: --from nosuch: no such function to measure" --descend --from nosuch -- "$calls"
check 1 "zond inject: process 999999999: no such process" -p 999999999
check 2 "zond inject: --region wants FROM,TO (see 'zond inject --help')" --region main -- "$calls"
check 2 "zond inject: --per-run wants a positive number (see 'zond inject --help')" --per-run 0 -- "$calls"
check 2 "zond inject: --duration goes with -p, --safe-point, --gdb or --elf with QEMU's command (one run) (see 'zond inject --help')" --duration 1 -- "$calls"
check 2 "zond inject: --period goes with --safe-point (see 'zond inject --help')" --period 1 -- "$calls"
check 2 "zond inject: --period wants seconds > 0 (see 'zond inject --help')" --safe-point main --period 0 -- "$calls"
check 2 "zond inject: --event wants tsc, task-clock, page-faults, context-switches, cpu-migrations, cycles, instructions, cache-misses or branch-misses (see 'zond inject --help')" --event nosuch -- "$calls"
check 2 "zond inject: --event page-faults: over GDB the counter is mcycle, minstret or mhpmcounterN (3..31)[=EVENT] (see 'zond inject --help')" --elf "$calls" --event page-faults -- qemu
# --event: this VM has no PMU (events.sh counts software events); with one, cycles are counted
if [ -e /sys/bus/event_source/devices/cpu ]; then
	echo "note: this machine has a PMU; the no-PMU line is not checked"
	! "$zond" inject -q -o pmu.db --event cycles -f main -- "$calls" 2>&1 >/dev/null |
		grep '^zond inject: --event' || { echo "FAIL: --event cycles on a machine with a PMU"; status=1; }
else
	check 1 "zond inject: --event cycles: this machine has no PMU (no hardware events: /sys/bus/event_source/devices/cpu is missing); --event tsc and the software events (task-clock, page-faults, context-switches, cpu-migrations) work" --event cycles -- "$calls"
fi
# --fast-clock drops the TSC's fences: a perf_event counter or a RISC-V target over GDB has none
check 2 "zond inject: --fast-clock goes with the TSC: no --event, no --elf (see 'zond inject --help')" --fast-clock --event task-clock -- "$calls"
check 2 "zond inject: --fast-clock goes with the TSC: no --event, no --elf (see 'zond inject --help')" --elf "$calls" --fast-clock -- qemu
check 1 "zond inject: --safe-point nosuch: no function of $calls that can be patched" --safe-point nosuch -- "$calls"
check 2 "zond inject: --from and --threshold go with --descend (see 'zond inject --help')" --threshold 5 -- "$calls"
check 2 "zond inject: no program to run (zond inject -- PROG ARGS) (see 'zond inject --help')"
# A store zond cannot write is found before the program runs (it ran to its end before).
out=$("$zond" inject -q -o "$dir/nodir/x.db" -- "$calls" 2>err.txt)
rc=$?
[ $rc -eq 1 ] && [ -z "$out" ] &&
	[ "$(cat err.txt)" = "zond inject: $dir/nodir/x.db: cannot create: $dir/nodir: No such file or directory" ] ||
	{ echo "FAIL: unwritable store: status $rc, output '$out', '$(cat err.txt)'"; status=1; }
# ... as is one through a link (the store follows it; the check did not, and the run was lost)
ln -s "$dir/nodir/x.db" dangling.db
out=$("$zond" inject -q -o dangling.db -- "$calls" 2>err.txt)
rc=$?
[ $rc -eq 1 ] && [ -z "$out" ] &&
	[ "$(cat err.txt)" = "zond inject: dangling.db (a symbolic link to $dir/nodir/x.db): cannot create: $dir/nodir: No such file or directory" ] ||
	{ echo "FAIL: a link to nowhere: status $rc, output '$out', '$(cat err.txt)'"; status=1; }
# --per-run reruns the program: runs that end differently (here a count kept in a file,
# its status alternating) did different work, which the merged campaign cannot show: said.
cat >alternate.c <<'END'
#include <stdio.h>
__attribute__((noinline)) int work(int n) { return n * 3; }
int main(void)
{
	int n = 0;
	FILE *f = fopen("count", "r");
	if (f && fscanf(f, "%d", &n) != 1)
		n = 0;
	if (f)
		fclose(f);
	f = fopen("count", "w");
	fprintf(f, "%d\n", n + 1);
	fclose(f);
	return work(n) % 2;
}
END
gcc -O0 -o alternate alternate.c && rm -f count
"$zond" inject -q -o alt.db -f work -f main --per-run 1 -- ./alternate 2>err.txt
# (the call graph's run first, status 0; then run 1, status 1)
grep -q "^zond inject: warning: run 1 ended with status 1, the call graph's run with 0: the runs did different work" err.txt ||
	{ echo "FAIL: runs ending differently not said: $(cat err.txt)"; status=1; }
# Each -f zond cannot honour is said, also when another -f matched: a function too short
# for the jump (with the reason) and a typo; alone, the refusal's reason before the error.
# Before, -f tiny -f main and -f main -f mian measured main without a word (QA s13 U F4).
cat >short.c <<'END'
#include <stdio.h>
int tiny(void);
__asm__(".text\n.globl tiny\n.type tiny,@function\ntiny:\n xor %eax,%eax\n ret\n"
	".size tiny,.-tiny\n");
int main(void) { int s = 0; for (int i = 0; i < 10; i++) s += tiny(); printf("%d\n", s); return 0; }
END
gcc -O2 -o short short.c
"$zond" inject -q -o short.db -f tiny -f main -- ./short 2>err.txt >/dev/null
grep -q "^zond inject: -f tiny: tiny (0x[0-9a-f]*) cannot be injected: too short: 3 bytes" err.txt ||
	{ echo "FAIL: -f tiny -f main: tiny's refusal not said: $(cat err.txt)"; status=1; }
"$zond" inject -q -o short.db -f main -f mian -- ./short 2>err.txt >/dev/null
grep -qx "zond inject: -f mian matched no function of $dir/short" err.txt ||
	{ echo "FAIL: -f main -f mian: the typo not said: $(cat err.txt)"; status=1; }
"$zond" inject -q -o short.db -f tiny -- ./short 2>err.txt >/dev/null
grep -q "^zond inject: -f tiny: tiny .*too short" err.txt &&
	grep -q "no function to measure" err.txt ||
	{ echo "FAIL: -f tiny: $(cat err.txt)"; status=1; }
rm -f short.db
# A program whose library is missing ends in the loader before its entry
# point: zond says so and exits with the program's status (127).
echo 'int missing_fn(void) { return 0; }' >mlib.c
printf 'int missing_fn(void);\nint main(void) { return missing_fn(); }\n' >needlib.c
gcc -shared -fPIC -o libmissing.so mlib.c && gcc -o needlib needlib.c -L. -lmissing && rm libmissing.so
./needlib 2>/dev/null
plain=$?
err=$("$zond" inject -q -o e.db -- ./needlib 2>&1 >/dev/null)
rc=$?
[ $rc -eq $plain ] && echo "$err" | grep -q '^zond inject: process [0-9]* ended before its entry point$' ||
	{ echo "FAIL: missing library: status $rc (plain $plain), '$err'"; status=1; }
[ -e e.db ] && { echo "FAIL: a store was left behind"; status=1; }
[ $status -eq 0 ] && echo "errors: ok"
exit $status
