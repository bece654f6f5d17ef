#!/bin/sh
# attach.sh - zond inject -p on a running 4-thread program: attach, measure
# for a while, detach; the program finishes with the output and status of a
# plain run, and zond counted some of its calls of work(), never more than
# the program counted itself.  A second attachment reads a perf_event
# counter (--event): the process has the same fds after it as before.  The program is told to finish only after
# zond detached (a line on its stdin, through a fifo).
#
# A thread blocked in epoll_wait, which the kernel never restarts after a stop, gets EINTR:
# zond says so.
#
# Usage: attach.sh ZOND SPIN WORKDIR EPOLLWAIT
set -u
zond=$1 spin=$2 dir=$3/attach epollwait=$4
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1
. "$(dirname "$0")/lib.sh"
# wait_ready ERRFILE PID WHAT: until the program says ready on ERRFILE; PID ended first: WHAT
wait_ready() {
	while ! grep -q ready "$1"; do
		kill -0 "$2" 2>/dev/null || { echo "FAIL: $3"; exit 1; }
		sleep 0.05
	done
}

echo go | "$spin" >plain.out 2>/dev/null
plain=$?
mkfifo go
"$spin" <go >spin.out 2>spin.err &
pid=$!
exec 3>go
wait_ready spin.err $pid "the program ended before zond attached"
ls /proc/$pid/fd | LC_ALL=C sort >fds.before
"$zond" inject -q -o attach.db -f work -p $pid --duration 0.3 || fail "zond inject -p: status $?"
# again with a perf_event counter: each thread opened one; zond closes them at detach
"$zond" inject -q -o event.db --event task-clock -f work -p $pid --duration 0.3 ||
	fail "zond inject -p --event task-clock: status $?"
ls /proc/$pid/fd | LC_ALL=C sort >fds.after
diff -u fds.before fds.after || fail "the process's fds differ after zond inject -p --event"
n=$("$zond" dump -i event.db | sed -n 's/^function work calls=//p')
[ -n "$n" ] && [ "$n" -gt 0 ] || fail "--event task-clock: no calls of work measured"
echo go >&3
exec 3>&-
wait $pid
rc=$?
[ $rc -eq $plain ] || fail "exit status $rc after zond inject -p, $plain without"
diff -u plain.out spin.out || fail "output differs after zond inject -p"
own=$(sed -n 's/^count work //p' spin.err)
got=$("$zond" dump -i attach.db | sed -n 's/^function work calls=//p')
[ -n "$got" ] && [ "$got" -gt 0 ] && [ "$got" -le "$own" ] ||
	fail "zond counted '$got' calls of work, the program $own"

# blocked in epoll_wait: it returns EINTR after the stop (the kernel's rule), and zond says so
mkfifo go4
"$epollwait" <go4 >ep.out 2>ep.err &
pid=$!
exec 6>go4
wait_ready ep.err $pid "epollwait ended before zond attached"
# into epoll_wait (the kernel's wait channel says so; a sleep of 0.1 s was a guess)
n=0
while ! grep -q 'epoll\|ep_poll' /proc/$pid/wchan 2>/dev/null && [ $n -lt 600 ]; do sleep 0.05; n=$((n + 1)); done
[ $n -lt 600 ] || fail "epollwait never blocked in epoll_wait: $(cat /proc/$pid/wchan)"
"$zond" inject -q -o ep.db -f main -p $pid --duration 0.1 2>zep.err || fail "epollwait: status $?"
grep -q "^zond inject: thread $pid of process $pid was blocked in epoll_wait, which the kernel does not restart after a stop: it returns EINTR to the program" zep.err ||
	fail "epoll_wait's EINTR not said: $(cat zep.err)"
echo go >&6
exec 6>&-
wait $pid
[ "$(cat ep.out)" = "eintr 1" ] || fail "epollwait: $(cat ep.out) (the kernel's EINTR expected)"

# attached with no --duration, zond notices the process's end (it waited
# until ^C, and a later detach would have seized whatever process had the
# pid then): the run is stored with the calls made until then
mkfifo go3
"$spin" <go3 >end.out 2>end.err &
pid=$!
exec 5>go3
wait_ready end.err $pid "the program ended before zond attached"
timeout 60 "$zond" inject -q -o end.db -f work -p $pid >zend.out 2>zend.err &
zpid=$!
# the program ends once zond measures it (patched), not after a 0.5 s guess
n=0
while [ "$(code $pid "$spin")" != patched ] && [ $n -lt 600 ]; do sleep 0.05; n=$((n + 1)); done
[ $n -lt 600 ] || fail "work never patched: $(cat zend.err)"
echo go >&5
exec 5>&-
wait $pid
wait $zpid
rc=$?
[ $rc -eq 0 ] || fail "zond inject -p on a process that ended: status $rc: $(cat zend.err)"
n=$("$zond" dump -i end.db | sed -n 's/^function work calls=//p')
[ -n "$n" ] && [ "$n" -gt 0 ] || fail "zond inject -p on a process that ended: no calls of work stored"

# kill(1) or timeout(1) sends zond a SIGTERM while it runs the program: the
# program takes it (it dies of it), zond stores what was measured until then
# and dies of it too (it died at once and stored nothing, the program left
# running with the trampolines in it)
mkfifo go2
"$zond" inject -q -o term.db -f work -- "$spin" <go2 >term.out 2>term.err &
zpid=$!
exec 4>go2
wait_ready term.err $zpid "zond inject ended before the program ran"
kill -TERM $zpid
wait $zpid
rc=$?
exec 4>&-
[ $rc -eq 143 ] || fail "SIGTERM to zond: exit status $rc, not 143 (death by SIGTERM)"
"$zond" runs -i term.db >term.runs 2>&1 || fail "SIGTERM to zond: no run stored: $(cat term.runs)"
grep -q 'signal 15' term.runs || fail "SIGTERM to zond: the run does not say signal 15: $(cat term.runs)"
n=$("$zond" dump -i term.db | sed -n 's/^function work calls=//p')
[ -n "$n" ] && [ "$n" -gt 0 ] || fail "SIGTERM to zond: no calls of work stored"

[ $status -eq 0 ] && echo "attach: ok ($got of $own calls measured)"
exit $status
