#!/bin/sh
# The progress line (tool/cmd/progress.h): on a terminal, zond record,
# libcalls and trace record show how the run goes on one line of stderr,
# redrawn in place and erased before the summary; with stderr a file or a
# pipe, or with --no-progress or -q, not one byte of it.  The program's
# output and exit status stay its own.  The terminal is a pty (pty_run.py);
# the program (gated.c) waits, once it has made its calls, until the test lets
# it go: the counts on the line are compared with the program's own, with no
# timing in the checks.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
work=$1
rm -rf "$work" && mkdir -p "$work/tmp" && cd "$work" || exit 1
TMPDIR=$work/tmp
export TMPDIR
cr=$(printf '\r')

# on_tty [--stderr[-pipe] FILE] WHEN CMD...: runs CMD on a terminal, the go file being go
on_tty() {
	rm -f go go.ready
	python3 "$here/pty_run.py" "$@" 2>&1
}
# the line as progress.c writes it, for a regex
num='[0-9]+'
line() { # CMD COUNT_FIELD BYTES_WHAT
	echo "zond $1: $num\\.[0-9] s, $2, $num(\\.[0-9]+)? [KMG]B $3"
}
summary() { # CMD STORE CALLS
	echo "zond $1: run $2 stored in p.db: 2 functions, $3 calls, 1 thread"
}

# record on a terminal: the line shows the program's exact calls so far (main
# and 1000 work), then the summary takes its place on the screen.
ended=$(on_tty t1.txt go "re:$(line record '1001 calls' raw)" -- \
	"$ZOND" record -n 0 -o p.db -- "$GATED" 1000 go)
check_eq "record: exit status" "$ended" "exit 3"
check_eq "record: the screen at the end" "$(python3 "$here/terminal.py" screen t1.txt)" \
	"work 1000
$(summary record 1 1001)"

# The same with output after the line: the terminal got the program's bytes and
# the summary unchanged, around the line's redraws and its erasing.
ended=$(on_tty t2.txt go "re:$(line record '1001 calls' raw)" -- \
	"$ZOND" record -n 0 -o p.db -- "$GATED" 1000 go done)
check_eq "record, output after: exit status" "$ended" "exit 3"
python3 "$here/terminal.py" strip record t2.txt >stripped.txt 2>draws.txt
printf 'work 1000\r\ndone\r\n%s\r\n' "$(summary record 2 1001)" >want.txt
check_same "record: the terminal's bytes but the line's" stripped.txt want.txt
if grep -q '^draws [1-9]' draws.txt; then pass; else fail "record: no line drawn: $(cat draws.txt)"; fi

# A full function table: the calls not counted show as lost (work's 1000).
ended=$(on_tty t3.txt go "re:$(line record '1 calls' raw), 1000 lost" -- \
	"$ZOND" record --funcs 1 -n 0 -o p.db -- "$GATED" 1000 go)
check_eq "record --funcs 1: exit status" "$ended" "exit 3"

# libcalls: the line counts library calls, at least the program's 1000
# getppid and at most what the stored run totals.  The go file waits for a line
# of 1000 calls or more: one drawn before the program's calls (the loader's) and
# then no other before the end would otherwise be the last line read.
ended=$(on_tty t4.txt go "re:$(line libcalls "[0-9]{4,} calls" raw)" -- \
	"$ZOND" libcalls -n 0 -o l.db -- "$GATED" 1000 go)
check_eq "libcalls: exit status" "$ended" "exit 3"
shown=$(grep -ao "zond libcalls: [0-9.]* s, [0-9]* calls" t4.txt | tail -n 1 | sed 's/.* s, //; s/ calls//')
total=$(python3 "$here/terminal.py" screen t4.txt | sed -n 's/.*run 1 stored in l.db: .* functions, \([0-9]*\) calls.*/\1/p')
if [ -n "$shown" ] && [ -n "$total" ] && [ "$shown" -ge 1000 ] && [ "$shown" -le "$total" ]; then
	pass
else
	fail "libcalls: the line's calls '$shown' not between 1000 and the run's '$total'"
fi

# Not on a terminal, turned off: the same run's lines, byte for byte, nothing else
# (each run lasts three progress intervals after the program's calls).
ended=$(on_tty --stderr err5.txt t5.txt go file:go.ready -- \
	"$ZOND" record -n 0 -o p.db -- "$GATED" 1000 go done)
check_eq "stderr a file: exit status" "$ended" "exit 3"
summary record 4 1001 >want.txt
check_same "stderr a file: stderr" err5.txt want.txt
printf 'work 1000\r\ndone\r\n' >want.txt
check_same "stderr a file: the program's output" t5.txt want.txt

ended=$(on_tty --stderr-pipe err6.txt t6.txt go file:go.ready -- \
	"$ZOND" record -n 0 -o p.db -- "$GATED" 1000 go done)
check_eq "stderr a pipe: exit status" "$ended" "exit 3"
summary record 5 1001 >want.txt
check_same "stderr a pipe: stderr" err6.txt want.txt

ended=$(on_tty t7.txt go file:go.ready -- \
	"$ZOND" record --no-progress -n 0 -o p.db -- "$GATED" 1000 go done)
check_eq "--no-progress: exit status" "$ended" "exit 3"
printf 'work 1000\r\ndone\r\n%s\r\n' "$(summary record 6 1001)" >want.txt
check_same "--no-progress: the terminal's bytes" t7.txt want.txt

ended=$(on_tty t8.txt go file:go.ready -- "$ZOND" record -q -o p.db -- "$GATED" 1000 go done)
check_eq "-q: exit status" "$ended" "exit 3"
printf 'work 1000\r\ndone\r\n' >want.txt
check_same "-q: the terminal's bytes" t8.txt want.txt
check_eq "the runs stored" "$("$ZOND" runs -i p.db | grep -c "$GATED 1000 go")" 7

# trace record: the trace's size so far, then the message on a clean screen.
if command -v aarch64-linux-gnu-gcc >/dev/null && command -v qemu-aarch64 >/dev/null; then
	aarch64-linux-gnu-gcc -O1 -static -o gated.arm "$here/progs/gated.c" || fail "cross build"
	ended=$(on_tty t9.txt go "re:zond trace: $num\\.[0-9] s, $num(\\.[0-9]+)? [KMG]B written" -- \
		"$ZOND" trace record -o g.ztrace -- ./gated.arm 1000 go)
	check_eq "trace record: exit status" "$ended" "exit 3"
	check_eq "trace record: the screen at the end" \
		"$(python3 "$here/terminal.py" screen t9.txt)" "work 1000
zond trace: trace written to g.ztrace"
	"$ZOND" trace report -o t.db -n 0 g.ztrace 2>/dev/null || fail "trace report of g.ztrace"
else
	echo "trace record: no aarch64-linux-gnu-gcc or qemu-aarch64, not checked"
fi
finish
