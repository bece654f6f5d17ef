#!/bin/sh
# Programs: what record and libcalls say of a file that is no program they
# can run, of a run that recorded nothing, and of tables that overflowed.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
work=$1
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1

for c in record libcalls; do
	check_error "$c of a text file" "/etc/passwd: not executable" "$ZOND" $c -- /etc/passwd
	check_error "$c of a directory" "/tmp: is a directory" "$ZOND" $c -- /tmp
	check_error "$c of a name not in PATH" "no-such-prog: program not found in PATH" \
		"$ZOND" $c -- no-such-prog
	check_error "$c of a missing file" "./gone: program not found" "$ZOND" $c -- ./gone
	echo "just text" >text && chmod +x text
	check_error "$c of a file that is no program" "text: not a program" "$ZOND" $c -- ./text
	cp "$SHOP" a64
	printf '\267\000' | dd of=a64 bs=1 seek=18 conv=notrunc 2>/dev/null # EM_AARCH64
	check_error "$c of an aarch64 program" "a64: an aarch64 program" "$ZOND" $c -- ./a64
	check_error "$c --threads too many" "--threads wants a number from 1 to 65536" \
		"$ZOND" $c --threads 100000 -- "$SHOP"
done
check_error "info of a directory" "/tmp: is a directory" "$ZOND" info /tmp
check_error "info of an aarch64 program" "a64: an aarch64 program" "$ZOND" info ./a64
check_eq "no store made" "$(ls zond.db 2>/dev/null)" ""

# A program built with AddressSanitizer, whose runtime ends a program whose first library is
# not its own (status 1 before main): it runs as plainly, and is recorded.
"$ZOND" record -q -o asan.db -- "$ASAN" >out.txt 2>err.txt
check_eq "asan: status" $? 3
check_eq "asan: output" "$(cat out.txt)" 9900
check_eq "asan: nothing said" "$(cat err.txt)" ""
check_eq "asan: calls" "$("$ZOND" dump -i asan.db | grep 'context main;mid;leaf ')" \
	"context main;mid;leaf calls=100"

# The program sees its argv[0], AT_EXECFN and arguments as plainly (zond ran its real path).
cc -O0 -finstrument-functions -o argv "$here/../trace/scenarios/argv.c" || fail "build argv"
./argv a 'b c' >plain.txt
"$ZOND" record -q -o execfn.db -- ./argv a 'b c' >rec.txt
check_eq "record: argv[0], AT_EXECFN, arguments" "$(cat rec.txt)" "$(cat plain.txt)"
"$ZOND" libcalls -q -o execfn.db -- ./argv a 'b c' >lib.txt
check_eq "libcalls: argv[0], AT_EXECFN, arguments" "$(cat lib.txt)" "$(cat plain.txt)"

# A run that records nothing: the program's output and status, one line, no run.
"$ZOND" record -- "$PLAIN" >out.txt 2>err.txt
check_eq "plain: status" $? 5
check_eq "plain: output" "$(cat out.txt)" plain
check_eq "plain: one line" "$(wc -l <err.txt)" 1
check_eq "plain: says why" "$(grep -c 'no run stored: .*built with -finstrument-functions' err.txt)" 1
check_eq "plain: no run" "$(ls zond.db 2>/dev/null)" ""
"$ZOND" libcalls -- "$NOLIB" >out.txt 2>err.txt
check_eq "nolib: status" $? 4
check_eq "nolib: says so" "$(cat err.txt)" \
	"zond libcalls: $NOLIB: no run stored: no call into a shared library was recorded"
"$ZOND" libcalls -f no_such_function -- "$PLAIN" >out.txt 2>err.txt
check_eq "libcalls -f nosuch: status" $? 5
check_eq "libcalls -f nosuch: says so" "$(cat err.txt)" \
	"zond libcalls: $PLAIN: no run stored: no library call was recorded: none matched -l/-f"
