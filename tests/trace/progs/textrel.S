/*
 * textrel.S - x86-64: a shared library with text relocations (DT_TEXTREL):
 * getp's movabs holds an absolute address ld.so writes into .text at load,
 * so the code that runs differs from the file (patched.sh).
 */
	.text
	.globl getp
	.type getp, @function
getp:
	movabs $target, %rax
	ret
	.size getp, . - getp

	.data
	.globl target
target:
	.quad 42
	.section .note.GNU-stack, "", @progbits
