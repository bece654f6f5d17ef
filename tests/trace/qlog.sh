# qlog.sh - sourced by the x86-64 tests: QEMU's own count of what ran, the
# truth zond's counts are checked against.  qlog LOG PROG ARGS... runs PROG
# under qemu-x86_64 -singlestep with its nochain log (one `Trace` line per
# executed instruction: a rep's iterations each, its extra run at count 0
# not); qcount LOG FROM TO counts the lines of PCs in [FROM, TO) (hex digits);
# qfunc LOG PROG FUNC those in FUNC (nm's start and size).
qlog() {
	log=$1
	shift
	qemu-x86_64 -singlestep -d in_asm,exec,nochain -D "$log" "$@"
}
qcount() {
	awk -v lo="$(printf %016x "0x$2")" -v hi="$(printf %016x "0x$3")" '
		/^Trace / { split($0, a, "/"); pc = a[2] ""; if (pc >= lo "" && pc < hi "") n++ }
		END { print n + 0 }' "$1"
}
qfunc() {
	set -- "$1" $(nm -S "$2" | awk -v f="$3" '$4 == f { print $1, $2; exit }')
	[ $# -eq 3 ] || { echo "?"; return; }
	qcount "$1" "$2" "$(printf %x $((0x$2 + 0x$3)))"
}
