#!/bin/sh
# A real recording (the bundled example) in the viewers' formats, read by
# the viewers themselves: go tool pprof's per-function calls, self times and
# totals equal zond report's, and the mapping carries the program's build id
# as readelf prints it; speedscope's importer sees one profile of the run's
# total and every function's self time as zond report prints them.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
work=$1
export LC_ALL=C
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1

# --time exact: every function timed (sampled time would leave most at 0); the
# run has calling contexts, so the exports' samples are the real stacks
"$ZOND" record -q -o shop.db --time exact -- "$SHOP" >/dev/null || exit 1
# "name calls self" per function, sorted, from zond report (blocks lose their mark).
"$ZOND" report -i shop.db --raw | awk 'f { n = $8; for (i = 9; i <= NF; i++) n = n " " $i
	sub(/ \[block\]$/, "", n); print n "|" $1 "|" $3 } /^ *calls +total/ { f = 1 }' |
	sort -t "|" -k1,1 >report.txt

if command -v go >/dev/null 2>&1; then
	export HOME="$work" GOCACHE="$work/gocache" GOFLAGS=-mod=mod GOTOOLCHAIN=local \
		PPROF_TMPDIR="$work/pprof"
	"$ZOND" export -i shop.db -f pprof -o shop.pb.gz 2>err.txt
	check_eq "pprof: contexts, no note" "$(grep -c 'no calling contexts' err.txt)" 0
	# "name flat" per function for one sample type.
	flat() {
		go tool pprof -top -unit=ns -nodecount=100000 -nodefraction=0 -sample_index="$1" shop.pb.gz 2>/dev/null |
			awk 'f { n = $6; for (i = 7; i <= NF; i++) n = n " " $i
				v = $1; sub(/ns$/, "", v); print n "|" v } /^ *flat *flat%/ { f = 1 }' | sort -t "|" -k1,1
	}
	flat calls >calls.txt
	flat time >time.txt
	# a function of no self time has no time sample: its time is 0
	join -t '|' -a 1 -e 0 -o 0,1.2,2.2 calls.txt time.txt >pprof.txt
	check_same "pprof: calls and self time per function = zond report" pprof.txt report.txt
	total=$("$ZOND" report -i shop.db --raw | sed -n 's/^flat profile: time (ns), total //p')
	check_eq "pprof: total = zond report's" "$(go tool pprof -top -unit=ns shop.pb.gz 2>/dev/null |
		sed -n 's/^Showing nodes accounting for .* of \([0-9]*\)ns total$/\1/p')" "$total"
	build_id=$(readelf -n "$SHOP" | sed -n 's/^ *Build ID: //p')
	check_eq "pprof: the program's mapping and build id" \
		"$(go tool pprof -raw shop.pb.gz 2>/dev/null | grep -c " $SHOP $build_id ")" 1
	# A libcalls run is named after its program, not the first library's mapping
	"$ZOND" libcalls -q -o lib.db -- "$SHOP" >/dev/null || fail "libcalls"
	"$ZOND" export -i lib.db -f pprof -o lib.pb.gz || fail "export libcalls"
	check_eq "pprof: a libcalls run's File" "$(go tool pprof -top lib.pb.gz 2>/dev/null | head -1)" \
		"File: $(basename "$SHOP")"
	# Binary on a terminal: refused (script(1) gives the command a terminal).
	if command -v script >/dev/null 2>&1; then
		script -qec "\"$ZOND\" export -i shop.db -f pprof" /dev/null >tty.txt 2>&1
		check_eq "pprof to a terminal: refused" "$?|$(grep -c 'pprof is gzipped binary' tty.txt)" "2|1"
	fi
	# A run with contexts through the store: one thread, another default event.
	"$WRITE_FIXTURE" contexts-store 2 ctx.db || exit 1
	"$ZOND" export -i ctx.db -f pprof --tid 201 -e cycles -o ctx.pb.gz 2>err.txt
	check_eq "pprof --tid: nothing on stderr" "$(cat err.txt)" ""
	check_eq "pprof --tid -e cycles: that thread, cycles by default" \
		"$(go tool pprof -top ctx.pb.gz 2>/dev/null | sed -n 's/^Showing nodes accounting for .* of \(.*\) total$/\1/p')" \
		600cycles
	check_eq "pprof --tid: the thread's label" \
		"$(go tool pprof -tags ctx.pb.gz 2>/dev/null | grep -c 'worker')" 1
else
	echo "SKIP: pprof checks: go is not installed (scripts/install-deps installs golang-go)"
fi

if [ -d "$NPM_DIR/node_modules/speedscope" ]; then
	"$ZOND" export -i shop.db -f speedscope -o shop.json 2>err.txt
	check_eq "speedscope: contexts, no note" "$(grep -c 'no calling contexts' err.txt)" 0
	node "$SPEEDSCOPE_LOAD" "$NPM_DIR/node_modules/speedscope/dist/release" shop.json >loaded.txt 2>&1
	total=$("$ZOND" report -i shop.db --raw | sed -n 's/^flat profile: time (ns), total //p')
	check_eq "speedscope: one profile, nanoseconds, the run's total" "$(grep '^profile' loaded.txt |
		sed 's/.* unit //')" "nanoseconds total $total"
	# "name|self" of every function of nonzero self time, as zond report has it
	awk -F '|' '$3 != 0 { print $1 "|" $3 }' report.txt >report_self.txt
	sed -n 's/^frame \(.*\) self \([0-9]*\) total [0-9]*$/\1|\2/p' loaded.txt |
		sort -t '|' -k1,1 >speedscope_self.txt
	check_same "speedscope: self time per function = zond report" speedscope_self.txt report_self.txt
	"$WRITE_FIXTURE" contexts-store 2 ctx2.db || exit 1
	"$ZOND" export -i ctx2.db -f speedscope --tid 201 -e cycles -o ctx.json
	check_eq "speedscope --tid -e cycles: one profile, unit none" \
		"$(node "$SPEEDSCOPE_LOAD" "$NPM_DIR/node_modules/speedscope/dist/release" ctx.json 2>&1 |
			grep -v '^frame' | tr '\n' '|')" \
		"group zond run 1: ./paths|profile worker (pid 200, tid 201) unit none total 600|stack worker 180|stack worker;C 120|stack worker;C;X 300|"
else
	echo "SKIP: speedscope checks: speedscope is not installed (tests/export/speedscope_install.sh)"
fi
finish
