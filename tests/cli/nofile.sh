#!/bin/sh
# A program at its descriptor limit forks (QA s14 V2 F11, progs/nofile.c):
# the child's raw file could not be opened (EMFILE), its calls were lost and
# zond blamed a change of user or root.  The runtime raises the soft limit
# by one for its own open where the hard limit leaves room, and puts it back:
# the child is recorded, the program sees its own limit, nothing is lost.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
work=$1
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1

check_eq "plain" "$("$NOFILE")" "child 0, soft limit 3"
check_eq "record: the program's output" \
	"$("$ZOND" record -q -o r.db -- "$NOFILE" 2>rec.err)" "child 0, soft limit 3"
check_eq "record: the child's calls of f" \
	"$("$ZOND" dump -i r.db | sed -n 's/^function f calls=\([0-9]*\).*/\1/p')" 70
check_eq "record: nothing lost" "$(grep -c lost rec.err)" 0
check_eq "libcalls: the program's output" \
	"$("$ZOND" libcalls -q -o l.db -- "$NOFILE" 2>lib.err)" "child 0, soft limit 3"
check_eq "libcalls: the child's calls of getppid" \
	"$("$ZOND" report -i l.db -m getppid | awk '$NF == "getppid" {print $1}')" 70
check_eq "libcalls: nothing lost" "$(grep -c lost lib.err)" 0
finish
