/*
 * repcond.S - x86-64: rep string instructions that QEMU leaves other than
 * by a last run at count 0 (repcond.sh): scan (repne scasb, stops on the
 * byte it looks for), same (repe cmpsb over equal bytes: stops on its
 * count), differ (repe cmpsb, stops on a mismatch), copy (rep movsb, a
 * signal handler may interrupt it part way).
 */
	.text
	.globl scan
	.type scan, @function
scan:				/* rdi: buffer, rsi: length; finds 'z' */
	mov $'z', %eax
	mov %rsi, %rcx
	repne scasb
	mov %rcx, %rax
	ret
	.size scan, . - scan

	.globl same
	.type same, @function
same:				/* rdi, rsi: buffers, rdx: length */
	mov %rdx, %rcx
	repe cmpsb
	mov %rcx, %rax
	ret
	.size same, . - same

	.globl differ
	.type differ, @function
differ:
	mov %rdx, %rcx
	repe cmpsb
	mov %rcx, %rax
	ret
	.size differ, . - differ

	.globl copy
	.type copy, @function
copy:				/* rdi: to, rsi: from, rdx: length */
	mov %rdx, %rcx
	rep movsb
	ret
	.size copy, . - copy
	.section .note.GNU-stack, "", @progbits
