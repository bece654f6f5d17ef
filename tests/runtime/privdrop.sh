#!/bin/sh
# privdrop.sh ZOND PRIVDROP PRIVDROP_PLAIN WORKDIR
#
# A program that changes its user (setgid/setuid 65534) or its root (chroot),
# as daemons started by root do, under zond record and zond libcalls: its
# output and exit status are a plain run's; the thread it starts afterwards
# is recorded with exact counts (its raw file, which it can no longer open
# by its path, is reserved through its mapping: MADV_POPULATE_WRITE); the
# processes it forks or execs afterwards, which cannot create their raw
# files in zond's private directory, are counted (lost_processes) and the
# warning names that cause, not room.  On a full tmpfs, the thread's loss is
# still named as no room (lost_threads_room), never as permission, and so
# are children that had no room for their files (lost_processes_room: they
# were lost silently before).
# Root only (setuid, chroot, mount): exit 77 otherwise.
set -u
. "$(dirname "$0")/tmpfs.sh"
zond=$1 prog=$2 plain_prog=$3 work=$4
if [ "$(id -u)" != 0 ]; then
	echo "SKIP: needs root (setuid, chroot)"
	exit 77
fi
rm -rf "$work"
mkdir -p "$work/jail"
rc=0

fail() {
	echo "FAIL: $*"
	rc=1
}

# check NAME COLLECTOR PROG LOST DUMPLINES... -- ARGS...: the program's output and
# status under zond COLLECTOR are a plain run's, zond warns of LOST processes not
# recorded for want of access and of no other loss, and its dump has every DUMPLINE
check() {
	name=$1 collector=$2 p=$3 lost=$4
	shift 4
	lines=
	while [ "$1" != -- ]; do
		lines="$lines$1
"
		shift
	done
	shift
	plain=$("$p" "$@" 2>&1; echo "status $?")
	rm -f "$work/$name.db"
	got=$("$zond" "$collector" -q -o "$work/$name.db" -- "$p" "$@" 2>"$work/$name.err"
		echo "status $?")
	[ "$got" = "$plain" ] || fail "$name: the program changed: got '$got', plain '$plain'"
	grep -q "warning: lost_processes = $lost: processes not recorded: they could not write zond's raw directory (did the program change its user or root: setuid, chroot?)" \
		"$work/$name.err" || fail "$name: no 'lost_processes = $lost' warning in: $(cat "$work/$name.err")"
	[ "$(grep -c warning "$work/$name.err")" = 1 ] ||
		fail "$name: other warnings than lost_processes: $(cat "$work/$name.err")"
	"$zond" dump -i "$work/$name.db" >"$work/$name.dump" 2>&1 ||
		fail "$name: dump failed: $(cat "$work/$name.dump")"
	printf %s "$lines" | while IFS= read -r line; do
		grep -qx "$line" "$work/$name.dump" || echo "FAIL: $name: no '$line' in the dump"
	done | grep FAIL && rc=1
}

# the program's output says the exec'ed child ran as user 65534 (the path is reachable)
"$prog" user | grep -q "exec'ed child 3" ||
	fail "privdrop user: its exec'ed child did not run plainly: $("$prog" user 2>&1)"

# the thread: f 7 + main's 1, g 7; the forked child and its child, the fork+exec child and
# its image, system()'s shell lost
check record-user record "$prog" 5 "function f calls=8" "function g calls=7" \
	"function thread calls=1" "lost_processes 5" -- user
# after a chroot the exec fails (no program in the jail), and system() finds no shell: not counted
check record-chroot record "$prog" 3 "function f calls=8" "function g calls=7" \
	"lost_processes 3" -- chroot "$work/jail"
check libcalls-user libcalls "$plain_prog" 5 "function getppid calls=7" "lost_processes 5" \
	-- user
check libcalls-chroot libcalls "$plain_prog" 3 "function getppid calls=7" "lost_processes 3" \
	-- chroot "$work/jail"

# a jail that runs the program (its C library, its loader and the program at its own path:
# QA s14 V2 F9): the image exec'ed in it cannot reach zond's library, and runs without zond
# (counted as not recorded) instead of its loader printing into the program's stderr that it
# could not preload or audit zond's library
jail2=$work/jail2
for f in "$prog" "$plain_prog" $(ldd "$plain_prog" | sed -n 's/.*=> \(\/[^ ]*\) .*/\1/p; s/^[[:space:]]*\(\/[^ ]*\) .*/\1/p'); do
	mkdir -p "$jail2$(dirname "$f")" && cp "$f" "$jail2$f" || fail "jail2: copy $f"
done
for c in record:$prog libcalls:$plain_prog; do
	collector=${c%%:*} p=${c#*:}
	plain=$("$p" chroot "$jail2" 2>&1; echo "status $?")
	case $plain in *"exec'ed child 3"*) ;; *) fail "jail2: the exec'ed image did not run plainly: $plain" ;; esac
	got=$("$zond" "$collector" -q -o "$work/jail2-$collector.db" -- "$p" chroot "$jail2" \
		2>"$work/jail2-$collector.err"; echo "status $?")
	[ "$got" = "$plain" ] || fail "jail2 $collector: the program changed: got '$got', plain '$plain'"
	! grep -v '^zond\|^warning' "$work/jail2-$collector.err" ||
		fail "jail2 $collector: the program's stderr has more than zond's lines"
done

# a tmpfs with room for the raw file's fixed part and main's thread slot, none for the
# thread's (about 1.1 MB more): the thread's reservation through the mapping fails with
# EFAULT, not SIGBUS, and its loss is named as no room, not as permission
mnt=$work/mnt
if ! mount_tmpfs "$mnt" 2800k; then
	echo "SKIP: full file system: cannot mount a tmpfs here"
	exit $rc
fi
mkdir -p "$mnt/tmp"
plain=$("$prog" user 2>&1; echo "status $?")
got=$(TMPDIR=$mnt/tmp "$zond" record -q -o "$work/full.db" -- "$prog" user \
	2>"$work/full.err"; echo "status $?")
[ "$got" = "$plain" ] || fail "full: the program changed: got '$got', plain '$plain'"
grep -q "warning: lost_threads_room = 1: threads not recorded: no room" "$work/full.err" ||
	fail "full: no lost_threads_room warning in: $(cat "$work/full.err")"
grep -q "warning: lost_room = 1" "$work/full.err" ||
	fail "full: no lost_room warning in: $(cat "$work/full.err")"
! grep -q "lost_threads_access\|lost_access" "$work/full.err" ||
	fail "full: blames access for the thread: $(cat "$work/full.err")"
"$zond" dump -i "$work/full.db" 2>&1 | grep -qx "function f calls=1" ||
	fail "full: main's call not stored: $("$zond" dump -i "$work/full.db" 2>&1)"
# the same program changing nothing: its forked children (and grandchild) have no room for their files
# (the fork+exec child's image may get a header alone: lost_room); counted as such
plain=$("$prog" stay 2>&1; echo "status $?")
got=$(TMPDIR=$mnt/tmp "$zond" record -q -o "$work/stay.db" -- "$prog" stay \
	2>"$work/stay.err"; echo "status $?")
[ "$got" = "$plain" ] || fail "stay: the program changed: got '$got', plain '$plain'"
grep -q "warning: lost_processes_room = 3: processes not recorded: no room for their raw data" \
	"$work/stay.err" || fail "stay: no lost_processes_room warning in: $(cat "$work/stay.err")"
! grep -q "lost_processes =\|access" "$work/stay.err" ||
	fail "stay: blames access: $(cat "$work/stay.err")"
exit $rc
