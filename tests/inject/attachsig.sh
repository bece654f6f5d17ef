#!/bin/sh
# attachsig.sh - zond inject -p ended by a signal meant to end it (a dropped
# ssh session's SIGHUP, SIGUSR1) or by an impatient double ^C, at any moment
# after it attached: the process's code is put back before zond goes (it
# stayed patched for life, slowed through the payload), the run is stored,
# zond dies of the signal (^C: stops measuring, status 0), and the program
# finishes with a plain run's output and status.
#
# Usage: attachsig.sh ZOND SPIN WORKDIR
set -u
zond=$1 spin=$2 dir=$3/attachsig
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1
. "$(dirname "$0")/lib.sh"

echo go | "$spin" >plain.out 2>/dev/null
plain=$?

# one NAME SIGNAL... : attach, wait until work is patched, send the signals to zond
one() {
	name=$1 want=$2
	shift 2
	rm -f go.$name && mkfifo go.$name
	"$spin" <go.$name >$name.out 2>$name.err &
	pid=$!
	exec 3>go.$name
	while ! grep -q ready $name.err; do sleep 0.05; done
	"$zond" inject -q -o $name.db -f work -p $pid 2>z$name.err &
	zpid=$!
	n=0
	while [ "$(code $pid "$spin")" != patched ] && [ $n -lt 400 ]; do sleep 0.05; n=$((n + 1)); done
	[ $n -lt 400 ] || fail "$name: work never patched: $(cat z$name.err)"
	for sig; do kill -$sig $zpid; done
	wait $zpid
	rc=$?
	[ $rc = $want ] || fail "$name: zond's status $rc, expected $want: $(cat z$name.err)"
	[ "$(code $pid "$spin")" = same ] || fail "$name: the process's code left patched"
	"$zond" dump -i $name.db >/dev/null 2>&1 || fail "$name: no run stored"
	echo go >&3
	exec 3>&-
	wait $pid
	[ $? = $plain ] || fail "$name: the program's status changed"
	diff -u plain.out $name.out || fail "$name: the program's output changed"
}
one hup 129 HUP
one usr1 138 USR1
one twice 0 INT INT

# zond's stderr a pipe whose reader left: its lines are lost, not the measuring (it died
# of SIGPIPE at its first line; then, attached, its own line's SIGPIPE ended the measuring)
rm -f go.pipe && mkfifo go.pipe
"$spin" <go.pipe >pipe.out 2>pipe.err &
pid=$!
exec 3>go.pipe
while ! grep -q ready pipe.err; do sleep 0.05; done
got=$(python3 -c 'import os, subprocess, sys, time
r, w = os.pipe()
os.close(r)
start = time.monotonic()
p = subprocess.run(sys.argv[1:], stderr=w)
print("exit %d, %s" % (p.returncode, "the whole second" if time.monotonic() - start >= 1 else "cut short"))' \
	"$zond" inject -o pipe.db -f work -p $pid --duration 1)
[ "$got" = "exit 0, the whole second" ] || fail "stderr closed: $got"
[ "$(code $pid "$spin")" = same ] || fail "stderr closed: the process's code left patched"
"$zond" dump -i pipe.db 2>/dev/null | grep -q '^function work calls=[1-9]' ||
	fail "stderr closed: no calls of work stored"
echo go >&3
exec 3>&-
wait $pid
[ $? = $plain ] || fail "stderr closed: the program's status changed"
diff -u plain.out pipe.out || fail "stderr closed: the program's output changed"
[ $status = 0 ] && echo ok
exit $status
