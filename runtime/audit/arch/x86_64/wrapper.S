/*
 * wrapper.S (x86-64) - the code every redirector jumps to (see audit.h).
 *
 * Entered by a jump from a redirector with r11 = the struct za_target and
 * the stack exactly as the caller left it: [rsp] is the caller's return
 * address, the callee's stack arguments above it.  Everything the callee or
 * the caller may read is kept: rdi, rsi, rdx, rcx, r8, r9, rax (the vector
 * register count of a varargs call), r10 (static chain), the vector and x87
 * registers (the probes are general-register-only C), the stack.
 *
 * za_wrap_timed pops the caller's return address into a per-thread frame
 * and *calls* the real function from the very same stack slot, so that the
 * callee sees its arguments where the caller put them and the CPU's return
 * predictor stays balanced (cheaper than rewriting the return address in
 * place).  rbx holds the frame across the call; its call frame information
 * tells an unwinder where the caller's return address and rbx are.
 */
	.text

/* struct za_target, struct za_frame and struct za_fast offsets (audit.h) */
#define TARGET_REAL 8
#define TARGET_FAST 40
#define FRAME_REAL 16
#define FAST_FUNC_CALLS 0
#define FAST_EDGE_CALLS 8
#define FAST_REAL 16

/*
 * Saves the argument registers, r11 and r10 (a nested function's static
 * chain); leaves rsp 16-byte aligned, the return slot at 72(%rsp).
 */
.macro SAVE_ARGS
	pushq %rdi
	.cfi_adjust_cfa_offset 8
	pushq %rsi
	.cfi_adjust_cfa_offset 8
	pushq %rdx
	.cfi_adjust_cfa_offset 8
	pushq %rcx
	.cfi_adjust_cfa_offset 8
	pushq %r8
	.cfi_adjust_cfa_offset 8
	pushq %r9
	.cfi_adjust_cfa_offset 8
	pushq %rax
	.cfi_adjust_cfa_offset 8
	pushq %r11
	.cfi_adjust_cfa_offset 8
	pushq %r10
	.cfi_adjust_cfa_offset 8
.endm

.macro RESTORE_ARGS
	popq %r10
	.cfi_adjust_cfa_offset -8
	popq %r11
	.cfi_adjust_cfa_offset -8
	popq %rax
	.cfi_adjust_cfa_offset -8
	popq %r9
	.cfi_adjust_cfa_offset -8
	popq %r8
	.cfi_adjust_cfa_offset -8
	popq %rcx
	.cfi_adjust_cfa_offset -8
	popq %rdx
	.cfi_adjust_cfa_offset -8
	popq %rsi
	.cfi_adjust_cfa_offset -8
	popq %rdi
	.cfi_adjust_cfa_offset -8
.endm

/*
 * The timed entry of both designs: za_enter opens the frame (rbx from here
 * on) and keeps the caller's return address and rbx in it; no frame (label
 * 1 of the caller) means the call passes through unseen.
 */
.macro ENTER_FRAME
	endbr64
	SAVE_ARGS
	movq %r11, %rdi                 /* target */
	leaq 72(%rsp), %rsi             /* the return slot */
	movq 72(%rsp), %rdx             /* the return address */
	movq %rbx, %rcx                 /* the caller's rbx, kept in the frame */
	call za_enter
	testq %rax, %rax
	jz 1f
	.cfi_remember_state
	movq %rax, %rbx
	/* from here the caller's return address and rbx are in the frame */
	.cfi_escape 0x10, 0x10, 0x02, 0x73, 0x00   /* DW_CFA_expression rip: *(rbx + 0) */
	.cfi_escape 0x10, 0x03, 0x02, 0x73, 0x08   /* DW_CFA_expression rbx: *(rbx + 8) */
	RESTORE_ARGS
.endm

	.globl za_wrap_timed
	.hidden za_wrap_timed
	.type za_wrap_timed, @function
	.p2align 4
za_wrap_timed:
	.cfi_startproc
	ENTER_FRAME
	/*
	 * The return slot: the call below fills it again.  The callee's
	 * canonical frame address is then rsp, which would also be ours: an
	 * unwinder tells frames apart by it (libgcc's phase 2 takes ours for
	 * the handler's frame and aborts).  So from here our CFA is said to be
	 * 8 higher, with the caller's rsp given by a rule of its own.
	 */
	addq $8, %rsp
	.cfi_def_cfa_offset 8
	.cfi_val_offset %rsp, -8
	call *FRAME_REAL(%rbx)
	.globl za_return_point
	.hidden za_return_point
