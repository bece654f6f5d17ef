#!/bin/sh
# reloc.sh - builds progs/libc.c (much of picolibc) for rv32imac and
# rv64imac and checks zond's RISC-V decoder and relocator on every function
# against objdump (rv_reloc_objdump.py).
#
# Usage: reloc.sh RV_RELOC_DUMP WORKDIR SRCDIR    (exit 77: cross tools missing)
set -u
dump=$1 dir=$2/reloc src=$3
for tool in riscv64-unknown-elf-gcc riscv64-unknown-elf-objdump python3; do
	command -v $tool >/dev/null || { echo "SKIP: $tool not installed (scripts/install-deps)"; exit 77; }
done
riscv64-unknown-elf-gcc --specs=picolibc.specs -E -x c /dev/null >/dev/null 2>&1 ||
	{ echo "SKIP: picolibc-riscv64-unknown-elf not installed (scripts/install-deps)"; exit 77; }
mkdir -p "$dir" && cd "$dir" || exit 1
. "$src/rv.sh"
rv_build 32 libc32.elf "$src/progs/libc.c" -lm || exit 1
rv_build 64 libc64.elf "$src/progs/libc.c" -lm || exit 1
python3 "$src/rv_reloc_objdump.py" "$dump" riscv64-unknown-elf-objdump "$dir" libc32.elf libc64.elf
