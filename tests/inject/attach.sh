#!/bin/sh
# attach.sh - zond inject -p on a running 4-thread program: attach, measure
# for a while, detach; the program finishes with the output and status of a
# plain run, and zond counted some of its calls of work(), never more than
# the program counted itself.  The program is told to finish only after
# zond detached (a line on its stdin, through a fifo).
#
# Usage: attach.sh ZOND SPIN WORKDIR
set -u
zond=$1 spin=$2 dir=$3/attach
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1
status=0
fail() { echo "FAIL: $*"; status=1; }

echo go | "$spin" >plain.out 2>/dev/null
plain=$?
mkfifo go
"$spin" <go >spin.out 2>spin.err &
pid=$!
exec 3>go
while ! grep -q ready spin.err; do
	kill -0 $pid 2>/dev/null || { echo "FAIL: the program ended before zond attached"; exit 1; }
	sleep 0.05
done
"$zond" inject -q -o attach.db -f work -p $pid --duration 0.3 || fail "zond inject -p: status $?"
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
[ $status -eq 0 ] && echo "attach: ok ($got of $own calls measured)"
exit $status
