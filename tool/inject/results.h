/*
 * results.h - the memory zond inject's payloads use in the target: the
 * results it shares with the controller, and the shadow stacks it keeps
 * private.  Included by C and by the payloads' assembly (offsets are
 * macros), so both sides agree.
 *
 * Shared (a memfd mapped by both, so a crash or SIGKILL of the target
 * leaves every completed call's numbers readable):
 *   header        INJ_HDR bytes: magic, sizes, counts of what was lost
 *   blocks        INJ_THREADS blocks of INJ_SBLOCK(nfuncs) bytes, one per
 *                 thread (taken in order, x86-64: INJ_H_BLOCKS): the
 *                 thread's id (gettid, once, when its slot is claimed), per function the calls now open (int32,
 *                 counted as calls when the run ends with them open), then
 *                 one struct inject_stat per function (by id), then (when
 *                 a run measures at most INJ_EDGES_MAX functions) the call
 *                 edges: calls and inclusive cost per (nearest measured
 *                 caller or none, callee)
 *   record        (after the rest, on a page of its own; zond's alone: the
 *                 payload never reaches it) whether a zond measures the
 *                 process now, and what the last attach left mapped for
 *                 the next to unmap (scenario.c left_record)
 * Private (anonymous memory of the target, copied on fork, so that a
 * forked child returns through its own copy of its parent's frames):
 *   slots         INJ_THREADS slots of INJ_PSLOT(nfuncs) bytes: the key
 *                 (the thread pointer, %fs:0 on x86-64 glibc: the TCB's
 *                 self pointer, unique per live thread), the shadow
 *                 stack's depth, the region's start, the address of its
 *                 shared block, its perf_event fd (x86-64, --event), INJ_DEPTH frames
 *                 (x86-64: a function's outermost activation, whose inclusive cost
 *                 alone counts, as the rest of zond counts it, is the one that leaves
 *                 none of its calls open on the thread: the shared open counts)
 *
 * A slot and its block are written by their thread only (the slot claimed
 * once with lock cmpxchg), so the per-call path has no locked instruction.
 * A forked child (x86-64) sees it is one at its first probe: the process
 * page (private, MADV_WIPEONFORK) reads 0 there.  Its thread then takes a
 * block and a context area of its own for the frames it goes on with (its
 * copy of its parent thread's slot), and the slots of its parent's other
 * threads, which it does not have, are marked gone (key 1).  With every
 * block held it measures nothing (INJ_TF_NOBLOCK, its calls counted).
 * An ended thread's slot is given back (za_retire: made gone, its block
 * to the header's free bitmap): a slot's owner (INJ_T_OWNER, the id the
 * thread's TCB holds) tells a live thread from an ended one whose TCB it
 * reuses.  An ended process's blocks are given back too (no thread of it
 * is left to retire them, and its parent need not wait for it).  Each
 * block names its holder (INJ_SB_LIVE: the process that took it, 0 while
 * free or being taken), and an ended holder's block is taken by one
 * cmpxchg of that word to 0, once per owner: a block free, being bound or
 * held by a live process never reads as an ended one's (zond keeping the
 * pids it gave blocks back for would not do: a block taken from INJ_H_FREE
 * still names its old, ended owner until the taker binds it, and would be
 * given back twice).  The taker counts the calls the ended process left
 * open in it as never returned (INJ_H_ENDED, as za_retire) and sets its
 * bit in INJ_H_FREE.  Two take them: a thread or forked child that finds
 * none left, for holders kill(pid, 0) no longer finds (za_reapproc:
 * reaped; at once, where zond's look would come milliseconds after a
 * child forked right after its sibling was waited for), and zond, which
 * waits for the program, for zombies as well (/proc/PID/stat: state Z,
 * one thread), every millisecond while fewer than 64 blocks are left and
 * at once when one was wanted (INJ_H_WANT).  Block i keeps context area
 * i: both hold both owners' figures, under the later one's ids
 * (INJ_H_REUSED, INJ_SB_THREADS).  A pid used again only keeps a block
 * longer.  Ids are those the processes see: zond gives none back when
 * the program lives in another pid namespace than zond, and a process
 * that cannot tell its ids are its parent's kind (INJ_PF_FOREIGN) holds
 * its blocks for the run (INJ_LIVE_KEEP) and gives back none of others'.
 * A stat's min is stored inverted (~min), so that zeroed memory reads as
 * "no call yet".
 * The cyclic scenario's safe point parks a thread (park set) until zond
 * clears park again; parked counts the threads waiting there.  While a
 * library zond is to patch is not loaded yet (watch), the dynamic
 * loader's probe (its r_brk, called as objects come and go) takes a ticket
 * (loads) and waits until zond, having patched what was loaded, has served
 * it (loaded), or until zond is gone (the thread's parent is not zond).
 * Costs are compensated in the payload: a call's inclusive cost is its
 * measured interval less the payload's own part (c0) and the full cost
 * (cpair) of each measured call below it; self cost is exact by the same
 * token (doc/inject.md).
 */
