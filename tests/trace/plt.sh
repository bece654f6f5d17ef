#!/bin/sh
# plt.sh - PLT stubs named after the function they jump to ("printf@plt", tool/symbols), one
# architecture:
#   - every stub objdump -d names in the C library, the dynamic loader, a dynamic program and
#     (aarch64, x86-64) a static program's IRELATIVE stubs is found by symbols_lookup under
#     objdump's name, at objdump's address, as long as objdump's next label is away (a
#     "*ABS*+0xADDR@plt" stub is named after the indirect function nm shows at ADDR);
#   - traced (plt/libcalls.c), each stub the program calls is a function of its own with the
#     program's own count of calls (getppid 5, puts 3, snprintf 4), and main's inclusive Ir is
#     exactly its self Ir plus the inclusive Ir of each of its calls in `zond graph` and in
#     the callgrind export (with one function for every stub, the call through the PLT that
#     starts the program, never closed, made every later call into a library count as
#     recursive and cost 0 on its edge); so do the library functions the stubs lead to, whose
#     calls into the library's local code (no symbols) are functions of their own;
#   - lazy binding (plt/lazy.c, -z lazy, its own library): every call, the first too, is
#     main;lazy_X@plt;lazy_X, as often as the program says, and the stubs' edges add up;
#   - the library deleted before the report: one warning line naming it;
#   - code named by its unwind entry ([libc.so.6+0xADDR]) starts where readelf lists an FDE.
#
# Usage: plt.sh ZOND SYMBOLS_AT ARCH WORKDIR SRCDIR    (exit 77: cross tools missing)
set -u
zond=$1 symbols_at=$2 arch=$3 dir=$4/plt-$3 src=$5
cc=$arch-linux-gnu-gcc sysroot=/usr/$arch-linux-gnu objdump=$arch-linux-gnu-objdump
nm=$arch-linux-gnu-nm libdir=$sysroot/lib
if [ $arch = x86_64 ]; then
	cc=gcc sysroot=/ objdump=objdump nm=nm libdir=/lib/x86_64-linux-gnu
fi
command -v "$cc" >/dev/null && command -v "qemu-$arch" >/dev/null &&
	command -v "$objdump" >/dev/null || exit 77
mkdir -p "$dir" && cd "$dir" || exit 1
status=0
fail() { echo "FAIL ($arch): $*"; status=1; }

$cc -O2 -g -o libcalls "$src/plt/libcalls.c" || { fail "build libcalls"; exit 1; }
files="libcalls $libdir/libc.so.6"
interp=$(readelf -lW libcalls | sed -n 's/.*Requesting program interpreter: \(.*\)]/\1/p')
[ -n "$interp" ] && files="$files $sysroot/$interp"

# ---- names against objdump ----
for f in $files; do
	# objdump's stub labels: "ADDR NAME" in address order, with the end of each section
	$objdump -d -j .plt -j .plt.sec "$f" 2>/dev/null | awk '
		/^[0-9a-f]+ <.*>:$/ { a = $1; sub(/^0+/, "", a); n = $2; sub(/^</, "", n); sub(/>:$/, "", n)
			if (n ~ /@plt$/) print a, n; else print a, "-" }' >labels.txt
	awk '$2 != "-"' labels.txt >stubs.txt
	[ -s stubs.txt ] || { fail "$f: objdump names no PLT stub"; continue; }
	{ $nm --defined-only "$f"; $nm -D --defined-only "$f"; } 2>/dev/null |
		awk '$2 == "i" { a = $1; sub(/^0+/, "", a); sub(/@.*/, "", $3); print a, $3 }' >ifuncs.txt
	cut -d' ' -f1 stubs.txt | "$symbols_at" "$f" >got.txt || { fail "$f: symbols_at"; continue; }
	awk -v file="$f" '
		FILENAME == "ifuncs.txt" { ifunc[$1 " " $2 "@plt"] = 1; next }
		function hex(s, v, i) { v = 0; for (i = 1; i <= length(s); i++)
			v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1; return v }
		FILENAME == "labels.txt" { if (prev != "") next_at[prev] = $1; prev = $1; next }
		FILENAME == "stubs.txt" { want[$1] = $2; next }
		{
			addr = $1; got = $2; w = want[addr]; n++
			ok = got == w
			if (!ok && w ~ /^\*ABS\*\+0x[0-9a-f]+@plt$/) {
				t = w; sub(/^\*ABS\*\+0x/, "", t); sub(/@plt$/, "", t)
				ok = (t " " got) in ifunc
			}
			if (!ok) { print file ": 0x" addr ": objdump says " w ", zond " got; bad = 1 }
			else if ($3 != addr) { print file ": " w " starts at 0x" $3 ", objdump 0x" addr; bad = 1 }
			else if (addr in next_at && hex(addr) + $4 > hex(next_at[addr])) {
				print file ": " w " is " $4 " bytes, objdump has the next label at 0x" next_at[addr]; bad = 1
			}
		}
		END { if (!n) { print file ": no stub looked up"; bad = 1 } exit bad }' \
		ifuncs.txt labels.txt stubs.txt got.txt >bad.txt || fail "$(head -5 bad.txt)"
