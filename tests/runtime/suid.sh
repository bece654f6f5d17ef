#!/bin/sh
# suid.sh ZOND SPAWNSUID SPAWNSUID_PLAIN WORKDIR
#
# Programs set-user-ID to another user (QA s14 V2 F3, F4): the kernel runs
# them in secure mode, where the loader ignores LD_PRELOAD and LD_AUDIT, for
# root too.  zond record and libcalls refuse one named on their command line
# (root was let through: "no call recorded" or "exited before zond's runtime
# started"), zond info says it is not seen, and one the program spawns or
# execs is counted as not recorded (lost_processes, with its warning; it was
# lost without a word).  Root only (chown): exit 77 otherwise.
set -u
zond=$1 prog=$2 plain_prog=$3 work=$4
if [ "$(id -u)" != 0 ]; then
	echo "SKIP: needs root (chown)"
	exit 77
fi
rm -rf "$work" && mkdir -p "$work" && chmod 755 "$work" && cd "$work" || exit 1
rc=0
fail() {
	echo "FAIL: $*"
	rc=1
}
cp "$prog" suid && cp "$plain_prog" suid_plain && chown 65534 suid suid_plain &&
	chmod 4755 suid suid_plain || exit 1
# a file system mounted nosuid ignores the bit: nothing to check there
if findmnt -n -o OPTIONS -T . | tr , '\n' | grep -qx nosuid; then
	echo "SKIP: the work directory's file system is mounted nosuid"
	exit 77
fi

for c in record:suid libcalls:suid_plain; do
	collector=${c%%:*} p=${c#*:}
	"$zond" "$collector" -q -o direct.db -- "./$p" child >out.txt 2>err.txt &&
		fail "$collector ./$p: ran (exit 0)"
	grep -q "is setuid or setgid to another user or group: the loader ignores" err.txt ||
		fail "$collector ./$p: not refused as setuid: $(cat err.txt)"
done
"$zond" info ./suid_plain | grep -q "setuid or setgid: .*(not seen here)" ||
	fail "info: $("$zond" info ./suid_plain | grep setuid)"

# spawned, and exec'ed along PATH: counted as not recorded
for c in record:"$prog":suid libcalls:"$plain_prog":suid_plain; do
	collector=${c%%:*} rest=${c#*:} p=${rest%:*} child=${rest##*:}
	for how in spawn:./$child execvp:$child; do
		plain=$(PATH=$work:$PATH "$p" ${how%%:*} ${how#*:})
		got=$(PATH=$work:$PATH "$zond" "$collector" -q -o "$collector.db" -- "$p" ${how%%:*} \
			${how#*:} 2>err.txt)
		[ "$got" = "$plain" ] && [ "$got" = "child status 0" ] ||
			fail "$collector $how: output '$got', plain '$plain'"
		grep -q "warning: lost_processes = 1: processes not recorded" err.txt ||
			fail "$collector $how: no lost_processes warning: $(cat err.txt)"
	done
done
exit $rc