#ifndef ZOND_INJECT_RESULTS_H
#define ZOND_INJECT_RESULTS_H

#define INJ_MAGIC            0x7a6f6e64696e6a31 /* "zondinj1" */
#define INJ_HDR              256
#define INJ_DEPTH            256 /* frames per thread */
#define INJ_THREADS          256 /* thread slots (a power of two) */
#define INJ_FRAME            64
#define INJ_STAT             64
#define INJ_SLOT_HDR         128
#define INJ_COUNTS(nfuncs)   ((((nfuncs)*4 + 63) & ~63))
#define INJ_PSLOT(nfuncs)    (INJ_SLOT_HDR + INJ_DEPTH * INJ_FRAME) /* the same for any nfuncs */
/*
 * After the slots, the process's flags (x86-64; private, kept by a forked
 * child, unlike the process page): word 0 non-zero once the process put
 * itself under seccomp (za_prctl, za_syscall): the payload makes no system
 * call a new thread or process would need from then on; its bits say how
 * (INJ_SECCOMP_FILTER: read() of a counter may be forbidden too;
 * INJ_SECCOMP_STRICT: rdtsc faults, the kernel's TIF_NOTSC, and the TSC is
 * read no more: calls counted, not timed).
 */
#define INJ_PFLAGS_AT   (INJ_THREADS * INJ_PSLOT(0))
#define INJ_PF_SANDBOX  0
#define INJ_SECCOMP_FILTER 1
#define INJ_SECCOMP_STRICT 2
#define INJ_PF_FOREIGN  8 /* word 1 non-zero: this process's ids may not be its parent's kind
			     (getppid was not the id its parent thread's slot holds: another
			     pid namespace, or its parent gone; or unknown, under seccomp):
			     its blocks are marked INJ_LIVE_KEEP, never given back by zond */
#define INJ_PF_FDLOW    16 /* word 2: 1 + the lowest number za_open gave a counter (--event)
			      in this process (inherited fds too), 0: none; a close of a
			      lower number is not zond's business (za_close, za_closer) */

#define INJ_SB_TID           0  /* the thread's id */
#define INJ_SB_PID           8  /* x86-64: its process's id (a forked child's thread: the child's) */
#define INJ_SB_THREADS       16 /* x86-64: threads that took the block (more than 1: ended
				   threads' blocks taken over, INJ_H_FREE) */
#define INJ_SB_LIVE          24 /* x86-64: the process that holds the block now (its id as its
				   getpid says), 0 while the block is free or being taken,
				   INJ_LIVE_KEEP for one no one gives back (INJ_PF_FOREIGN):
				   zond gives a block back when that process has ended (one
				   cmpxchg to 0, so once per owner) */
#define INJ_LIVE_KEEP        0xffffffffffffffff
#define INJ_SB_OPEN          64 /* then the open counts */
#define INJ_SB_STATS(nfuncs) (INJ_SB_OPEN + INJ_COUNTS(nfuncs))
#define INJ_SB_EDGES(nfuncs) (INJ_SB_STATS(nfuncs) + (nfuncs)*INJ_STAT)
#define INJ_EDGE             16
#define INJ_EDGES_MAX        512 /* more functions in one run: no call edges */
#define INJ_SBLOCK(nfuncs)                                                                         \
	(INJ_SB_EDGES(nfuncs) +                                                                    \
	 ((nfuncs) <= INJ_EDGES_MAX ? ((nfuncs) + 1) * (nfuncs)*INJ_EDGE : 0))

/* edge offsets: edge (caller, callee) at (caller * nfuncs + callee), caller nfuncs for a root */
#define INJ_E_CALLS 0
#define INJ_E_INCL  8

