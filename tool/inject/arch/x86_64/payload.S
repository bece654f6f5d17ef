#ifdef __x86_64__
/*
 * payload.S - the x86-64 code zond inject copies into its target, once per
 * trampoline area, as one position-independent blob (za_blob..za_blob_end):
 * a header the controller fills, the entry payload and the exit payload.
 * Layout of the shared results: tool/inject/results.h.
 *
 * Each patched function gets a stub after the blob (payload.c):
 *     .long id; call za_entry; <relocated entry>; jmp back
 * so at za_entry (%rsp) is the relocated copy (the id 9 bytes before it)
 * and 8(%rsp) the return address.  The entry takes a frame on the thread's
 * shadow stack, saves the real return address there, puts za_exit in its
 * place, reads the counter last (COUNT lfence: lfence; rdtsc, or with
 * --event the thread's perf_event counter, za_read) and returns into the
 * copy.  The fence keeps the payload's own work out of the interval, and
 * so keeps what a measured call costs its measured caller the same from
 * call to call: unfenced (6 ns a call cheaper on the development VM, an
 * AMD EPYC under KVM: 43 against 49 ns), a loop of 2*10^6 calls of a
 * 3-instruction function read 0 to 9.2 ms with its callee measured
 * against 5.5 ms alone, 5.0 to 7.2 ms fenced (doc/inject.md, "Cost").
 * --fast-clock writes the blob with the TSC's fences (za_fence_entry,
 * za_fence_exit, za_fence_to) as nops of their length: one payload, two
 * clocks, and the calibration runs the variant the target gets.
 * It keeps every register but rflags (not preserved across calls): the
 * argument registers (rdi, rsi, rdx, rcx, r8, r9, rax for varargs, r10
 * for a static chain) and all vector registers are untouched or restored.
 * The exit reads the counter first (lfence; rdtsc: rdtscp, which waits
 * for earlier instructions too, costs 16.9 ns against 14.6 on the
 * development VM), pops its frame (frames left above it by longjmp are dropped), accumulates, and
 * jumps to the real return address: a ret there would pop the return stack
 * buffer's next entry (the caller's caller's), mispredict, and leave every
 * later return of the program's stack shifted by one entry, mispredicted
 * too; an indirect jump is predicted from its own history and leaves the
 * buffer in step (the function's own ret into za_exit, which pops its
 * caller's entry, is the one mispredicted return per call).  The jump
 * reads the address from the red zone just given back, which the kernel
 * never lets a signal frame overwrite.
 * With za_ctxs set, the entry also finds the frame's calling context (the
 * child for its function of the frame below's, za_ctx: a hash table of the
 * thread's paths in the shared results) and counts the call there; the
 * exit adds its times to it.
 * It keeps every register but rflags too, not only the return values (rax,
 * rdx, vector and x87 registers): with -fipa-ra (GCC's default at -O2) a
 * caller relies on a callee in its unit leaving the caller-saved registers
 * it does not use untouched, so clobbering rcx or r8 there breaks it.
 *
 * Region probes (stub: .long id; lea -128(%rsp),%rsp; call za_from or
 * za_to; lea 128(%rsp),%rsp; <relocated instructions>) stand anywhere in
 * a function: the stub steps over the red zone, the probe keeps every
 * register and rflags.  FROM notes the counter in the thread's slot unless
 * the region is already on; TO, when it is on, accumulates the pass.
 *
 * The thread's slot (private memory: a forked child returns through its
 * own copy of the frames) is found by its thread pointer (%fs:0, the TCB's self
 * pointer under glibc, set before any program code runs) in an
 * open-addressed table claimed with lock cmpxchg.
 *
 * Signal handlers run on the thread they interrupt, between any two
 * instructions of the payload, and may call measured functions themselves
 * (be interrupted by another handler, or leave by longjmp).  So the
 * thread's state changes only by single instructions a handler cannot
 * split, and a handler finds it whole wherever it arrives: the entry fills
 * the frame above the top first and pushes it by one cmpxchg of the depth
 * word, which also counts the pushes (a handler's calls in between took
 * that frame and leave another word: the entry fills it again); the exit
 * reads its frame whole before one store pops it; a count is one
 * read-modify-write instruction, min and max and a new calling context go
 * in by cmpxchg; a slot or a process page being taken over is marked with
 * the thread's own claim, so that a handler on that thread never uses it
 * half done nor waits for itself.  A handler's calls nest on the frame of
 * the function it interrupted, as anywhere else.  (Before, the exit popped
 * its frame and then read the return address from it: a handler's
 * measured call in between took the frame, and the exit returned into the
 * handler.)  A handler that leaves the payload by longjmp may leave one
 * call's open count behind, never a frame half written.
 */
#include "../../results.h"

#include "payload.h"

	.section .rodata.zond_payload, "a"
	.globl za_blob, za_blob_end, za_entry, za_exit, za_from, za_to, za_unwind, za_switch
	.globl za_catch, za_safe, za_loaded, za_clone, za_prctl, za_syscall, za_close, za_closer
	.globl za_fence_entry, za_fence_exit, za_fence_to
	.hidden za_blob, za_blob_end, za_entry, za_exit, za_from, za_to, za_unwind, za_switch
	.hidden za_catch, za_safe, za_loaded, za_clone, za_prctl, za_syscall, za_close, za_closer
	.hidden za_fence_entry, za_fence_exit, za_fence_to
	.p2align 6
za_blob:
za_shm:		.quad 0	/* the target's address of the shared results */
za_threads:	.quad 0	/* its private thread slots */
za_slotsize:	.quad 0
za_stats:	.quad 0	/* where in a shared block its statistics start */
za_c0:		.quad 0	/* the payload's own part of a measured interval */
za_cpair:	.quad 0	/* what one measured call adds to its caller's */
za_fexit:	.quad 0	/* the za_exit measured functions return through: the first
			   area's for every area (each area has a copy of the blob,
			   and a frame's return slot must be told by one address) */
za_blocks:	.quad 0	/* the shared blocks, one per thread slot */
za_blocksize:	.quad 0
za_edges:	.quad 0	/* where in a shared block its call edges start, 0: none */
za_nfuncs:	.quad 0
za_event:	.quad 0	/* 0: the counter is the TSC; 1: the thread's perf_event fd, read() */
za_fdbase:	.quad 0	/* unused (za_open places the counters' fds by RLIMIT_NOFILE) */
za_ctxs:	.quad 0	/* the calling contexts' areas (results.h), 0: none kept */
za_proc:	.quad 0	/* the process page: ZA_PROC_READY, 0 in a new process (za_forked) */
za_push:	.quad 0x100000001	/* a push in the depth word: a frame and a push more */
za_attr:	.space ZA_ATTR	/* struct perf_event_attr of the event (za_event 1) */
za_tidoff:	.quad 0	/* where a thread's TCB holds its id (glibc's struct pthread
			   tid), from the thread pointer; 0: not known (then %fs:0's
			   low half stands for it, and no ended thread's slot is
			   ever taken over) */

#define ZA_PROC_READY 2		/* the process page's word once za_forked is done */
#define ZA_NOPID 0x7fffffffffffffff	/* za_pid: this process's id cannot be had */

/*
 * SANDBOXED reg, label: jumps to label when the process went under seccomp
 * (the process flags after the slots, results.h: za_prctl, za_syscall), so
 * that the payload makes no system call the program's filter may forbid;
 * clobbers reg.
 */
	.macro SANDBOXED reg, label
	mov za_threads(%rip), \reg
	cmpq $0, INJ_PFLAGS_AT + INJ_PF_SANDBOX(\reg)
	jne \label
	.endm

/*
 * NOTSC reg, label: jumps to label when the process went under seccomp
 * strict mode, where the kernel makes rdtsc fault (TIF_NOTSC): SIGSEGV at
 * the next TSC read (QA s14 V2 F5).  Marked for the process, as the
 * record runtime's clock stops (doc/raw-format.md "Seccomp"); clobbers reg.
 */
	.macro NOTSC reg, label
	mov za_threads(%rip), \reg
	testb $INJ_SECCOMP_STRICT, INJ_PFLAGS_AT + INJ_PF_SANDBOX(\reg)
	jnz \label
	.endm

/*
 * An entry whose counter could not be read marks its frame so (its
 * F_GEN is its process's with this bit flipped: never equal to it, never
 * with bit 63 of an inherited frame): the exit counts the call, untimed.
 */
#define ZA_GEN_NOCLOCK 62
#define ZA_CTX_ROOT -1		/* a frame's F_CTX: calls under it start the thread's stacks */

/*
 * SLOT: r11 = this thread's slot as za_slot finds it, the common case (the
 * process's slots ready, the thread's slot at its first probe) inline;
 * clobbers rax, rcx, rdx (and flags).
 */
	.macro SLOT
	mov za_proc(%rip), %rax
	cmpq $ZA_PROC_READY, (%rax)
	jne 14f
	mov %fs:0, %rcx
	movabs $0x9e3779b97f4a7c15, %rax
	imul %rcx, %rax
	shr $56, %rax			/* INJ_THREADS == 256 */
	mov %rax, %r11
	imul za_slotsize(%rip), %r11
	add za_threads(%rip), %r11
	cmp %rcx, INJ_T_KEY(%r11)
	jne 14f
	mov za_tidoff(%rip), %rax	/* and its owner: not an ended thread */
	mov %fs:(%rax), %eax		/* whose TCB this one reuses */
	cmp %rax, INJ_T_OWNER(%r11)
	je 10f
14:	call za_slot
10:
	.endm

/*
 * DROP: za_drop (r11 = the slot, rdx = the limit) when the top frame is
 * one to drop, the common case (none) inline; clobbers rax, rcx.
 */
	.macro DROP
	mov INJ_T_DEPTH(%r11), %eax	/* the depth: the word's low half */
	test %eax, %eax
	jz 11f
	lea -1(%rax), %ecx
	shl $6, %rcx			/* INJ_FRAME == 64 */
	cmp %rdx, INJ_SLOT_HDR + INJ_F_SLOT(%r11, %rcx)
	jae 11f
	call za_dropchk
11:
	.endm

/*
 * LIVE: drops the top frame while it is dead although its slot lies above
 * the new call's (DROP's rule cannot see it): a frame longjmp left, whose
 * slot the program's later calls at or above it overwrote, followed by a
 * measured call made deeper without passing that slot (a qsort comparator
 * called from main after a longjmp out of a measured function, a handler
 * of a signal main raised).  A live frame's slot holds za_exit, or its real
 * return address (the entry before it puts za_exit there, the exit once it
 * wrote it back, an unwinding exception's frames after za_unwind); anything
 * else is a later call's return address or data: the frame's function was
 * left.  One load and compare per entry.  r11 = the slot; clobbers rax,
 * rcx, rdx.  Before, the dead frame took every call made below it as its
 * callee: `main;fail;cmp`, its time fail's (QA s12 F1).
 */
	.macro LIVE
18:	mov INJ_T_DEPTH(%r11), %eax
	test %eax, %eax
	jz 19f
	lea -1(%rax), %ecx
	shl $6, %rcx			/* INJ_FRAME == 64 */
	lea INJ_SLOT_HDR(%r11, %rcx), %rcx
	mov INJ_F_SLOT(%rcx), %rdx
	mov (%rdx), %rax
	cmp za_fexit(%rip), %rax
	je 19f
	cmp INJ_F_RET(%rcx), %rax
	je 19f
	call za_deadtop
	jmp 18b
19:
	.endm

/*
 * MINMAX stat, tmp: the stat at \stat takes the cost rsi into its min (kept
 * inverted) and max; clobbers rax and \tmp.  A new min or max goes in by
 * cmpxchg, so that one a signal handler's call wrote between the compare
 * and the write is compared again, not overwritten.
 */
	.macro MINMAX stat, tmp
	mov %rsi, \tmp
	not \tmp
	cmp INJ_S_MIN(\stat), \tmp
	jbe 13f
	mov INJ_S_MIN(\stat), %rax