# ... and a run lost is zond's failure: status 1 for a program that exited 0 (a script's
# `zond record -- ./t && zond report` must not report an older run)
"$ZOND" record -o true.db -- true >out.txt 2>err.txt
check_eq "true: status" $? 1
check_eq "true: says why" "$(grep -c 'no run stored: .*built with -finstrument-functions' err.txt)" 1
"$ZOND" libcalls -o true.db -f no_such_function -- true >out.txt 2>err.txt
check_eq "libcalls true: status" $? 1

# Tables too large for the address space: which and how much.  (A zond built with
# AddressSanitizer cannot run under ulimit -v at all.)
if (ulimit -v 300000; "$ZOND" --version >/dev/null 2>&1); then
	# the runtime fits the raw file into a share of the address space left (fewer
	# thread slots): the run is stored and the cut is said
	(ulimit -v 300000; "$ZOND" record -n 0 -o ulimit.db --threads 1000 -- "$SHOP" >/dev/null 2>err.txt)
	check_eq "ulimit -v: status" $? 0
	check_eq "ulimit -v: says so" \
		"$(grep -c 'warning: lost_room = 1: processes whose raw data had no room .*ulimit -v' err.txt)" 1
	check_eq "ulimit -v: run stored" "$("$ZOND" runs -i ulimit.db | grep -c " record ")" 1
else
	echo "note: zond does not run under ulimit -v (a sanitizer build): not checked"
fi

# A program started with fd 0 or 1 closed finds them closed under zond too, with a
# store that exists (checked before the program runs: SQLite would put /dev/null there)
"$ZOND" record -q -o fds.db -- "$SHOP" >/dev/null 2>&1
lsfd='ls /proc/$$/fd >&2'
for closed in 0 1; do
	if [ $closed = 0 ]; then
		sh -c "$lsfd" 0<&- 2>plain.txt
		"$ZOND" record -q -o fds.db -- sh -c "$lsfd" 0<&- 2>record.txt
		"$ZOND" libcalls -q -o fds.db -- sh -c "$lsfd" 0<&- 2>libcalls.txt
	else
		sh -c "$lsfd" 1>&- 2>plain.txt
		"$ZOND" record -q -o fds.db -- sh -c "$lsfd" 1>&- 2>record.txt
		"$ZOND" libcalls -q -o fds.db -- sh -c "$lsfd" 1>&- 2>libcalls.txt
	fi
	grep -v "^zond" record.txt >record.fds
	check_eq "record, fd $closed closed: the program's fds" "$(cat record.fds)" "$(cat plain.txt)"
	check_eq "libcalls, fd $closed closed: the program's fds" "$(cat libcalls.txt)" "$(cat plain.txt)"
done

# Arguments with spaces, quotes, a newline or nothing: the run's command is one line
# a shell reads back as the same words (a newline must not break runs or the header)
"$ZOND" record -q -o argv.db -- "$SHOP" 'a b' "$(printf 'x\ny')" '' "it's" 'a\b' >/dev/null 2>&1
odd=$(cat <<'EOF'
 'a b' $'x\ny' '' 'it'\''s' 'a\b'
EOF
)
check_eq "odd arguments: runs" "$("$ZOND" runs -i argv.db | sed -n '3s/^ *//p')" "$SHOP$odd"
check_eq "odd arguments: runs, 3 lines" "$("$ZOND" runs -i argv.db | wc -l)" 3
check_eq "odd arguments: header" "$("$ZOND" report -i argv.db | sed -n 's/^command: *//p')" "$SHOP$odd"

# A file-size limit (sh counts 512-byte blocks) too small for the runtime's tables,
# even for zond's own probe of the room, which must not die of SIGXFSZ: the program's
# status, and why, never "built without -finstrument-functions"
(ulimit -f 100; "$ZOND" record -o room.db -- "$SHOP" >/dev/null 2>err.txt)
check_eq "ulimit -f 100: status" $? 1
check_eq "ulimit -f 100: says why" \
	"$(grep -c 'no run stored: .*cannot be made (ftruncate: File too large), more than the file-size limit (ulimit -f) of 50 KB allows' err.txt)" 1