/* header offsets */
#define INJ_H_MAGIC  0
#define INJ_H_NFUNCS 8
#define INJ_H_DEEP   16 /* calls not measured: the shadow stack was full */
#define INJ_H_NOSLOT 24 /* calls not measured: no thread slot was free */
#define INJ_H_PARK   32 /* cyclic: set by zond, a thread at the safe point waits */
#define INJ_H_PARKED 40 /* cyclic: threads now waiting at the safe point */
#define INJ_H_NOCOUNTER 48 /* threads whose counter (--event) could not be opened */
#define INJ_H_NOCTX     56 /* calls with no calling context: a thread's table was full */
#define INJ_H_WATCH     64 /* x86-64: libraries still to load: the loader's probe stops there */
#define INJ_H_LOADS     72 /* x86-64: the loader's probe's calls so far (its tickets) */
#define INJ_H_LOADED    80 /* x86-64: tickets zond has served: a thread waits until it is */
#define INJ_H_ZOND      88 /* x86-64: zond's pid when zond started the target (else 0): a
			      thread waiting for zond stops waiting when its parent is another */
#define INJ_H_BLOCKS    96 /* x86-64: shared blocks taken so far (a thread's first call, a
			      forked child's thread), in order: block i goes with context area i */
#define INJ_H_UNTIMED   104 /* x86-64: calls counted without their time: frames dropped
			       (longjmp, a context switch, an exception thrown through them) */
#define INJ_H_SHAREDTP  112 /* x86-64: calls not measured: on a thread pointer a clone(CLONE_VM)
			       without CLONE_SETTLS shares between two tasks (za_clone) */
#define INJ_H_SANDBOXED 120 /* x86-64: calls not measured: threads that would need a system
			       call to take a slot after the process went under seccomp */
#define INJ_H_NOBLOCK   128 /* x86-64: calls not measured: in forked children that found every
			       shared block taken (INJ_TF_NOBLOCK) */
#define INJ_H_ENDED     136 /* x86-64: calls still open when their thread ended, counted when
			       its slot was given to another thread (za_retire), or when zond
			       gave an ended process's block back */
#define INJ_H_FREE      144 /* x86-64: 4 words, a bit per shared block given back by an ended
			       thread's slot (za_retire) or by zond for an ended process (its
			       INJ_SB_LIVE), for the next thread or forked child to take */
#define INJ_H_REUSED    176 /* x86-64: blocks a thread took over from an ended thread or
			       process (their figures are both owners', under the later one's
			       id) */
#define INJ_H_WANT      184 /* x86-64: times a thread or forked child found no block left:
			       zond looks for ended processes' blocks at once */
#define INJ_H_SECCOMP   192 /* x86-64: INJ_SECCOMP_* of every seccomp call the run's processes
			       made (za_prctl, za_syscall) */
#define INJ_H_NOCLOCK   200 /* x86-64: calls counted without their time: the counter could not
			       be read at their start or end (rdtsc under seccomp strict
			       mode, read() of a counter under a seccomp filter or of a fd
			       the program closed) */
#define INJ_H_LOSTFD    208 /* x86-64: threads whose counter's read() failed (its fd closed or
			       replaced behind zond's back): not read again */
#define INJ_H_LIFELINE  216 /* x86-64: attached, the fd + 1 (0: none) of the read end of a
			       pipe whose only writer is zond: a thread waiting for zond
			       stops waiting when it hangs up (zond killed, QA s16 X2 F8) */

/* stat offsets */
#define INJ_S_CALLS 0
#define INJ_S_INCL  8
#define INJ_S_SELF  16
#define INJ_S_MIN   24 /* inverted: ~min */
#define INJ_S_MAX   32

/* thread slot offsets */
#define INJ_T_KEY    0 /* x86-64: the thread's pointer | 1 while the thread binds the slot */
#define INJ_T_OWNER  8 /* x86-64: beside the key (one cmpxchg16b takes both): the id the
			  thread's TCB holds (glibc's struct pthread tid, at za_tidoff from
			  the thread pointer), which tells a thread from an ended one whose
			  TCB (so thread pointer) it reuses */
#define INJ_T_RSTART 16 /* the region's counter at FROM, 0 when off (x86-64: while the slot
			   is bound, the binding's stack pointer) */