za_return_point:
	subq $8, %rsp                   /* the return slot, rsp as at entry */
	.cfi_def_cfa_offset 8
	.cfi_restore %rsp
	pushq %rax
	.cfi_adjust_cfa_offset 8
	pushq %rdx
	.cfi_adjust_cfa_offset 8
	subq $8, %rsp
	.cfi_adjust_cfa_offset 8
	movq %rbx, %rdi                 /* frame */
	movq %rax, %rsi                 /* the result (fork: 0 in the child) */
	call za_exit                    /* rax: return address, rdx: caller's rbx */
	movq %rax, 24(%rsp)
	.cfi_offset 16, -8
	movq %rdx, %rbx
	.cfi_restore 3
	addq $8, %rsp
	.cfi_adjust_cfa_offset -8
	popq %rdx
	.cfi_adjust_cfa_offset -8
	popq %rax
	.cfi_adjust_cfa_offset -8
	ret
1:	/* no frame: pass the call through unseen */
	.cfi_restore_state
	RESTORE_ARGS
	jmp *TARGET_REAL(%r11)
	.cfi_endproc
	.size za_wrap_timed, .-za_wrap_timed

/*
 * za_wrap_timed_ow: the other design, kept for measurement (ZOND_WRAPPER=
 * overwrite, x86-64 only; doc/libcalls.md "Two wrapper designs").  Entry as
 * za_wrap_timed, but instead of calling the real function it overwrites the
 * return slot with za_return_point and jumps: the callee returns into
 * za_wrap_timed's exit path with the stack and the frame exactly as a call
 * would have left them (so the exit, the dead-frame rules and the unwind
 * rules are shared), only the CPU's return predictor is not told.
 */
	.globl za_wrap_timed_ow
	.hidden za_wrap_timed_ow
	.type za_wrap_timed_ow, @function
	.p2align 4
za_wrap_timed_ow:
	.cfi_startproc
	ENTER_FRAME
	leaq za_return_point(%rip), %r11
	movq %r11, (%rsp)               /* the return slot now returns into the exit path */
	/* the rules of za_wrap_timed's call (an unwinder looks up ip - 1 of a return point) */
	.cfi_def_cfa_offset 8
	.cfi_val_offset %rsp, -8
	jmp *FRAME_REAL(%rbx)
1:	/* no frame: pass the call through unseen */
	.cfi_restore_state
	RESTORE_ARGS
	jmp *TARGET_REAL(%r11)
	.cfi_endproc
	.size za_wrap_timed_ow, .-za_wrap_timed_ow

	.globl za_wrap_count
	.hidden za_wrap_count
	.type za_wrap_count, @function
	.p2align 4
za_wrap_count:
	.cfi_startproc
	endbr64
	SAVE_ARGS
	movq %r11, %rdi                 /* target */
	leaq 72(%rsp), %rsi             /* the return slot */
	movq 72(%rsp), %rdx             /* the return address */
	movq 64(%rsp), %rcx             /* the first argument (exit status) */
	call za_count
	RESTORE_ARGS
	jmp *TARGET_REAL(%r11)
	.cfi_endproc
	.size za_wrap_count, .-za_wrap_count

/*
 * Counting only: the thread's two counters of the function (struct za_fast)
 * go up by one and the function is jumped to, with nothing but rax (kept on
 * the stack) and r11 used.  The calls of a target are all from its binding
 * object (audit.h za_site): no check of the caller.  When the thread has
 * no table yet, or no counters for it (its first call), za_wrap_count
 * counts the call and sets them up.
 */
	.globl za_wrap_fast
	.hidden za_wrap_fast
	.type za_wrap_fast, @function
	.p2align 4
za_wrap_fast:
	.cfi_startproc
	endbr64
	pushq %rax
	.cfi_adjust_cfa_offset 8
	movq za_fast@gottpoff(%rip), %rax
	movq %fs:(%rax), %rax           /* the thread's table */
	testq %rax, %rax
	jz 1f
	addq TARGET_FAST(%r11), %rax    /* the function's entry in it */
	cmpq $0, FAST_FUNC_CALLS(%rax)
	je 1f
	movq FAST_FUNC_CALLS(%rax), %r11
	incq (%r11)
	movq FAST_EDGE_CALLS(%rax), %r11
	incq (%r11)
	movq FAST_REAL(%rax), %r11
	popq %rax
	.cfi_adjust_cfa_offset -8
	jmp *%r11
1:	/* r11 holds the target */
	.cfi_adjust_cfa_offset 8
	popq %rax
	.cfi_adjust_cfa_offset -8
	jmp za_wrap_count
	.cfi_endproc
	.size za_wrap_fast, .-za_wrap_fast

	.section .note.GNU-stack, "", @progbits
