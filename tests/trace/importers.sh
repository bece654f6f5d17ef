#!/bin/sh
# importers.sh - one run, three traces, one profile: the plugin's .ztrace,
# QEMU's own `-d in_asm,exec,nochain` log, the plain PC list (with and
# without instruction words) of the same run and the plugin's online mode
# (no trace, profile built inside QEMU) must give identical profiles:
# `zond dump --times` (Ir included) and the callgrind and callgrind-bb
# exports, byte for byte but for their headers.  Then bad logs and PC lists
# give one error line naming the file and line.
#
# x86-64's log lists an instruction's bytes apart, at most 8 a line (a longer one goes on at
# the next line): read so, it is the same profile too (QA s16 X3 F9: refused at line 3).
#
# Both runs get the same empty environment, absolute program path and
# stdout kind: glibc's start-up work depends on them (string alignment on
# the stack, isatty).
#
# Usage: importers.sh ZOND ARCH WORKDIR SRCDIR    (exit 77: cross tools missing)
set -u
zond=$1 arch=$2 dir=$3/import-$2 src=$4
cc=$arch-linux-gnu-gcc
[ $arch = x86_64 ] && cc=gcc
qemu=$(command -v "qemu-$arch") && command -v "$cc" >/dev/null || exit 77
mkdir -p "$dir" && cd "$dir" || exit 1
rm -f *.db
status=0
fail() { echo "FAIL ($arch): $*"; status=1; }

$cc -O1 -g -static -o calls "$src/progs/calls.c" || exit 1
env -i "$zond" trace record -q -o calls.ztrace -- "$PWD/calls" 15 >out1.txt || fail "record"
env -i "$qemu" -d in_asm,exec,nochain -D qemu.log "$PWD/calls" 15 >out2.txt || fail "qemu -d"
"$zond" trace convert -o words.pcs calls.ztrace || fail "convert"
cut -d' ' -f1 words.pcs >bare.pcs

"$zond" trace report -q -o z.db calls.ztrace || fail "report"
"$zond" trace import -q -o z.db --format qemu-log --arch "$arch" --elf calls qemu.log ||
	fail "import qemu-log"
"$zond" trace import -q -o z.db --format pcs --arch "$arch" --elf calls words.pcs ||
	fail "import pcs"
"$zond" trace import -q -o z.db --format pcs --arch "$arch" --elf calls bare.pcs ||
	fail "import pcs without words"
env -i "$zond" trace record --online -o z.db -- "$PWD/calls" 15 >out3.txt 2>online.txt ||
	fail "record --online: $(cat online.txt)"
for out in out2.txt out3.txt; do
	cmp -s out1.txt $out || fail "program output differs: $out"
done
insns=$(wc -l <words.pcs)
for run in 1 2 3 4 5; do
	"$zond" dump -i z.db -r $run --times >dump.$run || fail "dump $run"
	for fmt in callgrind callgrind-bb; do
		"$zond" export -i z.db -r $run --format $fmt -o $fmt.tmp || fail "export $run"
		grep -v -E '^(version|creator|pid|cmd|part|desc|positions|events):' $fmt.tmp >$fmt.$run
	done
	grep -q "^call - -> _start calls=1 total.Ir=$insns\$" dump.$run ||
		fail "run $run: not $insns instructions from _start"
done
for run in 2 3 4 5; do
	for f in dump callgrind callgrind-bb; do
		cmp -s $f.1 $f.$run || fail "$f of run $run differs from the plugin's: $(diff $f.1 $f.$run | head -5)"
	done
done

# Bad input: one line naming the file and the line, exit status 1.
bad() {
	what=$1 file=$2 format=$3 expect=$4
	"$zond" trace import -q -o bad.db --format "$format" --arch "$arch" --elf calls "$file" 2>err.txt
	rc=$?
	[ $rc -eq 1 ] || fail "$what: exit status $rc"
	[ "$(wc -l <err.txt)" -eq 1 ] || fail "$what: not one line: $(cat err.txt)"
	grep -q "$file: line" err.txt || fail "$what: file and line not named: $(cat err.txt)"
	grep -q "$expect" err.txt || fail "$what: '$expect' not in: $(cat err.txt)"
}
grep -v '^IN:' qemu.log >noin.log
bad "log without in_asm" noin.log qemu-log "never listed"
sed '0,/^0x/s/^\(0x[0-9a-f]*: *\)[0-9a-f]/\1g/' qemu.log >word.log
bad "bad word" word.log qemu-log "instruction word"
sed '100s/.*/zzz/' words.pcs >text.pcs
bad "not a PC" text.pcs pcs "hexadecimal PC"
# another instruction's word on the first line from the 100th that has one (x86-64: ud2; an
# instruction longer than 8 bytes has no word, its bytes come from --elf)
other=ffffffff
[ $arch = x86_64 ] && other=0b0f
awk -v w=$other 'NR >= 100 && NF == 2 && !done { $2 = w; done = 1 } 1' words.pcs >other.pcs
bad "other code" other.pcs pcs "does not match"
printf '10\n' >outside.pcs
bad "outside the program" outside.pcs pcs "no instruction word"

[ $status -eq 0 ] && echo "ok ($arch): plugin, qemu log, PC lists and online mode agree on $insns instructions"
exit $status
