#!/bin/sh
# own.sh - zond trace's own trouble costs zond's data at most, said in one line; the program
# behaves as it does plainly under qemu-user.  One case per run (the CTest tests trace_own_*):
#   fds     zond's descriptors inside QEMU take no number the program gets: with stdin,
#           stdout or stderr closed or all open, the program sees the same descriptors and
#           its first open() the same number as plainly (the online mode left the program's
#           ELF file on the lowest free one), under a soft file limit below the hard one;
#   fsize   under `ulimit -f`: the program runs as plainly (zond died of SIGXFSZ making its
#           memory file before QEMU started); a trace that reaches the limit is cut there,
#           in one line naming the cause, and the program keeps its status; an online
#           store that reaches it is named with the limit (it said "disk I/O error");
#   tmpfull TMPDIR on a full file system: a complete trace or online run, the program's
#           status, "trace written" / the summary (it exited 1, silently);
#   diskfull the trace's file system full: the program's output and status, one line per
#           process with the cause, no claim that a child was traced;
#   litter  a recording killed (KILL or TERM to zond) leaves nothing in TMPDIR;
#   term    SIGTERM reaching zond between its fork of QEMU and its naming of it (widened
#           with strace's delay of the fork's return) is passed on: the program, which
#           waits for it, dies of it, and zond too (it was lost, and the program ran on);
#   pipe    zond's stderr a pipe whose reader has gone (`2>&1 | head -1` once head ended):
#           zond ends as the program did and keeps the trace or run (it died of SIGPIPE,
#           141); the program's own SIGPIPE on such a stdout is as plainly;
#   convert `trace convert` to /dev/full or a full file system: one line naming the real
#           cause, no file left (it said "Invalid argument");
#
# Usage: own.sh ZOND ARCH WORKDIR SRCDIR CASE    (exit 77: cross tools missing)
case_=$5
name=own-$case_
. "$4/guest.sh"
own=$4/own

case $case_ in
fds)
	$cc -O1 -static -o fdlist "$own/fdlist.c" || { fail "build fdlist"; exit 1; }
	# a soft limit below the hard one leaves zond room above the program's numbers (with
	# none, zond takes the highest free ones: the program then lists them)
	ulimit -Sn 1024 2>/dev/null && [ "$(ulimit -Hn)" != 1024 ] ||
		{ echo "note: no file limit below the hard one: descriptors not checked"; exit 77; }
	for redir in "" "<&-" ">&-" "2>&-"; do
		rm -f plain.txt zond.txt
		eval "$qemu ./fdlist plain.txt $redir"
		want=$?
		[ $want = 3 ] || fail "plainly ($redir): exit $want"
		for mode in --online ""; do
			rm -f zond.txt fds.db
			out=fds.ztrace
			[ -n "$mode" ] && out=fds.db
			eval "\"$zond\" trace record -q $mode -o $out -- ./fdlist zond.txt $redir"
			rc=$?
			[ $rc = $want ] || fail "record $mode ($redir): exit $rc, plainly $want"
			cmp -s plain.txt zond.txt ||
				fail "record $mode ($redir): the program saw $(tr '\n' ' ' <zond.txt), plainly $(tr '\n' ' ' <plain.txt)"
		done
	done
	;;
