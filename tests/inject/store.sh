#!/bin/sh
# store.sh - zond inject and a store that cannot take its run.  What inject measured lives
# in zond's memory only, so a run the store refuses (made a directory while the program ran,
# a full disk) is kept in a store of its own in $TMPDIR: one line says where, the status says
# the run was not stored, and every reading command reads the kept store with -i.  A store
# another process holds locked for a moment is waited for, as record waits.
#
# Usage: store.sh ZOND WORKDIR
set -u
zond=$1 dir=$2/store
rm -rf "$dir" && mkdir -p "$dir/tmp" && cd "$dir" || exit 1
. "$(dirname "$0")/lib.sh"
export TMPDIR=$dir/tmp

cat >spoil.c <<'END'
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>
__attribute__((noinline)) int work(int n) { return n * 3; }
int main(int argc, char **argv)
{
	int sum = 0;
	for (int i = 0; i < 100; i++)
		sum += work(i);
	/* the store zond checked before the run becomes a directory: it cannot take the run */
	if (argc > 1 && (unlink(argv[1]) != 0 || mkdir(argv[1], 0755) != 0))
		return 9;
	printf("%d\n", sum);
	return 0;
}
END
gcc -O0 -o spoil spoil.c || { fail "build spoil"; exit 1; }

# kept_check WHAT ERRFILE: ERRFILE names a kept store holding one inject run of work's 100 calls
kept_check() {
	kept=$(sed -n "s|^zond inject: run kept in \($TMPDIR/zond-inject-[^ ,]*\.db\), a store of its own (zond report -i \1)\$|\1|p" "$2")
	[ -n "$kept" ] || { fail "$1: no 'run kept in' line: $(cat "$2")"; return; }
	[ "$("$zond" runs -i "$kept" | grep -c ' inject ')" = 1 ] || fail "$1: the kept store: $("$zond" runs -i "$kept" 2>&1)"
	"$zond" dump -i "$kept" | grep -qx 'function work calls=100' ||
		fail "$1: the kept run: $("$zond" dump -i "$kept" 2>&1 | grep function)"
}

# The store made a directory while the program ran.
"$zond" inject -q -f work -o spoilt.db -- ./spoil >/dev/null 2>err.txt || fail "a first run: $(cat err.txt)"
"$zond" inject -q -f work -o spoilt.db -- ./spoil spoilt.db >out.txt 2>err.txt
rc=$?
[ $rc -eq 1 ] || fail "store gone: status $rc, not 1 (the program's 0, but the run was not stored)"
[ "$(cat out.txt)" = 14850 ] || fail "store gone: the program's output: $(cat out.txt)"
grep -qx "zond inject: spoilt.db: is a directory, not a zond profile store" err.txt ||
	fail "store gone: why not said: $(cat err.txt)"
[ "$(wc -l <err.txt)" = 2 ] || fail "store gone: not two lines: $(cat err.txt)"
kept_check "store gone" err.txt

# A store locked by another process for 2 s: waited for, the run stored.
"$zond" inject -q -f work -o locked.db -- ./spoil >/dev/null 2>err.txt || fail "locked: a first run: $(cat err.txt)"
(echo "BEGIN EXCLUSIVE;"; sleep 2; echo "COMMIT;") | sqlite3 locked.db &
sleep 0.5
"$zond" inject -q -f work -o locked.db -- ./spoil >/dev/null 2>err.txt || fail "locked: $(cat err.txt)"
wait
[ "$("$zond" runs -i locked.db | grep -c ' inject ')" = 2 ] || fail "locked: $("$zond" runs -i locked.db 2>&1)"

# A full file system (a small tmpfs, when this user may mount one): kept, and no store or
# temporary file left on it.
mkdir -p mnt
if mount -t tmpfs -o size=256k zondinject mnt 2>/dev/null; then
	head -c 256k /dev/zero >mnt/fill 2>/dev/null
	"$zond" inject -q -f work -o mnt/full.db -- ./spoil >/dev/null 2>err.txt
	rc=$?
	[ $rc -eq 1 ] || fail "full disk: status $rc, not 1"
	grep -qx "zond inject: mnt/full.db: database or disk is full" err.txt ||
		fail "full disk: why not said: $(cat err.txt)"
	kept_check "full disk" err.txt
	[ "$(ls -A mnt)" = fill ] || fail "full disk: left on it: $(ls -A mnt)"
	umount mnt
else
	echo "note: cannot mount a tmpfs here: a full file system is not checked"
fi
[ $status -eq 0 ] && echo "store: ok"
exit $status
