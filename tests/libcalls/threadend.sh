#!/bin/sh
# threadend.sh ZOND PROG WORKDIR - a thread's end time is noted: the call it
# never returned from (pthread_exit inside ml_call) lasts until the thread
# ended, before the main thread's 400 ms sleep that follows.
set -eu
zond=$1 prog=$2 work=$3
rm -rf "$work"
mkdir -p "$work"
"$zond" libcalls -q -l 'libmylib*' -o "$work/db" -- "$prog"
"$zond" report -i "$work/db" --raw -m ml_call >"$work/report"
max=$(awk '$NF == "ml_call" { print $6 }' "$work/report")
case $max in
'' | *[!0-9]*)
	echo "no ml_call in the report:"
	cat "$work/report"
	exit 1
	;;
esac
# not noted, the call would last until the process ends, after the main thread's whole
# sleep: at least 400 ms at any speed (the bound was 200 ms, which a loaded machine's
# thread end could reach)
if [ "$max" -ge 400000000 ]; then
	echo "ml_call lasted $max ns: the thread's end was not noted"
	exit 1
fi
