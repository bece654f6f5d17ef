# lib.sh - helpers for the shell tests: counted checks, a closing line.
# Usage: . lib.sh; then check_* calls; then finish.
passed=0
failed=0

pass() { passed=$((passed + 1)); }
fail() { failed=$((failed + 1)); echo "FAIL: $*" >&2; }

# check_error "what" EXPECTED_SUBSTRING cmd args...: the command must exit
# non-zero and print exactly one line on stderr, containing the substring.
check_error() {
	what=$1 want=$2
	shift 2
	"$@" >out.txt 2>err.txt
	rc=$?
	lines=$(wc -l <err.txt)
	if [ $rc -eq 0 ]; then
		fail "$what: exit status 0"
	elif [ "$lines" -ne 1 ]; then
		fail "$what: $lines lines on stderr:"; cat err.txt >&2
	elif ! grep -qF -- "$want" err.txt; then
		fail "$what: stderr lacks '$want':"; cat err.txt >&2
	else
		pass
	fi
}

# check_same "what" FILE1 FILE2
check_same() {
	if cmp -s "$2" "$3"; then pass; else fail "$1: $2 and $3 differ"; diff "$2" "$3" | head -20 >&2; fi
}

# check_eq "what" GOT WANT
check_eq() {
	if [ "$2" = "$3" ]; then pass; else fail "$1: got '$2', want '$3'"; fi
}

finish() {
	echo "$passed passed, $failed failed"
	[ $failed -eq 0 ]
}
