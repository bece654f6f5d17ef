#!/bin/sh
# Exports of a deep recursion (progs/recurse.c): folded stacks, pprof and
# speedscope write every context's whole path, quadratic in the depth.  The
# pprof writer holds one stack at a time (it held all: 8 bytes a frame, 150 MB
# for 6,000 levels, the machine's whole memory for 100,000), so it fits in a
# small address space and go tool pprof reads every call back; a run whose
# stacks hold 10^8 frames or more is said before it is written.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
work=$1
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1

"$ZOND" record -q --no-time --depth 6100 -o d.db -- "$RECURSE" 6000 >out.txt 2>err.txt ||
	fail "record: $(cat err.txt)"
check_eq "the program's output" "$(cat out.txt)" 6000
if (ulimit -v 100000 && "$ZOND" --version >/dev/null 2>&1); then
	(ulimit -v 100000 && "$ZOND" export -i d.db -f pprof -o d.pb.gz) 2>err.txt ||
		fail "pprof export in 100 MB of address space: $(cat err.txt)"
else # a sanitizer build reserves more address space than that
	echo "note: zond does not run under ulimit -v (a sanitizer build): its memory not checked"
	"$ZOND" export -i d.db -f pprof -o d.pb.gz 2>err.txt || fail "pprof export: $(cat err.txt)"
fi
check_eq "no warning at 18 million frames" "$(cat err.txt)" ""
if command -v go >/dev/null 2>&1; then
	export HOME="$work" GOCACHE="$work/gocache" GOTOOLCHAIN=local PPROF_TMPDIR="$work/pprof"
	check_eq "go tool pprof: every call (main and 6,001 of r)" "$(go tool pprof -top -sample_index=calls d.pb.gz 2>/dev/null |
		sed -n 's/^Showing nodes accounting for .* of \([0-9]*\) total$/\1/p')" 6002
fi

"$ZOND" record -q --no-time --depth 14300 -o e.db -- "$RECURSE" 14200 >/dev/null 2>err.txt ||
	fail "record 14200: $(cat err.txt)"
"$ZOND" export -i e.db -f folded -o /dev/null 2>err.txt || fail "folded: $(cat err.txt)"
check_eq "the warning" "$(cat err.txt)" "zond export: warning: the stacks of run 1 hold \
100855503 frames (14202 deep at most): folded writes each one whole, gigabytes to write and to \
read; \`zond graph --tree\` and --format json or callgrind stay linear"
finish
