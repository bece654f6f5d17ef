#!/bin/sh
# Signals: zond record passes the signals sent to it on to the program, waits
# for it and stores what it recorded; zond dies of the program's signal as the
# program did; `zond recover` stores the raw data of a run whose zond was
# killed.  The counts are the program's own (waiter.c counts its calls).
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
work=$1
rm -rf "$work" && mkdir -p "$work/tmp" && cd "$work" || exit 1
TMPDIR=$work/tmp
export TMPDIR

# how a command ended, as its parent sees it: "exit N" or "signal N"
ended() {
	python3 -c 'import signal, subprocess, sys
signal.signal(signal.SIGINT, signal.SIG_DFL)  # not ignored as in a background job
signal.signal(signal.SIGQUIT, signal.SIG_DFL)
r = subprocess.run(sys.argv[1:])
print("signal %d" % -r.returncode if r.returncode < 0 else "exit %d" % r.returncode)' "$@"
}

# wait_for FILE: until the program has written it (no time limit but ctest's)
wait_for() {
	while [ ! -s "$1" ]; do sleep 0.05; done
}

# pid of the running program, once it is ready
program_pid() {
	wait_for pid
	cat pid
}

# zond_of PID: the zond that runs the program PID (its parent)
zond_of() {
	ps -o ppid= -p "$1" | tr -d ' '
}