fsize)
	$cc -O1 -static -o work "$own/work.c" || { fail "build work"; exit 1; }
	$qemu ./work 3 >plain.out
	want=$?
	(
		ulimit -f 100000 # 100 MB: room for the trace, none for zond's memory file
		"$zond" trace record -q -o w.ztrace -- ./work 3 >zond.out 2>err.txt
		echo $? >rc.txt
		"$zond" trace record -q --online -o w.db -- ./work 3 >zond2.out 2>err2.txt
		echo $? >rc2.txt
	)
	[ "$(cat rc.txt)" = $want ] || fail "ulimit -f: record returned $(cat rc.txt), plainly $want: $(cat err.txt)"
	cmp -s plain.out zond.out || fail "ulimit -f: record: output $(cat zond.out)"
	[ -s err.txt ] && fail "ulimit -f: record said: $(cat err.txt)"
	"$zond" trace report -q -o wt.db w.ztrace 2>err.txt || fail "ulimit -f: report: $(cat err.txt)"
	[ "$(calls leaf wt.db)" = 3000 ] || fail "ulimit -f: leaf $(calls leaf wt.db) calls"
	[ "$(cat rc2.txt)" = $want ] || fail "ulimit -f: online returned $(cat rc2.txt), plainly $want: $(cat err2.txt)"
	cmp -s plain.out zond2.out || fail "ulimit -f: online: output $(cat zond2.out)"
	[ -s err2.txt ] && fail "ulimit -f: online said: $(cat err2.txt)"
	[ "$(calls leaf w.db)" = 3000 ] || fail "ulimit -f: online: leaf $(calls leaf w.db) calls"
	# a limit the trace reaches: cut there, said in one line; the program as plainly
	$qemu ./work 300 >plain.out
	want=$?
	(
		ulimit -f 16
		"$zond" trace record -q -o big.ztrace -- ./work 300 >zond.out 2>err.txt
		echo $? >rc.txt
	)
	[ "$(cat rc.txt)" = $want ] || fail "ulimit -f 16: record returned $(cat rc.txt), plainly $want"
	cmp -s plain.out zond.out || fail "ulimit -f 16: output $(cat zond.out)"
	[ "$(wc -l <err.txt)" = 1 ] && grep -q "^zond trace: .*big.ztrace: cannot write the trace: File too large (ulimit -f)" err.txt ||
		fail "ulimit -f 16: said: $(cat err.txt)"
	# the online profile's store past the limit: one line naming the store and the limit (it
	# said SQLite's "disk I/O error"), and the program as plainly
	$qemu ./work 3 >plain.out
	want=$?
	(
		ulimit -f 16
		TMPDIR=$PWD "$zond" trace record -q --online -o big.db -- ./work 3 >zond.out 2>err.txt
		echo $? >rc.txt
	)
	[ "$(cat rc.txt)" = $want ] || fail "ulimit -f 16: online returned $(cat rc.txt), plainly $want"
	cmp -s plain.out zond.out || fail "ulimit -f 16: online: output $(cat zond.out)"
	[ "$(cat err.txt)" = "zond trace: online profile lost: big.db: cannot write: the file size limit was reached (ulimit -f: File too large)" ] ||
		fail "ulimit -f 16: online said: $(cat err.txt)"
	;;
