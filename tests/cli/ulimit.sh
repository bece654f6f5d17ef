#!/bin/sh
# Under an address-space limit (ulimit -v 600000) a program that mallocs
# until malloc fails (progs/ulimitv.c) gets nearly as much under record and
# libcalls as without zond: zond maps a small share of what is left (it took
# a quarter of the limit: 437 and 427 MiB of 581), and what does not fit is
# zond's data, counted (lost_room, said) and with every thread still
# recorded.  Margin: 6% of the plain amount.  A zond built with
# AddressSanitizer does not run under ulimit -v: skipped.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
work=$1
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
limit=600000
if ! (ulimit -v $limit; "$ZOND" --version >/dev/null 2>&1); then
	echo "zond does not run under ulimit -v (a sanitizer build): skipped"
	exit 77
fi
for threads in 0 4; do
	plain=$(ulimit -v $limit; "$ULIMITV" $threads)
	rec=$(ulimit -v $limit; "$ZOND" record -q -o r$threads.db -- "$ULIMITV" $threads 2>rec.err)
	lib=$(ulimit -v $limit; "$ZOND" libcalls -q -o l$threads.db -- "$ULIMITV" $threads 2>lib.err)
	least=$((plain - plain * 6 / 100))
	check_eq "$threads threads: plain got some ($plain MiB)" "$([ "${plain:-0}" -gt 300 ] && echo yes)" yes
	check_eq "$threads threads: record got $rec MiB of $plain (at least $least)" \
		"$([ "${rec:-0}" -ge $least ] && echo yes)" yes
	check_eq "$threads threads: libcalls got $lib MiB of $plain (at least $least)" \
		"$([ "${lib:-0}" -ge $least ] && echo yes)" yes
	check_eq "$threads threads: record's threads" \
		"$("$ZOND" report -i r$threads.db | sed -n 's/^threads: *//p')" $((threads + 1))
	# what zond lost is said, nothing else
	check_eq "$threads threads: record says only what it lost" \
		"$(grep -v 'warning: lost_room = 1: processes whose raw data had no room' rec.err)" ""
done
finish
