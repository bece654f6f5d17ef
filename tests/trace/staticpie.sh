#!/bin/sh
# staticpie.sh - a static-pie program (ET_DYN with no interpreter, as a library, but the
# linker's DF_1_PIE flag) is the trace's program: its functions named, with their source
# lines, and no warning (QA s16 X3 F6: "not a program for x86_64: its code is named by
# address, with no source lines" for every static-pie, though names and lines were there).
# Truths: the program's own calls (progs/first.c: a1 10), addr2line's line of a1.
#
# Usage: staticpie.sh ZOND ARCH WORKDIR SRCDIR    (exit 77: cross tools missing)
set -u
zond=$1 arch=$2 dir=$3/staticpie-$2 src=$4/progs
cc=$arch-linux-gnu-gcc nm=$arch-linux-gnu-nm addr2line=$arch-linux-gnu-addr2line
[ $arch = x86_64 ] && cc=gcc nm=nm addr2line=addr2line
command -v "$cc" >/dev/null && command -v "qemu-$arch" >/dev/null || exit 77
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1
status=0
fail() { echo "FAIL ($arch): $*"; status=1; }

$cc -O2 -g -static-pie -o sp "$src/first.c" 2>build.txt || { echo "SKIP: no static-pie"; exit 77; }
readelf -lW sp | grep -q INTERP && { fail "sp has an interpreter: not the case tested"; exit 1; }
"$zond" trace record -q -o sp.ztrace -- ./sp >/dev/null || fail record
"$zond" trace report -q -o sp.db sp.ztrace 2>err.txt || fail "report: $(cat err.txt)"
[ -s err.txt ] && fail "report warned: $(cat err.txt)"
got=$("$zond" dump -i sp.db | sed -n 's/^function a1 //p')
[ "$got" = "calls=10" ] || fail "a1: '$got', not calls=10"
line=$($addr2line -e sp "$($nm sp | awk '$3 == "a1" { print $1 }')" | sed 's/.*://')
"$zond" annotate -i sp.db a1 >ann.txt 2>&1 || fail "annotate: $(cat ann.txt)"
awk -v l="$line" '$1 == ">" && $2 > 0 && $4 == l { ok = 1 } END { exit !ok }' ann.txt ||
	fail "annotate shows no cost on a1's line $line: $(cat ann.txt)"
[ $status -eq 0 ] && echo "ok ($arch): a static-pie program named, with its lines, without a warning"
exit $status
