#!/bin/sh
# static.sh - zond inject on a statically linked program, every function
# (its C library's too): its start-up code sets up the thread pointer the
# payload reads, so zond stops it at main, not at its entry; the program
# prints and exits as without zond, and bump's 1000 calls are counted.
#
# Usage: static.sh ZOND HELLO_STATIC WORKDIR
set -u
zond=$1 prog=$2 dir=$3/static
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1
status=0
fail() { echo "FAIL: $*"; status=1; }
"$prog" a >plain.out
plain=$?
"$zond" inject -q -o static.db -- "$prog" a >inject.out
rc=$?
[ $rc -eq $plain ] || fail "exit status $rc under zond inject, $plain without"
diff -u plain.out inject.out || fail "output differs"
"$zond" dump -i static.db | grep -qx 'function bump calls=1000' ||
	fail "bump: $("$zond" dump -i static.db | grep bump)"
[ $status -eq 0 ] && echo "static: ok"
exit $status
