#!/bin/sh
# embench.sh - zond inject's functions scenario over GDB on two Embench 1.0
# programs (st, wikisort), built at test time from the Embench tree where it
# is (never copied) for rv32imac without instrumentation flags, as
# bench/embench/run --inject builds them:
#   - the program's output and exit status are as without zond;
#   - every function that ran up to _exit (where zond reads its results) is
#     measured, but those that are not functions entered by a call (the
#     entry point, libgcc's -msave-restore millicode), with calls and
#     inclusive instructions equal to QEMU's execution log of the plain
#     program (tests/bare/truth.py --until _exit), in runs of 8 functions
#     merged into one campaign;
#   - functions too short for the jump (a lone ret, a 2-byte tail jump) and
#     bodies that branch to +2 (picolibc's memcmp) are among them: entered
#     through a breakpoint (--coverage's "fallback" lines);
#   - scratch RAM 8 MiB from the code (--scratch, out of a jal's reach): the
#     far jump (auipc t1; jalr) on the functions that write t1 (soft-float),
#     breakpoints on the 2-byte ones, exact as well; a function that never
#     writes t1 is left out, --coverage --scratch saying why;
#   - st's run's whole (what --metrics' shares divide by) is the log's count
#     from the entry point to _exit, in every run of 8 and with the far
#     jump: the payload's instructions, a far entry's second one and a
#     breakpoint entry's jump included, taken out exactly.
#
# Usage: embench.sh ZOND WORKDIR SRCDIR    (exit 77: cross tools or Embench missing)
# The Embench tree: $ZOND_EMBENCH, else ../shared/embench-1.0 beside the
# source tree's parent, else /work/shared/embench-1.0.
set -u
zond=$1 dir=$2/embench src=$3
truth=$src/../../tests/bare/truth.py
. "$src/rv.sh"
rv_need riscv64-unknown-elf-objdump riscv64-unknown-elf-nm qemu-system-riscv32 python3 sqlite3
embench=${ZOND_EMBENCH:-}
for d in "$src/../../../shared/embench-1.0" /work/shared/embench-1.0; do
	[ -n "$embench" ] || { [ -f "$d/support/main.c" ] && embench=$d; }
done
[ -f "$embench/support/main.c" ] ||
	{ echo "SKIP: no Embench 1.0 tree (set ZOND_EMBENCH)"; exit 77; }
mkdir -p "$dir" && cd "$dir" || exit 1
rm -f ./*.db status.txt
. "$src/../cli/lib.sh"
qemu=$(rv_qemu 32)

for b in st wikisort; do
	rv_build 32 $b.elf "$embench"/src/$b/*.c "$embench/support/main.c" \
		"$embench/support/beebsc.c" "$src/../../bench/embench/board.c" -DCPU_MHZ=1 \
		-DWARMUP_HEAT=0 -I"$embench/support" -lm || exit 1
	$qemu -kernel $b.elf >want.txt 2>/dev/null
	want_status=$?
	echo "$b status $want_status" >>status.txt
	$qemu -singlestep -d exec,nochain -D exec.log -kernel $b.elf >/dev/null 2>&1
	python3 "$truth" $b.elf riscv64-unknown-elf-objdump exec.log --until _exit |
		grep -v '^@' | LC_ALL=C sort >truth.txt
	cp truth.txt $b.truth
	entry=$(riscv64-unknown-elf-readelf -h $b.elf | sed -n 's/.*Entry point address: *0x0*//p')
	[ $b = st ] && whole=$(python3 "$src/region_truth.py" exec.log $entry \
		"$(riscv64-unknown-elf-nm $b.elf | awk '$3 == "_exit" { print $1 }')" | cut -d' ' -f2)
	rm -f exec.log
	"$zond" inject --coverage $b.elf >cov.txt
	# not functions entered by a call, left out of the truth: the entry point
	# (readelf) and libgcc's -msave-restore millicode (prologue and epilogue parts)
	riscv64-unknown-elf-nm $b.elf | awk -v e="$entry" '
		{ a = $1; sub(/^0+/, "", a) }
		a == e || $3 ~ /^__riscv_(save|restore)_[0-9]+$/ { print $3 }' | LC_ALL=C sort >skip.txt
	LC_ALL=C join -v1 truth.txt skip.txt >want_funcs.txt

	"$zond" inject -q -o $b.db -c $b --per-run 8 --elf $b.elf -- $qemu -kernel $b.elf \
		>got.txt 2>err.txt
	check_eq "$b: status under zond inject" $? $want_status
	check_same "$b: output under zond inject" got.txt want.txt
	"$zond" report -i $b.db -C $b --raw -n 0 | awk '
		/^ +calls +total/ { on = 1; next }
		on && NF >= 8 { print $8, $1, $2 }' | LC_ALL=C sort >zond.txt
	check_same "$b: every function that ran, its calls and inclusive instructions" \
		zond.txt want_funcs.txt
	n=$(wc -l <want_funcs.txt)
	[ "$n" -ge 20 ] || fail "$b: only $n functions ran"
	for f in start_trigger stop_trigger initialise_board; do
		grep -q "^fallback $f (0x[0-9a-f]*): too short: 2 bytes, the jump needs 4: entered through a breakpoint" cov.txt ||
			fail "$b: --coverage: no breakpoint fallback for $f"
		grep -q "^$f 1 1\$" zond.txt || fail "$b: $f not measured once, 1 instruction"
	done
	echo "$b: $n functions, calls and inclusive instructions exact"