tmpfull | diskfull)
	$cc -O1 -static -o work "$own/work.c" || { fail "build work"; exit 1; }
	# zond took a TMPDIR of under 40 characters only: the full one is a short path
	mkdir -p mnt
	umount mnt 2>/dev/null
	size=1m
	[ $case_ = diskfull ] && size=32k
	mount -t tmpfs -o size=$size zondown mnt 2>/dev/null ||
		{ echo "note: cannot mount a tmpfs here: not checked"; exit 77; }
	if [ $case_ = tmpfull ]; then
		short=$(mktemp -d /tmp/zt.XXXXXX) && mount --bind mnt "$short" ||
			{ fail "no short TMPDIR"; umount mnt; exit 1; }
		head -c $size /dev/zero >mnt/fill 2>/dev/null
		$qemu ./work 3 >plain.out
		want=$?
		TMPDIR=$short "$zond" trace record -o w.ztrace -- ./work 3 >zond.out 2>err.txt
		rc=$?
		[ $rc = $want ] || fail "TMPDIR full: record returned $rc, plainly $want: $(cat err.txt)"
		cmp -s plain.out zond.out || fail "TMPDIR full: output $(cat zond.out)"
		[ "$(cat err.txt)" = "zond trace: trace written to w.ztrace" ] || fail "TMPDIR full: said: $(cat err.txt)"
		TMPDIR=$short "$zond" trace record --online -o w.db -- ./work 3 >zond.out 2>err.txt
		rc=$?
		[ $rc = $want ] || fail "TMPDIR full: online returned $rc, plainly $want: $(cat err.txt)"
		grep -q "^zond trace: online profile stored in w.db" err.txt || fail "TMPDIR full: online said: $(cat err.txt)"
		[ "$(calls leaf w.db)" = 3000 ] || fail "TMPDIR full: online: leaf $(calls leaf w.db) calls"
		umount "$short" && rmdir "$short"
	else
		$qemu ./work 300 fork >plain.out
		want=$?
		"$zond" trace record -o mnt/t.ztrace -- ./work 300 fork >zond.out 2>err.txt
		rc=$?
		[ $rc = $want ] || fail "disk full: record returned $rc, plainly $want: $(cat err.txt)"
		cmp -s plain.out zond.out || fail "disk full: output $(cat zond.out)"
		# the parent's trace fails; the child's, forked later, fails too or is complete
		grep -q "^zond trace: .*mnt/t.ztrace: cannot write the trace: No space left on device; it holds the chunks written before$" err.txt ||
			fail "disk full: not said: $(cat err.txt)"
		if grep -q "mnt/t.ztrace\.[0-9]*: cannot write" err.txt; then
			grep -q "traced in" err.txt && fail "disk full: a failed child said traced: $(cat err.txt)"
			grep -q "process (fork) whose trace mnt/t.ztrace.PID could not be written to the end" err.txt ||
				fail "disk full: the child's trace: $(cat err.txt)"
			n=3
		else
			grep -q "process (fork), traced in" err.txt || fail "disk full: the child: $(cat err.txt)"
			n=2
		fi
		[ "$(wc -l <err.txt)" = $n ] || fail "disk full: said: $(cat err.txt)"
		# the child's trace certainly cut: hardly any room when it forks
		rm -f mnt/t.ztrace*
		head -c 28k /dev/zero >mnt/fill
		"$zond" trace record -o mnt/t.ztrace -- ./work 300 fork >zond.out 2>err.txt
		rc=$?
		[ $rc = $want ] || fail "disk full at the fork: record returned $rc, plainly $want: $(cat err.txt)"
		cmp -s plain.out zond.out || fail "disk full at the fork: output $(cat zond.out)"
		grep -q "traced in" err.txt && fail "disk full at the fork: a failed child said traced: $(cat err.txt)"
	fi
	umount mnt
	;;
litter)
	$cc -O1 -static -o wait "$own/wait.c" || { fail "build wait"; exit 1; }
	tmp=$(mktemp -d /tmp/zl.XXXXXX) || exit 1 # under 40 characters: zond took no other
	wait_for() { while ! "$@"; do sleep 0.1; done; }
	ready() { grep -q ready k.out 2>/dev/null || ! kill -0 "$zpid" 2>/dev/null; }
	for sig in KILL TERM; do
		for mode in --online ""; do
			rm -f k.out
			TMPDIR=$tmp "$zond" trace record -q $mode -o k.db -- ./wait >k.out 2>/dev/null &
			zpid=$!
			wait_for ready
			qpid=$(pgrep -P $zpid)
			kill -$sig $zpid
			wait $zpid
			[ $sig = KILL ] && kill -TERM $qpid # the program runs on without zond
			wait_for sh -c "! kill -0 $qpid 2>/dev/null"
			[ -z "$(ls "$tmp")" ] || fail "$sig to zond $mode: left in TMPDIR: $(ls "$tmp")"
			rm -rf "${tmp:?}"/* k.db k.db.*
		done
	done
	rmdir "$tmp"
	;;
term)
	command -v strace >/dev/null || { echo "note: no strace: not checked"; exit 77; }
	$cc -O1 -static -o wait "$own/wait.c" || { fail "build wait"; exit 1; }
	rm -f k.out s.log
	# zond's fork returns 3 s late: the program starts meanwhile and waits for SIGTERM
	strace -o s.log -e trace=clone,clone3,kill,rt_sigreturn -e signal=TERM \
		-e inject=clone,clone3:delay_exit=3000000 \
		"$zond" trace record -q -o k.ztrace -- ./wait >k.out 2>err.txt &
	spid=$!
	while ! grep -q ready k.out 2>/dev/null && kill -0 $spid 2>/dev/null; do sleep 0.1; done
	zpid=$(pgrep -P $spid)
	kill -TERM $zpid
	# zond took it (its handler returned, or it was blocked and is delivered later)
	while ! grep -q rt_sigreturn s.log && kill -0 $spid 2>/dev/null; do sleep 0.1; done
	qpid=$(sed -n 's/^clone(.* = \([0-9]*\).*/\1/p' s.log | tail -1)
	if grep -q "^kill($qpid, SIGTERM)" s.log; then
		wait $spid
		rc=$?
		[ $rc = 143 ] || fail "SIGTERM in the fork: zond returned $rc, not 143: $(cat err.txt)"
		[ "$(cat k.out)" = ready ] || fail "SIGTERM in the fork: the program printed $(cat k.out)"
	else
		fail "SIGTERM in the fork: not passed on to QEMU ($qpid): $(cat s.log)"
		[ -n "$qpid" ] && kill -TERM $qpid
		wait $spid
	fi
	;;
