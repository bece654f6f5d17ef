#!/bin/sh
# otheruser.sh - zond inject -p as root on a process of another user (spin.c
# run as nobody, as a daemon runs as its service user): attached, measured
# (calls of work() counted), detached, the program finishing with the
# output of a plain run.  Before, the target could not open zond's memfd
# through /proc/ZOND/fd/N: "Permission denied", and each attempt left two
# executable mappings behind (QA s11 F4).  And the errors of -p name their
# cause (QA s11 F6): zond run as nobody on root's process says permission
# denied; both that and a process whose main thread has exited (zleader.c,
# now attached: zleader.sh) said "no such process (or not ours)".  Root only (skipped otherwise).
#
# Usage: otheruser.sh ZOND SPIN ZLEADER WORKDIR
set -u
zond=$1 spin=$2 zleader=$3 dir=$4/otheruser
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null && id nobody >/dev/null 2>&1 ||
	{ echo "SKIP: needs root, setpriv and the user nobody"; exit 77; }
asnobody() { setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups "$@"; }
asnobody true || { echo "SKIP: setpriv cannot run as nobody here"; exit 77; }

echo go | "$spin" >plain.out 2>/dev/null
mkfifo go
setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups "$spin" <go >spin.out 2>spin.err &
pid=$!
exec 3>go
while ! grep -q ready spin.err; do
	kill -0 $pid 2>/dev/null || { echo "FAIL: spin ended before zond attached"; exit 1; }
	sleep 0.05
done
"$zond" inject -q -o attach.db -f work -p $pid --duration 0.3 >attach.out 2>attach.err ||
	fail "zond inject -p on nobody's process: status $? ($(cat attach.err))"
n=$("$zond" dump -i attach.db 2>/dev/null | sed -n 's/^function work calls=//p')
[ "${n:-0}" -gt 0 ] || fail "no calls of work measured in nobody's process ($(cat attach.err))"
echo go >&3
exec 3>&-
wait $pid
cmp -s plain.out spin.out || fail "spin's output differs after zond: $(cat spin.out)"

# zond as nobody on root's process: permission, said so
sleep 30 &
s=$!
out=$(cd / && asnobody "$zond" inject -o /nonexistent/x.db -p $s --duration 0.3 2>&1)
rc=$?
kill $s
want="zond inject: process $s: permission denied: it is another user's (run zond as that user, or as root / with CAP_SYS_PTRACE)"
[ $rc -eq 1 ] && [ "$out" = "$want" ] || fail "nobody on root's process: status $rc, '$out'"

# a process whose main thread has exited
mkfifo zgo
"$zleader" <zgo &
z=$!
exec 4>zgo
i=0
while ! grep -q '^State:[[:space:]]*Z' /proc/$z/status && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
out=$("$zond" inject -o z.db -p $z --duration 0.3 2>&1)
rc=$?
[ $rc -eq 0 ] || fail "main thread exited: status $rc, '$out' (attached through its live thread: zleader.sh)"
echo go >&4
exec 4>&-
wait $z
exit $status
