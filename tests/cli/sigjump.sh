#!/bin/sh
# A signal handler that siglongjmps out of instrumented code (the timeout
# pattern, progs/sigjump.c) lands in zond's probes most of the time and
# leaves them half done: zond must take the thread back (it kept it busy for
# good: every later call lost, "lost_funcs ... raise --funcs") and close a
# frame whose start it never read untimed (it was charged from tick 0: main
# 50,000 s in a 0.1 s run).  Exact and sampled time: counts as the program's
# own, and no time above the run's; zond libcalls alike.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
work=$1
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
rounds=50

# count NAME: NAME's calls in dump.txt
count() { sed -n "s/^function $1 calls=//p" dump.txt; }

for time in exact sampled; do
	"$ZOND" record -q --time $time -o j$time.db -- "$SIGJUMP" $rounds >out.txt 2>err.txt ||
		fail "$time: record: $(cat err.txt)"
	# (spin's: up to 51 a round, fewer when the timer fires before the descent ends)
	check_eq "$time: the program's counts" "$(sed 's/^spin [0-9]* //; s/ leaf [0-9]*$//' out.txt)" \
		"after $rounds handler $rounds"
	check_eq "$time: nothing lost" "$(grep -c 'lost_' err.txt)" 0
	"$ZOND" dump -i j$time.db >dump.txt || fail "$time: dump"
	check_eq "$time: after's calls" "$(count after)" $rounds
	check_eq "$time: handler's calls" "$(count handler)" $rounds
	# spin's and leaf's: the program's, and at most one more a jump (a call
	# the jump cut short between its entry and the body's count)
	for f in spin leaf; do
		want=$(awk -v f=$f '{ for (i = 1; i < NF; i++) if ($i == f) print $(i + 1) }' out.txt)
		got=$(count $f)
		check_eq "$time: $f's calls within [$want, $want + $rounds] ($got)" \
			"$([ "${got:-0}" -ge "$want" ] && [ "$got" -le $((want + rounds)) ] && echo yes)" yes
	done
	# no inclusive time above the run's duration
	"$ZOND" export -f json -i j$time.db -o j$time.json || fail "$time: export"
	check_eq "$time: times within the run" "$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
dur = d["run"]["duration_ns"]
ev = d["events"][0]["name"]
bad = [n["name"] for n in d["nodes"] if n["incl"].get(ev, 0) > dur]
print(" ".join(bad) or "none")' j$time.json)" none
done

# zond libcalls: the library calls strtol (one a leaf, but for a jump between
# the two), setitimer and siglongjmp
"$ZOND" libcalls -q -o lib.db -- "$SIGJUMP" $rounds >out.txt 2>err.txt || fail "libcalls: $(cat err.txt)"
check_eq "libcalls: nothing lost" "$(grep -c 'lost_' err.txt)" 0
"$ZOND" dump -i lib.db >dump.txt || fail "libcalls: dump"
check_eq "libcalls: siglongjmp's calls" "$(count siglongjmp)" $rounds
check_eq "libcalls: setitimer's calls" "$(count setitimer)" $rounds
leaf=$(awk '{ print $NF }' out.txt) got=$(count strtol)
check_eq "libcalls: strtol's calls within [$leaf - $rounds, $leaf + $rounds] ($got)" \
	"$([ "${got:-0}" -ge $((leaf - rounds)) ] && [ "$got" -le $((leaf + rounds)) ] && echo yes)" yes
finish
