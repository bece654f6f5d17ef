#!/bin/sh
# startsig.sh - signals sent while zond inject holds the program under
# ptrace at its start (from its exec to its release after the patching,
# 100-250 ms: no code of the program has run yet), to the program or to
# zond (SIGINT is not among them: a background job ignores it) (which passes them on): the program dies of each as it does without
# zond, at once (not after its 20 s wait: no "end"), zond's status is the
# program's and the run is stored with that signal.  Before, each was
# swallowed by a stop of zond's: the program ran to its end and exited 0
# (QA s11 F8).  The signal is sent as soon as the program's exec is done and
# zond traces it, so it lands in the window whenever zond is not done yet;
# a later one must have the same result.
#
# Usage: startsig.sh ZOND WAITSIG WORKDIR
set -u
zond=$1 prog=$2 dir=$3/startsig
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1
. "$(dirname "$0")/lib.sh"

# program_of ZPID: the pid of zond's child once it has exec'ed PROG and is traced
program_of() {
	i=0
	while [ $i -lt 200000 ]; do
		for c in $(cat "/proc/$1/task/$1/children" 2>/dev/null); do
			if [ "$(readlink "/proc/$c/exe" 2>/dev/null)" = "$(readlink -f "$prog")" ] &&
				grep -q '^TracerPid:[[:space:]]*[1-9]' "/proc/$c/status" 2>/dev/null; then
				echo "$c"
				return 0
			fi
		done
		i=$((i + 1))
	done
	return 1
}

# case NAME SIG NUM WHO: SIG (number NUM) sent to the program or to zond (WHO),
# the program's death of it expected
case_() {
	name=$1 sig=$2 num=$3 who=$4
	"$zond" inject -q -o "$name.db" -f '*' -f 'libc.so.6:*' -- "$prog" >"$name.out" 2>"$name.err" &
	z=$!
	p=$(program_of $z) || { fail "$name: the program never ran under zond"; kill -9 $z; wait; return; }
	if [ "$who" = zond ]; then kill -s "$sig" $z; else kill -s "$sig" "$p"; fi
	wait $z
	rc=$?
	want=$((128 + num))
	[ $rc -eq $want ] || fail "$name: zond's status $rc, the program's without zond $want ($(cat "$name.err"))"
	! grep -q '^end' "$name.out" || fail "$name: the program never got SIG$sig (it ran to its end)"
	"$zond" runs -i "$name.db" >"$name.runs" 2>&1 || fail "$name: no run stored ($(cat "$name.runs"))"
	grep -q " signal $num " "$name.runs" ||
		fail "$name: the run is not stored as ended by SIG$sig: $(cat "$name.runs")"
}

# without zond: the signals' plain result
"$prog" >plain.out &
sleep 0.2
kill -s TERM $!
wait $!
[ $? -eq 143 ] || fail "waitsig: status $? for SIGTERM without zond"

case_ term TERM 15 program
case_ usr1 USR1 10 program
case_ zond_term TERM 15 zond
case_ zond_usr2 USR2 12 zond
exit $status
