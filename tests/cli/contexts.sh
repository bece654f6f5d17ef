#!/bin/sh
# Calling contexts end to end, through the store and the zond command.
#  - a run with contexts (the contexts fixture, tests/export/fixture.h): the
#    real tree per thread, folded stacks with exact calls per stack (-e
#    calls), no "rebuilt" note, and callgrind_annotate's inclusive costs;
#  - a real `zond record` of the contexts program (which counts its own
#    stacks): its exact stacks in folded, the call tree, dump (its context
#    lines) and JSON;
#  - --contexts 3: the pool overflows, the report says by how much, and the
#    flat counts stay exact;
#  - --time exact: the probe-cost correction never takes a caller below its
#    callees nor any function that ran to 0 (a tiny leaf called 1M times),
#    what it took is shown per function, and the probe cost is measured on
#    the program's own calls too.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
work=$1
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1

"$WRITE_FIXTURE" contexts-store 1 ctx.db || exit 1
"$ZOND" export -f folded -e calls -i ctx.db >folded.txt 2>err.txt
check_eq "folded -e calls: exact calls per stack" "$(tr '\n' ' ' <folded.txt)" \
	"main 1 main;A 2 main;A;C 2 main;A;C;X 4 main;B 1 main;B;C 3 main;B;C;Y 3 main;f 1 main;f;g 1 main;f;g;f 1 main;f;g;f;g 1 worker 1 worker;C 1 worker;C;X 2 "
check_eq "folded: nothing on stderr" "$(cat err.txt)" ""
# a recursive function's average call: every activation's inclusive cost
# (f: 100 and 70 ns), not the outermost ones' over every call (50, below min)
"$ZOND" report -i ctx.db -m '[fg]' >flat.txt 2>err.txt
check_eq "report: avg of recursive f and g" "$(awk '$NF ~ /^[fg]$/ { print $NF, $6, $7 }' flat.txt | sort | tr '\n' '|')" \
	"f 85 ns|g 65 ns|"
"$ZOND" export -f folded --tid 201 -i ctx.db >folded.txt 2>err.txt
check_eq "folded --tid: that thread's stacks and times" "$(tr '\n' ' ' <folded.txt)" \
	"worker 60 worker;C 40 worker;C;X 100 "
"$ZOND" graph --tree --tid 201 -i ctx.db >tree.txt 2>err.txt
check_eq "tree --tid" "$(sed -n '/^ *calls/,$p' tree.txt | sed 1d | tr -s ' ' | tr '\n' '|')" \
	" 1 200 ns 100.00% worker| 1 140 ns 70.00% C| 2 100 ns 50.00% X|"
check_eq "tree: no rebuilt note" "$(grep -c 'no calling contexts' tree.txt)" 0
"$ZOND" export -f callgrind -i ctx.db -o cg.out
callgrind_annotate --inclusive=yes --threshold=100 cg.out >annotate.txt
for want in "1,200 (100.0%)  PROGRAM TOTALS" "100 ( 8.33%)  paths.c:f " "90 ( 7.50%)  paths.c:g " \
	"840 (70.00%)  paths.c:C "; do
	check_eq "callgrind_annotate: $want" "$(grep -cF "$want" annotate.txt)" 1
done

"$ZOND" record -q -o ctx.db -- "$CONTEXTS" >out.txt
check_eq "program's own counts" "$(cat out.txt | tr '\n' ' ')" "main;a;c;x 3 main;b;c;y 5 "
"$ZOND" dump -i ctx.db >dump.txt
check_eq "c calls" "$(grep -c '^function c calls=8$' dump.txt)" 1
check_eq "c -> x" "$(grep -c '^call c -> x calls=3$' dump.txt)" 1
check_eq "dump: the contexts, exact paths and calls" "$(grep '^context ' dump.txt | tr '\n' '|')" \
	"context main calls=1|context main;a calls=3|context main;a;c calls=3|context main;a;c;x calls=3|context main;b calls=5|context main;b;c calls=5|context main;b;c;y calls=5|"
# the real stacks through the store, as the program counted them (edges alone
# would also allow main;a;c;y and main;b;c;x)
"$ZOND" export -f folded -e calls -i ctx.db >rec-folded.txt 2>err.txt
check_eq "recorded: folded -e calls, exact stacks" "$(tr '\n' ' ' <rec-folded.txt)" \
	"main 1 main;a 3 main;a;c 3 main;a;c;x 3 main;b 5 main;b;c 5 main;b;c;y 5 "
