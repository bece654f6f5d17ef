#!/bin/sh
# nested.sh - function symbols nested in one another (tests/trace/nested/nested.c, the shape
# of libgcc's RISC-V -msave-restore millicode), called innermost first (A) and outermost
# first (B), traced by the plugin and --online:
#   - every instruction counts in the innermost function symbol holding it, whichever
#     function's block ran it first: the flat self costs and calls are the ones the program's
#     structure gives, the same for both orders (the first block to run a shared
#     instruction took it for its own function: r3 got r2's and r1's instructions in B);
#   - falling into a nested function's code is no call: calls are the program's calls, a
#     function's min and max are its calls' instruction counts;
#   - the calling contexts: the nested code runs in a frame that counts no call, above the
#     frame it fell from (main;r3;r2;r1), and contexts add up to the flat profile;
#   - (aarch64, riscv64) QEMU's own log of the run, read by the importer, gives the same;
#   - (riscv64) -msave-restore: every __riscv_save_N/__riscv_restore_N and the program's
#     functions have the self cost QEMU's log of the same run gives (nested/qemu_self.py).
#
# Usage: nested.sh ZOND CONTEXTS_DUMP ARCH WORKDIR SRCDIR    (exit 77: cross tools missing)
set -u
export LC_ALL=C
zond=$1 dump=$2 arch=$3 dir=$4/nested-$3 src=$5
cc=$arch-linux-gnu-gcc
[ $arch = x86_64 ] && cc=gcc
qemu=$(command -v "qemu-$arch") && command -v "$cc" >/dev/null || exit 77
mkdir -p "$dir" && cd "$dir" || exit 1
status=0
fail() { echo "FAIL ($arch $order): $*"; status=1; }
own="main r1 r2 r3 wrap mid"

# contexts DUMP: "PATH CALLS SELF" of the program's own functions, paths cut to them.
contexts() {
	awk -F '\t' -v own="$own" '
	BEGIN { n = split(own, o, " "); for (i = 1; i <= n; i++) keep[o[i]] = 1 }
	/^=/ { next }
	{
		n = split($2, f, ";"); p = ""
		for (i = 1; i <= n; i++) if (f[i] in keep) p = p (p == "" ? "" : ";") f[i]
		if (f[n] in keep && f[n] != "main") { calls[p] += $3; self[p] += $4 }
	}
	END { for (k in calls) print k, calls[k], self[k] }' "$1" | sort
}

# funcs DUMP: "NAME CALLS SELF MIN MAX" of the nested functions.
funcs() {
	awk -F '\t' '$1 == "=func" && $3 ~ /^(r[123]|wrap|mid)$/ { print $3, $4, $5, $6, $7 }' "$1" |
		sort
}

# Calls r1 100, r2 20, r3 3, mid 7, wrap 5.  Self: r3 its add per call (3); r2 its add per
# call of r2 or r3 (23); r1 two per call of any (246); wrap its add 8 per call, add 32 and
# ret per call of either (3 x 5 + 2 x 7 = 29); mid one per call of either (12).  Min = max:
# r1 2, r2 3, r3 4, wrap 4 (add 8, add 16, add 32, ret), mid 3.
cat >funcs.want <<'EOT'
mid 7 12 3 3
r1 100 246 2 2
r2 20 23 3 3
r3 3 3 4 4
wrap 5 29 4 4
EOT
cat >contexts.want <<'EOT'
main;mid 7 7
main;mid;wrap 0 14
main;r1 100 200
main;r2 20 20
main;r2;r1 0 40
main;r3 3 3
main;r3;r2 0 3
main;r3;r2;r1 0 6
main;wrap 5 15
main;wrap;mid 0 5
EOT

# sums DUMP: per function, calls and self are the sums over its contexts.
sums() {
	awk -F '\t' '
	/^=func/ { fc[$3] = $4; fs[$3] = $5; next }
	/^=/ { next }
	{ n = split($2, f, ";"); cc[f[n]] += $3; cs[f[n]] += $4 }
	END {
		for (k in fc) if (fc[k] != cc[k] + 0 || fs[k] != cs[k] + 0) {
			print "function " k ": calls " fc[k] " self " fs[k] ", its contexts " cc[k] + 0 " " cs[k] + 0
			bad = 1
		}
		exit bad
	}' "$1"
}

