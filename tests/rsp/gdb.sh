#!/bin/sh
# gdb.sh - builds progs/value.c for rv32imac and runs gdb_test (the GDB
# transport against qemu-system-riscv32's gdbstub); the program's own
# output must be its plain run's except for value()'s rewrite.
#
# Usage: gdb.sh GDB_TEST WORKDIR SRCDIR    (exit 77: cross tools missing)
set -u
test=$1 dir=$2/gdb src=$3
. "$src/rv.sh"
rv_need riscv64-unknown-elf-nm riscv64-unknown-elf-readelf qemu-system-riscv32
mkdir -p "$dir" && cd "$dir" || exit 1
rv_build 32 value.elf "$src/progs/value.c" || exit 1
sym() { riscv64-unknown-elf-nm value.elf | awk -v n="$1" '$3 == n { print $1 }'; }
entry=$(riscv64-unknown-elf-readelf -h value.elf | awk '/Entry point/ { sub("0x", "", $4); print $4 }')
$(rv_qemu 32) -kernel value.elf >plain.txt 2>&1
[ $? -eq 3 ] || { echo "FAIL: the plain run's status is not 3"; exit 1; }
grep -qx "sum=140" plain.txt || { echo "FAIL: plain run: $(cat plain.txt)"; exit 1; }
"$test" value.elf "$entry" "$(sym value)" "$(sym spin_forever)" "$(sym phase)" "$(sym main)" $(rv_qemu 32) -kernel value.elf >got.txt 2>err.txt
rc=$?
cat got.txt err.txt
[ $rc -eq 0 ] || exit 1
# 7 from value()'s first ten calls, 9 from the rewritten code for the other ten
grep -qx "sum=160" got.txt || { echo "FAIL: no sum=160 in the output"; exit 1; }
# the scratch RAM lies outside every loaded segment (readelf's view)
scratch=$(sed -n 's/^scratch 0x//p' got.txt)
riscv64-unknown-elf-readelf -lW value.elf | awk '$1 == "LOAD" { print $3, $4, $5, $6 }' >segs.txt
s=$((0x$scratch))
while read -r v p f m; do
	if [ $s -ge $((v)) ] && [ $s -lt $((v + m)) ] || [ $s -ge $((p)) ] && [ $s -lt $((p + f)) ]; then
		echo "FAIL: scratch 0x$scratch inside the segment $v $p $f $m"
		exit 1
	fi
done <segs.txt
[ -s segs.txt ] || { echo "FAIL: no LOAD segment in readelf's output"; exit 1; }
echo "ok"
