#!/bin/sh
# The bundled example under zond record: the program behaves exactly as
# without zond, and the profile has its exact call counts.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
work=$1
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1

"$SHOP" >plain.out 2>plain.err
plain_rc=$?
"$ZOND" record -q -o shop.db -- "$SHOP" >zond.out 2>zond.err
zond_rc=$?
check_same "stdout under zond" plain.out zond.out
check_eq "exit status under zond" "$zond_rc" "$plain_rc"

"$ZOND" dump -i shop.db >dump.txt
# Counts known from the program's source: 60000 orders, fib(20) once.
check_eq "write_order_line calls" "$(grep -c '^function write_order_line calls=60000$' dump.txt)" 1
check_eq "fibonacci calls" "$(grep -c '^function fibonacci calls=21891$' dump.txt)" 1
check_eq "main calls" "$(grep -c '^function main calls=1$' dump.txt)" 1
check_eq "root edge" "$(grep -c '^call - -> main calls=1$' dump.txt)" 1
check_eq "recursive edge" "$(grep -c '^call fibonacci -> fibonacci calls=21890$' dump.txt)" 1
check_eq "block" "$(grep -c '^block stock update shop.c:[0-9]* calls=59413$' dump.txt)" 1
check_eq "one thread" "$(head -1 dump.txt)" "threads 1"

# --filter/--exclude: only the chosen functions are recorded, counts unchanged.
"$ZOND" record -q -o filter.db -F 'make_*' -F main -F run_day -N make_name -- "$SHOP" >/dev/null
# (a sample may land where no recorded function is open: time, no call, of "[no function]")
"$ZOND" dump -i filter.db | grep '^function' | grep -v '^function \[no function\] calls=0$' >filtered.txt
printf 'function main calls=1\nfunction make_sku calls=62000\nfunction run_day calls=1\n' >want.txt
check_same "filtered functions" filtered.txt want.txt
"$ZOND" dump -i filter.db | grep -c '^call run_day -> make_sku calls=60000$' >edge.txt
check_eq "filtered edge" "$(cat edge.txt)" 1

# --trigger: only calls made while take_order runs (and take_order itself).
"$ZOND" record -q -o trigger.db -T take_order -- "$SHOP" >/dev/null
"$ZOND" dump -i trigger.db | grep '^function' | sort >trig.txt
check_eq "trigger: take_order" "$(grep -c '^function take_order calls=60000$' trig.txt)" 1
check_eq "trigger: find_product" "$(grep -c '^function find_product calls=60000$' trig.txt)" 1
check_eq "trigger: nothing outside" "$(grep -c 'run_day\|write_order_line\|main' trig.txt)" 0

# The recorded profile, read by the programs users open it with: the
# exports' totals of the first event are the dump's self costs summed, in
# either time mode (sampled: cpu-time; exact: time).
check_totals() { # DB EVENT
	total=$("$ZOND" dump --times -i "$1" | awk -v ev="self.$2=" '$1 == "function" || $1 == "block" {
		for (i = 1; i <= NF; i++) if (index($i, ev) == 1) { sub(ev, "", $i); n += $i } }
		END { print n + 0 }')
	"$ZOND" export -i "$1" --format callgrind -o "callgrind.out.$2"
	annotated=$(callgrind_annotate "callgrind.out.$2" 2>&1 | awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1 }')
	check_eq "callgrind_annotate total ($2)" "$annotated" "$total"
	"$ZOND" export -i "$1" --format folded -o "$2.folded"
	check_eq "folded total ($2)" "$(awk '{ n += $NF } END { print n + 0 }' "$2.folded")" "$total"
}
check_totals shop.db cpu-time
"$ZOND" record -q -o exact.db --time exact -- "$SHOP" >/dev/null
check_totals exact.db time
"$ZOND" export -i shop.db --format dot -o shop.dot
if dot -Tsvg shop.dot >shop.svg && grep -q "take_order" shop.svg; then pass; else fail "dot"; fi

# A campaign: two runs filed together, combined by -C; another run stays apart.
"$ZOND" record -q -o camp.db -c nightly -- "$SHOP" >/dev/null
"$ZOND" record -q -o camp.db -- "$SHOP" >/dev/null
"$ZOND" record -q -o camp.db -c nightly -- "$SHOP" >/dev/null
"$ZOND" dump -i camp.db -C nightly >camp.txt
check_eq "campaign: calls combined" "$(grep -c '^function write_order_line calls=120000$' camp.txt)" 1
check_eq "campaign: threads of both runs" "$(head -1 camp.txt)" "threads 2"
check_eq "campaign: runs listed" "$("$ZOND" runs -i camp.db | grep -c '\[nightly\]')" 2
check_error "campaign: unknown" "no campaign 'weekly'" "$ZOND" report -i camp.db -C weekly
check_eq "campaign of one time mode: no warning" "$("$ZOND" report -i camp.db -C nightly | grep -c '^warning:')" 0
# a run of another time mode in it: its costs are some runs', its calls all runs' -- said
"$ZOND" record -q -o camp.db -c nightly --time exact -- "$SHOP" >/dev/null
check_eq "campaign of two time modes: said" \
	"$("$ZOND" report -i camp.db -C nightly | grep -c '^warning: .*time in 1 of 3 runs')" 1

"$ZOND" report -i shop.db >report.txt
if grep -q "write_order_line" report.txt; then pass; else fail "report lacks write_order_line"; fi
finish