done

# A static program's stubs (IRELATIVE), which objdump does not name: each stub of .plt is
# named after an indirect function nm shows (RISC-V's static programs have no PLT).
if [ $arch != riscv64 ]; then
	$cc -O2 -static -o libcalls.static "$src/plt/libcalls.c" || fail "build static"
	readelf -SW libcalls.static | sed 's/^ *\[ *[0-9]*\]//' |
		awk '$1 == ".plt" { print $3, $5 }' >plt.txt
	read -r at size <plt.txt || fail "static: no .plt"
	$nm --defined-only libcalls.static | awk '$2 == "i" { print $3 "@plt" }' | sort -u >ifuncs.txt
	i=0 n=0 step=16
	[ $arch = x86_64 ] && step=8 # a jump through the GOT and a 2-byte nop
	while [ $i -lt $((0x$size)) ]; do
		printf '%x\n' $((0x$at + i))
		i=$((i + step))
	done | "$symbols_at" libcalls.static >got.txt
	while read -r addr name start len; do
		n=$((n + 1))
		grep -qx "$name" ifuncs.txt && [ $start = $addr ] && [ $len = $step ] ||
			fail "static: 0x$addr named '$name' at 0x$start, $len bytes: not an ifunc's stub"
	done <got.txt
	[ $n -gt 0 ] || fail "static: no stub looked up"
fi

# ---- traced: one function per stub, edges that add up ----
if [ $arch = x86_64 ] && ! "$zond" trace record -q -o /dev/null -- /bin/true 2>/dev/null; then
	[ $status = 0 ] && exit 0 # zond without Zydis: no x86-64 traces
fi
rm -f l.ztrace l.db
"$zond" trace record -q -L $sysroot -o l.ztrace -- ./libcalls >/dev/null ||
	{ fail "record"; exit 1; }
