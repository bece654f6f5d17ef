#!/bin/sh
# Calling contexts and time modes under zond record, end to end.
#  - the contexts program's counts (the program counts its own stacks);
#  - --contexts 3: the pool overflows, the report says by how much, and the
#    flat counts stay exact;
#  - --time exact: the probe-cost correction never takes a caller below its
#    callees nor any function that ran to 0 (a tiny leaf called 1M times),
#    and the probe cost is measured on the program's own calls too.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
work=$1
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1

"$ZOND" record -q -o ctx.db -- "$CONTEXTS" >out.txt
check_eq "program's own counts" "$(cat out.txt | tr '\n' ' ')" "main;a;c;x 3 main;b;c;y 5 "
"$ZOND" dump -i ctx.db >dump.txt
check_eq "c calls" "$(grep -c '^function c calls=8$' dump.txt)" 1
check_eq "c -> x" "$(grep -c '^call c -> x calls=3$' dump.txt)" 1

# 3 contexts: main, main;a, main;a;c; then x under them (3 calls) and
# b, c, y under main;b (5 calls each) find no room: 18 calls
"$ZOND" record -q -o small.db --contexts 3 -- "$CONTEXTS" >/dev/null
check_eq "lost contexts reported" \
	"$("$ZOND" report -i small.db | grep -c '^warning: *lost_contexts = 18 ')" 1
"$ZOND" dump -i small.db >small.txt
check_same "flat counts with contexts lost" dump.txt small.txt
check_error "--contexts 0" "--contexts wants a positive number" \
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
# the probe cost measured on the program's own calls (1 in 256): known, and no
# more than 8 start-up calibrations (the bound that keeps interrupts out)
"$ZOND" export -i exact.db -f json | python3 -c '
import json, sys
meta = json.load(sys.stdin)["run"]["meta"]
paid, pair = float(meta["overhead_pair_paid_ns"]), float(meta["overhead_pair_ns"])
sys.exit(0 if 0 < paid <= 8 * pair else 1)' && pass || fail "overhead_pair_paid_ns"
finish