check_eq "recorded: folded, nothing on stderr" "$(cat err.txt)" ""
# callgrind_annotate run where users run it, in the source's directory (it takes that
# directory off fl= names but not off cfl= ones): each function once, its inclusive calls
"$ZOND" record -q --no-time -o calls.db -- "$CONTEXTS" >/dev/null
"$ZOND" export -f callgrind -i calls.db -o "$work/calls.cg"
src=$("$ZOND" export -f json -i calls.db | python3 -c '
import json, sys
print(next(n["file"] for n in json.load(sys.stdin)["nodes"] if n["name"] == "c"))')
(cd "$(dirname "$src")" && callgrind_annotate --inclusive=yes --threshold=100 "$work/calls.cg") \
	>cg-here.txt
# (a counts-only run: a called function's inclusive cost is the calls along the edges into it)
for f in main:9 a:3 b:5 c:8 x:3 y:5; do
	check_eq "callgrind_annotate in the source's directory: ${f%:*} once" \
		"$(grep -E "^ *[0-9,]+ \([ 0-9.]+%\) +[^ ]*:${f%:*}( |$)" cg-here.txt |
			awk '{ print $1 }' | tr '\n' ' ')" "${f#*:} "
done
"$ZOND" graph --tree -i ctx.db >rec-tree.txt 2>err.txt
# siblings by time: so short a run gets no sample, and each call costs its
# empty hooks' pair (sampled time's model), so b's 5 calls come before a's 3
check_eq "recorded: call tree" \
	"$(sed -n '/^ *calls/,$p' rec-tree.txt | sed 1d | grep -v '\[no function\]$' |
		awk '{ at = index($0, " " $NF) } NR == 1 { root = at }
			{ printf "%s %d %s|", $1, (at - root) / 2, $NF }')" \
	"1 0 main|5 1 b|5 2 c|5 3 y|3 1 a|3 2 c|3 3 x|"
check_eq "recorded: tree, no rebuilt note" "$(grep -c 'no calling contexts' rec-tree.txt err.txt | tr '\n' ' ')" \
	"rec-tree.txt:0 err.txt:0 "
"$ZOND" export -f json -i ctx.db | python3 -c '
import json, sys
d = json.load(sys.stdin)
names = {n["id"]: n["name"] for n in d["nodes"]}
ctx = {c["id"]: c for c in d["contexts"]}
def path(c):
    return (path(ctx[c["parent"]]) + ";" if c["parent"] is not None else "") + names[c["node"]]
# a sample while no function was open (the random first period may land there): no call
print(" ".join(sorted("%s=%d" % (path(c), c["calls"]) for c in ctx.values()
                      if names[c["node"]] != "[no function]")))' >rec-json.txt
check_eq "recorded: JSON contexts, exact paths" "$(cat rec-json.txt)" \
	"main;a;c;x=3 main;a;c=3 main;a=3 main;b;c;y=5 main;b;c=5 main;b=5 main=1"

# 3 contexts: main, main;a, main;a;c; then x under them (3 calls) and
# b, c, y under main;b (5 calls each) find no room: 18 calls
"$ZOND" record -q -o small.db --contexts 3 -- "$CONTEXTS" >/dev/null
check_eq "lost contexts reported" \
	"$("$ZOND" report -i small.db | grep -c '^warning: *lost_contexts = 18 ')" 1
"$ZOND" dump -i small.db >small-all.txt
check_eq "dump: the contexts kept" "$(grep '^context ' small-all.txt | tr '\n' '|')" \
	"context main calls=1|context main;a calls=3|context main;a;c calls=3|"
grep -v '^context ' dump.txt >flat.txt
grep -v -e '^lost_contexts 18$' -e '^context ' small-all.txt >small.txt
check_same "flat counts with contexts lost" flat.txt small.txt
check_error "--contexts 0" "--contexts wants a number from 1 to" \
	"$ZOND" record -q -o bad.db --contexts 0 -- "$CONTEXTS"
check_error "--time bad" "--time wants sampled or exact" \
	"$ZOND" record -q -o bad.db --time always -- "$CONTEXTS"

# every function that ran has time; a caller's total is at least its callees'
"$ZOND" record -q -o exact.db --time exact -- "$LOOP" 1000000
"$ZOND" dump --times -i exact.db >exact.txt
value() { # LINE-PREFIX FIELD
	grep "^$1 " exact.txt | tr ' ' '\n' | sed -n "s/^$2=//p"
}
for f in main loop leaf; do
	self=$(value "function $f" self.time) total=$(value "function $f" total.time)
	if [ "${self:-0}" -gt 0 ]; then pass; else fail "$f self time '$self'"; fi
	if [ "${total:-0}" -ge "${self:-0}" ]; then pass; else fail "$f total $total < self $self"; fi
done
# (equal in ns when the correction left the caller's own time at its floor, 1 tick)
main=$(value "function main" total.time) loop=$(value "call main -> loop" total.time)
if [ "$main" -ge "$loop" ]; then pass; else fail "main total $main < main -> loop $loop"; fi
loop=$(value "function loop" total.time) leaf=$(value "call loop -> leaf" total.time)
if [ "$loop" -ge "$leaf" ]; then pass; else fail "loop total $loop < loop -> leaf $leaf"; fi
check_eq "leaf calls" "$(grep -c '^function leaf calls=1000000 ' exact.txt)" 1
# what was subtracted is shown per function: loop paid its 1M calls' probes
pc=$(value "function loop" self.probe-cost)
if [ "${pc:-0}" -gt 0 ]; then pass; else fail "loop self.probe-cost '$pc'"; fi
# the probe cost measured on the program's own calls: known, and at least the
# start-up calibration's pair, which it is made of plus the parts measured per
# call (doc/raw-format.md).  How close it comes to the true cost is accuracy,
# bench/accuracy's: a preemption inside a measured part adds milliseconds to
# it, which a loaded machine does (it was once bounded by 8 calibrations here
# and failed under load, s15).
"$ZOND" export -i exact.db -f json | python3 -c '
import json, sys
meta = json.load(sys.stdin)["run"]["meta"]
paid, pair = float(meta["overhead_pair_paid_ns"]), float(meta["overhead_pair_ns"])
sys.exit(0 if 0 < pair <= paid else "paid %g ns, pair %g ns" % (paid, pair))' && pass ||
	fail "overhead_pair_paid_ns"
finish
