/*
 * hops_pair.S - a pair shaped like glibc's __mempcpy_* and __memcpy_*:
 * that_mempcpy sets its return value (dest + n) and jumps to
 * that_memcpy+3, past that_memcpy's 3-byte first instruction (mov
 * %rdi,%rax), inside the 5 bytes zond inject's jump would overwrite: zond
 * enters that_memcpy by a hop to a jump in the fill after that_mempcpy.
 */
	.text
	.p2align 4
	.globl that_mempcpy
	.type that_mempcpy, @function
that_mempcpy:
	mov %rdi, %rax
	add %rdx, %rax
	jmp .Lcopy
	.size that_mempcpy, .-that_mempcpy

	.p2align 4
	.globl that_memcpy
	.type that_memcpy, @function
that_memcpy:
	mov %rdi, %rax
.Lcopy:
	mov %rdx, %rcx
	rep movsb
	ret
	.size that_memcpy, .-that_memcpy
	.section .note.GNU-stack, "", @progbits
