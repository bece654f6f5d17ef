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

	/* Its loop goes back to +3, past a 3-byte first instruction: a 2-byte
	   hop at the entry to a jump in the fill after add_one_twice. */
	.p2align 4
	.type hop_own, @function
hop_own:
	mov %rdi, %rax
1:	dec %rax
	jnz 1b
	ret
	.size hop_own, .-hop_own

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

	/* Hops with no slot within the hop's reach (128 bytes): functions of
	   136 and 151 bytes with no fill after them around the two. */
	.p2align 4
	.type big_before, @function
big_before:
	.rept 45
	add $1, %eax
	.endr
	ret
	.size big_before, .-big_before

	/* The only fill near hop_none is the 5 bytes after tiny_pad, 2 of
	   which tiny_pad's own fallback takes: 3 left, no room for a jump. */
	.type tiny_pad, @function
tiny_pad:
	xor %eax, %eax
	ret
	.size tiny_pad, .-tiny_pad
	.p2align 3

	.type hop_none, @function
hop_none:
	mov %rdi, %rax
1:	dec %rax
	jnz 1b
	ret
	.size hop_none, .-hop_none

	.type big_between, @function
big_between:
	.rept 50
	add $1, %eax
	.endr
	ret
	.size big_between, .-big_between

	/* As glibc's __memcpy_chk_* before __memcpy_*: its last instruction is
	   a conditional jump, it falls through its fill into hop_fall's entry.
	   That fill runs: no slot for hop_fall's hop. */
	.type chk_falls, @function
chk_falls:
	cmp %rdx, %rcx
	{disp32} jb big_between
	.size chk_falls, .-chk_falls
	.p2align 4

	.type hop_fall, @function
hop_fall:
	mov %rdi, %rax
.Lhop_fall_body:
	add $1, %rax
	ret
	.size hop_fall, .-hop_fall

	.type hop_fall_twice, @function
hop_fall_twice:
	lea (%rdi,%rdi), %rax
	jmp .Lhop_fall_body
	.size hop_fall_twice, .-hop_fall_twice

	.type big_after, @function
big_after:
	.rept 45
	add $1, %eax
	.endr
	ret
	.size big_after, .-big_after

	.data
	.p2align 3
counter: .quad 0
fptr: .quad rip_load
	.section .note.GNU-stack, "", @progbits