(ulimit -f 1; "$ZOND" libcalls -o room.db -- "$SHOP" >/dev/null 2>err.txt)
check_eq "libcalls ulimit -f 1: status" $? 1
check_eq "libcalls ulimit -f 1: one line" "$(wc -l <err.txt)" 1
check_eq "no store made" "$(ls room.db 2>/dev/null)" ""
# a thread's name as it was when it ended (named after it started)
"$ZOND" record -q -o named.db -- "$NAMED" >/dev/null || fail "record named"
"$ZOND" report -i named.db --per-thread >named.txt || fail "report named"
check_eq "a thread named after it started" "$(grep -c '^thread [0-9]*/[0-9]* (renamed): ' named.txt)" 1
# a full file system (a small tmpfs, when this user may mount one): the runtime's file
# is cut to its header, which a sparse probe of the room does not see
mkdir -p mnt
if mount -t tmpfs -o size=64k zondcli mnt 2>/dev/null; then
	head -c 32k /dev/zero >mnt/fill
	TMPDIR=$PWD/mnt "$ZOND" record -o room.db -- "$SHOP" >/dev/null 2>err.txt
	check_eq "full tmpfs: status" $? 1
	check_eq "full tmpfs: says why" \
		"$(grep -c "no run stored: the raw data had no room in $PWD/mnt (a full file system?)" err.txt)" 1
	# the store on the full file system: the run is not stored, the raw data is
	# kept for zond recover, and no empty store is left behind
	rm -f mnt/fill && head -c 60k /dev/zero >mnt/fill
	"$ZOND" record -o mnt/full.db -- "$SHOP" >/dev/null 2>err.txt
	check_eq "store on a full disk: status" $? 1
	check_eq "store on a full disk: says so" "$(grep -c "mnt/full.db: database or disk is full" err.txt)" 1
	check_eq "store on a full disk: raw data kept" "$(grep -c "raw data kept in" err.txt)" 1
	check_eq "store on a full disk: no empty store left" "$(ls mnt/full.db 2>/dev/null)" ""
	rm -rf "$(sed -n "s/.*raw data kept in \([^ ]*\) .*/\1/p" err.txt)"
	umount mnt
	# a store that was there and a run too large for the disk: the store as it was, and no
	# journal left for the next opener, which a user who may only read it could not roll back
	mount -t tmpfs -o size=2m zondcli mnt
	"$ZOND" record -q -o mnt/old.db -- "$TREE" >/dev/null || fail "record into a small store"
	size=$(wc -c <mnt/old.db)
	"$ZOND" record -o mnt/old.db -- "$TREE" 16 >/dev/null 2>err.txt
	check_eq "store grown out of room: status" $? 1
	check_eq "store grown out of room: says so" "$(grep -c "mnt/old.db: database or disk is full" err.txt)" 1
	check_eq "store grown out of room: no journal left" "$(ls mnt)" "old.db"
	check_eq "store grown out of room: its size as it was" "$(wc -c <mnt/old.db)" "$size"
	check_eq "store grown out of room: its run" "$("$ZOND" runs -i mnt/old.db | grep -c ' record ')" 1
	rm -rf "$(sed -n "s/.*raw data kept in \([^ ]*\) .*/\1/p" err.txt)"
	umount mnt
else
	echo "note: cannot mount a tmpfs here: a full file system is not checked"
fi

# Tables larger than any file or address space (the step that fails depends on the file system).
"$ZOND" record --threads 65536 --funcs 16777216 -- "$SHOP" >/dev/null 2>err.txt
check_eq "huge pools: status" $? 1
check_eq "huge pools: says so" "$(grep -c 'about [0-9]* MB per process (65536 threads x [0-9.]* MB) and cannot be made (' err.txt)" 1
check_eq "huge pools: names the options set, the largest first" \
	"$(grep -c 'cannot be made (.*): lower --threads or --funcs$' err.txt)" 1
