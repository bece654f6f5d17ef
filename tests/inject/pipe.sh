#!/bin/sh
# pipe.sh - zond inject -- PROG with its stderr a pipe whose reader has gone (as
# `2>&1 | head -1` once head has ended): zond's lines are lost, nothing else: the
# program's output and status are as alone, and its run is stored (zond died of
# SIGPIPE, 141, at its first line: the program was never run).  The program's own
# stdout a closed pipe: it dies of SIGPIPE as alone, and zond with it (QA s11 K F15).
#
# Usage: pipe.sh ZOND HELLO WORKDIR
set -u
zond=$1 hello=$2 dir=$3/pipe
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1
status=0
fail() { echo "FAIL: $*"; status=1; }
# closed OUT ERR CMD...: CMD with stdout (OUT 1) and stderr (ERR 1) a pipe whose reader has
# gone, else out.txt and err.txt; prints "exit N" or "signal N"
closed() {
	python3 -c 'import os, subprocess, sys
r, w = os.pipe()
os.close(r)
out = w if sys.argv[1] == "1" else open("out.txt", "w")
err = w if sys.argv[2] == "1" else open("err.txt", "w")
p = subprocess.run(sys.argv[3:], stdout=out, stderr=err)  # SIGPIPE default in the child
print("signal %d" % -p.returncode if p.returncode < 0 else "exit %d" % p.returncode)' "$@"
}
want=$(closed 0 1 "$hello" a)
cp out.txt plain.out
[ "$want" = "exit 3" ] || fail "alone: $want"
# the functions scenario, and the descent (several runs of the program)
for how in "-f bump" "--descend"; do
	rm -f p.db
	got=$(closed 0 1 "$zond" inject $how -c pipe -o p.db -- "$hello" a)
	[ "$got" = "$want" ] || fail "inject $how, stderr closed: $got, alone $want"
	# (the descent runs the program once per pass: its output as many times)
	[ "$(sort -u out.txt)" = "$(sort -u plain.out)" ] ||
		fail "inject $how, stderr closed: output $(cat out.txt)"
	n=$("$zond" dump -i p.db -C pipe | sed -n 's/^function bump calls=//p')
	[ "$n" = 1000 ] || fail "inject $how, stderr closed: bump $n calls stored"
done
plain=$(closed 1 0 "$hello" a)
got=$(closed 1 0 "$zond" inject -q -f bump -o p.db -- "$hello" a)
[ "$got" = "$plain" ] || fail "stdout closed: $got, alone $plain: $(cat err.txt)"
[ $status = 0 ] && echo ok
exit $status
