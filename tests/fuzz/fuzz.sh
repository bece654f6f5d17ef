#!/bin/sh
# fuzz.sh build SOURCE_DIR FUZZ_BUILD_DIR
#   makes the clang build of the libFuzzer targets (-DZOND_FUZZ=ON).
# fuzz.sh run TARGET FUZZ_BUILD_DIR WORK_DIR
#   runs fuzz_TARGET for $FUZZ_RUNS executions from a seed corpus; a crash, a leak,
#   a hang (-timeout) or an error message that does not name the file fails,
#   and the input that did it is kept in WORK_DIR (crash-*, leak-*, timeout-*).
# Exit 77 (skipped) when there is no clang with libFuzzer.
set -u
mode=$1

have_libfuzzer() {
	[ -n "$CLANG" ] && [ -x "$CLANG" ] || return 1
	echo 'int LLVMFuzzerTestOneInput(const char *d, long n) { return 0; }' >/tmp/zond-fuzz-probe.$$.c
	"$CLANG" -fsanitize=fuzzer -o /tmp/zond-fuzz-probe.$$ /tmp/zond-fuzz-probe.$$.c 2>/dev/null
	ok=$?
	rm -f /tmp/zond-fuzz-probe.$$ /tmp/zond-fuzz-probe.$$.c
	return $ok
}
if ! have_libfuzzer; then
	echo "skipped: no clang with libFuzzer (install clang-14 libclang-rt-14-dev: scripts/install-deps)"
	exit 77
fi

if [ "$mode" = build ]; then
	src=$2 dir=$3
	cxx=$(echo "$CLANG" | sed 's/clang/clang++/')
	cmake -S "$src" -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER="$CLANG" \
		-DCMAKE_CXX_COMPILER="$cxx" -DZOND_FUZZ=ON -DZOND_BUILD_TESTS=OFF >"$dir.log" 2>&1 &&
		cmake --build "$dir" --target fuzz_targets -j2 >>"$dir.log" 2>&1 ||
		{ cat "$dir.log"; exit 1; }
	echo "built the fuzz targets in $dir"
	exit 0
fi

target=$2 dir=$3 work=$4
exe=$dir/tests/fuzz/fuzz_$target
[ -x "$exe" ] || { echo "$exe: not built (see the fuzz.build test)"; exit 1; }
rm -rf "$work" && mkdir -p "$work/corpus" "$work/tmp" && cd "$work" || exit 1
TMPDIR=$work/tmp
export TMPDIR

# Seeds: the committed ones, and real files of each format from this build.
case $target in
raw)
	mkdir raw &&
		ZOND_DIR=raw ZOND_THREADS=2 ZOND_FUNCS=16 ZOND_EDGES=16 ZOND_DEPTH=32 ZOND_CONTEXTS=64 \
			LD_PRELOAD=$RUNTIME "$SHOP" >/dev/null 2>&1
	cp raw/*.zraw corpus/ || { echo "no raw file recorded for a seed"; exit 1; }
	;;
store)
	"$ZOND" record -q -o corpus/shop.db --threads 2 --funcs 64 -- "$SHOP" \
		>/dev/null || { echo "no store recorded for a seed"; exit 1; }
	;;
ztrace)
	seed=$TRACE_WORK/aarch64/calls.ztrace
	if [ -f "$seed" ]; then
		cp "$seed" corpus/calls.ztrace
		head -c 4096 "$seed" >corpus/head.ztrace
	else
		echo "note: no $seed (qemu-user missing?): fuzzing from no seed"
	fi
	;;
elf)
	# a program, a shared library, a stripped program, the head of one, and
	# cross-built ones where the compilers are installed
	cat >prog.c <<-EOF
	#include <stdio.h>
	static int square(int x) { return x * x; }
	int main(int argc, char **argv) { printf("%d %s\\n", square(argc), argv[0]); return 0; }
	EOF
	cat >lib.c <<-EOF
	extern int other(int);
	__thread int counter;
	int visible(int x) { counter++; return other(x) + 1; }
	EOF
	cat >bare.c <<-EOF
	static volatile int sink;
	static void __attribute__((noinline)) leaf(int x) { sink = x; }
	void _start(void) { for (int i = 0; i < 3; i++) leaf(i); for (;;) ; }
	EOF
	"$CC" -O2 -g -o corpus/prog prog.c &&
		"$CC" -O2 -g -fPIC -shared -ftls-model=initial-exec -o corpus/lib.so lib.c &&
		"$CC" -O2 -s -o corpus/stripped prog.c ||
		{ echo "no ELF files built for seeds ($CC)"; exit 1; }
	head -c 1024 corpus/prog >corpus/head
	for cross in riscv64-unknown-elf-gcc:-march=rv32imac:-mabi=ilp32 aarch64-linux-gnu-gcc::; do
		cc=${cross%%:*} flags=$(echo "${cross#*:}" | tr : ' ')
		command -v "$cc" >/dev/null 2>&1 || continue
		"$cc" -O2 -g $flags -nostdlib -ffreestanding -Wl,-z,max-page-size=4096 -o "corpus/bare-${cc%%-*}" bare.c ||
			echo "note: $cc could not build a seed"
	done
	! command -v aarch64-linux-gnu-gcc >/dev/null 2>&1 ||
		aarch64-linux-gnu-gcc -O2 -g -Wl,-z,max-page-size=4096 -o corpus/prog-aarch64 prog.c ||
		echo "note: aarch64-linux-gnu-gcc could not build a program"
	;;
*)
	cp "$SEEDS/$target"/* corpus/
	;;
esac

# -rss_limit_mb: a reader must bound its memory by its limits, not its input.
# -seed=1 and -runs: the same inputs every time, on any machine, so that a
# finding repeats and a slow machine only takes longer.  -timeout, a hang: an
# input of 110 KB took 10 s here (libFuzzer's "slowest unit"), which a loaded
# VM makes 20 s and more; 60 s is no parse.
"$exe" corpus -seed=1 -runs="$FUZZ_RUNS" -timeout=60 -rss_limit_mb=2048 \
	-print_final_stats=1 >fuzz.log 2>&1
rc=$?
runs=$(sed -n 's/^stat::number_of_executed_units: *//p' fuzz.log)
if [ $rc -ne 0 ]; then
	tail -n 60 fuzz.log
	echo "fuzz_$target: a finding after ${runs:-?} executions; input kept in $work"
	exit 1
fi
echo "fuzz_$target: $runs executions, no finding"