# the calling-context pool too (it was not named)
"$ZOND" record --threads 65536 --contexts 67108864 -- "$SHOP" >/dev/null 2>err.txt
check_eq "huge context pools: names --contexts" \
	"$(grep -c 'cannot be made (.*): lower --threads or --contexts$' err.txt)" 1

# A full function table: the summary, dump and callgrind say what was lost.
"$ZOND" record -n 0 --funcs 2 -o lost.db -- "$SHOP" >/dev/null 2>err.txt
lost=$("$ZOND" dump -i lost.db | sed -n 's/^lost_funcs \([0-9]*\)$/\1/p')
[ "${lost:-0}" -gt 0 ] && pass || fail "dump: no lost_funcs line"
check_eq "summary warns" "$(grep -c "warning: lost_funcs = $lost: .*(raise --funcs)" err.txt)" 1
"$ZOND" export -i lost.db -f callgrind -o lost.cg
check_eq "callgrind_annotate shows it" \
	"$(callgrind_annotate lost.cg | grep -c "lost_funcs = $lost (a table was full; the profile is incomplete)")" 1
"$ZOND" record -n 0 -o full.db -- "$SHOP" >/dev/null 2>err.txt
check_eq "no warning when nothing was lost" "$(grep -c warning err.txt)" 0
check_eq "no lost line when nothing was lost" "$("$ZOND" dump -i full.db | grep -c lost_)" 0

# ZOND_* variables left in zond's environment (a shell's export) change no run: those an
# option stands for are set as the options say, or removed; an expert knob is passed on, and
# the run says so.
# calls_and_mode DB: the run's calls, events and timeline or lost_* facts (not what only
# samples found, which varies: "[no function]")
calls_and_mode() {
	"$ZOND" dump -i "$1" | grep -E '^(function|block|lost)' | grep -v ' calls=0$'
	sqlite3 "$1" "select group_concat(name) from events"
	sqlite3 "$1" "select key from run_meta where key like 'timeline%' or key like 'lost%'"
}
rm -f env.db
"$ZOND" record -q -o env.db -- "$SHOP" >/dev/null
calls_and_mode env.db >plain.mode
for e in ZOND_MANUAL=1 ZOND_TRIGGER=1234:/x ZOND_NO_TIME=1 ZOND_TIME=exact ZOND_FUNCS=1 \
	ZOND_CONTEXTS=1 ZOND_TIMELINE=10 ZOND_FILTER=/nonexistent; do
	rm -f env.db
	env "$e" "$ZOND" record -q -o env.db -- "$SHOP" >/dev/null 2>err.txt
	check_eq "record, $e inherited: status" $? 0
	check_eq "record, $e inherited: nothing said" "$(cat err.txt)" ""
	calls_and_mode env.db >env.mode
	check_same "record, $e inherited: the run as without it" env.mode plain.mode
done
rm -f env.db
"$ZOND" libcalls -q -o env.db -- "$SHOP" >/dev/null
calls_and_mode env.db >plain.mode
for e in ZOND_LIBCALLS_FUNCS=no_such ZOND_LIBCALLS_LIBS=libno_such.so ZOND_NO_TIME=1 \
	ZOND_TIME=sampled; do
	rm -f env.db
	env "$e" "$ZOND" libcalls -q -o env.db -- "$SHOP" >/dev/null 2>err.txt
	check_eq "libcalls, $e inherited: status" $? 0
	calls_and_mode env.db >env.mode
	check_same "libcalls, $e inherited: the run as without it" env.mode plain.mode
done
rm -f env.db
ZOND_SAMPLER=timer "$ZOND" record -q -o env.db -- "$SHOP" >/dev/null
check_eq "a knob: passed on" "$("$ZOND" report -i env.db | grep -c '(cpu-time timer)')" 1
check_eq "a knob: named in the header" "$("$ZOND" report -i env.db | grep '^knobs:')" \
	"knobs:     ZOND_SAMPLER=timer"
finish
