#!/bin/sh
# sigagain.sh - zond trace of signal handlers that return to run the
# interrupted instruction again (sigagain.c), for ARCH: a store the handler
# let through by mprotect, a read() restarted after an SA_RESTART handler
# (QA s16 X3 F3: the rest of the interrupted function was taken for a new
# call from the signal trampoline: fill 20 calls for 10, read 4 for 1).
# Every count is the program's own: fill 10 calls, one read, the handlers
# as many calls as the program counted.
#
# Usage: sigagain.sh ZOND ARCH WORKDIR SRCDIR    (exit 77: cross tools missing)
zond=$1 arch=$2 dir=$3/sigagain-$2 src=$4
cc=$arch-linux-gnu-gcc
[ "$arch" = x86_64 ] && cc=gcc
command -v $cc >/dev/null && command -v qemu-$arch >/dev/null ||
	{ echo "SKIP: no $cc or qemu-$arch"; exit 77; }
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1
$cc -O2 -static -o sigagain "$src/progs/sigagain.c" || { echo "FAIL: build"; exit 1; }
"$zond" trace record -q -o s.ztrace -- ./sigagain >out.txt || { echo "FAIL: record"; exit 1; }
"$zond" trace report -q -o s.db s.ztrace || { echo "FAIL: report"; exit 1; }
"$zond" export -i s.db -f folded -e calls >folded.txt
status=0
set -- $(sed -n 's/^faults fixed \([0-9]*\), read \(-*[0-9]*\) after \([0-9]*\) signals$/\1 \2 \3/p' out.txt)
[ "$1" = 10 ] && [ "$2" = 1 ] && [ "${3:-0}" -gt 0 ] ||
	{ echo "FAIL: the program's output: $(cat out.txt)"; exit 1; }
fixed=$1 woke=$3
# calls NAME: every call of NAME, over all its stacks
calls() { awk -v f="$1" '{ k = split($1, p, ";"); if (p[k] == f) s += $2 } END { print s + 0 }' folded.txt; }
# under NAME: the calls made by NAME itself (one frame below it)
under() { awk -v f="$1" '{ k = split($1, p, ";"); if (k > 1 && p[k - 1] == f) s += $2 } END { print s + 0 }' folded.txt; }
check() { [ "$2" = "$3" ] || { echo "FAIL: $1: $2, not $3"; status=1; }; }
check "fill's calls" "$(calls fill)" 10
check "calls made by reader (its one read)" "$(under reader)" 1
check "unprotect's calls" "$(calls unprotect)" "$fixed"
check "wake's calls" "$(calls wake)" "$woke"
[ $status -eq 0 ] && echo "sigagain ($arch): ok, $woke restarts" || grep -E 'fill|reader|wake' folded.txt
exit $status
