# lib.sh - sourced by the inject tests run on programs that count their own
# calls: fail, and compare_counts against zond dump.  Sets status=0.
status=0
fail() { echo "FAIL: $*"; status=1; }

# compare_counts OUT DUMP: every "count NAME N" of OUT is "function NAME calls=N" in DUMP.
compare_counts() {
	grep '^count ' "$1" | while read -r _ name n; do
		grep -qx "function $name calls=$n" "$2" ||
			{ echo "FAIL: $name: program counted $n, zond: $(grep " $name " "$2")"; exit 1; }
	done || status=1
}