12:	cmpxchg \tmp, INJ_S_MIN(\stat)
	je 13f
	cmp %rax, \tmp
	ja 12b
13:	cmp INJ_S_MAX(\stat), %rsi
	jbe 15f
	mov INJ_S_MAX(\stat), %rax
14:	cmpxchg %rsi, INJ_S_MAX(\stat)
	je 15f
	cmp %rax, %rsi
	ja 14b
15:
	.endm

/*
 * r11 = this thread's slot, or 0 when the table is full, every shared
 * block is taken, or this thread's own claim of its slot or of a new
 * process's slots is under way further up its stack (a signal handler's
 * call that interrupted it: counted as one without a slot, never a wait
 * for itself nor a slot half bound); clobbers rax, rcx, rdx (and flags).
 * A slot is this thread's when its key is the thread pointer and its
 * owner the id the thread's TCB holds.  The key with another owner is
 * the slot of an ended thread whose TCB this one reuses (glibc gives a
 * finished thread's stack and TCB to a new one): it is given back
 * (za_retire) and the probe goes on.  Slots never become free (0) again,
 * so a probe ends at the first free one; gone ones (key 1: given back, or
 * a forked child's parent's other threads, za_forked) are passed over,
 * and the first of them is claimed when the probe ends.  A table with
 * neither free nor gone slots gives back those of ended threads first
 * (za_reap), once.
 */
za_slot:
	mov za_proc(%rip), %rax
	cmpq $ZA_PROC_READY, (%rax)
	je 0f
	call za_forked
	mov za_proc(%rip), %rax
	cmpq $ZA_PROC_READY, (%rax)
	jne 4f
0:	push %rsi
	push %rdi
	push %r8
	xor %r8d, %r8d			/* za_reap not run yet */
20:	mov za_tidoff(%rip), %rax
	mov %fs:(%rax), %esi		/* this thread's owner id */
	xor %edi, %edi			/* the first gone slot, 0: none seen */
	mov %fs:0, %rcx
	movabs $0x9e3779b97f4a7c15, %rax
	imul %rcx, %rax
	shr $56, %rax			/* INJ_THREADS == 256 */
	mov $INJ_THREADS, %edx
1:	mov %rax, %r11
	imul za_slotsize(%rip), %r11
	add za_threads(%rip), %r11
	cmp %rcx, INJ_T_KEY(%r11)
	je 7f
	cmpq $0, INJ_T_KEY(%r11)
	je 5f
	cmpq $1, INJ_T_KEY(%r11)
	jne 8f
	test %rdi, %rdi			/* gone: the first is claimed if the */
	jnz 2f				/* probe ends without this thread's */
	mov %r11, %rdi
	jmp 2f
8:	inc %rcx			/* this thread's claim: its pointer | 1 */
	cmp %rcx, INJ_T_KEY(%r11)
	lea -1(%rcx), %rcx
	je 6f
2:	inc %rax
	and $(INJ_THREADS - 1), %rax
	dec %edx
	jnz 1b
	test %rdi, %rdi			/* no free slot: a gone one */
	jnz 5f
	test %r8, %r8			/* none either: ended threads' given back, */
	jnz 40f				/* once */
	inc %r8
	call za_reap
	jmp 20b
40:	xor %r11d, %r11d
3:	pop %r8
	pop %rdi
	pop %rsi
	ret
4:	xor %r11d, %r11d
	ret
7:	cmp %rsi, INJ_T_OWNER(%r11)
	je 3b				/* this thread's */
	push %rax			/* an ended thread's: given back, and */
	push %rdx			/* looked at again */
	mov %rcx, %rax
	mov INJ_T_OWNER(%r11), %rdx
	call za_retire
	pop %rdx
	pop %rax
	jmp 20b				/* from the start: a handler's call may */
					/* have claimed a slot meanwhile */
5:	xor %eax, %eax			/* free: claimed (or the first gone one) */
	test %rdi, %rdi
	jz 9f
	mov %rdi, %r11
	mov $1, %eax
9:	call za_claim
	jne 20b				/* taken meanwhile: probed again */
	test %r11, %r11
	jz 3b				/* none: no block left */
	mov %r11, %rdi			/* a signal handler's call between the */
	movabs $0x9e3779b97f4a7c15, %rax	/* probe and the claim may have */
	imul %rcx, %rax			/* claimed this thread a slot before it */
	shr $56, %rax			/* (a gone one that became gone after */
21:	mov %rax, %r11			/* the probe passed it): the first one */
	imul za_slotsize(%rip), %r11	/* is the thread's, the one claimed */
	add za_threads(%rip), %r11	/* here given back */
	cmp %rdi, %r11
	je 3b
	cmp %rcx, INJ_T_KEY(%r11)
	jne 22f
	cmp %rsi, INJ_T_OWNER(%r11)
	jne 22f
	push %r11
	push %rax
	mov %rdi, %r11
	mov %rcx, %rax
	mov %rsi, %rdx
	call za_retire
	pop %rax
	pop %r11
	jmp 3b
22:	inc %rax
	and $(INJ_THREADS - 1), %rax
	jmp 21b
6:	mov INJ_T_RSTART(%r11), %rdx	/* this thread's claim, where it was made: */
	test %rdx, %rdx			/* above this probe, or not written yet: */
	jz 40b				/* interrupted by the handler this probe */
	cmp %rsp, %rdx			/* runs in; at or below it, left there by */
	ja 40b				/* a longjmp: claimed again */
	lea 1(%rcx), %rax
	call za_claim
	je 3b
	jmp 40b

/*
 * Slot r11 (its key rax when looked at: 0, or this thread's claim a
 * longjmp left) for this thread (rcx: its thread pointer).  A block, the
 * thread's ids (system calls) first; then the key becomes the thread's
 * claim (rcx | 1), the slot is bound, and the key becomes rcx: a signal
 * handler's probe on this thread sees the claim until the slot is whole.
 * The claim's stack pointer is kept meanwhile in the slot's region start
 * (unused until then), for za_slot to tell a claim a handler interrupted
 * from one a longjmp left.  ZF set: r11 = the slot, or 0 when no block is
 * left; ZF clear: the key changed meanwhile (the block stays unused).
 * Keeps every register but r11 (and flags).
 */
za_claim:
	push %rax
	push %rcx
	push %rdx
	push %rsi
	push %rdi
	push %r8
	SANDBOXED %rdx, 10f		/* gettid, madvise: no slot, counted */
	mov %rax, %r8			/* the key it must still be */
	mov $1, %edx			/* a block first: a new one, one an ended */
	mov za_shm(%rip), %rax		/* thread gave back, or after giving back */
	lock xadd %rdx, INJ_H_BLOCKS(%rax)	/* those of ended threads one; */
	cmp $INJ_THREADS, %rdx		/* none left: no slot */
	jb 1f
	call za_takefree
	test %rdx, %rdx
	jns 1f
	call za_reap
	call za_takefree
	test %rdx, %rdx
	jns 1f
	call za_reapproc
	call za_takefree
	test %rdx, %rdx
	js 8f
1:	push %r11
	mov $186, %eax			/* SYS_gettid; clobbers rcx, r11 */
	syscall
	mov %rax, %rsi
	mov $39, %eax			/* SYS_getpid */
	syscall
	mov %rax, %rdi
	pop %r11
	mov 32(%rsp), %rcx		/* the thread pointer */
	mov %r8, %rax
	lea 1(%rcx), %r8
	lock cmpxchg %r8, INJ_T_KEY(%r11)
	jne 11f
	mov %rsp, INJ_T_RSTART(%r11)
	movq $0, INJ_T_DEPTH(%r11)	/* a gone slot's frames are not this thread's */
	movq $0, INJ_T_FLAGS(%r11)
	mov za_tidoff(%rip), %rax
	mov %fs:(%rax), %eax
	mov %rax, INJ_T_OWNER(%r11)
	call za_bind
	mov %rdi, INJ_T_PID(%r11)
	movq $-1, INJ_T_FD(%r11)
	movq $0, INJ_T_PAGE(%r11)
	movq $0, INJ_T_RSTART(%r11)
	mov %rcx, INJ_T_KEY(%r11)	/* the thread's from here on */
	call za_populate
	cmpq $0, za_event(%rip)
	je 7f
	call za_open
7:	xor %eax, %eax			/* ZF set */
	jmp 9f
8:	mov za_shm(%rip), %rax		/* none: zond looks for ended processes' */
	lock incq INJ_H_WANT(%rax)	/* blocks at once */
	xor %r11d, %r11d		/* ZF set */
9:	pop %r8
	pop %rdi
	pop %rsi
	pop %rdx
	pop %rcx
	pop %rax
	ret
10:	mov za_shm(%rip), %rax
	lock incq INJ_H_SANDBOXED(%rax)
	xor %r11d, %r11d
	xor %eax, %eax			/* ZF set: no slot */
	jmp 9b
11:	mov za_shm(%rip), %rax		/* the block stays unused: given back */
	lock bts %rdx, INJ_H_FREE(%rax)
	test %rsp, %rsp			/* ZF clear */
	jmp 9b

/*
 * rdx = a shared block an ended thread's slot gave back (INJ_H_FREE),
 * taken (lock btr); -1 when there is none.  Clobbers rax, rcx.
 */
za_takefree:
	mov za_shm(%rip), %rax
	xor %ecx, %ecx
1:	mov INJ_H_FREE(%rax, %rcx, 8), %rdx
	test %rdx, %rdx
	jz 2f
	bsf %rdx, %rdx
	lock btr %rdx, INJ_H_FREE(%rax, %rcx, 8)
	jnc 1b				/* taken meanwhile: looked at again */
	shl $6, %ecx
	add %rcx, %rdx
	ret
2:	inc %ecx
	cmp $(INJ_THREADS / 64), %ecx
	jb 1b
	mov $-1, %rdx
	ret

/*
 * Gives back the slots of this process's ended threads (za_retire): a
 * bound slot of this process (its key a thread pointer, not shared by
 * tasks, with a block of its own) whose thread is no more
 * (tgkill(pid, tid, 0) says ESRCH: no thread of that id in this process,
 * so its thread cannot be in the middle of a probe; a thread's id is
 * used again only after the kernel's pid space wrapped).  Not without TCB
 * ids (za_tidoff 0: a new thread on an ended one's TCB would take the
 * slot for its own), nor under seccomp (getpid, tgkill, close are system
 * calls).  Run when a thread finds no block or no slot left.  Keeps every
 * register but rflags.
 */
za_reap:
	cmpq $0, za_tidoff(%rip)
	jne 0f
	ret
0:	push %rax
	push %rcx
	push %rdx
	push %rsi
	push %rdi
	push %r8
	push %r9
	push %r10
	push %r11
	SANDBOXED %rax, 9f
	mov $39, %eax			/* SYS_getpid; clobbers rcx, r11 */
	syscall
	mov %rax, %r8
	xor %r9d, %r9d
1:	mov %r9, %r11
	imul za_slotsize(%rip), %r11
	add za_threads(%rip), %r11
	mov INJ_T_KEY(%r11), %rax
	mov INJ_T_OWNER(%r11), %rdx
	cmp $1, %rax
	jbe 2f				/* free, or gone */
	test $1, %al
	jnz 2f				/* being claimed */
	testb $(INJ_TF_SHARED | INJ_TF_NOBLOCK), INJ_T_FLAGS(%r11)
	jnz 2f
	cmp INJ_T_PID(%r11), %r8
	jne 2f
	mov INJ_T_SHARED(%r11), %rsi
	mov INJ_SB_TID(%rsi), %rsi
	push %rax
	push %rdx
	push %r11
	mov %r8, %rdi
	xor %edx, %edx			/* signal 0: is it there */
	mov $234, %eax			/* SYS_tgkill */
	syscall
	mov %rax, %r10
	pop %r11
	pop %rdx
	pop %rax
	cmp $-3, %r10			/* ESRCH: ended */
	jne 2f
	call za_retire
