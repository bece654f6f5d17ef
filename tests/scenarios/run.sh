#!/bin/sh
# run.sh ZOND COLLECTOR WORKDIR -- PROGRAM [ARGS...]
#
# One scenario under one collector (record or libcalls): PROGRAM runs alone,
# then under `zond COLLECTOR`.  Its stdout, stderr (less zond's own lines)
# and exit status (a death by signal included: 128 + N either way) must be
# the same, and zond's count of scen_probe must equal the program's own:
# the sum of the "ref WHO N" lines its processes printed.
set -u
zond=$1 collector=$2 work=$3
shift 4
rm -rf "$work"
mkdir -p "$work"
rc=0
fail() {
	echo "FAIL ($collector $*)"
	rc=1
}
# the program's own process group: a death by SIGTERM/SIGABRT is the program's alone
sh -c '"$@"; echo "status $?" >&3' sh "$@" >"$work/plain.out" 2>"$work/plain.err" 3>"$work/plain.status"
opts=
[ "$collector" = libcalls ] && opts="-f scen_probe"
# shellcheck disable=SC2086
sh -c '"$@"; echo "status $?" >&3' sh "$zond" "$collector" -q -o "$work/db" $opts -- "$@" \
	>"$work/out" 2>"$work/err" 3>"$work/status"
grep -v '^zond ' "$work/err" >"$work/prog.err"
# what the shell says of a child killed by a signal is not the program's
for f in "$work/plain.err" "$work/prog.err"; do
	sed -i -e '/^Segmentation fault/d' -e '/^Aborted/d' -e '/^Terminated/d' "$f"
done
cmp -s "$work/plain.status" "$work/status" ||
	fail "$(cat "$work/status") under zond, $(cat "$work/plain.status") alone"
cmp -s "$work/plain.out" "$work/out" || { fail "stdout differs"; diff "$work/plain.out" "$work/out"; }
cmp -s "$work/plain.err" "$work/prog.err" ||
	{ fail "stderr differs"; diff "$work/plain.err" "$work/prog.err"; }
ref=$(awk '$1 == "ref" { s += $NF } END { print s + 0 }' "$work/out")
got=$("$zond" dump -i "$work/db" 2>&1 | sed -n 's/^function scen_probe calls=//p')
[ "$got" = "$ref" ] || { fail "scen_probe calls=${got:-none}, the program counted $ref"; cat "$work/err"; }
[ $rc = 0 ] && echo "ok ($collector): $(cat "$work/status"), scen_probe calls=$got"
exit $rc