#define INJ_T_SHARED 24 /* the thread's shared block */
#define INJ_T_FD     32 /* x86-64 with --event: the thread's perf_event fd, -1: none */
#define INJ_T_PAGE   40 /* and its mmap'ed page (rdpmc), 0: none */
#define INJ_T_CTX    48 /* x86-64: its calling contexts' area */
#define INJ_T_PID    56 /* x86-64: the process whose slot this is (a forked child's copy of
			   its parent's slot is taken over at its first probe) */
#define INJ_T_FLAGS  64 /* x86-64: bit 0 (INJ_TF_SHARED): the thread pointer is shared by
			   tasks (clone without CLONE_SETTLS): no call measured on it from then on */
#define INJ_T_DEPTH  72 /* x86-64: the depth in the low half, the pushes so far in the high
			   half (a push is one cmpxchg of the word: payload.S, signals) */
#define INJ_T_BLOCK  80 /* x86-64: the number of its shared block (and context area) */
#define INJ_TF_SHARED 1
#define INJ_TF_NOBLOCK 2 /* bit 1: a forked child's thread that found no shared block left:
			    no call measured (it would race its parent in the parent's block) */

/* frame offsets */
#define INJ_F_RET   0  /* the real return address */
#define INJ_F_START 8  /* counter at entry */
#define INJ_F_CHILD 16 /* compensated inclusive cost of measured children */
#define INJ_F_SLOT  24 /* address of the return-address slot (longjmp check) */
#define INJ_F_ID    32
#define INJ_F_NDESC 40 /* measured calls below this one */
#define INJ_F_CTX   48 /* its calling context (x86-64), 0: none */
#define INJ_F_GEN   56 /* x86-64: the process whose counter its start is on (the TSC: every
			   process's, so a forked child's frames are taken over as its own) */

/*
 * Calling contexts (x86-64): after the shared blocks, one area of
 * INJ_CBLOCK bytes per thread slot (the slot's INJ_T_CTX): INJ_CTX_MAX
 * records of INJ_CTX bytes, record i one path, then a hash table of
 * INJ_CTX_HASH 32-bit record numbers (0: empty) keyed by the record's key
 * (its parent's record number << 32 | the function's id; parent 0: a root
 * call).  Record 0 is no context: its calls field counts the records used
 * (record 1 first, parents before their children).
 */
#define INJ_CTX           64
#define INJ_CTX_MAX       8192
#define INJ_CTX_HASH_BITS 14
#define INJ_CTX_HASH      (1 << INJ_CTX_HASH_BITS)
#define INJ_CB_HASH       (INJ_CTX_MAX * INJ_CTX)
#define INJ_CBLOCK        (INJ_CB_HASH + INJ_CTX_HASH * 4)
#define INJ_C_CALLS       0 /* calls, incl, self, min, max: as a stat's */
#define INJ_C_INCL        8
#define INJ_C_SELF        16
#define INJ_C_MIN         24 /* inverted: ~min */
#define INJ_C_MAX         32
#define INJ_C_KEY         40

#ifndef __ASSEMBLER__
#include <stdint.h>

struct inject_stat {
	uint64_t calls, incl, self, min, max, pad[3];
};

struct inject_header {
	uint64_t magic, nfuncs, deep, noslot, park, parked, nocounter, noctx;
	uint64_t watch, loads, loaded, zond, blocks, untimed, sharedtp, sandboxed;
	uint64_t noblock, ended, free[4], reused, want;
	uint64_t seccomp, noclock, lostfd, lifeline, pad[4];
};

_Static_assert(sizeof(struct inject_stat) == INJ_STAT, "stat layout");
_Static_assert(sizeof(struct inject_header) == INJ_HDR, "header layout");

/* Bytes of shared memory for nfuncs functions. */
static inline uint64_t inject_results_size(uint64_t nfuncs)
{
	return INJ_HDR + (uint64_t)INJ_THREADS * INJ_SBLOCK(nfuncs);
}

/* Bytes of shared memory for the calling contexts (after the results' blocks), x86-64. */
static inline uint64_t inject_contexts_size(void)
{
	return (uint64_t)INJ_THREADS * INJ_CBLOCK;
}

/* Bytes of the target's private memory (thread slots, process flags) for nfuncs functions. */
static inline uint64_t inject_slots_size(uint64_t nfuncs)
{
	(void)nfuncs;
	return (uint64_t)INJ_THREADS * INJ_PSLOT(nfuncs) + 64;
}
#endif

#endif
