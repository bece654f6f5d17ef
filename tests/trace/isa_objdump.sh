#!/bin/sh
# isa_objdump.sh - zond's decoders against the cross binutils' objdump over
# every instruction of real binaries: the cross C libraries of aarch64 and
# riscv64, the host's x86-64 C library (objdump's bytes must also be the
# decoder's length), and an RV32 build with compressed instructions (C.JAL exists on
# RV32 only).  The expected class of each instruction comes from objdump's
# mnemonic and operands (doc/trace.md has the table), targets included.
#
# Usage: isa_objdump.sh ISA_CHECK WORKDIR SRCDIR     (exit 77: tools missing)
set -u
check=$1 dir=$2/isa src=$3
mkdir -p "$dir" && cd "$dir" || exit 1
status=0

# objdump -d lines "ADDR:\tWORD\tMNEMONIC\tOPERANDS" -> "ADDR WORD CLASS [TARGET]".
classify() {
	awk -F'\t' -v arch="$1" '
	function target(ops,   t, n, a) {
		t = ops; sub(/ *<.*/, "", t); n = split(t, a, ","); t = a[n]; gsub(/[ #]/, "", t)
		return t
	}
	function link(r) { return r == "ra" || r == "t0" }
	$1 ~ /^ *[0-9a-f]+:$/ && NF >= 3 {
		addr = $1; gsub(/[ :]/, "", addr); word = $2; gsub(/ /, "", word)
		if (word !~ /^[0-9a-f]+$/) next
		m = $3; gsub(/ /, "", m); ops = NF >= 4 ? $4 : ""; c = "other"; t = ""
		if (arch == "x86_64") {
			# "MNEMONIC OPERANDS" in one field, after prefixes (bnd, notrack, rep, ...)
			n = split($3, w, / +/); i = 1
			while (i < n && w[i] ~ /^(bnd|notrack|rep|repz|repnz|repe|repne|lock|data16|addr32|[c-gs]s|rex(\.[wrxb]+)?|xacquire|xrelease)$/) i++
			m = w[i]; t = w[i + 1]
			if (m == "(bad)") next
			if (m ~ /^call/) c = "call"
			else if (m ~ /^lcall/) { c = "call"; t = "*" }
			else if (m ~ /^l?ret[lqw]?$/) c = "ret"
			else if (m ~ /^jmp/) c = "jump"
			else if (m ~ /^ljmp/) { c = "ijump"; t = "*" }
			else if (m ~ /^(j[a-z]+|loop|loope|loopne|loopz|loopnz)$/) c = "cond"
			else if (m == "syscall" || m == "sysenter" || m == "int") c = "syscall"
			if (c == "call" || c == "jump" || c == "cond") {
				if (t ~ /^\*/) { t = ""; if (c == "jump") c = "ijump" }
			} else t = ""
		} else if (arch == "aarch64") {
			if (m == "bl") { c = "call"; t = target(ops) }
			else if (m ~ /^blr(aa|ab|aaz|abz)?$/) c = "call"
			else if (m ~ /^ret(aa|ab)?$/) c = "ret"
			else if (m == "b") { c = "jump"; t = target(ops) }
			else if (m ~ /^br(aa|ab|aaz|abz)?$/) c = "ijump"
			else if (m ~ /^(b|bc)\.[a-z]+$/ || m ~ /^(cbz|cbnz|tbz|tbnz)$/) { c = "cond"; t = target(ops) }
			else if (m == "svc") c = "syscall"
		} else {
			n = split(ops, o, ",")
			if (m == "jal" || m == "c.jal") { c = (n == 1 || link(o[1])) ? "call" : "jump"; t = target(ops) }
			else if (m == "j" || m == "c.j") { c = "jump"; t = target(ops) }
			else if (m == "ret") c = "ret"
			else if (m == "jr" || m == "c.jr") c = link(o[1]) ? "ret" : "ijump"
			else if (m == "jalr" || m == "c.jalr") {
				if (n == 1) c = "call"
				else {
					rs1 = o[2]; sub(/.*\(/, "", rs1); sub(/\).*/, "", rs1)
					c = link(o[1]) ? "call" : link(rs1) ? "ret" : "ijump"
				}
			}
			else if (m ~ /^(beq|bne|blt|bge|bltu|bgeu|beqz|bnez|blez|bgez|bltz|bgtz|bgt|ble|bgtu|bleu)$/) { c = "cond"; t = target(ops) }
			else if (m == "ecall") c = "syscall"
		}
		print addr, word, c, t
	}'
}

run() {
	name=$1 arch=$2 objdump=$3 file=$4
	shift 4
	[ -r "$file" ] && command -v "$objdump" >/dev/null || { echo "skip $name: no $file"; return 77; }
	"$objdump" -d "$@" "$file" | classify "$arch" >$name.txt
	"$check" "$arch" <$name.txt >$name.out 2>$name.err
	rc=$?
	cat $name.out
	[ $rc -eq 0 ] || { echo "FAIL $name:"; cat $name.err; status=1; }
}

run aarch64-libc aarch64 aarch64-linux-gnu-objdump /usr/aarch64-linux-gnu/lib/libc.so.6
a=$?
run riscv64-libc riscv64 riscv64-linux-gnu-objdump /usr/riscv64-linux-gnu/lib/libc.so.6
r=$?
# x86-64 through Zydis (when built with it), over the host's C library.
x=77
if "$check" x86_64 </dev/null >/dev/null 2>&1; [ $? -ne 2 ]; then
	run x86_64-libc x86_64 objdump /lib/x86_64-linux-gnu/libc.so.6 --insn-width=15
	x=$?
fi
# RV32 with C: zond's own decoders built for rv32imac, linked so that calls relax to C.JAL.
if command -v riscv64-linux-gnu-gcc >/dev/null; then
	riscv64-linux-gnu-gcc -march=rv32imac -mabi=ilp32 -O2 -ffreestanding -nostdlib -static \
		-Wl,-e,0 -Wl,--no-warn-rwx-segments -o rv32.elf "$src/../../tool/trace/isa/riscv.c" \
		"$src/../../tool/trace/isa/aarch64.c" && run riscv32 riscv32 riscv64-linux-gnu-objdump rv32.elf
	grep -q ' c.jal\| call' riscv32.txt 2>/dev/null || true
fi
[ $a -eq 77 ] && [ $r -eq 77 ] && [ $x -eq 77 ] && exit 77
exit $status
