/*
 * entries.S - function entries zond inject must relocate or refuse, in
 * assembly so that every byte is as written here (the expected coverage
 * is tests/inject/expected/entries.coverage).
 */
	.text
	/* The entry point: the kernel jumps there, no return address to replace. */
	.globl _start
	.type _start, @function
_start:
	xor %edi, %edi
	mov $60, %eax
	syscall
	.size _start, .-_start

	.p2align 4
	.globl main
	.type main, @function
main:
	xor %eax, %eax
	ret
	.size main, .-main

	/* A loop back to the entry: the payload would run on every pass. */
	.p2align 4
	.type loop_entry, @function
loop_entry:
	mov %edi, %eax
	dec %eax
	jnz loop_entry
	ret
	.size loop_entry, .-loop_entry

	/* A branch into the middle of the bytes the jump overwrites. */
	.p2align 4
	.type jump_inside, @function
jump_inside:
	xor %eax, %eax
1:	inc %eax
	add $1, %eax
	cmp $10, %eax
	jl 1b
	ret
	.size jump_inside, .-jump_inside

	/* Too short, and the next function follows at once: no fill to use. */
	.p2align 4
	.type tiny_last, @function
tiny_last:
	ret
	.size tiny_last, .-tiny_last
	.type tiny_next, @function
tiny_next:
	mov $1, %eax
	add %edi, %eax
	ret
	.size tiny_next, .-tiny_next

	/* Too short, but alignment fill follows: the fallback uses it. */
	.p2align 4
	.type tiny_fill, @function
tiny_fill:
	xor %eax, %eax
	ret
	.size tiny_fill, .-tiny_fill

	/* rip-relative loads and stores in the entry. */
	.p2align 4
	.type rip_load, @function
rip_load:
	mov counter(%rip), %rax
	add $1, %rax
	mov %rax, counter(%rip)
	ret
	.size rip_load, .-rip_load

	/* A call in the entry: push the return address, jmp. */
	.p2align 4
	.type call_entry, @function
call_entry:
	call rip_load
	add $2, %rax
	ret
	.size call_entry, .-call_entry

	/* A short conditional branch in the entry: widened to rel32. */
	.p2align 4
	.type jcc_entry, @function
jcc_entry:
	test %edi, %edi
	je 1f
	lea 1(%rdi), %eax
	ret
1:	xor %eax, %eax
	ret
	.size jcc_entry, .-jcc_entry

	/* endbr64 stays at the entry; a rip-relative lea after it. */
	.p2align 4
	.type endbr_entry, @function
endbr_entry:
	endbr64
	lea counter(%rip), %rax
	ret
	.size endbr_entry, .-endbr_entry

	/* jrcxz and a short jmp in the entry. */
	.p2align 4
	.type rcx_entry, @function
rcx_entry:
	jrcxz 1f
	jmp 2f
	nop
1:	mov $3, %eax
	ret
2:	mov $4, %eax
	ret
	.size rcx_entry, .-rcx_entry

	/* An indirect call through a rip-relative slot: jmp through the same slot. */
	.p2align 4
	.type icall_entry, @function
icall_entry:
	call *fptr(%rip)
	ret
	.size icall_entry, .-icall_entry

	/* A call through memory addressed by rsp: the push would move it. */
	.p2align 4
	.type rsp_call, @function
rsp_call:
	call *8(%rsp)
	ret
	.size rsp_call, .-rsp_call

	/* A transaction's abort target is relative: refused. */
	.p2align 4
	.type xbegin_entry, @function
xbegin_entry:
	xbegin 1f
	xend
1:	ret
	.size xbegin_entry, .-xbegin_entry

	/* Entered past its first instruction by another function's jump (glibc's
	   __mempcpy_* into __memmove_*): refused, as a jump of its own would be. */
	.p2align 4
	.type add_one, @function
add_one:
	mov %rdi, %rax
.Ladd_one_body:
	add $1, %rax
	ret
	.size add_one, .-add_one

	.p2align 4
	.type add_one_twice, @function
add_one_twice:
	lea (%rdi,%rdi), %rax
	jmp .Ladd_one_body
	.size add_one_twice, .-add_one_twice

	/* A part gcc split off a function (its unlikely path), entered by a jump
	   with the function's frame live: not a function, never probed. */
	.p2align 4
	.type split.cold, @function
split.cold:
	nop
	nop
	nop
	nop
	nop
	nop
	ret
	.size split.cold, .-split.cold

	.data
	.p2align 3
counter: .quad 0
fptr: .quad rip_load
	.section .note.GNU-stack, "", @progbits
