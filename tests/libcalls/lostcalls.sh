#!/bin/sh
# lostcalls.sh ZOND PROGRAM: lc_threads (800,006 calls of libmylib on 11 threads)
# under `zond libcalls --threads 2`: the threads that found no slot are
# counted, and so are their calls, so that the recorded calls (the folded
# export's exact counts) and lost_thread_calls add up to every call made.
set -u
zond=$1 prog=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$zond" libcalls -q -o "$work/db" --threads 2 -l libmylib.so -- "$prog" >"$work/out" 2>"$work/err" ||
	{ echo "zond libcalls failed"; cat "$work/err"; exit 1; }
lost=$(sed -n 's/^zond libcalls: warning: lost_thread_calls = \([0-9]*\):.*/\1/p' "$work/err")
recorded=$("$zond" export -i "$work/db" --format folded -e calls | awk '{ s += $NF } END { print s }')
echo "recorded $recorded, lost_thread_calls ${lost:-none}"
[ -n "$lost" ] && [ "$lost" -gt 0 ] && [ $((recorded + lost)) -eq 800006 ] || {
	cat "$work/err"
	exit 1
}
