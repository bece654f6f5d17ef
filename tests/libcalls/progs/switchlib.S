/*
 * switchlib.S - libswitchlib.so: switch_to(void **save, void *to), a
 * hand-written stack switch in a shared library, called through the PLT
 * (as libruby calls its coroutine_transfer): it pushes the callee-saved
 * registers, saves the stack pointer in *save, takes to as the stack
 * pointer, pops them and returns on that stack.
 */
	.text
	.globl switch_to
	.type switch_to, @function
switch_to:
	pushq %rbp
	pushq %rbx
	pushq %r12
	pushq %r13
	pushq %r14
	pushq %r15
	movq %rsp, (%rdi)
	movq %rsi, %rsp
	popq %r15
	popq %r14
	popq %r13
	popq %r12
	popq %rbx
	popq %rbp
	ret
	.size switch_to, .-switch_to
	.section .note.GNU-stack, "", @progbits