2:	inc %r9
	cmp $INJ_THREADS, %r9
	jb 1b
9:	pop %r11
	pop %r10
	pop %r9
	pop %r8
	pop %rdi
	pop %rsi
	pop %rdx
	pop %rcx
	pop %rax
	ret

/*
 * Gives back the blocks of the ended processes this one can tell (zond,
 * which waits for the program, does it too, for zombies as well): a block
 * held (INJ_SB_LIVE) by another process that kill(pid, 0) no longer finds
 * (ESRCH: reaped, no thread of it is left to write the block; a pid used
 * again only keeps it longer) is taken by one lock cmpxchg of its holder
 * to 0 (once per owner, against zond and other processes doing the same),
 * the calls its process left open in it count as never returned
 * (INJ_H_ENDED, as za_retire), and its bit is set in INJ_H_FREE.  Not
 * under seccomp (getpid, kill), nor in a process whose ids may not be the
 * others' kind (INJ_PF_FOREIGN).  Run when a thread or forked child finds
 * no block left.  Keeps every register but rflags.
 */
za_reapproc:
	push %rax
	push %rcx
	push %rdx
	push %rsi
	push %rdi
	push %r8
	push %r9
	push %r10
	push %r11
	SANDBOXED %rax, 9f
	cmpq $0, INJ_PFLAGS_AT + INJ_PF_FOREIGN(%rax)
	jne 9f
	mov $39, %eax			/* SYS_getpid; clobbers rcx, r11 */
	syscall
	mov %rax, %r8
	mov za_shm(%rip), %r10
	mov INJ_H_BLOCKS(%r10), %r9
	cmp $INJ_THREADS, %r9
	jbe 0f
	mov $INJ_THREADS, %r9
0:	xor %esi, %esi			/* the block's number */
1:	cmp %r9, %rsi
	jae 9f
	mov %rsi, %rdi
	imul za_blocksize(%rip), %rdi
	add za_blocks(%rip), %rdi
	mov INJ_SB_LIVE(%rdi), %rax
	test %rax, %rax
	jz 8f				/* free, or being bound */
	cmp $-1, %rax			/* INJ_LIVE_KEEP */
	je 8f
	cmp %r8, %rax
	je 8f				/* this process's: za_reap */
	push %rsi
	push %rdi
	push %rax
	mov %rax, %rdi
	xor %esi, %esi			/* signal 0: is it there */
	mov $62, %eax			/* SYS_kill */
	syscall
	mov %rax, %rdx
	pop %rax
	pop %rdi
	pop %rsi
	cmp $-3, %rdx			/* ESRCH: ended and reaped */
	jne 8f
	xor %edx, %edx
	lock cmpxchg %rdx, INJ_SB_LIVE(%rdi)
	jne 8f				/* given back by another meanwhile */
	xor %ecx, %ecx			/* the block is this thread's now: */
2:	cmp za_nfuncs(%rip), %rcx	/* the calls left open counted */
	jae 4f
	movslq INJ_SB_OPEN(%rdi, %rcx, 4), %rax
	movl $0, INJ_SB_OPEN(%rdi, %rcx, 4)
	test %rax, %rax
	jle 3f
	mov %rcx, %rdx
	shl $6, %rdx			/* INJ_STAT == 64 */
	add za_stats(%rip), %rdx
	add %rax, INJ_S_CALLS(%rdi, %rdx)
	lock add %rax, INJ_H_ENDED(%r10)
3:	inc %rcx
	jmp 2b
4:	lock bts %rsi, INJ_H_FREE(%r10)
8:	inc %rsi
	jmp 1b
9:	pop %r11
	pop %r10
	pop %r9
	pop %r8
	pop %rdi
	pop %rsi
	pop %rdx
	pop %rcx
	pop %rax
	ret

/*
 * Slot r11, an ended thread's, whose key and owner read rax and rdx: made
 * gone (key 1, owner 0) by one cmpxchg16b if they are still those (a new
 * thread on the ended one's TCB and another's za_reap may both try; one
 * does it).  The calls its thread left open (frames on its shadow stack:
 * it ended inside measured functions, pthread_exit) count as calls never
 * returned (INJ_H_ENDED), their open counts taken back; its counter
 * (--event) is closed; its block is given back (INJ_H_FREE) for the next
 * thread to take, whose figures add to it.  Keeps every register but
 * rflags.
 */
za_retire:
	push %rax
	push %rbx
	push %rcx
	push %rdx
	push %rsi
	push %rdi
	push %r9
	push %r11
	mov $1, %ebx
	xor %ecx, %ecx
	lock cmpxchg16b INJ_T_KEY(%r11)
	jne 9f
	mov za_shm(%rip), %r9
	testb $INJ_TF_NOBLOCK, INJ_T_FLAGS(%r11)
	jnz 9f				/* no block of its own, nothing open in one */
	mov INJ_T_DEPTH(%r11), %esi
	cmp $INJ_DEPTH, %esi
	jbe 1f
	mov $INJ_DEPTH, %esi
1:	mov INJ_T_SHARED(%r11), %rdi
2:	test %esi, %esi
	jz 4f
	dec %esi
	mov %rsi, %rcx
	shl $6, %rcx			/* INJ_FRAME == 64 */
	lea INJ_SLOT_HDR(%r11, %rcx), %rcx
	mov INJ_F_GEN(%rcx), %rax
	bt $63, %rax			/* a forked child's inherited frame: */
	jc 2b				/* its parent's call */
	mov INJ_F_ID(%rcx), %rdx
	decl INJ_SB_OPEN(%rdi, %rdx, 4)
	shl $6, %rdx			/* INJ_STAT == 64 */
	add za_stats(%rip), %rdx
	incq INJ_S_CALLS(%rdi, %rdx)
	lock incq INJ_H_ENDED(%r9)
	jmp 2b
4:	movq $0, INJ_T_DEPTH(%r11)
	cmpq $0, za_event(%rip)
	je 6f
	SANDBOXED %rax, 6f		/* close, munmap: not under seccomp */
	mov INJ_T_FD(%r11), %rdi
	test %rdi, %rdi
	js 5f
	mov $3, %eax			/* SYS_close; clobbers rcx, r11 */
	syscall
	mov (%rsp), %r11
5:	mov INJ_T_PAGE(%r11), %rdi
	test %rdi, %rdi
	jz 6f
	mov $4096, %esi
	mov $11, %eax			/* SYS_munmap */
	syscall
	mov (%rsp), %r11
6:	movq $-1, INJ_T_FD(%r11)
	movq $0, INJ_T_PAGE(%r11)
	mov INJ_T_SHARED(%r11), %rax	/* held by no process (zond's view, */
	movq $0, INJ_SB_LIVE(%rax)	/* INJ_SB_LIVE), then free */
	mov INJ_T_BLOCK(%r11), %rdx
	lock bts %rdx, INJ_H_FREE(%r9)
9:	pop %r11
	pop %r9
	pop %rdi
	pop %rsi
	pop %rdx
	pop %rcx
	pop %rbx
	pop %rax
	ret

/*
 * Slot r11 takes shared block rdx (and the context area of that number)
 * for the thread rsi of process rdi: both ids written in the block, and
 * its holder (INJ_SB_LIVE) last: this process, or INJ_LIVE_KEEP when its
 * ids may not be its parent's kind (INJ_PF_FOREIGN), for zond to give the
 * block back when the process has ended.  Keeps every register but rflags.
 */
za_bind:
	push %rax
	push %rdx
	mov %rdx, INJ_T_BLOCK(%r11)
	mov %rdx, %rax
	imul za_blocksize(%rip), %rdx
	add za_blocks(%rip), %rdx
	mov %rsi, INJ_SB_TID(%rdx)
	mov %rdi, INJ_SB_PID(%rdx)
	incq INJ_SB_THREADS(%rdx)	/* a block an ended thread gave back: */
	cmpq $1, INJ_SB_THREADS(%rdx)	/* the figures of both */
	je 1f
	push %rax
	mov za_shm(%rip), %rax
	lock incq INJ_H_REUSED(%rax)
	pop %rax
1:
	mov %rdx, INJ_T_SHARED(%r11)
	imul $INJ_CBLOCK, %rax, %rax
	add za_ctxs(%rip), %rax
	mov %rax, INJ_T_CTX(%r11)
	mov za_threads(%rip), %rax
	cmpq $0, INJ_PFLAGS_AT + INJ_PF_FOREIGN(%rax)
	mov %rdi, %rax
	je 2f
	mov $INJ_LIVE_KEEP, %rax
2:	mov %rax, INJ_SB_LIVE(%rdx)
	pop %rdx
	pop %rax
	ret

/*
 * A process's first probe (the process page reads 0: the target's first,
 * or a forked child's, whose copy of the page the kernel zeroed): one
 * thread marks the page MADV_WIPEONFORK (kept in children; a kernel older
 * than 4.14 refuses, and forked children then go on in their parent
 * thread's blocks), takes over what the process inherited (za_adopt) and
 * sets the page ready; any other thread waits for that.  In the slot
 * table a forked child inherits, its own thread's slot is its parent
 * thread's copy, and the parent's other threads are not in it: their
 * slots are marked gone (key 1), so that a new thread at the same thread
 * pointer takes a new slot, not the parent's block.  The page's word is
 * the thread's claim (its pointer | 1) meanwhile, its second word the
 * claim's stack pointer: a signal handler's probe on the claiming thread
 * returns at once, with the page not ready (it must not wait for the
 * code it interrupted), and a probe above a claim a longjmp left makes it
 * again (each step can be done twice).  While no process of the run has
 * taken a block (the target's first probe, before the slots are touched,
 * hundreds of microseconds of page faults), no slot is anyone's: there is
 * nothing to take over, and every thread just marks the page and sets it
 * ready, without a claim.  Clobbers rax, rcx, rdx, r11 (and flags).
 */
za_forked:
	push %rsi
	push %rdi
	push %r8
	push %r9
	push %r10
	mov za_proc(%rip), %rsi
	mov %fs:0, %r9
	lea 1(%r9), %r10		/* this thread's claim */
	mov za_shm(%rip), %rax
	cmpq $0, INJ_H_BLOCKS(%rax)
	jne 1f
	call 8f
	movq $ZA_PROC_READY, (%rsi)
	jmp 9f
1:	mov (%rsi), %rax
	cmp $ZA_PROC_READY, %rax
	je 9f
	test %rax, %rax
	jnz 2f
	lock cmpxchg %r10, (%rsi)
	jne 1b
3:	mov %rsp, 8(%rsi)
	call 8f
	call za_pid
	mov %rax, %r8
	xor %edi, %edi			/* the slot taken over, 0: none */
	xor %r10d, %r10d
4:	mov %r10, %r11
	imul za_slotsize(%rip), %r11
	add za_threads(%rip), %r11
	mov INJ_T_KEY(%r11), %rax
	cmp $1, %rax
	jbe 6f				/* free, or gone */
	cmp INJ_T_PID(%r11), %r8
	je 6f				/* this process's own */
	cmp %r9, %rax
	je 5f
	movq $1, INJ_T_KEY(%r11)	/* a thread this process does not have */
	jmp 6f
5:	call za_adopt
	mov %r11, %rdi
6:	inc %r10
	cmp $INJ_THREADS, %r10
	jb 4b
	mov za_proc(%rip), %rsi
	movq $ZA_PROC_READY, (%rsi)
	test %rdi, %rdi
	jz 9f
	SANDBOXED %rax, 9f		/* madvise */
	mov %rdi, %r11
	call za_populate
	jmp 9f
