#!/bin/sh
# fsize.sh - zond inject -- PROG under a `ulimit -f` smaller than the memory
# for the results (a memfd, which the file size limit counts): the program
# runs as it would alone (its output and status), unmeasured, and zond says
# why in one line.  The SIGXFSZ the program's ftruncate (zond's) raised was
# given back to it: it died before it ran (QA s11 K F3).
#
# Usage: fsize.sh ZOND HELLO WORKDIR
set -u
zond=$1 hello=$2 dir=$3/fsize
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1
status=0
fail() { echo "FAIL: $*"; status=1; }
(ulimit -f 10000 && "$hello" a b >plain.out 2>&1; echo "status $?" >>plain.out)
(ulimit -f 10000 && "$zond" inject -q -o f.db -f bump -- "$hello" a b >got.out 2>err.txt
	echo "status $?" >>got.out)
diff -u plain.out got.out || fail "the program's output or status changed"
grep -q "^zond inject: process [0-9]* cannot size the memory for the results, [0-9]* bytes (File too large: the program's ulimit -f)$" err.txt ||
	fail "zond's line: $(cat err.txt)"
[ "$(wc -l <err.txt)" = 1 ] || fail "more than one line: $(cat err.txt)"
[ $status = 0 ] && echo ok
exit $status
