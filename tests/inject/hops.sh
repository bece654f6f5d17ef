#!/bin/sh
# hops.sh - a function entered by a hop (hops_pair.S: a mempcpy-like
# function jumps to its memcpy-like partner's +3, past its first
# instruction): --coverage lists it as a hop; zond inject gives the
# program's output and status, and exact call counts per function (the
# jump into that_memcpy+3 is no call of it); attached with -p and
# detached, the program finds the code of the pair as it was at its start
# (the hop and its slot's jump both put back) and its output is a plain
# run's, zond's counts within its own.
#
# Usage: hops.sh ZOND HOPS WORKDIR
set -u
zond=$1 prog=$2 dir=$3/hops
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1
status=0
fail() { echo "FAIL: $*"; status=1; }

"$zond" inject --coverage "$prog" >coverage.out || fail "zond inject --coverage: status $?"
grep -q '^hop that_memcpy (0x[0-9a-f]*): that_mempcpy jumps to +3, .*; a 2-byte jump to a 5-byte one in the fill after that_mempcpy (0x[0-9a-f]*)$' \
	coverage.out || fail "that_memcpy is no hop: $(grep that_ coverage.out)"

"$prog" >plain.out
plain=$?
"$zond" inject -q -o run.db -f 'that*' -- "$prog" >run.out
rc=$?
[ $rc -eq $plain ] || fail "exit status $rc under zond inject, $plain without"
diff -u plain.out run.out || fail "output differs under zond inject"
"$zond" dump -i run.db >run.dump || fail "zond dump"
grep '^count ' run.out | while read -r _ name n; do
	grep -qx "function $name calls=$n" run.dump ||
		{ echo "FAIL: $name: program counted $n, zond: $(grep " $name " run.dump)"; exit 1; }
done || status=1
[ "$(grep -c '^count that_' run.out)" -eq 2 ] || fail "the program printed no counts"

# wait_ready ERRFILE PID: until the program says ready on ERRFILE
wait_ready() {
	while ! grep -q ready "$1"; do
		kill -0 "$2" 2>/dev/null || { echo "FAIL: the program ended before zond attached"; exit 1; }
		sleep 0.05
	done
}
echo go | "$prog" wait >wait_plain.out 2>/dev/null
plain=$?
mkfifo go
"$prog" wait <go >attach.out 2>attach.err &
pid=$!
exec 3>go
wait_ready attach.err $pid
"$zond" inject -q -o attach.db -f 'that*' -p $pid --duration 0.3 || fail "zond inject -p: status $?"
echo go >&3
exec 3>&-
wait $pid
rc=$?
[ $rc -eq $plain ] || fail "exit status $rc after zond inject -p, $plain without"
grep -qx 'code of the pair as at the start' wait_plain.out || fail "a plain run says $(tail -1 wait_plain.out)"
diff -u wait_plain.out attach.out || fail "output differs after zond inject -p (the code put back?)"
"$zond" dump -i attach.db >attach.dump || fail "zond dump"
for name in that_memcpy that_mempcpy; do
	own=$(sed -n "s/^count $name //p" attach.err)
	got=$(sed -n "s/^function $name calls=//p" attach.dump)
	[ -n "$got" ] && [ "$got" -gt 0 ] && [ "$got" -le "$own" ] ||
		fail "zond counted '$got' calls of $name attached, the program $own"
done

[ $status -eq 0 ] && echo "hops: ok"
exit $status
