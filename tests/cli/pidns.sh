#!/bin/sh
# Processes in pid namespaces of their own (QA s14 V2 F6, progs/pidns.c: two
# children each unshare(CLONE_NEWUSER | CLONE_NEWPID) and fork a pid 1, as
# sandboxes and container runtimes do) were filed as one thread "1/1" under
# record and libcalls: a thread short, and that thread's profile mixing two
# processes' calls.  Now each process and thread is its own, under the ids
# zond's /proc shows; a process that mounted a /proc of its own namespace
# before it forked (progs/pidns.c "mount": pid 2 of each namespace, which
# then execs) is filed under an id of the run's own, above any real pid
# (doc/raw-format.md "Process ids"), its two images one process.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
work=$1
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1

"$PIDNS" >/dev/null 2>err.txt
rc=$?
[ $rc -eq 77 ] && { echo "skipped: $(cat err.txt)"; exit 77; }
[ $rc -eq 0 ] || fail "the program alone: status $rc: $(cat err.txt)"
"$PIDNS" mount >/dev/null 2>err.txt
mount_rc=$?
[ $mount_rc -eq 0 ] || [ $mount_rc -eq 77 ] || fail "the program alone (mount): status $mount_rc"

# The threads' calls of the watched functions, one line a thread that made
# any: whose ids ("zond": a pid of zond's, not 1; "own": of the run's own,
# RAW_NS_PIDS and up), main thread or not, each function's calls.
per_thread() {
	"$ZOND" report -i "$1" --per-thread -n 0 | awk -v watched="$2" '
		function flush() { if (line != "") print head line; line = "" }
		/^thread / { flush(); split($2, id, "/"); pid = id[1] + 0; tid = id[2] + 0
			kind = pid >= 10000000 ? "own" : pid == 1 ? "pid1" : "zond"
			head = kind " " ((pid % 10000000) == tid ? "main" : "thread") }
		$NF ~ "^(" watched ")$" && $1 ~ /^[0-9]+$/ { line = line " " $NF "=" $1 }
		END { flush() }' | LC_ALL=C sort
}

run() { # collector, mode, store, watched functions, expected threads, expected lines
	"$ZOND" "$1" -q -o "$3" -- "$PIDNS" $2 >out.txt 2>err.txt || fail "$1 $2: $(cat err.txt)"
	check_eq "$1 $2: the program's output" "$(cat out.txt)" "two pid namespaces done"
	check_eq "$1 $2: threads" "$("$ZOND" dump -i "$3" | sed -n 's/^threads //p')" "$5"
	check_eq "$1 $2: each thread's calls" "$(per_thread "$3" "$4")" "$6"
	check_eq "$1 $2: speedscope's profiles, one a thread" "$("$ZOND" export -f speedscope \
		-i "$3" -o - | grep -o '"type": *"sampled", *"name": *"[^"]*"' | sort -u | wc -l)" "$5"
}

run record "" r.db "fa|fb|tc|td" 7 "zond main fa=100
zond main fb=200
zond thread tc=10
zond thread td=20"
run libcalls "" l.db "getppid|getpgrp|getuid|getgid" 7 "zond main getpgrp=200
zond main getppid=100
zond thread getgid=20
zond thread getuid=10"
if [ $mount_rc -eq 77 ]; then
	echo "mount: skipped (no /proc of a namespace's own can be mounted here)"
	finish
fi
run record mount rm.db "fa|fb|tc|td" 9 "own main fa=105
own main fb=205
own thread tc=10
own thread td=20"
check_eq "record mount: the report names a namespace's pid" \
	"$("$ZOND" report -i rm.db --per-thread -n 1 | grep -c '^thread [0-9]*/2 (cli_pidns, pid 2 of a pid namespace of its own): ')" 2
run libcalls mount lm.db "getppid|getpgrp|getuid|getgid" 9 "own main getpgrp=205
own main getppid=105
own thread getgid=20
own thread getuid=10"
finish