2:	cmp %r10, %rax
	jne 7f
	mov 8(%rsi), %rax		/* this thread's own claim: interrupted */
	test %rax, %rax			/* above this probe (or just made), or */
	jz 9f				/* left at or below it by a longjmp */
	cmp %rsp, %rax
	ja 9f
	jmp 3b
7:	pause				/* another thread's: it is done soon */
	jmp 1b
9:	pop %r10
	pop %r9
	pop %r8
	pop %rdi
	pop %rsi
	ret
8:	SANDBOXED %rax, 10f		/* zond marked it too (scenario.c) */
	push %rsi			/* the page (rsi) kept in children */
	mov %rsi, %rdi
	mov $4096, %esi
	mov $18, %edx			/* MADV_WIPEONFORK */
	mov $28, %eax			/* SYS_madvise; clobbers rcx, r11 */
	syscall
	pop %rsi
	ret
10:	ret

/*
 * rax = this process's id: getpid, or under seccomp (no system call)
 * the id the thread's TCB holds, the process's own in a forked child's
 * thread that forked (glibc's fork has the kernel write it there);
 * ZA_NOPID when neither can be had.  Clobbers rcx, r11.
 */
za_pid:
	SANDBOXED %rax, 1f
	mov $39, %eax			/* SYS_getpid */
	syscall
	ret
1:	mov za_tidoff(%rip), %rax
	test %rax, %rax
	jz 2f
	movl %fs:(%rax), %eax
	ret
2:	movabs $ZA_NOPID, %rax
	ret

/*
 * Slot r11, this thread's copy of its parent thread's (r8: this process's
 * id), taken over: a block and context area of its own; with --event the
 * thread's own counter.  The frames it inherited are its parent's calls,
 * not its own (counted once, where they were entered: the parent counts
 * them; a child that execs never returns from them): marked (F_GEN's top
 * bit) so that their returns here count nothing, and so that the calls the
 * child makes under them start its own stacks (F_CTX ZA_CTX_ROOT).  Their
 * open counts are in the parent's block, not in the child's.  A block is
 * a new one, or one an ended thread or process gave back (zond gives back
 * those of ended processes by their INJ_SB_LIVE: the child's getpid,
 * unless getppid is not the id its parent's slot holds, INJ_PF_FOREIGN).
 * With every block taken it measures nothing (INJ_TF_NOBLOCK: its calls
 * are counted, INJ_H_NOBLOCK; INJ_H_WANT has zond look for ended
 * processes' blocks for the next one): in its parent thread's block both
 * processes' unlocked updates raced, calls were lost and open counts left
 * behind (QA s11 F3).
 * The slot's process id last: a slot with it is taken over (za_forked).
 * Keeps every register but rax, rcx, rdx (and flags).
 */
za_adopt:
	push %rsi
	push %rdi
	SANDBOXED %rax, 10f
	push %r11
	mov $110, %eax			/* SYS_getppid; clobbers rcx, r11 */
	syscall
	pop %r11
	cmp INJ_T_PID(%r11), %rax	/* its parent's id as its parent saw it: */
	je 11f				/* the ids zond can look up */
15:	mov za_threads(%rip), %rax	/* another pid namespace (getppid 0), a */
	movq $1, INJ_PFLAGS_AT + INJ_PF_FOREIGN(%rax)	/* parent gone, or under */
11:	mov $1, %edx			/* seccomp: its blocks are kept for the run */
	mov za_shm(%rip), %rax
	lock xadd %rdx, INJ_H_BLOCKS(%rax)
	cmp $INJ_THREADS, %rdx
	jb 0f
	call za_takefree		/* one an ended thread or process gave back */
	test %rdx, %rdx
	jns 0f
	call za_reap
	call za_takefree
	test %rdx, %rdx
	jns 0f
	call za_reapproc
	call za_takefree
	test %rdx, %rdx
	jns 0f
	mov za_shm(%rip), %rax		/* none: zond looks for ended processes' */
	lock incq INJ_H_WANT(%rax)	/* blocks at once, for the next child */
12:	lock orq $INJ_TF_NOBLOCK, INJ_T_FLAGS(%r11)	/* none left: nothing measured */
	jmp 1f
10:	cmpq $0, za_event(%rip)		/* under seccomp: no counter to open, */
	jne 12b				/* nor this process's id to be had */
	movabs $ZA_NOPID, %rax
	cmp %rax, %r8
	je 12b
	jmp 15b
0:
	push %r11
	SANDBOXED %rax, 13f
	mov $186, %eax			/* SYS_gettid; clobbers rcx, r11 */
	syscall
	jmp 14f
13:	mov za_tidoff(%rip), %rax	/* under seccomp: the TCB's */
	movl %fs:(%rax), %eax
14:	pop %r11
	mov %rax, %rsi
	mov %r8, %rdi
	call za_bind
1:	mov %r8, %rax
	bts $63, %rax			/* this process's, inherited */
	xor %edi, %edi
2:	cmp INJ_T_DEPTH(%r11), %edi
	jae 5f
	cmp $INJ_DEPTH, %edi
	jae 5f
	mov %rdi, %rcx
	shl $6, %rcx			/* INJ_FRAME == 64 */
	lea INJ_SLOT_HDR(%r11, %rcx), %rcx
	mov %rax, INJ_F_GEN(%rcx)
	movq $ZA_CTX_ROOT, INJ_F_CTX(%rcx)
	inc %edi
	jmp 2b
5:	cmpq $0, za_event(%rip)
	je 9f
	SANDBOXED %rax, 9f
	mov INJ_T_FD(%r11), %rdi	/* the parent's counter, in this process */
	test %rdi, %rdi
	js 6f
	mov $3, %eax			/* SYS_close; clobbers rcx, r11 */
	push %r11
	syscall
	pop %r11
6:	mov INJ_T_PAGE(%r11), %rdi
	test %rdi, %rdi
	jz 7f
	mov $4096, %esi
	mov $11, %eax			/* SYS_munmap */
	push %r11
	syscall
	pop %r11
7:	movq $-1, INJ_T_FD(%r11)
	movq $0, INJ_T_PAGE(%r11)
	call za_open
9:	mov za_tidoff(%rip), %rax	/* the owner: this thread, whose TCB */
	mov %fs:(%rax), %eax		/* the kernel gave the child's id */
	mov %rax, INJ_T_OWNER(%r11)
	mov %r8, INJ_T_PID(%r11)
	pop %rdi
	pop %rsi
	ret

/*
 * The memory a thread's measured calls write, mapped in at once when its
 * slot (r11) is claimed (madvise MADV_POPULATE_WRITE, Linux 5.14; older
 * kernels refuse it, and the pages come at first touch as before): its
 * slot, its shared block and its calling contexts' area.  Otherwise the
 * first touch of each page (a new frame's depth, a new call edge, a new
 * context's record and hash entry) faults inside a measured caller's
 * interval: microseconds each, which no calibration sees.  Keeps every
 * register but rflags.
 */
za_populate:
	push %rax
	push %rcx
	push %rdx
	push %rsi
	push %rdi
	push %r11
	mov %r11, %rdi
	mov za_slotsize(%rip), %rsi
	call 1f
	mov (%rsp), %r11
	mov INJ_T_SHARED(%r11), %rdi
	mov za_blocksize(%rip), %rsi
	call 1f
	mov (%rsp), %r11
	cmpq $0, za_ctxs(%rip)
	je 9f
	mov INJ_T_CTX(%r11), %rdi
	mov $INJ_CBLOCK, %esi
	call 1f
9:	pop %r11
	pop %rdi
	pop %rsi
	pop %rdx
	pop %rcx
	pop %rax
	ret
1:	lea 4095(%rdi, %rsi), %rsi	/* madvise rdi, rsi bytes, in whole pages */
	and $-4096, %rdi
	and $-4096, %rsi
	sub %rdi, %rsi
	mov $23, %edx			/* MADV_POPULATE_WRITE */
	mov $28, %eax			/* SYS_madvise; clobbers rcx, r11 */
	syscall
	ret

/*
 * The thread's counter (za_event 1), opened when its slot (r11) is
 * claimed, that is at its first measured call: perf_event_open of
 * za_attr for this thread, moved (F_DUPFD_CLOEXEC) to a number the
 * program never gets from open(): above the soft RLIMIT_NOFILE (raised
 * for the one fcntl, then put back; the hard limit with it where that is
 * allowed, root), else the highest free below it, so that the numbers the
 * program's own open()s get stay as without zond (as fds_move_high,
 * tool/util/fds.c; QA s13 U F8); closed at exec; its page mapped (za_read's
 * rdpmc).  Both go to the slot; fd -1 and the header's nocounter counted
 * when it cannot be had.  Keeps every register but rflags.
 */
za_open:
	push %rax
	push %rcx
	push %rdx
	push %rsi
	push %rdi
	push %r8
	push %r9
	push %r10
	push %r11			/* the slot, at (%rsp) */
	lea za_attr(%rip), %rdi
	xor %esi, %esi			/* this thread */
	mov $-1, %rdx			/* any cpu */
	mov $-1, %r10			/* no group */
	mov $8, %r8d			/* PERF_FLAG_FD_CLOEXEC */
	mov $298, %eax			/* SYS_perf_event_open */
	syscall
	test %rax, %rax
	js 8f
	mov %rax, %r8			/* the fd as opened, the lowest free */
	sub $32, %rsp			/* RLIMIT_NOFILE: as it is at 0, raised at 16 */
	xor %edi, %edi			/* this process */
	mov $7, %esi			/* RLIMIT_NOFILE */
	xor %edx, %edx
	mov %rsp, %r10
	mov $302, %eax			/* SYS_prlimit64 */
	syscall
	test %rax, %rax
	jnz 30f				/* unknown: where it was opened */
	mov (%rsp), %r9			/* the soft limit */
	cmp $0x1000000, %r9		/* none (or huge): where it was opened */
	jae 30f
	lea 64(%r9), %rax
	mov %rax, 16(%rsp)		/* soft + 64, */
	mov 8(%rsp), %rdx
	cmp %rdx, %rax			/* within the hard limit, or the hard */
	cmova %rax, %rdx		/* limit raised with it (root) */
	mov %rdx, 24(%rsp)
	xor %edi, %edi
	mov $7, %esi
	lea 16(%rsp), %rdx
	xor %r10d, %r10d
	mov $302, %eax
	syscall
	test %rax, %rax
	jnz 25f
	mov %r8, %rdi			/* above the program's numbers */
	mov $1030, %esi			/* F_DUPFD_CLOEXEC */
	mov %r9, %rdx
	mov $72, %eax			/* SYS_fcntl */
	syscall
	mov %rax, %r10
	xor %edi, %edi			/* the limits put back */
	mov $7, %esi
	mov %rsp, %rdx
	mov %r10, 16(%rsp)
	xor %r10d, %r10d
	mov $302, %eax
	syscall
	mov 16(%rsp), %rax
	test %rax, %rax
	jns 31f
25:	lea -65(%r9), %r10		/* no room above: the highest free below, */
	mov %r10, 16(%rsp)		/* the last number the program's open() */
26:	dec %r9				/* gives (64 tried) */
	cmp %r8, %r9
	jle 30f
	cmp 16(%rsp), %r9
	jle 30f
	mov %r8, %rdi
	mov $1030, %esi			/* F_DUPFD_CLOEXEC: exactly r9 or none */
	mov %r9, %rdx
	mov $72, %eax
	syscall
	test %rax, %rax
	js 26b
31:	mov %rax, %rsi
	mov %r8, %rdi
	mov $3, %eax			/* SYS_close: the low number is free again */
	syscall
	mov %rsi, %r8
