#!/bin/sh
# stubs.sh RUNTIME PROGRAM STUBCHECK: samples taken in the PLT stubs through
# which PROGRAM calls zond's hooks are zond's, never the program's (x86-64;
# elsewhere the test is skipped).  The stubs' addresses come from objdump.
runtime=$1 prog=$2 stubcheck=$3
[ "$(uname -m)" = x86_64 ] || { echo "skipped: the stub check is x86-64's"; exit 77; }
command -v objdump >/dev/null || { echo "skipped: objdump is missing (binutils)"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
ranges=$(objdump -d "$prog" |
	sed -n 's/^\([0-9a-f]*\) <__cyg_profile_func_\(enter\|exit\)@plt>:$/\1/p' |
	while read -r a; do printf '%x %x ' $((0x$a)) $((0x$a + 16)); done)
[ -n "$ranges" ] || { echo "FAIL: no PLT stub of the hooks in $prog"; exit 1; }
ZOND_TIME=sampled ZOND_DIR="$work" LD_PRELOAD="$runtime" "$prog" >"$work/out" &&
	grep -qx 'ran: yes' "$work/out" || { echo "FAIL: the program did not run"; exit 1; }
# shellcheck disable=SC2086 # the ranges are separate arguments
"$stubcheck" "$work" "$prog" $ranges
