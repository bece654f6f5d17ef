#!/bin/sh
# reloc.sh - builds progs/libc.c (much of picolibc) for rv32imac and
# rv64imac and checks zond's RISC-V decoder and relocator on every function
# against objdump (rv_reloc_objdump.py).
#
# Usage: reloc.sh RV_RELOC_DUMP WORKDIR SRCDIR    (exit 77: cross tools missing)
set -u
dump=$1 dir=$2/reloc src=$3
. "$src/rv.sh"
rv_need riscv64-unknown-elf-objdump python3
mkdir -p "$dir" && cd "$dir" || exit 1
rv_build 32 libc32.elf "$src/progs/libc.c" -lm || exit 1
rv_build 64 libc64.elf "$src/progs/libc.c" -lm || exit 1
python3 "$src/rv_reloc_objdump.py" "$dump" riscv64-unknown-elf-objdump "$dir" libc32.elf libc64.elf
