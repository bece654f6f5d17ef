/*
 * golike.S - a Go program's layout, in assembly: the Go linker puts Go's own
 * code between runtime.text and runtime.etext, cgo's C code outside.  zond
 * inject must refuse every function between the two (Go's runtime moves
 * goroutine stacks and reads their return addresses) and take the others.
 * With GO_ONLY, no cgo side: not one function can be injected.
 */
	.text
	.globl _start
	.type _start, @function
_start:
#ifndef GO_ONLY
	call c_side
#endif
	call go_side
	movl $60, %eax
	xorl %edi, %edi
	syscall
	.size _start, .-_start

	.p2align 4
	.globl runtime.text
runtime.text:
	.globl go_side
	.type go_side, @function
go_side:
	pushq %rbp
	movq %rsp, %rbp
	popq %rbp
	ret
	.size go_side, .-go_side

	.p2align 4
	.globl go_mcall
	.type go_mcall, @function
go_mcall:
	pushq %rbp
	movq %rsp, %rbp
	popq %rbp
	ret
	.size go_mcall, .-go_mcall
	.globl runtime.etext
runtime.etext:

#ifndef GO_ONLY
	.p2align 4
	.globl c_side
	.type c_side, @function
c_side:
	pushq %rbp
	movq %rsp, %rbp
	popq %rbp
	ret
	.size c_side, .-c_side
#endif
	.section .note.GNU-stack, "", @progbits
