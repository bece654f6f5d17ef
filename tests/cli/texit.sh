#!/bin/sh
# Threads ending by pthread_exit from inside calls (progs/texit.c), more of
# them than zond's thread slots, so that ended threads are merged into one
# summary: with exact time, the frames they left open are closed, timed, as
# they end; every calling context's inclusive time is at least its callees'
# (the summary dropped them while keeping their callees: body 2.3 ms over
# callees of 33 ms), and the calls are the program's.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
work=$1
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
n=100

"$ZOND" record -q --time exact -o texit.db -- "$TEXIT" $n >out.txt 2>err.txt || fail "record: $(cat err.txt)"
check_eq "the program's counts" "$(cat out.txt)" "threads $n g $((n * 11))"
"$ZOND" dump -i texit.db >dump.txt || fail "dump"
check_eq "calls" "$(grep -E '^function (body|d2|d3|g) ' dump.txt | tr '\n' '|')" \
	"function body calls=$n|function d2 calls=$n|function d3 calls=$n|function g calls=$((n * 11))|"
"$ZOND" export -f json -i texit.db -o texit.json || fail "export"
check_eq "no context below its callees" "$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
names = {n["id"]: n["name"] for n in d["nodes"]}
ctx = {c["id"]: c for c in d["contexts"]}
kids = {}
for c in d["contexts"]:
    if c["parent"] is not None:
        kids.setdefault(c["parent"], []).append(c)
bad = ["%s %d < %d" % (names[c["node"]], c["incl"]["time"], sum(k["incl"]["time"] for k in kids.get(i, [])))
       for i, c in ctx.items()
       if c["incl"]["time"] < sum(k["incl"]["time"] for k in kids.get(i, []))]
print("; ".join(bad) or "none")' texit.json)" none
finish
