# insns.sh - sourced by contexts.sh and timeline.sh (with objdump set to the guest's):
# insns PROGRAM FUNC prints FUNC's instructions up to its first return, from objdump: a
# branchless function's exact instruction count per call.
insns() {
	$objdump -d --no-show-raw-insn "$1" | awk -v f="<$2>:" '
		$2 == f { on = 1; next }
		on && /^ *[0-9a-f]+:/ { n++; if ($2 ~ /^ret/) { print n; exit } }
		on && /^$/ { exit }'
}
