#!/bin/sh
# sampler.sh RUNTIME PROGRAM SAMPLERPROC [perf|timer]: progs/sampler.c run
# plain and under sampled time (ZOND_SAMPLER=timer for "timer").  Checks:
# the program's output is the same (the fd numbers it gets, the fds of its
# forked child and exec'ed image but zond's perf_event fds, the image that
# image execs without zond lives though a sample signal was pending at the
# exec); each of its
# three processes (parent, fork child, exec'ed image) was sampled by the
# sampler asked for, had samples charged to it, none at a pc in zond's own
# code; with perf, each process holds exactly one perf_event fd (its
# sampling thread's: the child none of its parent's, the new image none of
# the old one's).  "perf" is skipped where the kernel would refuse it
# (neither root nor perf_event_paranoid <= 1).
runtime=$1 prog=$2 samplerproc=$3 sampler=${4:-perf}
if [ "$sampler" = perf ] && [ "$(id -u)" != 0 ] &&
	[ "$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null || echo 3)" -gt 1 ]; then
	echo "skipped: perf_event_paranoid > 1 and not root: the timer samples here"
	exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
"$prog" >"$work/plain" 2>/dev/null || fail "the program alone failed"
mkdir "$work/raw"
env ${sampler:+ZOND_SAMPLER=$sampler} ZOND_TIME=sampled ZOND_DIR="$work/raw" LD_PRELOAD="$runtime" \
	"$prog" >"$work/zond" 2>"$work/err" || fail "the program failed under zond: $(cat "$work/err")"
diff "$work/plain" "$work/zond" || fail "the output differs under zond"
grep -qx 'plain image: alive' "$work/zond" || fail "the last exec'ed image did not run"
"$samplerproc" "$work/raw" "$work/err" >"$work/procs" || fail "samplerproc"
cat "$work/procs"
want="sampler=$sampler counted=yes in_zond_code=0"
[ "$(grep -cx "$want" "$work/procs")" = 3 ] && [ "$(wc -l <"$work/procs")" = 3 ] ||
	fail "expected three processes: $want"
n=1
[ "$sampler" = perf ] || n=0
for role in parent child exec; do
	grep -q "^perf_fds $role [0-9]* $n\$" "$work/err" ||
		fail "$role: $(grep "^perf_fds $role" "$work/err"), expected $n perf_event fd"
done
echo "ok"