30:	add $32, %rsp
	lea 1(%r8), %rcx		/* the process's lowest counter fd + 1 */
	mov za_threads(%rip), %rdx	/* (za_close) before the slot has it */
	mov INJ_PFLAGS_AT + INJ_PF_FDLOW(%rdx), %rax
32:	test %rax, %rax
	jz 33f
	cmp %rax, %rcx
	jae 34f
33:	lock cmpxchg %rcx, INJ_PFLAGS_AT + INJ_PF_FDLOW(%rdx)
	jne 32b
34:	mov %r8, %rax
	mov (%rsp), %r11
	mov %rax, INJ_T_FD(%r11)
	mov %rax, %r8			/* its page, for rdpmc where the kernel allows */
	xor %edi, %edi
	mov $4096, %esi
	mov $1, %edx			/* PROT_READ */
	mov $1, %r10d			/* MAP_SHARED */
	xor %r9d, %r9d
	mov $9, %eax			/* SYS_mmap */
	syscall
	cmp $-4096, %rax
	jbe 7f
	xor %eax, %eax			/* none: read() it is */
7:	mov (%rsp), %r11
	mov %rax, INJ_T_PAGE(%r11)
	jmp 9f
8:	mov za_shm(%rip), %rax
	lock incq INJ_H_NOCOUNTER(%rax)
9:	pop %r11
	pop %r10
	pop %r9
	pop %r8
	pop %rdi
	pop %rsi
	pop %rdx
	pop %rcx
	pop %rax
	ret

/*
 * rax = the thread's perf_event counter (slot r11), CF clear; CF set when
 * it cannot be read: the thread has none, the process is under a seccomp
 * filter (read() may be forbidden; strict mode allows it), or read()
 * failed.  A read() that fails with EBADF (the program closed the fd by
 * means za_close does not see: a raw system call) drops the fd from the
 * slot (never read nor closed again: the number may be the program's
 * now) and counts the thread in the header's lostfd.  With rdpmc allowed
 * on its page (cap_user_rdpmc: a hardware event the kernel has scheduled
 * on a counter, index > 0) the counter is read in user mode, by the
 * kernel's seqlock protocol for self-monitoring
 * (include/uapi/linux/perf_event.h); otherwise read() from its fd.
 * Keeps every other register but rflags.
 */
za_read:
	push %rcx
	push %rdx
	push %rsi
	push %rdi
	push %r11
	mov INJ_T_PAGE(%r11), %rsi
	test %rsi, %rsi
	jz 5f
1:	mov PG_LOCK(%rsi), %edi		/* the sequence the values belong to */
	testb $PG_CAP_RDPMC, PG_CAPS(%rsi)
	jz 5f
	mov PG_INDEX(%rsi), %ecx
	test %ecx, %ecx
	jz 5f				/* not on a counter now */
	dec %ecx
	lfence
	rdpmc
	shl $32, %rdx
	or %rdx, %rax
	movzwl PG_WIDTH(%rsi), %ecx
	neg %ecx
	add $64, %ecx
	shl %cl, %rax			/* sign-extended from the counter's width */
	sar %cl, %rax
	add PG_OFFSET(%rsi), %rax
	cmp PG_LOCK(%rsi), %edi
	jne 1b				/* the kernel updated it meanwhile */
	clc
	jmp 9f
5:	push $0				/* the value read */
	mov za_threads(%rip), %rdi	/* read() may be forbidden: none */
	testb $INJ_SECCOMP_FILTER, INJ_PFLAGS_AT + INJ_PF_SANDBOX(%rdi)
	jnz 8f
	mov INJ_T_FD(%r11), %rdi
	test %rdi, %rdi
	js 8f
	mov %rsp, %rsi
	mov $8, %edx
	xor %eax, %eax			/* SYS_read; clobbers rcx, r11 */
	syscall
	cmp $8, %rax
	je 7f
	cmp $-9, %rax			/* EBADF: closed behind zond's back */
	jne 8f
	mov 8(%rsp), %r11
	movq $-1, INJ_T_FD(%r11)
	mov za_shm(%rip), %rax
	lock incq INJ_H_LOSTFD(%rax)
8:	pop %rax
	stc
	jmp 9f
7:	pop %rax
	clc
9:	pop %r11
	pop %rdi
	pop %rsi
	pop %rdx
	pop %rcx
	ret

/*
 * COUNT none: rax = the counter now (r11 = the thread's slot), or a jump to
 * none when it cannot be read (NOTSC, za_read); clobbers rdx (and flags).
 * COUNT none, lfence reads it after every earlier instruction has
 * completed (both ends of a function's interval, a region's end); a
 * region's start is read unfenced.  COUNT none, lfence, LABEL puts LABEL
 * at the fence: the TSC's fences are labelled (za_fence_*), so that
 * --fast-clock (payload.c) can turn them into nops of the same length.
 */
	.macro COUNT none, fence=, at=
	cmpq $0, za_event(%rip)
	jne 20f
	NOTSC %rdx, \none
	.ifnb \at
\at:
	.endif
	\fence
	rdtsc
	shl $32, %rdx
	or %rdx, %rax
	jmp 21f
20:	call za_read
	jc \none
21:
	.endm

/*
 * The calling context of frame rcx, still to be pushed (function rdx,
 * slot r11), into its INJ_F_CTX: the child for rdx of the frame below's
 * context (none below: a root call), found in the thread's hash table or
 * added, and rsi = its record (the entry counts the call there once the
 * frame is pushed); 0, the header's noctx counted and rsi as it was, when
 * the table is full or the parent has none.  A signal handler's calls may
 * add records meanwhile: a record is taken by cmpxchg of the records'
 * count (its key written first: whoever takes the record writes its own),
 * and entered by cmpxchg of its empty place in the hash table; a place
 * taken meanwhile leaves the record out (key -1, which no reader takes)
 * and the lookup starts again.  Keeps every other register but rflags.
 */
za_ctx:
	push %rdi
	push %r8
	push %r9
	push %r10
	xor %r8d, %r8d			/* the parent's record, 0: a root call */
	lea INJ_SLOT_HDR(%r11), %r9
	cmp %r9, %rcx
	je 1f
	mov INJ_F_CTX - INJ_FRAME(%rcx), %r8
	test %r8, %r8
	jz 8f
	cmp $ZA_CTX_ROOT, %r8		/* under a frame a forked child inherited */
	jne 1f
	xor %r8d, %r8d
1:	mov INJ_T_CTX(%r11), %rdi
	shl $32, %r8
	or %rdx, %r8			/* the key */
2:	movabs $0x9e3779b97f4a7c15, %r10
	imul %r8, %r10
	shr $(64 - INJ_CTX_HASH_BITS), %r10
3:	mov INJ_CB_HASH(%rdi, %r10, 4), %r9d
	test %r9d, %r9d
	jz 4f				/* not there: added */
	shl $6, %r9			/* INJ_CTX == 64 */
	cmp %r8, INJ_C_KEY(%rdi, %r9)
	je 7f
	inc %r10d
	and $(INJ_CTX_HASH - 1), %r10d
	jmp 3b
4:	push %rax
	push %rcx
	push %rdx
5:	mov INJ_C_CALLS(%rdi), %rax	/* record 0 counts the records used (0: none yet, 1) */
	mov %rax, %r9
	test %r9, %r9
	jnz 6f
	mov $1, %r9d
6:	cmp $INJ_CTX_MAX, %r9
	jae 10f
	mov %r9, %rcx
	shl $6, %rcx
	mov %r8, INJ_C_KEY(%rdi, %rcx)
	lea 1(%r9), %rdx
	cmpxchg %rdx, INJ_C_CALLS(%rdi)
	jne 5b
	xor %eax, %eax
	cmpxchg %r9d, INJ_CB_HASH(%rdi, %r10, 4)
	je 11f
	movq $-1, INJ_C_KEY(%rdi, %rcx)
	pop %rdx
	pop %rcx
	pop %rax
	jmp 2b
10:	pop %rdx
	pop %rcx
	pop %rax
	jmp 8f
11:	pop %rdx
	pop %rcx
	pop %rax
	shl $6, %r9
7:	lea (%rdi, %r9), %rsi		/* the record */
	shr $6, %r9
	mov %r9, INJ_F_CTX(%rcx)
	jmp 9f
8:	movq $0, INJ_F_CTX(%rcx)
	push %rdi
	mov za_shm(%rip), %rdi
	lock incq INJ_H_NOCTX(%rdi)
	pop %rdi
9:	pop %r10
	pop %r9
	pop %r8
	pop %rdi
	ret

/* MINMAX as a function, for the region probe (stat rcx, cost rsi); clobbers rax, rdx. */
za_minmax:
	MINMAX %rcx, %rdx
	ret

/*
 * Drops the frames longjmp (or a thread's exit through an unwinder) left
 * on the shadow stack: those whose return-address slot lies below rdx,
 * that is deeper in the stack than a live frame can be.  Their calls
 * count; their time is not known (the header's untimed counts them).  Or
 * a frame of another stack the thread switched from by a switch zond does
 * not see (a coroutine library's own, not swapcontext: za_switch): it is
 * live, so a slot below the stack pointer that still holds za_exit gets
 * its real return address back -- that call returns unmeasured, never
 * into za_exit with no frame of its own.  (Slots between the stack pointer
 * and rdx are the payload's own saved registers.)  One frame at a time,
 * read whole, then popped by cmpxchg of the depth word: a signal handler
 * that dropped it meanwhile (or pushed and popped) changed the word, and
 * the frame is looked at again.  r11 = the slot; clobbers rax, rcx.
 */
za_drop:
	push %rbx
	xor %ebx, %ebx			/* no floor */
	call za_drop_floor
	pop %rbx
	ret

/*
 * DROP's za_drop: frames whose slot lies below rdx are dead, but not those
 * of the stack a signal handler interrupted when the handler runs on an
 * alternate signal stack *above* it (a sigaltstack mmap'd before the
 * thread's stack): their slots lie below the handler's calls' and they
 * are live.  So when a frame would be dropped, sigaltstack(NULL, &old)
 * says whether the thread runs on its alternate stack; if so only frames
 * whose slot is on that stack may be dropped (a longjmp inside the
 * handler).  One system call where frames are to be dropped (a longjmp, a
 * handler's first measured call on such a stack), none on the common
 * path; none once the process went under seccomp (then the frames are
 * dropped as before).  Before, the handler's first measured call dropped
 * the interrupted thread's live frames, while the interrupted entry or
 * exit still used them: SIGSEGV (QA s11 F2).  r11 = the slot, rdx = the
 * limit; clobbers rax, rcx.
 */
za_dropchk:
	push %rbx
	xor %ebx, %ebx			/* the floor: frames with slots below stay */
	SANDBOXED %rax, 8f
	push %rdx
	push %rsi
	push %rdi
	push %r11
	sub $32, %rsp			/* stack_t: ss_sp, ss_flags, ss_size */
	xor %edi, %edi
	mov %rsp, %rsi
	mov $131, %eax			/* SYS_sigaltstack; clobbers rcx, r11 */
	syscall
	test %rax, %rax
	jnz 7f
	testl $1, 8(%rsp)		/* SS_ONSTACK: on the alternate stack now */
	jz 7f
	mov (%rsp), %rbx		/* its lowest address */
7:	add $32, %rsp
	pop %r11
	pop %rdi
	pop %rsi
	pop %rdx
8:	call za_drop_floor
	pop %rbx
	ret

/*
 * LIVE's drop: the top frame, whose slot is rdx, and any under it at the
 * same slot (a tail call's), counted untimed like DROP's.  r11 = the slot;
 * clobbers rax, rcx, rdx.
 */
za_deadtop:
	push %rbx
	xor %ebx, %ebx			/* no floor */
	inc %rdx			/* frames whose slot lies below slot + 1 */
	call za_drop_floor
	pop %rbx
	ret

