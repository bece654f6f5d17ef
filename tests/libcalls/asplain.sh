#!/bin/sh
# asplain.sh ZOND [zond libcalls options] -- PROGRAM [ARGS...]: the program's
# output and status are the same alone and under `zond libcalls` (with the
# environment the test sets, e.g. ZOND_SAMPLER=timer), and its output has
# the line $ASPLAIN_EXPECT (when set): what it must be plainly.
set -u
zond=$1
shift
opts=
while [ "$1" != "--" ]; do
	opts="$opts $1"
	shift
done
shift
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$@" >"$work/plain" 2>&1
plain=$?
if [ -n "${ASPLAIN_EXPECT:-}" ] && ! grep -qxF "$ASPLAIN_EXPECT" "$work/plain"; then
	echo "FAIL: alone, the program did not print '$ASPLAIN_EXPECT':"
	cat "$work/plain"
	exit 1
fi
# shellcheck disable=SC2086
"$zond" libcalls -q $opts -o "$work/db" -- "$@" >"$work/zond" 2>&1
status=$?
rc=0
[ "$status" = "$plain" ] || { echo "FAIL: status $status under zond, $plain alone"; rc=1; }
cmp -s "$work/plain" "$work/zond" || { echo "FAIL: output differs:"; diff "$work/plain" "$work/zond"; rc=1; }
[ $rc = 0 ] && echo "ok: $(head -1 "$work/zond")"
exit $rc
