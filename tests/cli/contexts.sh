#!/bin/sh
# A run with calling contexts (the contexts fixture, tests/export/fixture.h)
# through the store and the zond command: the real tree per thread, folded
# stacks with exact calls per stack (-e calls), no "rebuilt" note, and
# callgrind_annotate's inclusive costs.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
work=$1
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1

"$WRITE_FIXTURE" contexts-store 1 ctx.db || exit 1
"$ZOND" export -f folded -e calls -i ctx.db >folded.txt 2>err.txt
check_eq "folded -e calls: exact calls per stack" "$(tr '\n' ' ' <folded.txt)" \
	"main 1 main;A 2 main;A;C 2 main;A;C;X 4 main;B 1 main;B;C 3 main;B;C;Y 3 main;f 1 main;f;g 1 main;f;g;f 1 main;f;g;f;g 1 worker 1 worker;C 1 worker;C;X 2 "
check_eq "folded: nothing on stderr" "$(cat err.txt)" ""
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
finish
