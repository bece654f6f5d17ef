#!/bin/sh
# own.sh - zond trace's own trouble costs zond's data at most, said in one line; the program
# behaves as it does plainly under qemu-user.  One case per run (the CTest tests trace_own_*):
#   fds     zond's descriptors inside QEMU take no number the program gets: with stdin,
#           stdout or stderr closed or all open, the program sees the same descriptors and
#           its first open() the same number as plainly (the online mode left the program's
#           ELF file on the lowest free one), under a soft file limit below the hard one;
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
*)
	fail "no case '$case_'"
	;;
esac
[ $status -eq 0 ] && echo "ok ($arch): $case_"
exit $status