/* za_drop with a floor in rbx: frames whose slot lies below it stay. */
za_drop_floor:
	push %rdi
	push %rsi
	push %r8
	push %r9
	push %r10
1:	mov INJ_T_DEPTH(%r11), %rax
	test %eax, %eax
	jz 9f
	lea -1(%rax), %ecx
	shl $6, %rcx			/* INJ_FRAME == 64 */
	lea INJ_SLOT_HDR(%r11, %rcx), %rdi
	mov INJ_F_SLOT(%rdi), %rsi
	cmp %rdx, %rsi
	jae 9f
	cmp %rbx, %rsi			/* below the alternate stack the handler */
	jb 9f				/* runs on: the interrupted stack's, live */
	mov INJ_F_RET(%rdi), %r8
	mov INJ_F_ID(%rdi), %r9
	mov INJ_F_GEN(%rdi), %r10
	lea -1(%rax), %rcx		/* a frame less, the pushes' count kept */
	cmpxchg %rcx, INJ_T_DEPTH(%r11)
	jne 1b
	cmp %rsp, %rsi			/* a slot still holding za_exit, on another */
	jae 3f				/* stack (or dead memory), gets its real */
	mov za_fexit(%rip), %rcx	/* address back: no return may ever reach */
	cmp %rcx, (%rsi)		/* za_exit with its frame gone */
	jne 3f
	mov %r8, (%rsi)
3:	bt $63, %r10			/* inherited by a forked child: not */
	jc 1b				/* this process's call */
	mov INJ_T_SHARED(%r11), %rdi
	decl INJ_SB_OPEN(%rdi, %r9, 4)	/* no longer open: a call */
	shl $6, %r9			/* INJ_STAT == 64 */
	add za_stats(%rip), %r9
	incq INJ_S_CALLS(%rdi, %r9)
	mov za_shm(%rip), %rdi
	lock incq INJ_H_UNTIMED(%rdi)	/* counted without its time */
	jmp 1b
9:	pop %r10
	pop %r9
	pop %r8
	pop %rsi
	pop %rdi
	ret

/*
 * The frame is filled above the top and pushed by one cmpxchg of the
 * depth word (depth + 1, pushes + 1): a signal handler whose calls came
 * in between used the same frame and left the word another (its pushes
 * counted), and the frame is filled again.  Once pushed, the frame is
 * whole: a handler's calls from then on nest on it.  The call is counted
 * after the push, once.
 */
za_entry:
	push %rax
	push %rcx
	push %rdx
	push %r11
	push %rsi			/* copy at 40(%rsp), return address at 48(%rsp) */
	SLOT
	test %r11, %r11
	jz .Lnoslot
	testb $(INJ_TF_SHARED | INJ_TF_NOBLOCK), INJ_T_FLAGS(%r11)
	jnz .Lsharedtp
.Lpush:
	lea 48(%rsp), %rdx		/* frames below this call's slot are dead; */
	mov za_fexit(%rip), %rax	/* one at the slot too, unless the slot */
	cmp %rax, (%rdx)		/* holds za_exit: a tail call from a */
	je 1f				/* measured function, whose frame lives */
	inc %rdx
1:	DROP				/* (again after a handler: it may leave dead ones) */
	LIVE				/* and dead ones above this call's slot */
	mov INJ_T_DEPTH(%r11), %rax	/* the word the push replaces */
	cmp $INJ_DEPTH, %eax
	jae .Ldeep
	mov %eax, %ecx
	shl $6, %rcx			/* INJ_FRAME == 64 */
	lea INJ_SLOT_HDR(%r11, %rcx), %rcx	/* the frame */
	mov 40(%rsp), %rdx
	mov -9(%rdx), %edx		/* the function's id */
	mov %rdx, INJ_F_ID(%rcx)
	mov 48(%rsp), %rsi
	mov %rsi, INJ_F_RET(%rcx)
	lea 48(%rsp), %rsi
	mov %rsi, INJ_F_SLOT(%rcx)
	mov INJ_T_PID(%r11), %rsi	/* the process whose counter the start is on */
	mov %rsi, INJ_F_GEN(%rcx)
	xor %esi, %esi
	mov %rsi, INJ_F_CHILD(%rcx)
	mov %rsi, INJ_F_NDESC(%rcx)
	lea INJ_F_START(%rcx), %rsi	/* where the call is counted without a */
	cmpq $0, za_ctxs(%rip)		/* context: the start, written below */
	je 1f
	call za_ctx			/* rsi = its record */
1:	mov %rax, %rdx
	add za_push(%rip), %rdx
	cmpxchg %rdx, INJ_T_DEPTH(%r11)
	jne .Lpush
	incq INJ_C_CALLS(%rsi)		/* counted at entry, as calls that never return are */
	mov INJ_F_ID(%rcx), %rdx
	mov INJ_T_SHARED(%r11), %rax
	incl INJ_SB_OPEN(%rax, %rdx, 4)	/* open until it returns */
	mov za_fexit(%rip), %rax	/* the one za_exit of every area: a tail */
	mov %rax, 48(%rsp)		/* call, the unwinder, zond know it */
	COUNT .Lnoclock_entry, lfence, za_fence_entry
	mov %rax, INJ_F_START(%rcx)
.Lgo:	pop %rsi
	pop %r11
	pop %rdx
	pop %rcx
	pop %rax
	ret				/* into the relocated copy */
.Lnoslot:
	mov za_shm(%rip), %rax
	lock incq INJ_H_NOSLOT(%rax)
	jmp .Lgo
.Lnoclock_entry:			/* no start: the exit counts it, untimed */
	btcq $ZA_GEN_NOCLOCK, INJ_F_GEN(%rcx)
	jmp .Lgo
.Ldeep:
	mov za_shm(%rip), %rax
	lock incq INJ_H_DEEP(%rax)
	jmp .Lgo
.Lsharedtp:
	mov za_shm(%rip), %rax
	testb $INJ_TF_SHARED, INJ_T_FLAGS(%r11)
	jz 1f
	lock incq INJ_H_SHAREDTP(%rax)
	jmp .Lgo
1:	lock incq INJ_H_NOBLOCK(%rax)
	jmp .Lgo

/*
 * Everything of the frame is read before one store pops it (of the depth
 * alone: the pushes' count stays as a handler's calls meanwhile left it):
 * a signal handler's calls until then nest on the frame, and from then on
 * may take it.  The outermost activation is the one that leaves no call
 * of its function open on the thread.
 */
za_exit:
	lea -8(%rsp), %rsp		/* the slot: becomes the real return address;
					   holds za_exit until then (LIVE) */
	push %rax
	push %rdx
	push %rcx
	push %r11
	push %rsi
	push %rdi
	push %r8
	push %r9
	push %r10			/* the return address slot at 72(%rsp) */
	xor %r10d, %r10d		/* 1: the counter cannot be read now */
	cmpq $0, za_event(%rip)
	jne 1f
	NOTSC %rax, 3f
za_fence_exit:
	lfence				/* after the function's last instruction */
	rdtsc
	shl $32, %rdx
	or %rdx, %rax
	mov %rax, %r8			/* now */
	SLOT
	jmp 2f
1:	SLOT				/* a perf_event counter: its fd is the slot's */
	call za_read
	mov %rax, %r8
	jnc 2f
	mov $1, %r10d
	jmp 2f
3:	SLOT				/* seccomp strict mode: no TSC */
	mov $1, %r10d
2:	lea 72(%rsp), %rdx		/* where the entry found the return address */
	DROP
	mov INJ_T_DEPTH(%r11), %eax	/* the top frame is this call's */
	dec %eax
	mov %eax, %ecx
	shl $6, %rcx
	lea INJ_SLOT_HDR(%r11, %rcx), %rdi
	mov INJ_F_RET(%rdi), %rcx
	mov %rcx, 72(%rsp)
	mov INJ_F_ID(%rdi), %rdx
	test %r10, %r10			/* no counter now: counted, not timed */
	jnz .Lnoclock
	mov INJ_F_GEN(%rdi), %rcx	/* started on another process's counter */
	cmp INJ_T_PID(%r11), %rcx	/* (--event, opened before a fork), or */
	jne .Luntimed			/* with none: counted, not timed */
	mov %r8, %rsi			/* inclusive, compensated; signed, so that */
	sub INJ_F_START(%rdi), %rsi	/* sums stay consistent where the */
	shl $ZA_FRAC, %rsi		/* compensation overshoots a short call; */
	sub za_c0(%rip), %rsi		/* in 1/2^ZA_FRAC ticks (payload.h) */
	mov INJ_F_NDESC(%rdi), %r9
	mov %r9, %rcx
	imul za_cpair(%rip), %rcx
	sub %rcx, %rsi
	mov %rsi, %r10			/* self */
	sub INJ_F_CHILD(%rdi), %r10
	mov INJ_F_CTX(%rdi), %rcx
	mov %eax, INJ_T_DEPTH(%r11)	/* popped */
	test %eax, %eax
	jz 5f
	add %rsi, INJ_F_CHILD - INJ_FRAME(%rdi)
	inc %r9
	add %r9, INJ_F_NDESC - INJ_FRAME(%rdi)
5:	mov za_nfuncs(%rip), %r9	/* the call edge's caller: the nearest */
	test %eax, %eax			/* measured one, none (nfuncs) for a */
	jz 51f				/* root call */
	mov INJ_F_ID - INJ_FRAME(%rdi), %r9
51:	mov INJ_T_SHARED(%r11), %rdi
	mov %rdx, %r8
	shl $6, %r8			/* INJ_STAT == 64 */
	add za_stats(%rip), %r8
	add %rdi, %r8			/* this thread's stat */
	incq INJ_S_CALLS(%r8)
	add %r10, INJ_S_SELF(%r8)
	decl INJ_SB_OPEN(%rdi, %rdx, 4)	/* returned */
	jnz 6f
	add %rsi, INJ_S_INCL(%r8)
6:	mov za_edges(%rip), %rax
	test %rax, %rax
	jz 62f
	imul za_nfuncs(%rip), %r9
	add %rdx, %r9
	shl $4, %r9			/* INJ_EDGE == 16 */
	add %rax, %r9
	add %rdi, %r9
	incq INJ_E_CALLS(%r9)
	add %rsi, INJ_E_INCL(%r9)
62:	cmpq $0, za_ctxs(%rip)		/* its calling context's record */
	jne 1f
	xor %ecx, %ecx
1:	test %rcx, %rcx
	jz 63f
	shl $6, %rcx			/* INJ_CTX == 64 */
	add INJ_T_CTX(%r11), %rcx
	add %rsi, INJ_C_INCL(%rcx)
	add %r10, INJ_C_SELF(%rcx)
63:	test %rsi, %rsi			/* one call's cost is at least 0 */
	jns 60f
	xor %esi, %esi
60:	MINMAX %r8, %r9
	test %rcx, %rcx
	jz 64f
	MINMAX %rcx, %r9		/* the context's min and max too */
64:
	pop %r10
	pop %r9
	pop %r8
	pop %rdi
	pop %rsi
	pop %r11
	pop %rcx
	pop %rdx
	pop %rax
	lea 8(%rsp), %rsp		/* not ret: see the header */
	jmp *-8(%rsp)
.Luntimed:
	xor INJ_T_PID(%r11), %rcx	/* its entry could not read the counter */
	btc $ZA_GEN_NOCLOCK, %rcx
	test %rcx, %rcx
	jz .Lnoclock
	mov INJ_F_GEN(%rdi), %rcx
	mov $INJ_H_UNTIMED, %r10d
	jmp 65f
.Lnoclock:
	mov INJ_F_GEN(%rdi), %rcx
	mov $INJ_H_NOCLOCK, %r10d