order=build
$cc -O2 -g -static -o nested "$src/nested/nested.c" || { fail build; exit 1; }
for order in A B; do
	env -i "$zond" trace record -q -o $order.ztrace -- "$PWD/nested" $order >out.txt 2>err.txt ||
		fail "record: $(cat err.txt)"
	[ "$(cat out.txt)" = done ] || fail "the program printed '$(cat out.txt)'"
	"$dump" ztrace $order.ztrace >$order.dump || fail "dump: $(cat $order.dump)"
	funcs $order.dump >funcs.got
	cmp -s funcs.want funcs.got ||
		fail "functions (name calls self min max): $(diff funcs.want funcs.got)"
	contexts $order.dump >contexts.got
	cmp -s contexts.want contexts.got || fail "contexts: $(diff contexts.want contexts.got)"
	msg=$(sums $order.dump) || fail "$msg"
	env -i "$zond" trace record -q --online -o $order.db -- "$PWD/nested" $order >/dev/null ||
		fail "record --online"
	"$zond" report -i $order.db -n 0 |
		awk '$NF ~ /^(r[123]|wrap|mid)$/ { print $NF, $1, $3 }' | sort >online.got
	cut -d' ' -f1-3 funcs.want | cmp -s - online.got ||
		fail "--online (name calls self): $(cut -d' ' -f1-3 funcs.want | diff - online.got)"
	[ $arch = x86_64 ] && continue
	env -i "$qemu" -d in_asm,exec,nochain -D $order.log "$PWD/nested" $order >/dev/null ||
		fail "qemu -d"
	"$dump" qemu-log $arch nested $order.log >$order.log.dump || fail "dump qemu-log"
	funcs $order.log.dump | cmp -s funcs.want - ||
		fail "QEMU's log: $(funcs $order.log.dump | diff funcs.want -)"
	contexts $order.log.dump | cmp -s contexts.want - ||
		fail "QEMU's log, contexts: $(contexts $order.log.dump | diff contexts.want -)"
done
# RISC-V -msave-restore (nested/saverestore.c): libgcc's millicode, against QEMU's log of the
# same run (nested/qemu_self.py attributes each executed instruction to the innermost symbol
# holding it), for the millicode and the program's functions, in both orders.
if [ $arch = riscv64 ]; then
	order=save-restore
	$cc -O2 -msave-restore -static -o saverestore "$src/nested/saverestore.c" || fail build
	riscv64-linux-gnu-readelf -sW saverestore >syms.txt || fail readelf
	for order in A B; do
		printf '#!/bin/sh\nexec %s -d in_asm,exec,nochain -D %s "$@"\n' "$qemu" \
			"$PWD/sr$order.log" >qemu-log.sh && chmod +x qemu-log.sh
		env -i "$zond" trace record -q --qemu "$PWD/qemu-log.sh" -o sr$order.ztrace -- \
			"$PWD/saverestore" $order >/dev/null 2>err.txt || fail "record: $(cat err.txt)"
		python3 "$src/nested/qemu_self.py" syms.txt sr$order.log >truth.txt || fail qemu_self.py
		"$dump" ztrace sr$order.ztrace >sr$order.dump || fail "dump: $(cat sr$order.dump)"
		msg=$(sums sr$order.dump) || fail "$msg"
		# zond's self per symbol start (an alias's name stands for its start)
		awk -F '\t' 'NR == FNR { if ($4 == "FUNC") start[$8] = $2; next }
			$1 == "=func" && $3 ~ /^(__riscv_(save|restore)_[0-9]+|f2|f12|g|main)$/ {
				s = start[$3]; sub(/^0+/, "", s); print s, $5 }' \
			FS=' ' syms.txt FS='\t' sr$order.dump | sort >zond.txt
		# every such symbol's start that ran, in both
		awk '$4 == "FUNC" && $8 ~ /^(__riscv_(save|restore)_[0-9]+|f2|f12|g|main)$/ {
			s = $2; sub(/^0+/, "", s); print s }' syms.txt | sort -u >starts.txt
		join starts.txt truth.txt >truth.own
		join -a 1 -a 2 -e none -o 0,1.2,2.2 zond.txt truth.own | awk '$2 != $3' >differ.txt
		[ -s zond.txt ] && [ ! -s differ.txt ] || fail "self (start zond qemu): $(cat differ.txt)"
		grep -q '__riscv_restore_' sr$order.dump || fail "no millicode ran"
	done
fi
[ $status -eq 0 ] && echo "nested ($arch): ok"
exit $status
