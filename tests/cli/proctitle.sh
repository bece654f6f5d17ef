#!/bin/sh
# A process title written over argv and environ, then a fork (QA s14 V2 F7,
# progs/proctitle.c; nginx's workers): the child's raw file was made at
# "/<pid>.0.zraw" (ZOND_DIR read again from the overwritten environment) and
# its calls were lost without a word, under record and libcalls.  Now the
# child's calls are stored and nothing is left in the file system's root.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
work=$1
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1

ls / >root_before.txt
"$ZOND" record -q -o r.db -- "$PROCTITLE" >out.txt 2>err.txt || fail "record: $(cat err.txt)"
check_eq "record: the program's output" "$(cat out.txt)" "child done"
check_eq "record: the child's calls of cf" \
	"$("$ZOND" dump -i r.db | sed -n 's/^function cf calls=\([0-9]*\).*/\1/p')" 17
"$ZOND" libcalls -q -o l.db -- "$PROCTITLE" >out.txt 2>err.txt || fail "libcalls: $(cat err.txt)"
check_eq "libcalls: the program's output" "$(cat out.txt)" "child done"
check_eq "libcalls: the child's calls of getppid" \
	"$("$ZOND" report -i l.db -m getppid | awk '$NF == "getppid" {print $1}')" 17
ls / >root_after.txt
check_same "nothing left in /" root_before.txt root_after.txt
# what an older runtime left there, taken away again
for f in $(comm -13 root_before.txt root_after.txt | grep '^[0-9]*\.[0-9]*\.zraw$'); do rm -f "/$f"; done
finish
