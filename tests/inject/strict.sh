#!/bin/sh
# strict.sh - a program that puts itself under seccomp strict mode (strict.c,
# by prctl, syscall(SYS_seccomp), syscall(SYS_prctl), and with its first
# measured call after it), where the kernel makes rdtsc fault: the output
# and status of a plain run, every call counted as the program counts it,
# the calls returning after the switch (outer's and work's 1000) counted
# untimed (meta inject_calls_untimed_no_clock 1001, seccomp strict, and
# zond's line); with --event task-clock (read() is allowed in strict
# mode) timed.  Before, the payload's next TSC read killed the program
# (SIGSEGV, QA s14 V2 F5).
#
# Usage: strict.sh ZOND STRICT WORKDIR
set -u
zond=$1 prog=$2 dir=$3/strict
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1
. "$(dirname "$0")/lib.sh"

# meta JSON KEY...: the run's meta values, "-" for none
meta() {
	python3 -c 'import json, sys
m = json.load(open(sys.argv[1]))["run"]["meta"]
print(" ".join(m.get(k, "-") for k in sys.argv[2:]))' "$@"
}

for how in prctl seccomp sysprctl late; do
	"$prog" $how >"$how.plain"
	rc=$?
	[ $rc -eq 77 ] && { echo "SKIP: no seccomp strict mode here"; exit 77; }
	[ $rc -eq 0 ] || fail "$how: strict.c exits with status $rc without zond"
	"$zond" inject -q -o "$how.db" -f work -f outer -- "$prog" $how >"$how.out" 2>"$how.err"
	rc=$?
	[ $rc -eq 0 ] || fail "$how: exit status $rc under zond inject (plain: 0): $(cat "$how.err")"
	cmp -s "$how.plain" "$how.out" || fail "$how: output $(cat "$how.out"), plain $(cat "$how.plain")"
	"$zond" dump -i "$how.db" >"$how.dump" || fail "$how: zond dump"
	compare_counts "$how.out" "$how.dump"
	"$zond" export -f json -i "$how.db" >"$how.json" || fail "$how: zond export"
	meta "$how.json" seccomp inject_calls_untimed_no_clock >"$how.meta"
	[ "$(cat "$how.meta")" = "strict 1001" ] || fail "$how: meta seccomp, untimed: $(cat "$how.meta")"
	grep -q 'seccomp strict mode.*1001 calls were counted without their time' "$how.err" ||
		fail "$how: no line naming the cause: $(cat "$how.err")"
done

# --event: read() of the counter is allowed in strict mode, so calls stay timed
if "$zond" inject -q -o ev.db --event task-clock -f work -f outer -- "$prog" prctl >ev.out 2>ev.err; then
	cmp -s prctl.plain ev.out || fail "--event: output $(cat ev.out)"
	"$zond" dump -i ev.db >ev.dump && compare_counts ev.out ev.dump
	"$zond" export -f json -i ev.db >ev.json || fail "--event: zond export"
	[ "$(meta ev.json seccomp inject_calls_untimed_no_clock)" = "strict -" ] ||
		fail "--event: meta seccomp, untimed: $(meta ev.json seccomp inject_calls_untimed_no_clock)"
elif ! grep -q 'perf_event_open' ev.err; then
	fail "--event: $(cat ev.err)"
fi
exit $status