"$zond" trace report -q -o l.db l.ztrace || { fail "report"; exit 1; }
for want in getppid@plt=5 puts@plt=3 snprintf@plt=4; do
	name=${want%=*} n=${want#*=}
	got=$("$zond" dump -i l.db | sed -n "s/^function $name calls=\([0-9]*\).*/\1/p")
	[ "$got" = "$n" ] || fail "$name: calls '$got', the program made $n"
done
# zond graph main --raw: "self total calls name" for main, "total calls name" per callee
"$zond" graph -i l.db main --raw >graph.txt || fail "graph main"
"$zond" graph -i l.db --raw >graph-all.txt || fail "graph"
# the run's pid is the traced process's, as its threads' are (it was 0)
"$zond" export -i l.db -f json | python3 -c 'import json, sys
d = json.load(sys.stdin)
sys.exit(0 if d["run"]["pid"] > 0 and d["run"]["pid"] == d["threads"][0]["pid"] else 1)' ||
	fail "the run's pid is not its process's"
awk '
	/^\[[0-9]+\]/ && $NF ~ /^\[/ && $(NF-1) == "main" { self = $3; total = $4; in_main = 1; next }
	/^---/ { in_main = 0; next }
	in_main && NF >= 3 { sum += $1; n++ }
	END {
		if (!n || self + sum != total) { print "main: self " self " + callees " sum " (" n ") != total " total; exit 1 }
	}' graph.txt >bad.txt || fail "graph: $(cat bad.txt)"
"$zond" export -i l.db -f callgrind -o l.cg || fail "export callgrind"
total=$(awk '/^\[[0-9]+\]/ && $(NF-1) == "main" { print $4 }' graph.txt)
# callgrind: main's own cost lines plus the inclusive cost of its calls= lines
awk -v total="$total" '
	/^c?fn=\([0-9]+\) / { id = $1; sub(/^c?fn=/, "", id); name[id] = $2 }
	/^fn=/ { id = $1; sub(/^fn=/, "", id); in_main = name[id] == "main"; next }
	# cost lines "position line Ir" (a jump target line has no cost)
	/^(0x[0-9a-f]+|\+[0-9]+|-[0-9]+|\*|[0-9]+) / && NF == 3 { if (in_main) sum += $NF }
	END { if (sum != total) { print "main in callgrind: " sum " != " total; exit 1 } }
	' l.cg >bad.txt || fail "$(cat bad.txt)"
# The library functions the stubs lead to (named ones: the lazy first call also passes the PLT
# header and the loader's resolver) add up too: their calls into the library's local code
# (no symbol in a stripped libc) are functions of their own by the unwind tables, so never
# one lump with __libc_start_call_main, active for the whole run, that made them recursive.
awk '
	/^------/ {
		if (want && name !~ /^\[/) {
			n++
			if (self + sum != total) { print name ": self " self " + callees " sum " != total " total; bad = 1 }
		}
		want = 0; seen = 0; sum = 0; next
	}
	# "name [N]", or "name (object) [N]" for a name two objects have ("[.plt] (libc.so.6)")
	/^\[[0-9]+\]/ { self = $3; total = $4; name = $(NF-1) ~ /^\(/ ? $(NF-2) : $(NF-1); seen = 1; next }
	!seen && NF >= 3 && ($(NF-1) == "puts@plt" || $(NF-1) == "snprintf@plt") { want = 1; next }
	seen && NF >= 3 { sum += $1 }
	END { if (n != 2) { print n " named functions behind puts@plt and snprintf@plt, not 2"; bad = 1 } exit bad }
	' graph-all.txt >bad.txt || fail "$(cat bad.txt)"
# ---- lazy binding: the resolver's jump to the function it bound ends its frames ----
# plt/lazy.c calls lazy_a, lazy_b and lazy_c of its own library (plt/lazylib.c: names with no
# alias or ifunc on every architecture), linked -z lazy, and prints how often it called each.
# Each call is main -> lazy_X@plt -> lazy_X, the first one too: its resolver frames (the PLT
# header's, ld.so's) end when the resolver jumps to lazy_X, their cost under lazy_X@plt.  Before,
# the first call's lazy_X sat under them, and they stayed open from the first lazy call on
# (_start -> __libc_start_main@plt, which never returns), so every later first call into the
# header was a recursive one: its edge cost 0 and the stub's callees did not add up.
$cc -O1 -g -shared -fPIC -o liblazy.so "$src/plt/lazylib.c" &&
	$cc -O1 -g -Wl,-z,lazy -o lazy "$src/plt/lazy.c" -L. -llazy -Wl,-rpath,"$PWD" ||
	{ fail "build lazy"; exit 1; }
rm -f z.ztrace z.db
"$zond" trace record -q -L $sysroot -o z.ztrace -- ./lazy >lazy.out || { fail "record lazy"; exit 1; }
"$zond" trace report -q -o z.db z.ztrace || { fail "report lazy"; exit 1; }
"$zond" export -i z.db -f folded -e calls >lazy.folded || fail "folded lazy"
"$zond" graph -i z.db --raw >lazy.graph || fail "graph lazy"
while read -r f n; do
	stub=$(awk -v s=";main;$f@plt " 'index($0 " ", s) { sub(/.* /, ""); t += $0 } END { print t + 0 }' lazy.folded)
	direct=$(awk -v s=";main;$f@plt;$f " 'index($0 " ", s) { sub(/.* /, ""); t += $0 } END { print t + 0 }' lazy.folded)
	[ "$stub" = "$n" ] && [ "$direct" = "$n" ] ||
		fail "lazy: main;$f@plt $stub calls, main;$f@plt;$f $direct: the program made $n"
	# the stub's self cost and its callees' edges add up to its inclusive cost
	awk -v f="$f@plt" '
		/^------/ { if (seen) exit; next }
		/^\[[0-9]+\]/ { if ($(NF-1) == f) { self = $3; total = $4; seen = 1 } else if (seen) exit; next }
		seen && NF >= 3 { sum += $1 }
		END { if (!seen || self + sum != total) { print f ": self " self " + callees " sum " != total " total; exit 1 } }
		' lazy.graph >bad.txt || fail "lazy: $(cat bad.txt)"
done <lazy.out
[ "$(wc -l <lazy.out)" = 3 ] || fail "lazy: the program said $(cat lazy.out)"
# the start's own lazy call (not on x86-64: _start calls through the GOT): __libc_start_main
# under its stub, the resolver's frames ended
if grep -q ";__libc_start_main@plt " lazy.folded; then
	grep -q ";__libc_start_main@plt;__libc_start_main " lazy.folded ||
		fail "lazy: __libc_start_main is not called by its stub"
fi
# ---- a library gone before the report: one warning naming it, its code named by address ----
mv liblazy.so liblazy.keep
"$zond" trace report -q -o gone.db z.ztrace 2>err.txt
rc=$?
mv liblazy.keep liblazy.so
[ $rc = 0 ] || fail "library gone: report failed: $(cat err.txt)"
[ "$(wc -l <err.txt)" = 1 ] &&
	grep -q "^zond trace: z.ztrace: warning: $(pwd -P)/liblazy.so: No such file or directory: its code is named by address" err.txt ||
	fail "library gone: said '$(cat err.txt)'"
"$zond" dump -i gone.db | grep -q "^function main " || fail "library gone: main not named"
"$zond" dump -i gone.db | grep -q "^function lazy_a " && fail "library gone: lazy_a named"

# ---- code without symbols: one function per unwind entry ----
# A stripped library's local functions are named by their unwind entries (FDEs): each such
# name's address must be where readelf says an FDE starts.  Before, each row of an FDE (every
# change of the CFA in a prologue) was a function of its own, and falling from one into the
# next a tail call: stacks of [libc.so.6+0x27710];[libc.so.6+0x27714];...
"$zond" export -i l.db -f folded -e calls >l.folded || fail "folded libcalls"
n=0
for f in $libdir/libc.so.6 ${interp:+$sysroot/$interp}; do
	base=${f##*/}
	readelf --debug-dump=frames "$f" 2>/dev/null |
		sed -n 's/.* FDE .*pc=0*\([0-9a-f]*\)\.\..*/\1/p' | sort -u >fdes.txt
	cat l.folded lazy.folded | awk -v b="[$base+0x" '
		{ k = split($1, fr, ";"); for (i = 1; i <= k; i++)
			if (index(fr[i], b) == 1) { a = substr(fr[i], length(b) + 1); sub(/\]$/, "", a); print a } }' |
		sort -u >named.txt
	n=$((n + $(wc -l <named.txt)))
	bad=$(comm -23 named.txt fdes.txt | head -3)
	[ -z "$bad" ] || fail "$base: functions named at 0x$(echo $bad | sed 's/ /, 0x/g'), where no unwind entry starts"
done
[ $n -gt 0 ] || fail "no function named by an unwind entry"
exit $status
