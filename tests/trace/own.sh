#!/bin/sh
# own.sh - zond trace's own trouble costs zond's data at most, said in one line; the program
# behaves as it does plainly under qemu-user.  One case per run (the CTest tests trace_own_*):
#   fds     zond's descriptors inside QEMU take no number the program gets: with stdin,
#           stdout or stderr closed or all open, the program sees the same descriptors and
#           its first open() the same number as plainly (the online mode left the program's
#           ELF file on the lowest free one), under a soft file limit below the hard one;
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
