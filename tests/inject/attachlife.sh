#!/bin/sh
# attachlife.sh - zond inject -p on a service's life as it goes on while
# zond measures it (QA s16 X2):
#   churn  threads start and end all the time: one ending while zond stops
#          the process is left out, never a failed stop (F5: "cannot stop
#          thread T", and at the end the process left patched, the run lost)
#   two    a second zond inject -p while one measures: refused before it
#          touches anything, the first's jumps intact (F1: the second wrote
#          the file's bytes over them)
#   exec   the process exec's while measured: the run stored, one line says so
#          (F2: "cannot write 5 bytes", status 1, nothing stored)
#   maps   attach after attach: at most one attach's mappings stay, the results'
#          memory given back (F6: 5 mappings and MBs more at each attach)
#   signals  sigqueue()d signals all through an attach and its detach: each
#          handled once, with its value and SI_QUEUE (F4: beyond 64 lost, the
#          others sent again by zond's tgkill, the value and sender gone)
#
# Usage: attachlife.sh ZOND SPIN CHURN REXEC SIGQ WORKDIR CASE
set -u
zond=$1 spin=$2 churn=$3 rexec=$4 sigq=$5 what=$7 dir=$6/attachlife/$7
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1
. "$(dirname "$0")/lib.sh"

# untraced PID: no thread of PID has a tracer (zond has let it go)
untraced() { ! grep -q '^TracerPid:[[:space:]]*[1-9]' /proc/$1/task/*/status 2>/dev/null; }

# measured PID EXE: waits until a zond has patched work and let PID go
measured() {
	n=0
	while { [ "$(code $1 "$2")" != patched ] || ! untraced $1; } && [ $n -lt 600 ]; do
		sleep 0.05
		n=$((n + 1))
	done
	[ $n -lt 600 ] || fail "work never patched"
}

calls() { "$zond" dump -i "$1" 2>/dev/null | sed -n 's/^function work calls=\([0-9]*\).*/\1/p'; }

case $what in
churn)
	"$churn" 2>churn.err &
	pid=$!
	while ! grep -q ready churn.err; do sleep 0.05; done
	for i in 1 2 3 4 5 6 7 8 9 10; do
		"$zond" inject -q -o c$i.db -f work -p $pid --duration 0.1 >z$i.out 2>&1
		rc=$?
		[ $rc = 0 ] || fail "attach $i: status $rc: $(cat z$i.out)"
		[ -s z$i.out ] && fail "attach $i said: $(cat z$i.out)"
		[ "$(code $pid "$churn")" = same ] || fail "attach $i: the code left patched"
		[ "$(calls c$i.db)" -gt 0 ] 2>/dev/null || fail "attach $i: no calls stored"
		[ $status = 0 ] || break
	done
	kill -0 $pid 2>/dev/null || fail "the program died"
	kill $pid
	;;
signals)
	"$sigq" >sigq.out 2>sigq.err &
	pid=$!
	while ! grep -q ready sigq.err; do sleep 0.05; done
	"$zond" inject -q -o s.db -f work -p $pid --duration 0.3 2>s.err &
	zs=$!
	"$sigq" send $pid $zs >send.out
	wait $zs || fail "zond failed: $(cat s.err)"
	sent=$(sed -n 's/^sent //p' send.out)
	# none still pending (SIGTERM, a lower number, would be handled before them)
	while grep -q '^\(SigPnd\|ShdPnd\):.*[1-9a-f]' /proc/$pid/task/*/status; do sleep 0.05; done
	kill -TERM $pid
	wait $pid
	want="handled $sent, without the value 0, another si_code 0"
	[ "$(cat sigq.out)" = "$want" ] || fail "sent $sent: $(cat sigq.out)"
	;;
two | exec | maps)
	prog=$spin
	[ $what = exec ] && prog=$rexec
	rm -f go && mkfifo go
	"$prog" <go >plain.out 2>plain.err &
	pid=$!
	exec 3>go
	while ! grep -q ready plain.err; do sleep 0.05; done
	;;
esac

case $what in
two)
	"$zond" inject -q -o a.db -f work -p $pid 2>a.err &
	za=$!
	measured $pid "$spin"
	maps=$(wc -l </proc/$pid/maps)
	"$zond" inject -q -o b.db -f work -p $pid --duration 0.2 2>b.err
	rc=$?
	[ $rc = 1 ] || fail "the second zond's status $rc, expected 1"
	want="zond inject: process $pid is being measured by another zond inject (pid $za): one at a time; nothing was changed"
	[ "$(cat b.err)" = "$want" ] || fail "the second zond said: $(cat b.err)"
	[ "$(code $pid "$spin")" = patched ] || fail "the second zond put the first's jump back"
	[ "$(wc -l </proc/$pid/maps)" = $maps ] || fail "the second zond mapped or unmapped memory"
	kill -INT $za
	wait $za
	rc=$?
	[ $rc = 0 ] || fail "the first zond's status $rc: $(cat a.err)"
	[ "$(code $pid "$spin")" = same ] || fail "the first zond left the code patched"
	[ "$(calls a.db)" -gt 0 ] 2>/dev/null || fail "the first zond's run: no calls"
	;;
exec)
	"$zond" inject -o x.db -f work -p $pid 2>x.err &
	zx=$!
	measured $pid "$rexec"
	kill -HUP $pid
	while ! grep -q 'ready 2' plain.err; do sleep 0.05; done
	kill -INT $zx
	wait $zx
	rc=$?
	[ $rc = 0 ] || fail "zond's status $rc: $(cat x.err)"
	want="zond inject: process $pid: it exec'd while measured: its image was replaced, nothing of zond's is in it to put back; what was measured before the exec is stored"
	grep -qxF "$want" x.err || fail "no line saying it exec'd: $(cat x.err)"
	[ "$(calls x.db)" -gt 0 ] 2>/dev/null || fail "the calls before the exec not stored"
	[ "$(code $pid "$rexec")" = same ] || fail "the new image's code is not the file's"
	;;
maps)
	m0=$(wc -l </proc/$pid/maps)
	r0=$(awk '/^VmRSS/ {print $2}' /proc/$pid/status)
	for i in 1 2 3 4; do
		"$zond" inject -q -o m.db -f work -p $pid --duration 0.1 2>m$i.err ||
			fail "attach $i: $(cat m$i.err)"
		eval m$i=$(wc -l </proc/$pid/maps)
	done
	r4=$(awk '/^VmRSS/ {print $2}' /proc/$pid/status)
	[ $m4 = $m2 ] && [ $m2 -le $((m0 + 5)) ] ||
		fail "mappings $m0 before, then $m1 $m2 $m3 $m4: more at each attach"
	[ "$(grep -c 'memfd:zond-inject' /proc/$pid/maps)" = 1 ] ||
		fail "$(grep -c 'memfd:zond-inject' /proc/$pid/maps) results memfds mapped"
	[ $((r4 - r0)) -le 2048 ] || fail "resident memory $r0 kB before, $r4 kB after"
	[ "$(code $pid "$spin")" = same ] || fail "the code left patched"
	;;
esac

case $what in
two | exec | maps)
	echo go >&3
	exec 3>&-
	wait $pid
	rc=$?
	want=5
	[ $what = exec ] && want=3
	[ $rc = $want ] || fail "the program's status $rc, expected $want"
	;;
esac
[ $status = 0 ] && echo ok
exit $status
