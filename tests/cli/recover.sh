#!/bin/sh
# Recover: zond's own trouble (its stderr a closed pipe, zond killed after storing the run,
# a recover while the program still runs, a damaged raw file, a locked store) never changes
# the program's status, never stores a run twice, costs zond's data at most and is said in
# one line.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
work=$1
rm -rf "$work" && mkdir -p "$work/tmp" && cd "$work" || exit 1
TMPDIR=$work/tmp
export TMPDIR

# one: calls work() 20 times, prints one line, exits 3
cat >one.c <<'C'
#include <stdio.h>
static volatile int n;
static void work(void) { n++; }
int main(void) { for (int i = 0; i < 20; i++) work(); printf("work %d\n", n); return 3; }
C
cc -O0 -finstrument-functions -o one one.c || fail "build one"

# closed_stderr CMD...: runs CMD with stderr a pipe whose reader has gone (as `2>&1 | head -1`
# once head has ended), stdout to out.txt; prints "exit N" or "signal N"
closed_stderr() {
	python3 -c 'import os, subprocess, sys
r, w = os.pipe()
os.close(r)
with open("out.txt", "w") as out:
    p = subprocess.run(sys.argv[1:], stdout=out, stderr=w)  # SIGPIPE default in the child
print("signal %d" % -p.returncode if p.returncode < 0 else "exit %d" % p.returncode)' "$@"
}
runs() { "$ZOND" runs -i "$1" | grep -c '^ *[0-9]'; }

# F15: zond's stderr a closed pipe: zond ends as the program did, its run stored once, no raw
# data left behind for a second recover.
for c in record libcalls; do
	rm -rf tmp/* p.db
	check_eq "$c, stderr closed: status" "$(closed_stderr "$ZOND" $c -o p.db -- ./one)" "exit 3"
	check_eq "$c, stderr closed: output" "$(cat out.txt)" "work 20"
	check_eq "$c, stderr closed: one run" "$(runs p.db)" 1
	check_eq "$c, stderr closed: no raw data left" "$(ls tmp)" ""
done

# F7: zond killed after the commit, before it removed its raw directory (here: the run kept
# with --keep-raw, its "stored" note gone, as such a zond leaves it): recover refuses in one
# line, the run stays stored once.
rm -rf tmp/* k.db
"$ZOND" record -q --keep-raw -o k.db -- ./one >out.txt 2>err.txt
check_eq "keep-raw: status" $? 3
dir=$(ls -d "$work"/tmp/zond-*)
rm -f "$dir/stored"
check_error "recover of a stored run" "$dir: already stored as run 1 in $work/k.db" \
	"$ZOND" recover -q "$dir"
check_eq "recover of a stored run: one run" "$(runs k.db)" 1
check_eq "recover of a stored run: the raw data stays" "$(ls "$dir" | grep -c zraw)" 1
# the raw files gone too (killed while removing them): the same line, not "no call"
rm -f "$dir"/*.zraw
check_error "recover of a stored run, raw files gone" "already stored as run 1" \
	"$ZOND" recover -q "$dir"
check_eq "recover of a stored run, raw files gone: one run" "$(runs k.db)" 1
rm -rf "$dir"

# wait_for FILE: until the program has written it (no time limit but ctest's)
wait_for() {
	while [ ! -s "$1" ]; do sleep 0.05; done
}
# gone PID: until the process PID has ended
gone() {
	while kill -0 "$1" 2>/dev/null; do sleep 0.05; done
}

# F4: zond killed (SIGKILL), the program runs on: recover refuses while it runs (one line
# naming it, nothing stored, nothing removed), and stores every call once it has ended.
# F10: the program's status and end come from its raw file (run.info has none); one killed by
# a signal leaves its end unknown, said.
rm -rf tmp/* pid w.db
"$ZOND" record -q -o w.db -- "$WAITER" catch pid >w.out 2>/dev/null &
zond_pid=$!
wait_for pid
waiter_pid=$(cat pid)
kill -KILL $zond_pid
wait $zond_pid
dir=$(ls -d "$work"/tmp/zond-*)
files=$(ls "$dir")
check_error "recover while the program runs" \
	"$dir: the run's process $waiter_pid still runs and writes its raw data" \
	"$ZOND" recover -q "$dir"
check_eq "recover while the program runs: nothing stored" "$(ls w.db 2>/dev/null)" ""
check_eq "recover while the program runs: nothing removed" "$(ls "$dir")" "$files"
kill -TERM "$waiter_pid"
gone "$waiter_pid"
check_eq "the program ran to its end" "$(tail -1 w.out)" "caught, work 57"
"$ZOND" recover -q "$dir" 2>err.txt
check_eq "recover once it ended: status" $? 0
check_eq "recover once it ended: nothing said" "$(cat err.txt)" ""
check_eq "recover once it ended: one run" "$(runs w.db)" 1
check_eq "recover once it ended: every call" "$("$ZOND" dump -i w.db | grep 'function work')" \
	"function work calls=57"
check_eq "recover: the program's status and end, from its raw file" \
	"$("$ZOND" runs -i w.db | grep -c '  exit 7 ')" 1
check_eq "recover: the report's end" "$("$ZOND" report -i w.db | grep -c '^end: *exit status 7')" 1
# The same with a program killed by a signal: its raw file cannot say which (no handler of
# the runtime's saw it): the report says the end is unknown and why (it said nothing).
rm -rf tmp/* pid w.db
"$ZOND" record -q -o w.db -- "$WAITER" wait pid >w.out 2>/dev/null &
zond_pid=$!
wait_for pid
waiter_pid=$(cat pid)
kill -KILL $zond_pid
wait $zond_pid
kill -TERM "$waiter_pid"
gone "$waiter_pid"
"$ZOND" recover -q tmp/zond-* 2>err.txt
check_eq "recover, killed by a signal: status" $? 0
check_eq "recover, killed by a signal: the report's end" \
	"$("$ZOND" report -i w.db | sed -n 's/^end: *//p')" \
	"unknown: the program ended unseen after zond was killed (a signal or a crash: the Linux runtime installs no signal handler to note which)"

