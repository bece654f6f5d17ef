#!/bin/sh
# zond diff on runs of a program whose work its arguments set (progs/scaled.c:
# heavy() WORK million steps once, light() CALLS times): exact call deltas
# from the program's own counts, the CI gate's exit status (3 when heavy() got
# 100 times the work, 0 for the same program twice), campaigns with their
# spread keeping noise from being read as change, and bad input.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
work=$1
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1

# "name calls +/-calls self +/-self" per row of the text table.
rows() { awk 'f { print $NF, $1, $2, $3, $4 } /^ *calls +\+\/-/ { f = 1 }' | sort | tr '\n' '|'; }

# Counts only: deterministic.  Runs 1 and 2 the same, run 3 with 15 more calls of light().
for calls in 10 10 25; do
	"$ZOND" record -q --no-time -o counts.db -- "$SCALED" 1 "$calls" >/dev/null || exit 1
done
"$ZOND" diff -i counts.db 1 2 --fail-above 0 >same.txt 2>err.txt
check_eq "same program: exit 0 under --fail-above 0" $? 0
check_eq "same program: no change" "$(rows <same.txt)" \
	"heavy 1 0 1 0|light 10 0 10 0|main 1 0 1 0|"
check_eq "same program: nothing on stderr" "$(cat err.txt)" ""
"$ZOND" diff -i counts.db >default.txt
check_eq "default sides: run -2 against the newest" "$(head -2 default.txt | cut -d, -f1 | tr '\n' '|')" \
	"A: run 2|B: run 3|"
check_eq "15 more calls of light" "$(rows <default.txt)" "heavy 1 0 1 0|light 25 +15 25 +15|main 1 0 1 0|"
check_eq "sorted by impact" "$(sed -n 5p default.txt | awk '{ print $NF }')" light
check_eq "-n 0: all, as in report" "$("$ZOND" diff -i counts.db -n 0 | rows)" "$(rows <default.txt)"
check_eq "-n 1: the biggest change" "$("$ZOND" diff -i counts.db -n 1 | rows)" "light 25 +15 25 +15|shown) (2 more not shown)|"
# -n beyond the functions compared (3 here): every row, no read past the rows (QA s13 S F2)
check_eq "-n 20 of 3 functions: all" "$("$ZOND" diff -i counts.db -n 20 | rows)" "$(rows <default.txt)"
check_eq "-n 4 of 3 functions: all" "$("$ZOND" diff -i counts.db -n 4 | rows)" "$(rows <default.txt)"
check_eq "--json -n 20 of 3 functions: all" "$("$ZOND" diff -i counts.db --json -n 20 | python3 -c '
import json, sys
print(sorted(f["name"] for f in json.load(sys.stdin)["functions"]))')" "['heavy', 'light', 'main']"
check_eq "relative change and total" "$(sed -n 3p default.txt)" "diff: calls, total A 12, B 27, +15 (+125.00%)"
"$ZOND" diff -i counts.db -r -2 last --fail-above 100 >/dev/null 2>err.txt
check_eq "calls +150% above --fail-above 100: exit 3" $? 3
check_eq "the gate names light" "$(cut -d: -f2 err.txt)" " light"
# sides after "--" count as before it (QA s13 S F6: they were dropped, the defaults compared)
sides() { head -2 | cut -d, -f1 | tr '\n' '|'; }
check_eq "-- 1 2: the sides after --" "$("$ZOND" diff -i counts.db -- 1 2 | sides)" "A: run 1|B: run 2|"
check_eq "1 -- 2: one side each" "$("$ZOND" diff -i counts.db 1 -- 2 | sides)" "A: run 1|B: run 2|"
check_eq "-- -1 -3: run offsets after --" "$("$ZOND" diff -i counts.db -- -1 -3 | sides)" "A: run 3|B: run 1|"
"$ZOND" diff -i counts.db --fail-above 100 -- 2 3 >/dev/null 2>err.txt
check_eq "the gate on the sides after --: exit 3" $? 3
check_error "three sides across --" "more than two sides" "$ZOND" diff -i counts.db 1 -- 2 3
"$ZOND" diff -i counts.db -1 -2 --json >diff.json
check_eq "json: light per side and delta" "$(python3 -c '
import json, sys
d = json.load(open("diff.json"))
f = {x["name"]: x for x in d["functions"]}
l = f["light"]["calls"]
print(d["format"], d["a"]["runs"], d["b"]["runs"], d["event"], l["a"]["mean"], l["b"]["mean"], l["delta"], l["delta_pct"])')" \
	"zond-diff [3] [2] None 25 10 -15 -60"

# Campaigns: base has light() 10, 20 and 30 times (mean 20, spread 20).
for calls in 10 20 30; do
	"$ZOND" record -q --no-time -c base -o camp.db -- "$SCALED" 1 "$calls" >/dev/null || exit 1