pipe)
	$cc -O1 -static -o work "$own/work.c" || { fail "build work"; exit 1; }
	# closed OUT ERR CMD...: CMD with stdout (OUT 1) and stderr (ERR 1) a pipe whose reader has
	# gone, else out.txt and err.txt; prints "exit N" or "signal N"
	closed() {
		python3 -c 'import os, subprocess, sys
r, w = os.pipe()
os.close(r)
out = w if sys.argv[1] == "1" else open("out.txt", "w")
err = w if sys.argv[2] == "1" else open("err.txt", "w")
p = subprocess.run(sys.argv[3:], stdout=out, stderr=err)  # SIGPIPE default in the child
print("signal %d" % -p.returncode if p.returncode < 0 else "exit %d" % p.returncode)' "$@"
	}
	want=$(closed 0 1 $qemu ./work 3)
	[ "$want" = "exit 7" ] || fail "plainly: $want"
	for mode in "" --online; do
		rm -f p.ztrace p.db
		out=p.ztrace
		[ -n "$mode" ] && out=p.db
		got=$(closed 0 1 "$zond" trace record $mode -o $out -- ./work 3)
		[ "$got" = "$want" ] || fail "stderr closed $mode: $got, plainly $want"
		[ "$(cat out.txt)" = "done 3" ] || fail "stderr closed $mode: output $(cat out.txt)"
		[ -z "$mode" ] && "$zond" trace report -q -o p.db p.ztrace
		[ "$(calls leaf p.db)" = 3000 ] || fail "stderr closed $mode: leaf $(calls leaf p.db) calls"
		# the program's own stdout a closed pipe: it dies of SIGPIPE, as plainly
		plain=$(closed 1 0 $qemu ./work 3)
		got=$(closed 1 0 "$zond" trace record -q $mode -o $out -- ./work 3)
		[ "$got" = "$plain" ] || fail "stdout closed $mode: $got, plainly $plain: $(cat err.txt)"
	done
	;;
convert)
	$cc -O1 -static -o work "$own/work.c" || { fail "build work"; exit 1; }
	"$zond" trace record -q -o w.ztrace -- ./work 30 >/dev/null
	"$zond" trace convert w.ztrace >/dev/full 2>err.txt
	rc=$?
	[ $rc = 1 ] && [ "$(cat err.txt)" = "zond trace: standard output: write failed: No space left on device" ] ||
		fail "convert > /dev/full: exit $rc: $(cat err.txt)"
	mkdir -p mnt
	umount mnt 2>/dev/null
	if mount -t tmpfs -o size=16k zondown mnt 2>/dev/null; then
		head -c 16k /dev/zero >mnt/fill 2>/dev/null
		"$zond" trace convert -o mnt/w.pcs w.ztrace 2>err.txt
		rc=$?
		[ $rc = 1 ] && [ "$(cat err.txt)" = "zond trace: mnt/w.pcs: write failed: No space left on device" ] ||
			fail "convert to a full disk: exit $rc: $(cat err.txt)"
		[ "$(ls mnt)" = fill ] || fail "convert to a full disk: left $(ls mnt)"
		umount mnt
	else
		echo "note: cannot mount a tmpfs here: a full disk not checked"
	fi
	;;
*)
	fail "no case '$case_'"
	;;
esac
[ $status -eq 0 ] && echo "ok ($arch): $case_"
exit $status
