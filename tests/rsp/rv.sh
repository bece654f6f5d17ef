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
# rv_running PID: the process runs (neither gone nor a zombie left to be waited for)
rv_running() {
	rv_st=$(ps -o stat= -p "$1" 2>/dev/null)
	[ -n "$rv_st" ] && [ "${rv_st#Z}" = "$rv_st" ]
}
# rv_ends PID: waits at most 30 s for the process to end; 1 when it still runs
rv_ends() {
	rv_end=$(($(date +%s) + 30))
	while rv_running "$1"; do
		[ "$(date +%s)" -lt $rv_end ] || return 1
		sleep 0.1
	done
}
# rv_qemu_of ZPID: the QEMU zond (process ZPID) started, once it is there (at most 60 s, while
# zond runs); nothing when it never is
rv_qemu_of() {
	rv_end=$(($(date +%s) + 60))
	while rv_running "$1" && [ "$(date +%s)" -lt $rv_end ]; do
		pgrep -P "$1" qemu-system | head -1 | grep . && return
		sleep 0.1
	done
}
# rv_await WHAT FILE PATTERN PID: waits until FILE has a line matching PATTERN (grep's regular
# expression) while process PID runs, at most 60 s; 1 after a FAIL naming WHAT and FILE's
# content when it never comes.  What the tests wait for instead of a delay that assumes the
# machine's speed: zond's measuring line (results read that hold calls), or the firmware's
# output (progs/forever.c: "ticking" once tick() ran with zond's entries in).
rv_await() {
	rv_end=$(($(date +%s) + 60))
	until grep -q -- "$3" "$2" 2>/dev/null; do
		if ! rv_running "$4"; then
			grep -q -- "$3" "$2" 2>/dev/null && return 0
			fail "$1: process $4 ended before a line '$3' in $2: $(cat "$2" 2>/dev/null)"
			return 1
		fi
		if [ "$(date +%s)" -ge $rv_end ]; then
			fail "$1: no line '$3' in $2 after 60 s: $(cat "$2" 2>/dev/null)"
			return 1
		fi
		sleep 0.1
	done
}
# rv_kill_qemu ZPID WHAT FILE PATTERN: kills (SIGKILL) the QEMU zond (process ZPID) started once
# FILE has a line matching PATTERN (rv_await): a lost connection at a known point.  QEMU is
# killed also when the line never comes (1, after a FAIL), so that zond ends.
rv_kill_qemu() {
	rv_q=$(rv_qemu_of "$1")
	[ -n "$rv_q" ] || { fail "$2: zond (pid $1) started no QEMU"; return 1; }
	rv_await "$2" "$3" "$4" "$1"
	rv_rc=$?
	kill -9 "$rv_q" 2>/dev/null
	return $rv_rc
}

# On any exit of a script that sources this (its end, an exit after a failed step, a signal),
# what it started and still runs is killed, children first (the QEMU a zond started): nothing
# is left holding ctest's output pipe until the test's TIMEOUT.  pgrep -P $$ lists exactly the
# script's own children; rv_also holds QEMUs that may have outlived their zond (stop.sh),
# killed only while they still are QEMUs.
rv_also=""
rv_cleanup() {
	for rv_p in $(pgrep -P $$); do
		pkill -KILL -P "$rv_p" 2>/dev/null
		kill -KILL "$rv_p" 2>/dev/null
	done
	for rv_p in $rv_also; do
		ps -o comm= -p "$rv_p" 2>/dev/null | grep -q '^qemu-system' && kill -KILL "$rv_p"
	done
}
trap rv_cleanup EXIT
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM
