#!/bin/sh
# noroom.sh RUNTIME RAWDUMP FIB THREADS WORKDIR ZOND
#
# Out of room for data is zond's problem, never the program's: under a file
# size limit (ulimit -f) and on a full file system (a small tmpfs, when this
# user may mount one) the program's output and exit status are those of a
# plain run (no SIGXFSZ, no SIGBUS), and the raw files say what was lost
# and why (rawdump -m: lost_room, lost_threads_room: no room, not a full
# thread table).  fib's counts are checked exactly where its thread fits.
# Reading the raw files of a tmpfs filled up after the run touches no hole
# (a SIGBUS of the reader, zond record's whole run lost).
set -u
. "$(dirname "$0")/tmpfs.sh"
runtime=$1 rawdump=$2 fib=$3 threads=$4 work=$5 zond=$6
rm -rf "$work"
mkdir -p "$work"
rc=0

fail() {
	echo "FAIL: $*"
	rc=1
}

# run NAME DIR LIMIT PROG: runs PROG with the runtime into DIR under `ulimit LIMIT`
# (-f N, -v N) and compares its output and status with a plain run under the same
# limit (set in a subshell: the runtime is preloaded into PROG alone)
run() {
	name=$1 dir=$2 limit=$3 prog=$4
	mkdir -p "$dir"
	# shellcheck disable=SC2086
	plain=$( (ulimit $limit && exec "$prog") 2>&1; echo "status $?")
	# shellcheck disable=SC2086
	got=$( (ulimit $limit && ZOND_DIR=$dir LD_PRELOAD=$runtime exec "$prog") 2>&1
		echo "status $?")
	[ "$got" = "$plain" ] || fail "$name: the program changed: got '$got', plain '$plain'"
}

# expect NAME DIR LINE...: rawdump -m of DIR has every LINE
expect() {
	name=$1 dir=$2
	shift 2
	"$rawdump" -m "$dir" >"$work/dump" 2>&1 || fail "$name: rawdump failed: $(cat "$work/dump")"
	for line in "$@"; do
		grep -qx "$line" "$work/dump" || fail "$name: no '$line' in: $(cat "$work/dump")"
	done
}

# absent NAME DIR PATTERN: no line of rawdump -m of DIR matches PATTERN
absent() {
	"$rawdump" -m "$2" >"$work/dump" 2>&1 || fail "$1: rawdump failed: $(cat "$work/dump")"
	! grep -q "$3" "$work/dump" || fail "$1: '$3' in: $(cat "$work/dump")"
}

# a file size limit (sh's ulimit -f counts 512-byte blocks): 20 MB leaves room for
# two thread slots as laid out (with the default pools, a slot is about 9 MB, 5 MB of it
# the context pool), 50 KB for none
run limit-40000 "$work/l1" "-f 40000" "$fib"
expect limit-40000 "$work/l1" "threads 1" "function fib calls=21891" "meta lost_room 1"
run limit-100 "$work/l2" "-f 100" "$fib"
expect limit-100 "$work/l2" "threads 0" "meta lost_room 1" "meta lost_threads_room 1"
absent limit-100 "$work/l2" "lost_threads "
# an address-space limit: the raw file takes a quarter of it, not more
run limit-v "$work/l3" "-v 200000" "$fib"
expect limit-v "$work/l3" "threads 1" "function fib calls=21891" "meta lost_room 1"

# a full file system
mnt=$work/mnt
if ! mount_tmpfs "$mnt" 1500k; then
	echo "SKIP: full file system: cannot mount a tmpfs here (needs root, no container limits)"
	exit $rc
fi
# room for the file's fixed part, none for a thread slot: every thread is lost, for want
# of room (the slot table was not full); read once the file system is full: no slot the
# runtime could not reserve is read through a page fault (a SIGBUS on a full tmpfs)
# (a slot's reserved part is ~1.1 MB: its tables' first entries, the stack, the samples)
run tmpfs-1500k "$mnt/a" "-f unlimited" "$threads"
head -c 4m /dev/zero >"$mnt/fill" 2>/dev/null
expect tmpfs-1500k "$mnt/a" "threads 0" "meta lost_room 1" "meta lost_threads_room 9"
absent tmpfs-1500k "$mnt/a" "lost_threads "
rm -rf "$mnt/a" "$mnt/fill"
# filled up: room for nothing but a header
head -c 1400k /dev/zero >"$mnt/fill" 2>/dev/null
run tmpfs-full "$mnt/b" "-f unlimited" "$fib"
expect tmpfs-full "$mnt/b" "threads 0" "meta lost_room 1" "meta lost_threads_room 1"
rm -rf "$mnt/b" "$mnt/fill"

# zond record with its raw data on that file system, room for the fixed parts of the
# files of sh and the program and for the program's main thread, and full by the time
# zond reads them: the program's status and output as plain, the run stored, the cause
# said (no room, not --threads)
mount -o remount,size=4m "$mnt" || fail "cannot resize the tmpfs"
mkdir -p "$mnt/tmp"
plain=$("$threads" 2>&1; echo "status $?")
got=$(TMPDIR=$mnt/tmp "$zond" record -q -o "$work/full.db" -- \
	sh -c '"$1"; s=$?; head -c 4m /dev/zero >"$2" 2>/dev/null; exit $s' sh "$threads" \
	"$mnt/fill" 2>"$work/record.err"; echo "status $?")
[ "$got" = "$plain" ] || fail "record: got '$got', plain '$plain': $(cat "$work/record.err")"
grep -q "warning: lost_threads_room = 8: threads not recorded: no room" "$work/record.err" ||
	fail "record: no lost_threads_room warning in: $(cat "$work/record.err")"
! grep -q "raise --threads" "$work/record.err" ||
	fail "record: blames --threads: $(cat "$work/record.err")"
"$zond" dump -i "$work/full.db" 2>&1 | grep -qx "function main calls=1" ||
	fail "record: main's call not stored: $("$zond" dump -i "$work/full.db" 2>&1)"
exit $rc
