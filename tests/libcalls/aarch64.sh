#!/bin/sh
# aarch64.sh - zond libcalls on aarch64 under qemu-user: the audit library
# and the test programs cross-built (cross/CMakeLists.txt), run with and
# without LD_AUDIT on Debian's arm64 libc; output and exit status must be
# the same, the raw files (same format, little-endian) read back by the
# host's rawdump must match expected/aarch64_<case>.txt exactly.
#
# Usage: aarch64.sh SRCDIR WORKDIR RAWDUMP   (exit 77: cross tools or qemu missing)
set -u
src=$1 work=$2 rawdump=$3
mkdir -p "$work" || exit 1
sysroot=/usr/aarch64-linux-gnu
for tool in aarch64-linux-gnu-gcc aarch64-linux-gnu-g++ qemu-aarch64; do
	command -v $tool >/dev/null || { echo "skipped: no $tool"; exit 77; }
done
[ -d $sysroot/lib ] || { echo "skipped: no $sysroot"; exit 77; }

build=$work/build
cmake -S "$src/cross" -B "$build" -DCMAKE_SYSTEM_NAME=Linux -DCMAKE_SYSTEM_PROCESSOR=aarch64 \
	-DCMAKE_C_COMPILER=aarch64-linux-gnu-gcc -DCMAKE_CXX_COMPILER=aarch64-linux-gnu-g++ \
	-DCMAKE_ASM_COMPILER=aarch64-linux-gnu-gcc -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	>"$work/cmake.log" 2>&1 &&
	cmake --build "$build" -j2 >>"$work/cmake.log" 2>&1 ||
	{ cat "$work/cmake.log"; exit 1; }
audit=$build/runtime/libzond-audit.so

# guest: qemu-aarch64 with Debian's arm64 libc; the programs find mylib by their runpath
guest() {
	qemu-aarch64 -L $sysroot "$@"
}

# callers named after the calling module, "[/path/prog]": by base name (build trees differ)
base_names=$(dirname "$0")/base_names.sh
rc=0
# run_case NAME PROG [ZOND_ environment...]: runs $build/PROG
run_case() {
	name=$1 prog=$2
	shift 2
	dir=$work/$name
	rm -rf "$dir" && mkdir -p "$dir/raw"
	guest "$build/$prog" >"$dir/plain.out" 2>"$dir/plain.err"
	plain=$?
	env ZOND_DIR="$dir/raw" "$@" qemu-aarch64 -L $sysroot -E LD_AUDIT="$audit" \
		"$build/$prog" >"$dir/out" 2>"$dir/err"
	status=$?
	[ $status = $plain ] || { echo "$name: exit status $status under zond, $plain alone"; rc=1; }
	cmp -s "$dir/plain.out" "$dir/out" || { echo "$name: stdout differs"; rc=1; }
	cmp -s "$dir/plain.err" "$dir/err" || { echo "$name: stderr differs"; cat "$dir/err"; rc=1; }
	{
		echo "status $status"
		echo "--- output"
		cat "$dir/out"
		echo "--- profile"
		{ "$rawdump" -p -m "$dir/raw" || echo "rawdump failed"; } | sh "$base_names"
	} >"$dir/actual" 2>&1
	expected=$src/expected/aarch64_$name.txt
	[ "${ZOND_UPDATE_EXPECTED:-}" = 1 ] && cp "$dir/actual" "$expected"
	diff -u "$expected" "$dir/actual" || rc=1
}

run_case basic basic ZOND_LIBCALLS_LIBS=libmylib.so
run_case basic_notime basic ZOND_LIBCALLS_LIBS=libmylib.so ZOND_NO_TIME=1
run_case longjmp longjmp ZOND_LIBCALLS_LIBS=libmylib.so
run_case except except "ZOND_LIBCALLS_LIBS=libmylib*"
run_case threads threads ZOND_LIBCALLS_LIBS=libmylib.so
run_case chain chain "ZOND_LIBCALLS_FUNCS=c[ab]_*
strlen"
run_case churn churn ZOND_LIBCALLS_LIBS=libmylib.so ZOND_THREADS=4
exit $rc
