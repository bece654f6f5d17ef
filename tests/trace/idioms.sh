#!/bin/sh
# idioms.sh - the idiom corpus (tests/trace/idioms/): one small program per rule of the
# rebuild (recursion, mutual recursion, tail calls, PLT stubs, longjmp, signal delivery and
# sigreturn, start-up code that never returns and its typeless labels (__wrap_main, load_gp),
# the end of the trace with frames open), built
# at -O0 and -O2 (x86-64: natively built, its libraries from /) and, on RISC-V, with and without compressed instructions and with
# -msave-restore.  On each:
#   - entry counts of the program's functions equal gprof's (-pg build, same arch), or the
#     counts the source states ("expect:") where gprof cannot write its file (_exit);
#   - conservation: the Ir of the callgrind-bb export add up to the trace length, and every
#     basic block ran as often as the edges into it were taken (plus one for the block where
#     the trace begins).
#
# Usage: idioms.sh ZOND ARCH WORKDIR SRCDIR    (exit 77: cross tools missing)
set -u
zond=$1 arch=$2 dir=$3/idioms-$2 src=$4/idioms
cc=$arch-linux-gnu-gcc
sysroot=/usr/$arch-linux-gnu
[ $arch = x86_64 ] && sysroot=/
command -v "$cc" >/dev/null && command -v "qemu-$arch" >/dev/null || exit 77
mkdir -p "$dir" && cd "$dir" || exit 1
status=0 checked=0
fail() { echo "FAIL ($arch $variant $prog): $*"; status=1; }

case $arch in
aarch64 | x86_64) variants="O0:-O0 O2:-O2" ;;
*) variants="O0:-O0 O2:-O2 O2-rv64g:-O2_-march=rv64g O0-rv64g:-O0_-march=rv64g
	O2-save-restore:-O2_-msave-restore" ;;
esac

# conservation CALLGRIND_BB_FILE INSTRUCTIONS: silent when it holds.
conservation() {
	awk -v insns="$2" '
	function id(s) { sub(/^[a-z]+=\(/, "", s); sub(/\).*/, "", s); return s }
	# blocks are (object, file, name), as for callgrind: "[.plt]+0x20" exists in several
	# objects, ld.so has a static check_match in dl-lookup.c and in dl-lookup-direct.c
	/^c?fn=\([0-9]+\) / { fname[id($0)] = $2 }
	/^ob=/ { ob = id($0); next }
	/^cob=/ { cob = id($0); next }
	/^fl=/ { fl = id($0); next }
	/^cfl=/ { cfl = id($0); next }
	# cob= and cfl= only when the callee is elsewhere: by default the caller ones
	/^fn=/ { cur = ob ":" fl ":" id($0); name[cur] = fname[id($0)]; first = 1; cob = ob; cfl = fl; next }
	/^cfn=/ { callee = cob ":" cfl ":" id($0); cob = ob; cfl = fl; next }
	/^calls=/ { split($0, a, /[= ]/); in_[callee] += a[2]; skip = 1; next }
	/^(0x[0-9a-f]+|[0-9]+) / {
		if (skip) { skip = 0; next }
		total += $NF
		if (first) { count[cur] = $NF; first = 0 }
	}
	END {
		bad = 0
		if (total != insns) { print "Ir add up to " total ", not " insns; bad = 1 }
		starts = 0
		for (b in count) {
			if (count[b] == in_[b] + 1 && !starts++)
				continue
			if (count[b] != in_[b]) {
				print "block " name[b] " (" b ") ran " count[b] " times, its edges say " in_[b]
				bad = 1
			}
		}
		if (!starts) { print "no block where the trace begins"; bad = 1 }
		exit bad
	}' "$1"
}

# entry_counts PROG: "name count" of every function with gprof or the source's expectations.
expected_counts() {
	prog=$1
	if grep -q '^ \* expect:' "$src/$prog.c"; then
		sed -n 's/^ \* expect: //p' "$src/$prog.c" | tr ' =' '\n ' | sort
		return
	fi
	rm -f gmon.out
	qemu-$arch -L $sysroot ./$prog.pg >/dev/null 2>&1
	[ -f gmon.out ] || { echo "no-gmon.out 0"; return; }
	$arch-linux-gnu-gprof -b -q ./$prog.pg gmon.out |
		awk '/^\[[0-9]+\]/ && !/as a whole/ { n = split($5, a, "+"); c = 0;
			for (i = 1; i <= n; i++) c += a[i]; print $6, c }' | sort
}

for v in $variants; do
	variant=${v%%:*}
	flags=$(echo "${v#*:}" | tr _ ' ')
	for path in "$src"/*.c; do
		prog=$(basename "$path" .c)
		link=-static
		[ $prog = plt ] && link=""
		# shellcheck disable=SC2086
		$cc $flags -g $link -o $prog "$path" && $cc $flags -g $link -pg -o $prog.pg "$path" ||
			{ fail "build"; continue; }
		rm -f $prog.db
		"$zond" trace record -q -L $sysroot -o $prog.ztrace -- ./$prog >$prog.out 2>&1
		"$zond" trace report -n 0 -o $prog.db $prog.ztrace 2>$prog.err || { fail "report: $(cat $prog.err)"; continue; }
		insns=$(sed -n 's/.*: \([0-9]*\) instructions.*/\1/p' $prog.err)
		"$zond" export -i $prog.db --format callgrind-bb -o $prog.bb || fail "export"
		msg=$(conservation $prog.bb "$insns") || fail "conservation: $msg"
		"$zond" dump -i $prog.db | sed -n 's/^function \([^ ]*\) calls=\([0-9]*\).*/\1 \2/p' |
			sort >$prog.zond
		n=0
		expected_counts $prog >$prog.want
		while read -r name calls; do
			z=$(awk -v f="$name" '$1 == f { print $2 }' $prog.zond)
			[ "$z" = "$calls" ] || fail "$name: expected $calls entries, zond '$z'"
			n=$((n + 1))
		done <$prog.want
		[ $n -ge 2 ] || fail "only $n functions to compare"
		# Start-up runs once.  glibc's aarch64 _start symbol also covers __wrap_main (a
		# typeless label), through which __libc_start_call_main calls main: a function of
		# its own, not a second entry into _start.  RISC-V's load_gp runs from _start and
		# from the static program's .preinit_array.
		if [ "$link" = -static ]; then
			case $arch in
			aarch64) startup="_start 1 __wrap_main 1" ;;
			x86_64) startup="_start 1" ;;
			*) startup="_start 1 load_gp 2" ;;
			esac
			set -- $startup
			while [ $# -ge 2 ]; do
				z=$(awk -v f="$1" '$1 == f { print $2 }' $prog.zond)
				[ "$z" = "$2" ] || fail "$1: expected $2 entries, zond '$z'"
				shift 2
			done
		fi
		checked=$((checked + 1))
	done
done
[ $status -eq 0 ] && echo "ok ($arch): $checked idiom builds: entry counts and conservation hold"
exit $status
