/*
 * wrapper.S (aarch64) - the code every redirector jumps to (see audit.h).
 *
 * Entered by a branch from a redirector with x17 = the struct za_target
 * (x16 = this address), x30 = the caller's return address and the stack
 * exactly as the caller left it.  Everything the callee or the caller may
 * read is kept: x0-x7 (arguments, results), x8 (indirect result address),
 * the vector registers (the probes are general-register-only C), sp.
 *
 * za_wrap_timed keeps the caller's x30 in a per-thread frame and calls the
 * real function with sp as the caller left it (its stack arguments are
 * where it expects them), x30 = za_return_point.  x19 holds the frame
 * across the call; its call frame information tells an unwinder where the
 * caller's x30 and x19 are.
 */
	.text

/* struct za_target, struct za_frame and struct za_fast offsets (audit.h) */
#define TARGET_REAL 8
#define TARGET_FAST 40
#define FRAME_REAL 16

/* A 96-byte frame: x29/x30 record, x0-x8 and x17 (the target). */
.macro SAVE_ARGS
	stp x29, x30, [sp, #-96]!
	.cfi_def_cfa_offset 96
	.cfi_offset 29, -96
	.cfi_offset 30, -88
	mov x29, sp
	stp x0, x1, [sp, #16]
	stp x2, x3, [sp, #32]
	stp x4, x5, [sp, #48]
	stp x6, x7, [sp, #64]
	stp x8, x17, [sp, #80]
.endm

.macro RESTORE_ARGS
	ldp x0, x1, [sp, #16]
	ldp x2, x3, [sp, #32]
	ldp x4, x5, [sp, #48]
	ldp x6, x7, [sp, #64]
	ldp x8, x17, [sp, #80]
	ldp x29, x30, [sp], #96
	.cfi_restore 29
	.cfi_restore 30
	.cfi_def_cfa_offset 0
.endm

	.globl za_wrap_timed
	.hidden za_wrap_timed
	.type za_wrap_timed, %function
	.p2align 4
za_wrap_timed:
	.cfi_startproc
	hint #34                        /* bti c */
	SAVE_ARGS
	mov x0, x17                     /* target */
	add x1, sp, #96                 /* the caller's sp */
	mov x2, x30                     /* the return address */
	mov x3, x19                     /* the caller's x19, kept in the frame */
	bl za_enter
	cbz x0, 1f
	.cfi_remember_state
	mov x19, x0
	/* from here the caller's return address and x19 are in the frame */
	.cfi_escape 0x10, 0x1e, 0x02, 0x83, 0x00   /* DW_CFA_expression x30: *(x19 + 0) */
	.cfi_escape 0x10, 0x13, 0x02, 0x83, 0x08   /* DW_CFA_expression x19: *(x19 + 8) */
	RESTORE_ARGS
	ldr x16, [x19, #FRAME_REAL]
	/*
	 * The callee's canonical frame address is our sp, which would also be
	 * ours: an unwinder tells frames apart by it.  So while it runs our
	 * CFA is said to be 16 higher, the caller's sp given by a rule of its own.
	 */
	.cfi_def_cfa_offset 16
	.cfi_val_offset sp, -16
	.cfi_escape 0x10, 0x1e, 0x02, 0x83, 0x00   /* x30 (restored above): *(x19 + 0) again */
	blr x16
	.globl za_return_point
	.hidden za_return_point
za_return_point:
	sub sp, sp, #32
	.cfi_def_cfa_offset 32
	.cfi_restore sp
	stp x0, x1, [sp, #16]           /* the results */
	mov x1, x0                      /* the result (fork: 0 in the child) */
	mov x0, x19                     /* frame */
	bl za_exit                      /* x0: return address, x1: caller's x19 */
	mov x30, x0
	.cfi_restore 30
	mov x19, x1
	.cfi_restore 19
	ldp x0, x1, [sp, #16]
	add sp, sp, #32
	.cfi_def_cfa_offset 0
	ret
1:	/* no frame: pass the call through unseen */
	.cfi_restore_state
	RESTORE_ARGS
	ldr x16, [x17, #TARGET_REAL]
	br x16
	.cfi_endproc
	.size za_wrap_timed, .-za_wrap_timed

	.globl za_wrap_count
	.hidden za_wrap_count
	.type za_wrap_count, %function
	.p2align 4
za_wrap_count:
	.cfi_startproc
	hint #34                        /* bti c */
	SAVE_ARGS
	mov x3, x0                      /* the first argument (exit status) */
	mov x0, x17                     /* target */
	add x1, sp, #96                 /* the caller's sp */
	mov x2, x30                     /* the return address */
	bl za_count
	RESTORE_ARGS
	ldr x16, [x17, #TARGET_REAL]
	br x16
	.cfi_endproc
	.size za_wrap_count, .-za_wrap_count

/*
 * Counting only: the thread's two counters of the function (struct za_fast)
 * go up by one and the function is branched to, using only x9-x12 and x16
 * (temporaries no caller keeps anything in).  The calls of a target are
 * all from its binding object (audit.h za_site): no check of the caller.
 * When the thread has no table yet, or no counters for it (its first
 * call), za_wrap_count counts the call and sets them up.
 */
	.globl za_wrap_fast
	.hidden za_wrap_fast
	.type za_wrap_fast, %function
	.p2align 4
za_wrap_fast:
	.cfi_startproc
	hint #34                        /* bti c */
	mrs x9, tpidr_el0
	adrp x10, :gottprel:za_fast
	ldr x10, [x10, #:gottprel_lo12:za_fast]
	ldr x9, [x9, x10]               /* the thread's table */
	cbz x9, 1f
	ldr x10, [x17, #TARGET_FAST]
	add x9, x9, x10                 /* the function's entry in it */
	ldp x10, x11, [x9]              /* its two counters */
	cbz x10, 1f
	ldr x12, [x10]
	add x12, x12, #1
	str x12, [x10]
	ldr x12, [x11]
	add x12, x12, #1
	str x12, [x11]
	ldr x16, [x17, #TARGET_REAL]
	br x16
1:	b za_wrap_count
	.cfi_endproc
	.size za_wrap_fast, .-za_wrap_fast

	.section .note.GNU-stack, "", %progbits
