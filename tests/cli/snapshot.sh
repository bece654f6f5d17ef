#!/bin/sh
# A reading command reads the store as one snapshot (QA s13 S F1): the runs it
# chooses (a campaign's, 'last', diff's default sides) and the runs it loads
# are the same, even when `zond runs -d` deletes one in between.  The reader is
# held by gdb at its first store_load_run while the delete starts, then goes
# on: it reports the runs as they were (the delete waits for it and then
# takes place); before, it failed with "no run N", and diff compared other
# runs than the two newest.  Skipped (77) without gdb or ptrace.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
work=$1
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
command -v gdb >/dev/null || { echo "SKIP: no gdb"; exit 77; }

for calls in 10 20 30; do
	"$ZOND" record -q --no-time -c camp -o s.db -- "$SCALED" 1 "$calls" >/dev/null || exit 1
done

# held CMD... : runs zond CMD... under gdb; at its first store_load_run,
# "zond runs -d $del" starts (in the background: it waits for the reader),
# the reader goes on a second later.  Its stdout in held.out, the delete's
# status in del.rc once it ended.
held() {
	rm -f del.rc
	cat >cmds.gdb <<G
set pagination off
set breakpoint pending on
break store_load_run
run
shell ("$ZOND" runs -i s.db -d $del >del.out 2>&1; echo \$? >del.rc) &
shell sleep 1
delete
continue
G
	gdb -q -batch -x cmds.gdb --args "$ZOND" "$@" >held.out 2>held.err
	for i in $(seq 1 400); do [ -s del.rc ] && break; sleep 0.1; done
}
del=2
held report -i s.db -C camp
if ! grep -q 'Breakpoint 1, store_load_run' held.out; then
	echo "SKIP: gdb cannot run zond here"; cat held.err
	exit 77
fi
check_eq "report -C camp, run 2 deleted meanwhile: the 3 runs read" \
	"$(grep -c '^runs: *3 combined' held.out) $(cat held.out held.err | grep -c 'no run')" "1 0"
check_eq "... and the delete done after" "$(cat del.rc) $("$ZOND" runs -i s.db | grep -c '^ *2 ')" "0 0"

del=last
held report -i s.db
check_eq "report (last), the newest deleted meanwhile: run 3 read" \
	"$(grep -c '^run: *3$' held.out) $(cat held.out held.err | grep -c 'no run')" "1 0"
check_eq "... and deleted after" "$(cat del.rc) $("$ZOND" runs -i s.db | grep -c '^ *3 ')" "0 0"

for calls in 40 50; do
	"$ZOND" record -q --no-time -o s.db -- "$SCALED" 1 "$calls" >/dev/null || exit 1
done
del=4
held diff -i s.db
check_eq "diff (the two newest), run 4 deleted meanwhile: runs 4 and 5" \
	"$(grep '^[AB]: ' held.out | cut -d, -f1 | tr '\n' '|')" "A: run 4|B: run 5|"
check_eq "... and deleted after" "$(cat del.rc)" 0
finish