# signal SIG: zond record of `waiter wait` gets SIG once the program is ready.
for s in TERM:15 HUP:1 INT:2 QUIT:3 USR1:10; do
	sig=${s%:*} num=${s#*:}
	rm -f pid s.db
	ended "$ZOND" record -q -o s.db -- "$WAITER" wait pid >out.txt 2>err.txt &
	waiter_pid=$(program_pid)
	kill -$sig "$(zond_of "$waiter_pid")"
	wait
	check_eq "$sig: zond dies of the program's signal" "$(tail -n 1 out.txt)" \
		"signal $num"
	check_eq "$sig: the program's output" "$(head -n 1 out.txt)" "work 50"
	check_eq "$sig: nothing on stderr" "$(cat err.txt)" ""
	check_eq "$sig: the run is stored" "$("$ZOND" dump -i s.db | grep 'function work')" \
		"function work calls=50"
	check_eq "$sig: its status" "$("$ZOND" runs -i s.db | grep -c "signal $num")" 1
	if kill -0 "$waiter_pid" 2>/dev/null; then fail "$sig: the program still runs"; else pass; fi
	check_eq "$sig: no raw data left" "$(ls tmp)" ""
done

# libcalls runs programs the same way.
rm -f pid l.db
ended "$ZOND" libcalls -q -o l.db -- "$WAITER" wait pid >out.txt 2>err.txt &
kill -TERM "$(zond_of "$(program_pid)")"
wait
check_eq "libcalls: zond dies of the program's signal" "$(tail -n 1 out.txt)" "signal 15"
check_eq "libcalls: the run is stored" "$("$ZOND" dump -i l.db | grep -c '^function printf')" 1
check_eq "libcalls: no raw data left" "$(ls tmp)" ""

# hold_store DB: another process holds DB's write lock (zond waits for it up to 30 s) until
# the file "release" appears
hold_store() {
	rm -f locked release
	python3 -c 'import os, sqlite3, sys, time
db = sqlite3.connect(sys.argv[1], isolation_level=None)
db.execute("BEGIN EXCLUSIVE")
open("locked", "w").close()
while not os.path.exists("release"):
    time.sleep(0.05)
db.close()' "$1" &
	wait_for_file locked
}
wait_for_file() {
	while [ ! -e "$1" ]; do sleep 0.05; done
}
# gone PID: until the process PID has ended and been waited for (by zond)
gone() {
	while kill -0 "$1" 2>/dev/null; do sleep 0.05; done
	sleep 0.2
}
# wait_line FILE TEXT PID: until FILE has a line with TEXT, or the process PID has ended
wait_line() {
	while ! grep -qF -- "$2" "$1" && kill -0 "$3" 2>/dev/null; do sleep 0.05; done
}

# A signal to zond once the program has ended, while zond stores its run (here: waits for the
# store's lock): the first is noted and the run stored, zond ends as the program did.
held="after the program ended: storing its run first (send it again to stop and keep the raw data for 'zond recover')"
for c in record:TERM libcalls:INT; do
	cmd=${c%:*} sig=${c#*:}
	rm -f pid h.db
	ended "$ZOND" record -q -o h.db -- "$WAITER" abort pid >/dev/null 2>&1 # h.db: a store
	ended "$ZOND" $cmd -q -o h.db -- "$WAITER" catch pid >out.txt 2>err.txt &
	waiter_pid=$(program_pid)
	zond_pid=$(zond_of "$waiter_pid")
	hold_store h.db
	kill -TERM "$waiter_pid" # the program ends: exit 7
	gone "$waiter_pid"
	kill -$sig "$zond_pid"
	wait_line err.txt "SIG$sig $held" "$zond_pid"
	touch release
	wait
	check_eq "$cmd, SIG$sig after the program: zond ends as it did" "$(tail -n 1 out.txt)" "exit 7"
	check_eq "$cmd, SIG$sig after the program: one line" "$(cat err.txt)" \
		"zond $cmd: SIG$sig $held"
	check_eq "$cmd, SIG$sig after the program: stored" \
		"$("$ZOND" runs -i h.db | grep -c "exit 7")" 1
	check_eq "$cmd, SIG$sig after the program: no raw data left" "$(ls tmp)" ""
done
# A second signal: zond stops, its raw data kept for recover, and dies of it.
rm -f pid h.db
ended "$ZOND" record -q -o h.db -- "$WAITER" abort pid >/dev/null 2>&1
ended "$ZOND" record -q -o h.db -- "$WAITER" catch pid >out.txt 2>err.txt &
waiter_pid=$(program_pid)
zond_pid=$(zond_of "$waiter_pid")
hold_store h.db
kill -TERM "$waiter_pid"
gone "$waiter_pid"
kill -HUP "$zond_pid"
wait_line err.txt "SIGHUP $held" "$zond_pid"
kill -HUP "$zond_pid"
while kill -0 "$zond_pid" 2>/dev/null; do sleep 0.05; done
touch release
wait
dir=$(ls -d "$work"/tmp/zond-*)
check_eq "twice: zond dies of it" "$(tail -n 1 out.txt)" "signal 1"
check_eq "twice: two lines" "$(cat err.txt)" "zond record: SIGHUP $held
zond record: raw data kept in $dir ('zond recover $dir' stores it)"
"$ZOND" recover -q "$dir" && pass || fail "twice: recover $dir"
check_eq "twice: recovered" "$("$ZOND" runs -i h.db | grep -c "exit 7")" 1
rm -rf tmp/*

# The store cannot be written once the program ran (its folder became a file meanwhile):
# the raw data is kept, zond says how to store it, and recover stores it elsewhere.
rm -f pid
mkdir gone
"$ZOND" record -q -o gone/s.db -- "$WAITER" wait pid >/dev/null 2>err.txt &
waiter_pid=$(program_pid)
rmdir gone && echo "a file now" >gone
kill -TERM "$waiter_pid"
wait
dir=$(sed -n "s/^zond record: raw data kept in \([^ ]*\) ('zond recover .* stores it)\$/\1/p" err.txt)
check_eq "store failed: one error and the kept data" "$(wc -l <err.txt)" 2
"$ZOND" recover -q -o later.db "$dir" && pass || fail "recover -o later.db $dir"
check_eq "recovered elsewhere" "$("$ZOND" dump -i later.db | grep 'function work')" \
	"function work calls=50"
check_eq "recovered: killed by TERM" "$("$ZOND" runs -i later.db | grep -c 'signal 15')" 1

# A run stored and its raw data kept anyway (--keep-raw): zond says the run is stored, and
# recover refuses the directory rather than store the run a second time.
"$ZOND" record -q --keep-raw -o kept.db -- "$LOOP" 1000 >/dev/null 2>err.txt ||
	fail "record --keep-raw"
dir=$(sed -n "s/^zond record: raw data kept in \([^ ]*\) (its run is stored in kept.db)\$/\1/p" err.txt)
[ -n "$dir" ] && [ -d "$dir" ] && pass || { fail "--keep-raw: kept where?"; cat err.txt >&2; }
check_error "recover of a stored run's kept data" "its run was stored already (in kept.db)" \
	"$ZOND" recover -q -o kept.db "$dir"
check_eq "stored once" "$("$ZOND" runs -i kept.db | grep -c 'exit 0')" 1
rm -rf "$dir"

# The program's signal dispositions are its own: ignored ones (nohup, a background job's ^C)
# stay ignored, the others are the default, as when it runs alone.
dispositions() {
	grep -E '^Sig(Ign|Cgt)' "/proc/$1/status" | tr '\n' ' '
}
for how in plain zond sampled; do
	rm -f pid
	if [ $how = plain ]; then
		(trap '' INT HUP; exec "$WAITER" wait pid) >/dev/null &
	elif [ $how = zond ]; then
		(trap '' INT HUP; exec "$ZOND" record -q --time exact -o d.db -- "$WAITER" wait pid) >/dev/null &
	else
		(trap '' INT HUP; exec "$ZOND" record -q -o d.db -- "$WAITER" wait pid) >/dev/null &
	fi
	p=$(program_pid)
	dispositions "$p" >$how.sig
	kill -TERM "$p"
	wait
done
check_same "dispositions under zond" zond.sig plain.sig
# Sampled time (the default) catches one more signal, SIGRTMAX-3 (ZOND_SAMPLE_SIGNAL, README):
# nothing else differs.
check_eq "sampled: only the sampling signal is caught besides" "$(python3 -c '
import signal, sys
def cgt(f):
    return int(open(f).read().split("SigCgt:")[1].split()[0], 16)
print(hex(cgt("sampled.sig") ^ cgt("plain.sig")))')" "$(python3 -c 'import signal; print(hex(1 << (signal.SIGRTMAX - 3 - 1)))')"
ign=$(sed -n 's/^SigIgn:[[:space:]]*\([0-9a-f]*\).*/\1/p' plain.sig)
check_eq "INT and HUP ignored" $((0x$ign & 3)) 3

# A program that catches SIGTERM ends as it decides: exit 7, and its later calls count.
rm -f pid s.db
ended "$ZOND" record -q -o s.db -- "$WAITER" catch pid >out.txt 2>err.txt &
kill -TERM "$(zond_of "$(program_pid)")"
wait
check_eq "catch: exit status" "$(tail -n 1 out.txt)" "exit 7"
check_eq "catch: output" "$(sed -n 2p out.txt)" "caught, work 57"
check_eq "catch: calls" "$("$ZOND" dump -i s.db | grep 'function work')" "function work calls=57"

# Death by a signal the program raised itself: the same as without zond.
ended "$WAITER" abort pid >plain.txt 2>/dev/null
ended "$ZOND" record -q -o s.db -- "$WAITER" abort pid >out.txt 2>/dev/null
check_eq "abort: zond ends as the program alone" "$(tail -n 1 out.txt)" "$(tail -n 1 plain.txt)"
check_eq "abort: as SIGABRT" "$(tail -n 1 out.txt)" "signal 6"
check_eq "abort: stored" "$("$ZOND" dump -i s.db | grep 'function work')" "function work calls=50"

# zond started with SIGINT ignored (a script's background job): a kill -INT still reaches the
# program, which takes it with a handler of its own as it does plainly.
rm -f pid int.db
sh -c "trap '' INT; exec \"$ZOND\" record -q -o int.db -- \"$WAITER\" catchint pid" >int.out 2>&1 &
zond_pid=$!
program_pid >/dev/null
kill -INT $zond_pid
wait $zond_pid
check_eq "INT ignored by zond's parent: the program's status" $? 7
check_eq "INT ignored by zond's parent: the program caught it" "$(tail -1 int.out)" "caught, work 57"

# zond killed outright (SIGKILL): the raw data stays; recover stores it as the run it was.
rm -f pid r.db
"$ZOND" record -q -o r.db -c nightly -- "$WAITER" wait pid >/dev/null 2>&1 &
zond_pid=$!
waiter_pid=$(program_pid)
kill -KILL $zond_pid
wait
kill -TERM "$waiter_pid"
while kill -0 "$waiter_pid" 2>/dev/null; do sleep 0.05; done
dir=$(ls -d tmp/zond-*)
check_eq "kill -9: one raw data directory" "$(echo "$dir" | wc -w)" 1
(cd / && "$ZOND" recover -q "$work/$dir") 2>err.txt
check_eq "recover: exit status" $? 0
check_eq "recover: stored in the run's store" "$("$ZOND" dump -i r.db | grep 'function work')" \
	"function work calls=50"
check_eq "recover: the command, as typed" "$("$ZOND" runs -i r.db | sed -n 's/^ *//; 3p')" \
	"$WAITER wait pid"
check_eq "recover: the campaign" "$("$ZOND" runs -i r.db | grep -c '\[nightly\]')" 1
check_eq "recover: the directory is gone" "$(ls tmp)" ""
mkdir other && echo keep >other/notes.txt
check_error "recover of a directory zond did not make" "no run stored" "$ZOND" recover -o r.db other
check_eq "recover leaves other files alone" "$(cat other/notes.txt)" keep
check_error "recover of a file" "r.db: not a directory" "$ZOND" recover r.db
check_eq "recover leaves no file of its own" "$(ls other)" notes.txt

# killed_run ARGS...: zond record -q ARGS (a program that writes pid, then waits), killed
# (SIGKILL), then the program ended by SIGTERM: its raw data directory is left in tmp
killed_run() {
	rm -f pid
	"$ZOND" record -q "$@" >/dev/null 2>&1 &
	zond_pid=$!
	waiter_pid=$(program_pid)
	kill -KILL $zond_pid
	wait $zond_pid
	kill -TERM "$waiter_pid"
	while kill -0 "$waiter_pid" 2>/dev/null; do sleep 0.05; done
}
# locked FILE: whether a process holds a POSIX lock on FILE
locked() {
	grep -q ":$(stat -c %i "$1") " /proc/locks
}

# A run still being recorded is not recover's: refused (naming its zond), and the run goes
# on to be stored whole by its own zond.
rm -rf tmp/* pid live.db
ended "$ZOND" record -q -o live.db -- "$WAITER" wait pid >out.txt 2>err.txt &
waiter_pid=$(program_pid)
zond_pid=$(zond_of "$waiter_pid")
dir=$(ls -d "$work"/tmp/zond-*)
check_error "recover of a live run" "$dir: in use by zond (pid $zond_pid)" \
	"$ZOND" recover -q -o other.db "$dir"
check_eq "recover of a live run: nothing stored" "$(ls other.db 2>/dev/null)" ""
kill -TERM "$zond_pid"
wait
check_eq "live run: stored by its zond" "$("$ZOND" dump -i live.db | grep 'function work')" \
	"function work calls=50"
check_eq "live run: its zond's status" "$(tail -n 1 out.txt)" "signal 15"
check_eq "live run: no raw data left" "$(ls tmp)" ""

# Two recovers of one directory: the second, while the first holds it (waiting for its
# store's lock), is refused; the run is stored once.
rm -f two.db
ended "$ZOND" record -q -o two.db -- "$WAITER" abort pid >/dev/null 2>&1 # two.db: a store
killed_run -o two.db -- "$WAITER" wait pid
dir=$(ls -d "$work"/tmp/zond-*)
hold_store two.db
"$ZOND" recover -q "$dir" 2>first.txt &
first=$!
while ! locked "$dir/lock" && kill -0 $first 2>/dev/null; do sleep 0.05; done
check_error "a second recover" "$dir: in use by zond (pid $first)" "$ZOND" recover -q "$dir"
touch release
wait $first
check_eq "the first recover" $? 0
wait
check_eq "two recovers: one run" "$(sqlite3 two.db "select count(*) from runs")" 2

# run.info holds any store path, command and campaign whole: a newline in the store's
# name (an unrelated store named as its first line stays untouched), an argument longer
# than any line buffer, a campaign over two lines.
rm -rf tmp/*
ended "$ZOND" record -q -o unrelated -- "$WAITER" abort pid >/dev/null 2>&1
nl_store=$(printf 'unrelated\nstore.db')
nl_campaign=$(printf 'night\nly')
long=$(head -c 20000 /dev/zero | tr '\0' y)END
killed_run -o "$nl_store" -c "$nl_campaign" -- sh -c 'exec "$0" wait pid' "$WAITER" "$long"
"$ZOND" recover -q tmp/zond-* || fail "recover: odd run.info"
check_eq "newline in the store: stored there" "$(sqlite3 "$nl_store" "select count(*) from runs")" 1
check_eq "newline in the store: the other one untouched" \
	"$(sqlite3 unrelated "select count(*) from runs")" 1
check_eq "a campaign over two lines" \
	"$(sqlite3 "$nl_store" "select count(*) from campaigns where name = '$nl_campaign'")" 1
rm -f pid
"$ZOND" record -q -o "$nl_store" -- sh -c 'exec "$0" wait pid' "$WAITER" "$long" >/dev/null &
kill -TERM "$(program_pid)"
wait
check_eq "a long argument: whole, as a run stored by its zond" \
	"$(sqlite3 "$nl_store" "select count(*), count(distinct command) from runs")" "2|1"

# A run.info zond did not write so: one line naming it, nothing stored.
mkdir bad
for info in "format 2|store" "format 2|store a\\qb" "format 9|store x" "store a|store b" \
	"format 2|exit_status x" "format 2|command cut"; do
	printf '%s' "$info" | tr '|' '\n' >bad/run.info
	[ "${info%cut}" != "$info" ] || echo >>bad/run.info
	check_error "bad run.info: $info" "bad/run.info: " "$ZOND" recover -o bad.db bad
done
check_eq "bad run.info: no store" "$(ls bad.db 2>/dev/null)" ""
finish