65:	mov %eax, INJ_T_DEPTH(%r11)	/* popped */
	bt $63, %rcx			/* a forked child's inherited frame: its */
	jc 64b				/* parent's call, nothing of this process's */
	mov INJ_T_SHARED(%r11), %r9
	decl INJ_SB_OPEN(%r9, %rdx, 4)	/* returned */
	shl $6, %rdx			/* INJ_STAT == 64 */
	add za_stats(%rip), %rdx
	incq INJ_S_CALLS(%r9, %rdx)
	mov za_shm(%rip), %r9
	lock incq (%r9, %r10)		/* counted without its time, and why */
	jmp 64b
za_from:
	pushfq
	push %rax
	push %rcx
	push %rdx
	push %r11
	call za_slot
	test %r11, %r11
	jz 1f
	cmpq $0, INJ_T_RSTART(%r11)
	jne 1f				/* on already: the first FROM counts */
	COUNT 2f
	bts $63, %rax			/* never 0, which means off (a count may be 0) */
3:	mov %rax, INJ_T_RSTART(%r11)
1:	pop %r11
	pop %rdx
	pop %rcx
	pop %rax
	popfq
	ret
2:	mov $-1, %rax			/* on, with no start: the pass is untimed */
	jmp 3b

za_to:
	pushfq
	push %rax
	push %rcx
	push %rdx
	push %r11
	push %rsi			/* the stub's return address at 48(%rsp) */
	call za_slot
	test %r11, %r11
	jz 9f
	COUNT 5f, lfence, za_fence_to	/* the end of a pass */
	mov %rax, %rsi
1:	mov INJ_T_RSTART(%r11), %rax
	test %rax, %rax
	jz 9f
	xor %ecx, %ecx			/* the pass taken by cmpxchg: a signal */
	cmpxchg %rcx, INJ_T_RSTART(%r11)	/* handler's TO meanwhile took it */
	jne 1b
	cmp $-1, %rax
	je 6f				/* started with no counter */
	btr $63, %rax
	sub %rax, %rsi
	shl $ZA_FRAC, %rsi
	sub za_c0(%rip), %rsi
	jns 2f
	xor %esi, %esi
2:	mov 48(%rsp), %rcx
	mov -14(%rcx), %ecx		/* the id, 14 bytes before the return address */
	shl $6, %rcx			/* INJ_STAT == 64 */
	add za_stats(%rip), %rcx
	add INJ_T_SHARED(%r11), %rcx	/* this thread's stat */
	incq INJ_S_CALLS(%rcx)
	add %rsi, INJ_S_INCL(%rcx)
	add %rsi, INJ_S_SELF(%rcx)
	call za_minmax
	jmp 9f
5:	mov INJ_T_RSTART(%r11), %rax	/* no counter now: the pass taken, */
	test %rax, %rax			/* counted without its time */
	jz 9f
	xor %ecx, %ecx
	cmpxchg %rcx, INJ_T_RSTART(%r11)
	jne 5b
6:	mov 48(%rsp), %rcx
	mov -14(%rcx), %ecx
	shl $6, %rcx			/* INJ_STAT == 64 */
	add za_stats(%rip), %rcx
	add INJ_T_SHARED(%r11), %rcx
	incq INJ_S_CALLS(%rcx)
	mov za_shm(%rip), %rax
	lock incq INJ_H_NOCLOCK(%rax)
9:	pop %rsi
	pop %r11
	pop %rdx
	pop %rcx
	pop %rax
	popfq
	ret
/*
 * r11 = this thread's slot, or 0 when it has none (a thread that made no
 * measured call has no frame to give back, and takes no slot here);
 * clobbers rax, rcx, rdx (and flags).  A new process's slots are taken
 * over first (za_slot, as at a measured call).
 */
za_mine:
	mov za_proc(%rip), %rax
	cmpq $ZA_PROC_READY, (%rax)
	jne za_slot
	mov %fs:0, %rcx
	movabs $0x9e3779b97f4a7c15, %rax
	imul %rcx, %rax
	shr $56, %rax			/* INJ_THREADS == 256 */
	mov $INJ_THREADS, %edx
1:	mov %rax, %r11
	imul za_slotsize(%rip), %r11
	add za_threads(%rip), %r11
	cmp %rcx, INJ_T_KEY(%r11)
	jne 4f
	push %rax			/* and its owner (not an ended thread whose */
	mov za_tidoff(%rip), %rax	/* TCB this one reuses, za_slot) */
	mov %fs:(%rax), %eax
	cmp %rax, INJ_T_OWNER(%r11)
	pop %rax
	je 3f
4:	cmpq $0, INJ_T_KEY(%r11)
	je 2f				/* a probe ends at the first free slot */
	inc %rax
	and $(INJ_THREADS - 1), %rax
	dec %edx
	jnz 1b
2:	xor %r11d, %r11d
3:	ret

/*
 * Every frame of slot r11 whose return-address slot lies above rdi and
 * still holds za_exit gets its real return address back, so that the
 * stack holds the program's own addresses only.  The frames stay on the
 * shadow stack.  Clobbers rax, rcx, rdx, rsi.
 */
za_restore:
	mov INJ_T_DEPTH(%r11), %esi	/* the depth: the word's low half */
1:	test %rsi, %rsi
	jz 9f
	dec %rsi
	mov %rsi, %rcx
	shl $6, %rcx			/* INJ_FRAME == 64 */
	lea INJ_SLOT_HDR(%r11, %rcx), %rcx
	mov INJ_F_SLOT(%rcx), %rax
	cmp %rdi, %rax
	jbe 1b
	mov za_fexit(%rip), %rdx
	cmp %rdx, (%rax)
	jne 1b
	mov INJ_F_RET(%rcx), %rdx
	mov %rdx, (%rax)
	jmp 1b
9:	ret

/*
 * At the entry of an unwinder (_Unwind_RaiseException, _Unwind_Resume,
 * ...; stub: .long id; call za_unwind): every live frame of this thread
 * whose return-address slot still holds za_exit gets its real address
 * back (za_restore), so the unwinder walks the program's own frames.
 * Those frames stay on the shadow stack: the frames the exception leaves
 * are dropped (counted, untimed) where it is caught (za_catch), by a later
 * entry or exit, or at the end; the frames still live where it is caught
 * get za_exit back there.  Returns into the relocated copy.
 */
za_unwind:
	push %rax
	push %rcx
	push %rdx
	push %r11
	push %rsi
	push %rdi
	call za_mine
	test %r11, %r11
	jz 9f
	lea 48(%rsp), %rdi		/* frames at or below this are dead */
	call za_restore
9:	pop %rdi
	pop %rsi
	pop %r11
	pop %rdx
	pop %rcx
	pop %rax
	ret				/* into the relocated copy */

/*
 * At the entry of swapcontext and setcontext (stub: .long id; call
 * za_switch), which leave this stack for another: every frame of the
 * thread gets its real return address back and is dropped (counted, its
 * time lost: untimed).  The shadow stack describes the stack the thread
 * runs on; after a switch it would not, and a return on the other stack
 * into za_exit would pop a frame of this one and jump to its caller.  So
 * no za_exit is ever left on a stack the thread is not on, and the frames
 * made after the switch start the shadow stack anew (they have no
 * measured caller).  setcontext is also how a makecontext'd function's
 * return reaches its uc_link (glibc's __start_context calls it).  Returns
 * into the relocated copy.
 */
za_switch:
	push %rax
	push %rcx
	push %rdx
	push %r11
	push %rsi
	push %rdi
	call za_mine
	test %r11, %r11
	jz 9f
	xor %edi, %edi			/* every frame */
	call za_restore
	mov $-1, %rdx
	call za_drop
9:	pop %rdi
	pop %rsi
	pop %r11
	pop %rdx
	pop %rcx
	pop %rax
	ret				/* into the relocated copy */

/*
 * At the entry of clone (stub: .long id; call za_clone; rdx = its flags):
 * a child with CLONE_VM but without CLONE_SETTLS (nor CLONE_VFORK, whose
 * parent waits) runs with its parent's thread pointer, so both tasks would
 * find one slot and push and pop one shadow stack at the same time, each
 * returning to the other's addresses (QA s11 F1: SIGSEGV).  The slot is
 * marked shared (INJ_TF_SHARED): no call is measured on that thread
 * pointer from then on (counted, INJ_H_SHAREDTP); the frames open in the
 * parent still return through it.  Keeps every register but rflags;
 * returns into the relocated copy.
 */
za_clone:
	test $0x100, %edx		/* CLONE_VM */
	jz 9f
	test $0x84000, %edx		/* CLONE_SETTLS, CLONE_VFORK */
	jnz 9f
	push %rax
	push %rcx
	push %rdx
	push %r11
	call za_slot			/* taken now if the thread had none */
	test %r11, %r11
	jz 8f
	lock orq $INJ_TF_SHARED, INJ_T_FLAGS(%r11)
8:	pop %r11
	pop %rdx
	pop %rcx
	pop %rax
9:	ret

/*
 * At the entry of prctl and syscall (stubs: call za_prctl, call
 * za_syscall): a process about to go under seccomp (prctl(PR_SET_SECCOMP),
 * syscall(SYS_seccomp), syscall(SYS_prctl, PR_SET_SECCOMP)) is marked in
 * its process flags first, so that the payload makes no system call from
 * then on that a filter may forbid (a new thread's gettid, madvise; QA s11
 * F9: SIGSYS): new threads are not measured (counted, INJ_H_SANDBOXED).
 * The calling thread takes its slot first, while it may (a thread's
 * first measured call after it would find none).  Strict mode
 * (SECCOMP_MODE_STRICT, SECCOMP_SET_MODE_STRICT) makes rdtsc fault (the
 * kernel's TIF_NOTSC): the TSC is read no more (NOTSC, QA s14 V2 F5: the
 * next measured call died of SIGSEGV), later calls are counted untimed;
 * read() of a perf_event counter is allowed there.  Marked even if the
 * call fails; a filter call without a program (a probe for seccomp
 * support) marks nothing.  syscall(SYS_close) and syscall(SYS_close_range)
 * go to za_close and za_closer's work.  Keeps every register but rflags
 * (but where za_close's returns for the function).
 */
za_prctl:
	cmp $22, %rdi			/* PR_SET_SECCOMP */
	je 1f
	ret
1:	push %rax
	push %rcx
	mov %rsi, %rax			/* the mode */
	mov %rdx, %rcx			/* the filter */
	jmp za_seal
za_syscall:
	cmp $317, %rdi			/* SYS_seccomp */
	je 2f
	cmp $3, %rdi			/* SYS_close */
	je 4f
	cmp $436, %rdi			/* SYS_close_range */
	je 5f
	cmp $157, %rdi			/* SYS_prctl */
	jne 9f
	cmp $22, %rsi			/* PR_SET_SECCOMP */
	jne 9f
	push %rax
	push %rcx
	mov %rdx, %rax			/* the mode; the filter in rcx */
	jmp za_seal
2:	push %rax
	push %rcx
	lea 1(%rsi), %rax		/* SECCOMP_SET_MODE_*, as prctl's mode; */
	jmp za_seal			/* the filter in rcx */
4:	push %rdi
	mov %rsi, %rdi			/* the fd */
	call za_closeme
	pop %rdi
	jnz 9f
	xor %eax, %eax			/* zond's: left open, 0 returned */
	lea 8(%rsp), %rsp
9:	ret
5:	push %rax
	push %rdi
	push %rdx
	mov %rsi, %rdi			/* first, last, flags */
	mov %rdx, %rsi
	mov %rcx, %rdx
	call za_fdsplit
	mov %rsi, %rdx			/* what is left, for syscall() */
	mov %rdi, %rsi
	mov 8(%rsp), %rdi
	test %rax, %rax
	mov 16(%rsp), %rax
	lea 24(%rsp), %rsp
	jz 9b
	xor %eax, %eax			/* nothing left: done, 0 returned */
	lea 8(%rsp), %rsp
	ret

