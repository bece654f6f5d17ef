#!/bin/sh
# contexts.sh - calling contexts from the rebuild (tests/trace/contexts/contexts.c), at -O0
# and -O2, traced by the plugin:
#   - the stacks of the program's own functions and their call counts are exactly those its
#     structure gives ("expect:" lines; "threads:" lines for the worker threads, by thread
#     in creation order): two callers of one callee calling different leaves, mutual
#     recursion, longjmp out of a recursion, a signal handler's calls;
#   - a branchless leaf's self cost is, in every context, its calls times its instruction
#     count in objdump (up to its return), and min = max = that count, in each context and
#     in the function's stats;
#   - the contexts add up to the flat profile: per thread and function, calls and self
#     (which rebuild.c computes from per-instruction counts) are the sums over the
#     function's contexts, and all self costs add up to the trace length;
#   - (aarch64, riscv64) QEMU's `-d in_asm,exec,nochain` log of a run without threads, read
#     by the log importer, gives the same contexts as the plugin's trace of that run;
#   - C++ exceptions (contexts/except.cc, static, at -O0 and -O2): the unwinder jumps to each
#     frame's landing pad, and the stacks of the calls made there (a destructor's, a catch
#     clause's) are the program's, the contexts adding up as above.
#
# Usage: contexts.sh ZOND CONTEXTS_DUMP ARCH WORKDIR SRCDIR    (exit 77: cross tools missing)
set -u
zond=$1 dump=$2 arch=$3 dir=$4/contexts-$3 src=$5/contexts
cc=$arch-linux-gnu-gcc cxx=$arch-linux-gnu-g++ objdump=$arch-linux-gnu-objdump
[ $arch = x86_64 ] && cc=gcc cxx=g++ objdump=objdump
qemu=$(command -v "qemu-$arch") && command -v "$cc" >/dev/null || exit 77
mkdir -p "$dir" && cd "$dir" || exit 1
status=0
fail() { echo "FAIL ($arch $variant): $*"; status=1; }
own="main caller_a caller_b shared leaf_x leaf_y is_even is_odd dive after handler work worker"
own_cxx="main catcher mid thrower guard_done after"

# project DUMP [OWN]: "THREAD PATH CALLS" for the program's own functions, paths summed.
project() {
	awk -F '\t' -v own="${2:-$own}" '
	BEGIN { n = split(own, o, " "); for (i = 1; i <= n; i++) keep[o[i]] = 1 }
	/^=/ { next }
	{
		n = split($2, f, ";"); p = ""
		for (i = 1; i <= n; i++) if (f[i] in keep) p = p (p == "" ? "" : ";") f[i]
		if (p != "" && (f[n] in keep)) calls[$1 " " p] += $3
	}
	END { for (k in calls) print k, calls[k] }' "$1" | sort
}

. "$5/insns.sh"

# sums DUMP: contexts against the flat profile and the trace length; silent when they hold.
sums() {
	awk -F '\t' '
	/^=insns/ { insns = $2; next }
	/^=func/ { fc[$2 " " $3] = $4; fs[$2 " " $3] = $5; next }
	{ n = split($2, f, ";"); k = $1 " " f[n]; cc[k] += $3; cs[k] += $4; total += $4 }
	END {
		bad = 0
		for (k in fc) if (fc[k] != cc[k] + 0 || fs[k] != cs[k] + 0) {
			print "function " k ": calls " fc[k] " self " fs[k] ", its contexts " cc[k] + 0 " " cs[k] + 0
			bad = 1
		}
		for (k in cc) if (!(k in fc)) { print "context of " k " without a function"; bad = 1 }
		if (total != insns) { print "self costs add up to " total ", not " insns; bad = 1 }
		exit bad
	}' "$1"
}

for variant in O0 O2; do
	$cc -$variant -g -static -pthread -o contexts "$src/contexts.c" || { fail build; continue; }
	env -i "$zond" trace record -q -o full.ztrace -- "$PWD/contexts" >out.txt 2>err.txt ||
		fail "record: $(cat err.txt)"
	"$dump" ztrace full.ztrace >full.dump || fail "dump: $(cat full.dump)"
	project full.dump >full.got
	sed -n 's/^ \* \(expect\|threads\): //p' "$src/contexts.c" | sort >full.want
	cmp -s full.want full.got || fail "stacks differ from the program's: $(diff full.want full.got)"
	msg=$(sums full.dump) || fail "$msg"
	for leaf in leaf_x leaf_y; do
		n=$(insns contexts $leaf)
		[ -n "$n" ] || { fail "no $leaf in objdump"; continue; }
		bad=$(awk -v leaf=$leaf -v n=$n '(!/^=/ && $2 ~ (";" leaf "$") &&
			($4 != $3 * n || $6 != n || $7 != n)) ||
			($1 == "=func" && $3 == leaf && ($6 != n || $7 != n)) { print }' full.dump)
		[ -z "$bad" ] || fail "$leaf is $n instructions, its contexts say: $bad"
	done
	[ $arch = x86_64 ] && continue
	env -i "$zond" trace record -q -o one.ztrace -- "$PWD/contexts" nothreads >out1.txt ||
		fail "record nothreads"
	env -i "$qemu" -d in_asm,exec,nochain -D qemu.log "$PWD/contexts" nothreads >out2.txt ||
		fail "qemu -d"
	"$dump" ztrace one.ztrace >one.dump && "$dump" qemu-log $arch contexts qemu.log >log.dump ||
		fail "dump nothreads"
	cmp -s one.dump log.dump || fail "log importer's contexts differ: $(diff one.dump log.dump | head)"
	sed -n 's/^ \* expect: //p' "$src/contexts.c" | sort >one.want
	project one.dump >one.got
	cmp -s one.want one.got || fail "nothreads: $(diff one.want one.got)"
done
for variant in O0 O2; do
	command -v "$cxx" >/dev/null || { fail "no $cxx"; break; }
	$cxx -$variant -g -static -o except "$src/except.cc" || { fail "build except.cc"; continue; }
	env -i "$zond" trace record -q -o except.ztrace -- "$PWD/except" >except.out 2>except.err ||
		fail "record except: $(cat except.err)"
	[ "$(cat except.out)" = "48 9" ] || fail "except printed '$(cat except.out)', not '48 9'"
	"$dump" ztrace except.ztrace >except.dump || fail "dump except: $(cat except.dump)"
	project except.dump "$own_cxx" >except.got
	sed -n 's/^ \* expect: //p' "$src/except.cc" | sort >except.want
	cmp -s except.want except.got || fail "except: $(diff except.want except.got)"
	msg=$(sums except.dump) || fail "except: $msg"
done
[ $status -eq 0 ] && echo "ok ($arch): contexts hold the program's stacks, leaf costs and the flat sums"
exit $status
