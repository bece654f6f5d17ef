# rv.sh - how the RSP tests build and run bare-metal RISC-V programs
# (doc/bare-metal.md): picolibc with semihosting, QEMU's virt board with
# -icount shift=0 (one cycle per instruction).
# rv_table STORE [REPORT OPTION...]: "name calls inclusive" per function of zond's flat profile
# (functions with a time), sorted; $zond is the zond under test
rv_table() {
	rv_store=$1
	shift
	"$zond" report -i "$rv_store" --raw "$@" | awk '
		/^ +calls +total/ { on = 1; next }
		on && NF >= 8 { print $8, $1, $2 }' | LC_ALL=C sort
}

# rv_need TOOL...: exits 77 (CTest's skip) naming what is missing, picolibc included
rv_need() {
	for tool in riscv64-unknown-elf-gcc "$@"; do
		command -v "$tool" >/dev/null ||
			{ echo "SKIP: $tool not installed (scripts/install-deps)"; exit 77; }
	done
	riscv64-unknown-elf-gcc --specs=picolibc.specs -E -x c /dev/null >/dev/null 2>&1 ||
		{ echo "SKIP: picolibc-riscv64-unknown-elf not installed (scripts/install-deps)"; exit 77; }
}
# rv_build XLEN OUT SRC... [FLAGS]: builds an ELF for rv32imac or rv64imac
rv_build() {
	xlen=$1 out=$2
	shift 2
	case $xlen in
	32) set -- -march=rv32imac -mabi=ilp32 "$@" ;;
	64) set -- -march=rv64imac -mabi=lp64 "$@" ;;
	esac
	riscv64-unknown-elf-gcc --specs=picolibc.specs --oslib=semihost --crt0=semihost \
		-mcmodel=medany -misa-spec=2.2 -O2 -g -Wl,--defsym=__flash=0x80000000 \
		-Wl,--defsym=__flash_size=0x00200000 -Wl,--defsym=__ram=0x80200000 \
		-Wl,--defsym=__ram_size=0x00200000 -o "$out" "$@"
}
# rv_qemu XLEN: the QEMU command line, without -kernel
rv_qemu() {
	echo "qemu-system-riscv$1 -machine virt -bios none -display none -serial none -monitor none" \
		"-chardev stdio,id=sh0 -semihosting-config enable=on,target=native,chardev=sh0" \
		"-icount shift=0,sleep=off"
}
# rv_truth XLEN ELF [TRUTH.PY OPTIONS]: each function's calls and inclusive
# instructions in ELF run alone, from QEMU's log of every instruction
# (tests/bare/truth.py), on stdout; the log is removed
rv_truth() {
	rv_x=$1 rv_elf=$2
	shift 2
	$(rv_qemu "$rv_x") -singlestep -d exec,nochain -D rv_exec.log -kernel "$rv_elf" >/dev/null 2>&1
	python3 "$src/../bare/truth.py" "$rv_elf" riscv64-unknown-elf-objdump rv_exec.log "$@"
	rv_rc=$?
	rm -f rv_exec.log
	return $rv_rc
}
# rv_kill_qemu ZPID SECONDS: kills (SIGKILL) the QEMU zond (process ZPID) started, SECONDS
# after it appeared: a lost connection
rv_kill_qemu() {
	qpid=""
	for i in $(seq 100); do
		qpid=$(pgrep -P "$1" qemu-system | head -1)
		[ -n "$qpid" ] && break
		sleep 0.1
	done
	sleep "$2"
	[ -n "$qpid" ] && kill -9 "$qpid"
}
