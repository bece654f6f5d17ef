#!/bin/sh
# Exports of a deep recursion (progs/recurse.c): folded stacks, pprof and
# speedscope write every context's whole path, quadratic in the depth.  The
# pprof writer holds one stack at a time (it held all: 8 bytes a frame, 150 MB
# for 6,000 levels, the machine's whole memory for 100,000), so it fits in a
# small address space and go tool pprof reads every call back; a run whose
# stacks hold 10^8 frames or more is said before it is written.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
work=$1
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1

"$ZOND" record -q --no-time --depth 6100 -o d.db -- "$RECURSE" 6000 >out.txt 2>err.txt ||
	fail "record: $(cat err.txt)"
check_eq "the program's output" "$(cat out.txt)" 6000
if (ulimit -v 100000 && "$ZOND" --version >/dev/null 2>&1); then
	(ulimit -v 100000 && "$ZOND" export -i d.db -f pprof -o d.pb.gz) 2>err.txt ||
		fail "pprof export in 100 MB of address space: $(cat err.txt)"
else # a sanitizer build reserves more address space than that
	echo "note: zond does not run under ulimit -v (a sanitizer build): its memory not checked"
	"$ZOND" export -i d.db -f pprof -o d.pb.gz 2>err.txt || fail "pprof export: $(cat err.txt)"
fi
check_eq "no warning at 18 million frames" "$(cat err.txt)" ""
if command -v go >/dev/null 2>&1; then
	export HOME="$work" GOCACHE="$work/gocache" GOTOOLCHAIN=local PPROF_TMPDIR="$work/pprof"
	check_eq "go tool pprof: every call (main and 6,001 of r)" "$(go tool pprof -top -sample_index=calls d.pb.gz 2>/dev/null |
		sed -n 's/^Showing nodes accounting for .* of \([0-9]*\) total$/\1/p')" 6002
fi

"$ZOND" record -q --no-time --depth 14300 -o e.db -- "$RECURSE" 14200 >/dev/null 2>err.txt ||
	fail "record 14200: $(cat err.txt)"
"$ZOND" export -i e.db -f folded -o /dev/null 2>err.txt || fail "folded: $(cat err.txt)"
check_eq "the warning" "$(cat err.txt)" "zond export: warning: the stacks of run 1 hold \
100855503 frames (14202 deep at most): folded writes each one whole, gigabytes to write and to \
read; \`zond graph --tree\` and --format json or callgrind stay linear"

# The exact clock on 12,000 levels (QA s15 W2): each context's time is rounded
# to ns on its own, a time that ran 1 ns at least, so the selves of 12,000
# contexts of one call added up to microseconds above the outermost inclusive
# converted once (r's self above its total, main's stacks above main's time).
# No context's inclusive may be below its self and its children's together.
"$ZOND" record -q --time exact --depth 12100 -o x.db -- "$RECURSE" 12000 >out.txt 2>err.txt ||
	fail "record --time exact 12000: $(cat err.txt)"
check_eq "the program's output" "$(cat out.txt)" 12000
"$ZOND" export -i x.db -f json -o x.json 2>err.txt || fail "json: $(cat err.txt)"
cat >sums.py <<'EOF'
import json, sys
doc = json.load(open(sys.argv[1]))
below = {}
for c in doc["contexts"]:
	if c["parent"] is not None:
		below[c["parent"]] = below.get(c["parent"], 0) + c["incl"]["time"]
bad = [c["id"] for c in doc["contexts"] if c["incl"]["time"] < c["self"]["time"] + below.get(c["id"], 0)]
r = next(n for n in doc["nodes"] if n["name"] == "r")
ok = not bad and r["self"]["time"] <= r["incl"]["time"]
print("ok" if ok else "%d contexts below their self and children; r self %d, total %d" %
      (len(bad), r["self"]["time"], r["incl"]["time"]))
EOF
check_eq "every inclusive time at least its self and its children's" "$(python3 sums.py x.json)" ok
finish
