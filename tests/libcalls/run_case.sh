#!/bin/sh
# run_case.sh EXPECTED ZOND RAWDUMP [zond libcalls options] -- PROGRAM [ARGS...]
#
# Runs PROGRAM alone, then under `zond libcalls`; its stdout, stderr and exit
# status must be the same both times.  Then compares "status N", its output
# and the profile (rawdump of the raw files, one dump per process) with
# EXPECTED.  RAWDUMP_FLAGS: rawdump's options (default -p; "-p -m" adds the
# overflow counts, "-p -c" the calling contexts).  A program whose output
# varies from run to run cannot be tested this way.
set -uf
expected=$1 zond=$2 rawdump=$3
shift 3
opts=
while [ "$1" != "--" ]; do
	opts="$opts $1"
	shift
done
shift

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$@" >"$work/plain.out" 2>"$work/plain.err"
plain_status=$?
# what the shell says of a program killed by a signal is not the program's
sed -i '/^Segmentation fault/d' "$work/plain.err"
# shellcheck disable=SC2086
"$zond" libcalls -q --keep-raw -o "$work/db" $opts -- "$@" >"$work/out" 2>"$work/err"
status=$?
raw=$(sed -n 's/^zond libcalls: raw data kept in \([^ ]*\).*/\1/p' "$work/err")
grep -v '^zond libcalls: raw data kept in ' "$work/err" |
	sed '/^Segmentation fault/d' >"$work/prog.err"

# callers named after the calling module, "[/path/prog]": by base name (build trees differ)
base_names=$(dirname "$0")/base_names.sh
rc=0
if [ "$status" != "$plain_status" ]; then
	echo "exit status $status under zond, $plain_status alone"
	rc=1
fi
if ! cmp -s "$work/plain.out" "$work/out"; then
	echo "stdout differs under zond:"
	diff "$work/plain.out" "$work/out" | head -20
	rc=1
fi
if ! cmp -s "$work/plain.err" "$work/prog.err"; then
	echo "stderr differs under zond:"
	diff "$work/plain.err" "$work/prog.err" | head -20
	rc=1
fi
{
	echo "status $status"
	echo "--- output"
	cat "$work/out"
	echo "--- profile"
	# shellcheck disable=SC2086
	{ "$rawdump" ${RAWDUMP_FLAGS:--p} "$raw" || echo "rawdump failed"; } | sh "$base_names"
} >"$work/actual" 2>&1
rm -rf "$raw"
# ZOND_UPDATE_EXPECTED=1: write the expected file from this run (check it by eye!)
[ "${ZOND_UPDATE_EXPECTED:-}" = 1 ] && cp "$work/actual" "$expected"
if ! diff -u "$expected" "$work/actual"; then
	rc=1
fi
exit $rc