# F5: one damaged raw file (a forked child's, cut short): recover stores what it can read,
# says in one line which process is not in the run, records the loss in the run
# (lost_raw_files: the report's warning) and keeps the damaged file, not the stored ones.
cat >forked.c <<'C'
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>
static volatile int n;
static void work(void) { n++; }
int main(void)
{
	for (int i = 0; i < 20; i++) work();
	pid_t pid = fork();
	if (pid == 0) { for (int i = 0; i < 30; i++) work(); return 0; }
	waitpid(pid, NULL, 0);
	printf("child %d\n", (int)pid);
	return 3;
}
C
cc -O0 -finstrument-functions -o forked forked.c || fail "build forked"
rm -rf tmp/* f.db g.db
"$ZOND" record -q --keep-raw -o f.db -- ./forked >out.txt 2>err.txt
check_eq "forked: status" $? 3
check_eq "forked: every call" "$("$ZOND" dump -i f.db | grep 'function work')" \
	"function work calls=50"
child=$(sed -n 's/^child //p' out.txt)
dir=$(ls -d "$work"/tmp/zond-*)
rm -f "$dir/stored"
truncate -s 4096 "$dir/$child.0.zraw"
"$ZOND" recover -q -o g.db "$dir" 2>err.txt
check_eq "damaged file: recover's status (not all stored)" $? 1
check_eq "damaged file: one line" "$(wc -l <err.txt)" 1
check_eq "damaged file: the line names the file and the run" \
	"$(grep -c "$dir/$child.0.zraw: truncated.*: that process is not in run 1 (run meta lost_raw_files), its file is kept" err.txt)" 1
check_eq "damaged file: one run" "$(runs g.db)" 1
check_eq "damaged file: what could be read" "$("$ZOND" dump -i g.db | grep 'function work')" \
	"function work calls=20"
check_eq "damaged file: the loss in the run" "$("$ZOND" dump -i g.db | grep '^lost_raw_files')" \
	"lost_raw_files 1"
check_eq "damaged file: the report's warning" \
	"$("$ZOND" report -i g.db | grep -c '^warning: *lost_raw_files = 1 (processes whose raw files could not be read: not in the run, their files kept in zond.s raw directory; the profile is incomplete)')" 1
check_eq "damaged file: kept, the stored one removed" "$(ls "$dir" | grep zraw)" "$child.0.zraw"
check_error "damaged file: recover again" "already stored as run 1" \
	"$ZOND" recover -q -o g.db "$dir"
check_eq "damaged file, recover again: one run" "$(runs g.db)" 1

# F8: the store locked by another writer when zond starts: the program runs at once (one line
# says so) and its run is stored once the lock goes.
hold_store() {
	rm -f locked release
	python3 -c 'import os, sqlite3, sys, time
db = sqlite3.connect(sys.argv[1], isolation_level=None)
db.execute("BEGIN EXCLUSIVE")
open("locked", "w").close()
while not os.path.exists("release"):
    time.sleep(0.05)
db.close()' "$1" &
	while [ ! -e locked ]; do sleep 0.05; done
}
rm -rf tmp/* h.db
"$ZOND" record -q -o h.db -- ./one >/dev/null 2>&1
hold_store h.db
"$ZOND" record -q -o h.db -- ./one >h.out 2>h.err &
zond_pid=$!
# until the program has run while the store is locked (or zond has ended without running it)
while [ ! -s h.out ] && kill -0 $zond_pid 2>/dev/null; do sleep 0.05; done
touch release
wait $zond_pid
check_eq "store locked at start: the program's status" $? 3
check_eq "store locked at start: its output" "$(cat h.out)" "work 20"
check_eq "store locked at start: one line" "$(cat h.err)" \
	"zond record: h.db: locked by another process: running ./one all the same; its run is stored when the lock goes (zond waits up to 30 s once it ends), else its raw data is kept for 'zond recover'"
wait
check_eq "store locked at start: the run stored" "$(runs h.db)" 2
check_eq "store locked at start: no raw data left" "$(ls tmp)" ""

finish
