# build.sh - sourced by the bare-metal tests: the cross tools (exit 77
# when one is missing), $dir made the working directory, app.elf (counts.c
# with zond's runtime) and plain.elf (without) built for $xlen, and $run,
# QEMU's command line with semihosting and -icount shift=0 (add -kernel).
# build_counts OUT [CFLAGS...] builds another variant of counts.c with zond.
case $xlen in
32) march=rv32imac mabi=ilp32 ;;
64) march=rv64imac mabi=lp64 ;;
*) echo "unknown XLEN $xlen"; exit 1 ;;
esac
qemu=qemu-system-riscv$xlen
for tool in riscv64-unknown-elf-gcc riscv64-unknown-elf-objdump $qemu; do
	command -v $tool >/dev/null || { echo "SKIP: $tool not installed (scripts/install-deps)"; exit 77; }
done
riscv64-unknown-elf-gcc --specs=picolibc.specs -E -x c /dev/null >/dev/null 2>&1 ||
	{ echo "SKIP: picolibc-riscv64-unknown-elf not installed (scripts/install-deps)"; exit 77; }
mkdir -p "$dir" && cd "$dir" || exit 1
rm -rf zond.db zond.zraw kept

flags="--specs=picolibc.specs --oslib=semihost --crt0=semihost -march=$march -mabi=$mabi
-mcmodel=medany -misa-spec=2.2 -O2 -g -Wl,--defsym=__flash=0x80000000
-Wl,--defsym=__flash_size=0x00200000 -Wl,--defsym=__ram=0x80200000
-Wl,--defsym=__ram_size=0x00200000"
cflags=$("$zond" config --target $march --cflags) || exit 1
libs=$("$zond" config --target $march --libs) || exit 1
build_counts() {
	out=$1
	shift
	riscv64-unknown-elf-gcc $flags $cflags "$@" -o "$out" "$src/progs/counts.c" $libs || exit 1
}
build_counts app.elf
riscv64-unknown-elf-gcc $flags -I"$src/../../include" -o plain.elf "$src/progs/counts.c" || exit 1
run="$qemu -machine virt -bios none -display none -serial none -monitor none
-chardev stdio,id=sh0 -semihosting-config enable=on,target=native,chardev=sh0
-icount shift=0,sleep=off"