done
"$ZOND" record -q --no-time -c near -o camp.db -- "$SCALED" 1 25 >/dev/null || exit 1
"$ZOND" record -q --no-time -c far -o camp.db -- "$SCALED" 1 45 >/dev/null || exit 1
"$ZOND" diff -i camp.db -C base -C near --fail-above 10 >near.txt 2>err.txt
check_eq "+5 calls within the spread of 20: exit 0" $? 0
check_eq "campaign header" "$(head -1 near.txt | cut -d, -f1-2)" "A: campaign base, mean of 3 runs (1..3)"
check_eq "noise column and mark" "$(awk '$NF == "light" { print $1, $2, $6, $7 }' near.txt)" "25 +5 20~ 25"
"$ZOND" diff -i camp.db -C base -C far --fail-above 10 >far.txt 2>err.txt
check_eq "+25 calls beyond the spread of 20: exit 3" $? 3
check_eq "the gate names light" "$(cut -d: -f2 err.txt)" " light"
"$ZOND" diff -i camp.db -C base -C far --json >camp.json
check_eq "json: the base's spread" "$(python3 -c '
import json
d = json.load(open("camp.json"))
l = [x for x in d["functions"] if x["name"] == "light"][0]["calls"]
print(d["a"]["campaign"], d["a"]["runs"], l["a"], l["noise"])')" \
	"base [1, 2, 3] {'mean': 20, 'min': 10, 'max': 30} 20"
# A campaign of repeated runs one of which never called light(): repetitions, averaged (QA
# s15 W2 F1: summed as parts of one measurement, inject --per-run's rule, main called twice)
for calls in 0 20; do
	"$ZOND" record -q --no-time -c some -o camp.db -- "$SCALED" 1 "$calls" >/dev/null || exit 1
done
"$ZOND" diff -i camp.db -C base -C some --fail-above 10 >some.txt 2>err.txt
check_eq "a run without light: exit 0 (nothing grew)" $? 0
check_eq "... its header" "$(sed -n 2p some.txt | cut -d, -f1-2)" "B: campaign some, mean of 2 runs (6..7)"
check_eq "... main once a run, light 10 on average" \
	"$(awk '$NF == "main" || $NF == "light" { print $NF, $1, $2 }' some.txt | sort | tr '\n' '|')" \
	"light 10 -10|main 1 0|"

# Time: heavy() with 100 times the work is caught by the gate (exact time: the
# measured clock, not samples).
"$ZOND" record -q --time exact -o time.db -- "$SCALED" 1 10 >/dev/null || exit 1
"$ZOND" record -q --time exact -o time.db -- "$SCALED" 100 10 >/dev/null || exit 1
"$ZOND" diff -i time.db --fail-above 100 >slow.txt 2>err.txt
check_eq "heavy 100x: exit 3" $? 3
check_eq "the gate names heavy" "$(grep -c '^zond diff: heavy: self .* -> .* above --fail-above 100%$' err.txt)" 1
check_eq "heavy first, time unit" "$(sed -n 3p slow.txt | cut -d, -f1) $(sed -n 5p slow.txt | awk '{ print $NF }')" \
	"diff: time (each value with its unit) heavy"
check_eq "time: exact calls still" "$(rows <slow.txt | tr '|' '\n' | awk '{ print $1, $2, $3 }' | tr '\n' '|')" \
	"heavy 1 0|light 10 0|main 1 0|"

# Bad input: one line, non-zero.
check_error "a run that is not there" "no run 9" "$ZOND" diff -i counts.db 1 9
check_error "three sides" "more than two sides" "$ZOND" diff -i counts.db 1 2 3
check_error "a campaign that is not there" "no campaign 'x'" "$ZOND" diff -i time.db -C x
"$ZOND" record -q --time exact -o counts.db -- "$SCALED" 1 10 >/dev/null || exit 1
check_error "timed B, counts-only A" "run 3 has no event 'time': a counts-only run (compare calls with -e calls)" \
	"$ZOND" diff -i counts.db 3 4
"$ZOND" record -q -o counts.db -- "$SCALED" 1 10 >/dev/null || exit 1 # sampled: cpu-time
check_error "exact against sampled time" "run 4 has no event 'cpu-time' (it has 'time', 'probe-cost'; calls compare with -e calls)" \
	"$ZOND" diff -i counts.db 4 5
"$ZOND" diff -i counts.db 3 4 -e calls >mixed.txt
check_eq "... compared in calls" "$(rows <mixed.txt)" "heavy 1 0 1 0|light 10 -15 10 -15|main 1 0 1 0|"
check_error "bad percentage" "--fail-above wants a percentage" "$ZOND" diff -i counts.db --fail-above x
# a percentage is written in decimal: hex, exponents, inf are refused (QA s15 W2: 0x10 was 16)
for pct in 0x10 1e3 inf -5 " 5"; do
	check_error "percentage '$pct'" "--fail-above wants a percentage, not '$pct'" \
		"$ZOND" diff -i counts.db --fail-above "$pct"
done
finish
