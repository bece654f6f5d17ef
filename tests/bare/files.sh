#!/bin/sh
# files.sh - what a bare-metal program writes itself lands where it does without zond: QEMU
# runs in the user's directory (zond gives it a copy of the ELF whose runtime writes the raw
# data to an absolute path in zond's own directory).  Checked byte for byte against a run
# without zond: a file the program writes through semihosting to a relative path, QEMU's
# -serial file: and -D log with relative paths; no zond.zraw is left in the directory, and one
# there (the user's) is untouched.  A wrapper script given the ELF by a relative path works
# with --elf; one that names it itself cannot be given the copy: one line, nothing run.
#
# Usage: files.sh ZOND XLEN WORKDIR SRCDIR    (exit 77: cross tools missing)
set -u
zond=$1 xlen=$2 src=$4
dir=$3/files-rv$xlen
. "$src/../cli/lib.sh"
. "$src/build.sh"

riscv64-unknown-elf-gcc $flags $cflags -o files.elf "$src/progs/files.c" $libs || exit 1
files="-serial file:uart.txt -D qemu.log -d guest_errors"
rm -rf want got && mkdir want got || exit 1
(cd want && exec $run $files -kernel ../files.elf >out.txt 2>&1)
check_eq "status without zond" $? 5
echo "the user's own" >got/zond.zraw
(cd got && exec "$zond" record -q -o ../files.db -- $run $files -kernel ../files.elf >out.txt \
	2>../err.txt)
check_eq "status under zond record" $? 5
for f in out.txt semi.txt uart.txt qemu.log; do
	[ -f want/$f ] || fail "no $f without zond"
	check_same "$f under zond record" got/$f want/$f
done
check_eq "the user's zond.zraw" "$(cat got/zond.zraw)" "the user's own"
check_eq "files in the directory" "$(ls got | tr '\n' ' ')" "out.txt qemu.log semi.txt uart.txt zond.zraw "
"$zond" report -i files.db --raw >report.txt || fail "report"
check_eq "write_file calls" "$(awk '$NF == "write_file" { print $1 }' report.txt)" 1

# QEMU behind a wrapper script given the ELF by a relative path (--elf names it)
printf '#!/bin/sh\nexec %s -kernel "$1"\n' "$(echo $run $files)" >wrap.sh
chmod +x wrap.sh
rm -rf got && mkdir got || exit 1
(cd got && exec "$zond" record -q -o ../files.db --elf ../files.elf -- ../wrap.sh ../files.elf \
	>out.txt 2>../err.txt)
check_eq "status through a wrapper script" $? 5
for f in out.txt semi.txt uart.txt; do
	check_same "$f through a wrapper script" got/$f want/$f
done
check_eq "no zond.zraw left by the wrapper's run" "$(ls got/zond.zraw 2>&1 >/dev/null | wc -l)" 1
# a script that names the ELF itself: zond cannot give QEMU the copy
printf '#!/bin/sh\nexec %s -kernel %s/files.elf\n' "$(echo $run)" "$PWD" >fixed.sh
chmod +x fixed.sh
check_error "a wrapper naming the ELF itself" "no argument of the command names it" \
	"$zond" record -q -o files.db --elf files.elf -- ./fixed.sh
finish
