#!/bin/sh
# `zond graph '[MODULE]'` on a libcalls run (F5 of QA round s12): the calling
# module every root call names as its caller has an entry like any function:
# its callees with the calls along each, its total the cost along them, no
# callers and `-` for what it has not (self cost, calls); other entries name
# it with its index.  The flat profile still has no row for it.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
work=$1
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1

cat >p.c <<'END'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int main(int argc, char **argv)
{
	size_t s = 0;
	(void)argc;
	for (int i = 0; i < 100; i++)
		s += strlen(argv[0]) + (size_t)abs(-i);
	printf("%zu\n", s);
	return 0;
}
END
cc -O1 -fno-builtin -o p p.c || fail "build"
M="[$PWD/p]"
for mode in --no-time --time=exact; do
	rm -f p.db
	"$ZOND" libcalls -q $mode -o p.db -- ./p >/dev/null || fail "libcalls $mode"
	"$ZOND" graph -i p.db "$M" >g.txt 2>&1
	check_eq "$mode: graph [MODULE] exit status" "$?" 0
	# the entry: its own line, then its callees (calls along/all of the callee)
	sed -n '/^----/,$p' g.txt | sed '1d;$d' | sed 's/ \[[0-9]*\]$//' | awk '{print $(NF-1), $NF}' |
		sort >entry.txt
	printf '%s\n' "- $M" "1/1 printf" "1/1 strlen" "100/100 abs" | sort >want.txt
	check_same "$mode: graph [MODULE] lists its callees" entry.txt want.txt
	check_eq "$mode: the module's index" "$(grep -c "^\[1\] .* - *\[$PWD/p\] \[1\]$" g.txt)" 1
	check_eq "$mode: no caller line" "$(sed -n '2,/^\[1\]/p' g.txt | grep -c '<root>')" 0
	check_eq "$mode: strlen's entry names the module by its index" \
		"$("$ZOND" graph -i p.db strlen | grep -c "1/1 *\[$PWD/p\] \[1\]$")" 1
	check_eq "$mode: no flat-profile row for the module" "$("$ZOND" report -i p.db | grep -c "\[$PWD/p\]")" 0
done
# with time: the module's total is the cost along its calls, the run's total
"$ZOND" graph -i p.db "$M" >g.txt
check_eq "the module's share" "$(grep -c '^\[1\] *100\.00% *- ' g.txt)" 1
finish