/*
 * za_prctl's and za_syscall's tail (rax: prctl's seccomp mode, rcx: the
 * filter; both pushed by the probe): marks the process and the run's
 * header (INJ_H_SECCOMP, zond's meta) and returns into the relocated copy.
 */
za_seal:
	cmp $1, %rax			/* SECCOMP_MODE_STRICT */
	je 1f
	cmp $2, %rax			/* SECCOMP_MODE_FILTER, with a filter */
	jne 9f
	test %rcx, %rcx
	jz 9f
	mov $INJ_SECCOMP_FILTER, %eax
	jmp 2f
1:	mov $INJ_SECCOMP_STRICT, %eax
2:	push %rdx
	push %r11
	push %rax
	call za_slot			/* this thread's slot, while it may */
	pop %rax
	mov za_threads(%rip), %rcx
	lock or %rax, INJ_PFLAGS_AT + INJ_PF_SANDBOX(%rcx)
	mov za_shm(%rip), %rcx
	lock or %rax, INJ_H_SECCOMP(%rcx)
	pop %r11
	pop %rdx
9:	pop %rcx
	pop %rax
	ret				/* into the relocated copy */

/*
 * The program's closes of zond's counters (--event), which daemons make at
 * start-up (closefrom(3), close_range(3, ~0U, 0), a close of every fd
 * /proc/self/fd lists): closed, every later read of the thread's counter
 * failed and its calls read 0 (QA s14 V2 F10).  As the record runtime
 * does for its samplers' fds (runtime/linux/fds.c): a close of one of
 * them does nothing and returns 0; a range is closed around them.  At
 * the entry of close (stub: call za_close; edi the fd) and of close_range
 * (za_closer; edi, esi the range, edx the flags), which glibc's closefrom
 * calls; syscall()'s in za_syscall.  Keeps every register but rflags, or
 * returns 0 to the function's caller.
 */
za_close:
	call za_closeme
	jnz 9f
	xor %eax, %eax			/* zond's: left open, 0 returned */
	lea 8(%rsp), %rsp		/* to the function's caller */
9:	ret

za_closer:
	push %rax
	call za_fdsplit
	test %rax, %rax
	pop %rax
	jz 9f
	xor %eax, %eax			/* nothing left: done, 0 returned */
	lea 8(%rsp), %rsp		/* to the function's caller */
9:	ret

/* ZF set when fd edi (as the kernel takes it: unsigned) is a counter of zond's; keeps the rest. */
za_closeme:
	push %rax
	push %rdi
	push %rsi
	mov %edi, %edi
	mov %edi, %esi
	call za_fdin
	cmp $-1, %rax
	pop %rsi
	pop %rdi
	je 1f
	pop %rax
	cmp %rax, %rax			/* ZF set */
	ret
1:	pop %rax
	test %rsp, %rsp			/* ZF clear */
	ret

/*
 * rax = the lowest fd of a counter of zond's in [rdi, rsi] (unsigned), -1
 * when there is none: the slots of live threads (and of the ones a forked
 * child inherited, whose fds it has too) with an fd.  None below the
 * process's lowest (INJ_PF_FDLOW), the common case: a close of the
 * program's own.  Keeps every other register but rflags.
 */
za_fdin:
	push %rcx
	push %rdx
	push %r8
	push %r9
	mov $-1, %r8
	mov za_threads(%rip), %rax
	mov INJ_PFLAGS_AT + INJ_PF_FDLOW(%rax), %rcx
	test %rcx, %rcx
	jz 9f				/* no counter in this process */
	dec %rcx
	cmp %rcx, %rsi
	jb 9f
	xor %r9d, %r9d
1:	mov %r9, %rcx
	imul za_slotsize(%rip), %rcx
	add za_threads(%rip), %rcx
	cmpq $1, INJ_T_KEY(%rcx)
	jbe 2f				/* free, or gone */
	mov INJ_T_FD(%rcx), %rcx
	test %rcx, %rcx
	js 2f
	cmp %rdi, %rcx
	jb 2f
	cmp %rsi, %rcx
	ja 2f
	cmp %r8, %rcx
	jae 2f
	mov %rcx, %r8
2:	inc %r9
	cmp $INJ_THREADS, %r9
	jb 1b
9:	mov %r8, %rax
	pop %r9
	pop %r8
	pop %rdx
	pop %rcx
	ret

/*
 * close_range(rdi, rsi, rdx flags) around zond's counters: the pieces
 * below the last of them closed here (system calls), rdi and rsi left
 * for the function to close (and set errno as it does); rax 1 when
 * nothing is left (return 0), else 0.  A call the kernel refuses (flags
 * it does not know, first above last) is left whole: it closes nothing.
 * A piece that fails (CLOSE_RANGE_UNSHARE out of memory: nothing closed)
 * is left to the function, which fails the same way.  Keeps every other
 * register but rflags.
 */
za_fdsplit:
	push %rcx
	push %r8
	push %r11
	mov %edi, %edi			/* unsigned ints, as the kernel takes them */
	mov %esi, %esi
	test $~6, %edx			/* CLOSE_RANGE_UNSHARE, CLOSE_RANGE_CLOEXEC */
	jnz 8f
	cmp %rsi, %rdi
	ja 8f
1:	call za_fdin
	cmp $-1, %rax
	je 8f				/* none: the rest is the function's */
	mov %rax, %r8
	cmp %rdi, %r8
	je 2f				/* the first is zond's */
	push %rsi
	lea -1(%r8), %rsi
	push %rdx
	mov $436, %eax			/* SYS_close_range; clobbers rcx, r11 */
	syscall
	pop %rdx
	test %rax, %rax
	jnz 7f
	pop %rsi
2:	cmp %rsi, %r8
	jae 9f				/* zond's was the last: nothing left */
	lea 1(%r8), %rdi
	jmp 1b
7:	lea 8(%rsp), %rsp		/* failed: the function tries that piece */
8:	xor %eax, %eax
	jmp 10f
9:	mov $1, %eax
10:	pop %r11
	pop %r8
	pop %rcx
	ret

/*
 * At the entry of __cxa_begin_catch (stub: .long id; call za_catch),
 * which a handler calls first thing, in the frame that caught the
 * exception: the frames below that frame (the exception left them) are
 * dropped, counted and untimed; the frames from it up, still live, whose
 * slot holds the real return address the unwinder's probe (za_unwind)
 * gave back, get za_exit again, so that their returns are measured, and
 * with their time, as if nothing had been thrown.  An exception that goes
 * on (rethrow, a cleanup's _Unwind_Resume) passes an unwinder's probe
 * again first.  Returns into the relocated copy.
 */
za_catch:
	push %rax
	push %rcx
	push %rdx
	push %r11
	push %rsi
	push %rdi			/* __cxa_begin_catch's return address at 56(%rsp) */
	call za_mine
	test %r11, %r11
	jz 9f
	lea 57(%rsp), %rdx		/* frames at or below its slot are dead */
	DROP
	lea 56(%rsp), %rdi
	mov INJ_T_DEPTH(%r11), %esi
1:	test %rsi, %rsi
	jz 9f
	dec %rsi
	mov %rsi, %rcx
	shl $6, %rcx			/* INJ_FRAME == 64 */
	lea INJ_SLOT_HDR(%r11, %rcx), %rcx
	mov INJ_F_SLOT(%rcx), %rax
	cmp %rdi, %rax
	jbe 1b
	mov INJ_F_RET(%rcx), %rdx
	cmp %rdx, (%rax)
	jne 1b				/* za_exit still, or not this frame's */
	mov za_fexit(%rip), %rdx
	mov %rdx, (%rax)
	jmp 1b
9:	pop %rdi
	pop %rsi
	pop %r11
	pop %rdx
	pop %rcx
	pop %rax
	ret				/* into the relocated copy */
/*
 * ZOND_GONE: jumps to label \gone when zond is gone (killed: nothing would
 * ever let a waiting thread go): when zond started this process, zond is
 * not its parent any more (or the caller is a forked child); when zond
 * attached to it, the pipe whose only writer is zond (INJ_H_LIFELINE) has
 * hung up, or its read end is not there any more (POLLNVAL: the program
 * closed it).  Only on waiting paths: a system call or two.  Leaves
 * za_shm in rax; clobbers rcx, r11.
 */
	.macro ZOND_GONE gone
	mov za_shm(%rip), %rcx
	cmpq $0, INJ_H_ZOND(%rcx)
	je 31f
	mov $110, %eax			/* SYS_getppid */
	syscall
	mov za_shm(%rip), %rcx
	cmp INJ_H_ZOND(%rcx), %rax
	jne \gone
	jmp 32f
31:	mov INJ_H_LIFELINE(%rcx), %rax	/* its fd + 1, 0: none */
	test %rax, %rax
	jz 32f
	push %rdi
	push %rsi
	push %rdx
	dec %rax
	bts $32, %rax			/* struct pollfd {fd, POLLIN, 0} */
	push %rax
	mov %rsp, %rdi
	mov $1, %esi
	xor %edx, %edx			/* no wait */
	mov $7, %eax			/* SYS_poll */
	syscall
	add $8, %rsp
	pop %rdx
	pop %rsi
	pop %rdi
	test %rax, %rax			/* 0: zond holds the write end still */
	jnz \gone			/* (an error too: never hold the program) */
32:	mov za_shm(%rip), %rax
	.endm

/*
 * The cyclic scenario's safe point (stub: .long id; call za_safe at a
 * function's entry, where no argument register may be lost): while zond
 * has set park in the results' header, the thread counts itself parked
 * and waits, yielding the CPU, until zond (which stops the process, swaps
 * the measured set and clears park) lets it go on into the relocated copy,
 * or until zond is gone (ZOND_GONE).
 * Keeps every register but rflags (sched_yield clobbers rax, rcx, r11).
 */
za_safe:
	push %rax
	mov za_shm(%rip), %rax
	cmpq $0, INJ_H_PARK(%rax)
	je 9f
	push %rcx
	push %r11
	lock incq INJ_H_PARKED(%rax)
1:	pause
	mov $24, %eax			/* SYS_sched_yield */
	syscall
	ZOND_GONE 2f
	cmpq $0, INJ_H_PARK(%rax)
	jne 1b
2:	pop %r11
	pop %rcx
9:	pop %rax
	ret				/* into the relocated copy */
/*
 * The dynamic loader's r_brk (_dl_debug_state, called with the link map
 * consistent after objects were added or removed; stub: .long id; call
 * za_loaded): while zond watches for libraries still to load, the thread
 * takes a ticket and waits, yielding the CPU, until zond has looked at
 * what is mapped now, patched the new libraries' functions (their code
 * has not run yet: the loader relocates and initialises them after this
 * call) and served the ticket.  If zond is gone (killed: the process's
 * parent is no longer zond) it goes on at once, as it does in a forked
 * child (whose parent is the program): zond's trouble never holds the
 * program.  Keeps every register but rflags.
 */
za_loaded:
	push %rax
	mov za_shm(%rip), %rax
	cmpq $0, INJ_H_WATCH(%rax)
	je 9f
	push %rcx
	push %rdx
	push %r11
	mov $1, %edx
	lock xadd %rdx, INJ_H_LOADS(%rax)
	inc %rdx			/* this call's ticket */
1:	pause
	mov $24, %eax			/* SYS_sched_yield; clobbers rcx, r11 */
	syscall
	ZOND_GONE 2f			/* (or a forked child's call) */
	cmp INJ_H_LOADED(%rax), %rdx
	ja 1b
2:	pop %r11
	pop %rdx
	pop %rcx
9:	pop %rax
	ret				/* into the relocated copy */
za_blob_end:
	.section .note.GNU-stack, "", @progbits
#endif