done
check_eq "st: every run's whole as the log's" "$(sqlite3 st.db 'select distinct duration_ns from runs')" \
	"$whole"
# far scratch: st again (QEMU's virt board has 128 MiB of RAM at 0x80000000)
far="--scratch 0x80800000,0x100000"
"$zond" inject -q -o far.db -c far $far --elf st.elf -- $qemu -kernel st.elf >got.txt 2>err.txt
check_eq "far scratch: status" $? "$(sed -n 's/^st status //p' status.txt)"
"$zond" report -i far.db -C far --raw -n 0 | awk '
	/^ +calls +total/ { on = 1; next }
	on && NF >= 8 { print $8, $1, $2 }' | LC_ALL=C sort >far.txt
LC_ALL=C join -o 0,2.2,2.3 far.txt st.truth >far_want.txt
check_same "far scratch: calls and inclusive instructions" far.txt far_want.txt
check_eq "far scratch: the run's whole as the log's" "$(sqlite3 far.db 'select duration_ns from runs')" \
	"$whole"
for f in __adddf3 __muldf3 start_trigger; do
	grep -q "^$f " far.txt || fail "far scratch: $f not measured"
done
"$zond" inject --coverage st.elf $far >farcov.txt
grep -q "^refused main (0x[0-9a-f]*): its trampoline (0x80800000-0x808[0-9a-f]*) is out of a jal's reach (1 MiB) from 0x[0-9a-f]*, and the far jump changes t1, which it never writes" farcov.txt ||
	fail "far scratch: --coverage does not refuse main: $(grep main farcov.txt)"
# (the refusal's reason first, then the error: QA s13 U F4)
"$zond" inject -q -o far.db -c far2 $far -f main --elf st.elf -- $qemu -kernel st.elf >out.txt 2>err.txt
rc=$?
if [ $rc -eq 0 ] || [ "$(wc -l <err.txt)" -ne 2 ] ||
	! grep -q "^zond inject: -f main: main (0x[0-9a-f]*) cannot be injected: its trampoline (0x80800000-0x808[0-9a-f]*) is out of a jal's reach" err.txt ||
	! grep -qF -- "-f matched none that can be injected" err.txt; then
	fail "far scratch: -f main: status $rc:"; cat err.txt >&2
else
	pass
fi
grep -q "^fallback memcmp (0x[0-9a-f]*): the body (+[0-9]*) jumps to +2.*entered through a breakpoint" cov.txt ||
	fail "wikisort: --coverage: no breakpoint fallback for memcmp"
grep -q "^memcmp " zond.txt || fail "wikisort: memcmp not measured"
finish
