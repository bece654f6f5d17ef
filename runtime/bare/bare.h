/*
 * bare.h - the bare-metal RISC-V port (rv32imac, rv64imac, picolibc): one
 * hart, no operating system, no malloc.
 *
 * The raw data (raw.h) live in one static RAM buffer, zond_raw_buffer,
 * laid out exactly like the Linux runtime's file; at exit the port writes
 * it out through semihosting (SYS_OPEN/SYS_WRITE to zond_bare_file).  On a
 * board without semihosting a debugger reads the first file_bytes of the
 * buffer from RAM (doc/bare-metal.md).
 *
 * Pools are fixed when the library is built (ZOND_BARE_FUNCS, _EDGES,
 * _DEPTH, _CONTEXTS, _STRINGS).  The runtime starts itself on the first
 * probe of any kind, so it works from the first C function that runs after
 * crt0 set up .data and .bss.  The clock is mcycle (csrr), or cycle (rdcycle) when
 * built with ZOND_BARE_USER for code running in user mode.
 */
#ifndef ZOND_BARE_H
#define ZOND_BARE_H

#include <stdint.h>

#include "../core/core.h"

#ifndef ZOND_BARE_FUNCS
#define ZOND_BARE_FUNCS 256
#endif
#ifndef ZOND_BARE_EDGES
#define ZOND_BARE_EDGES 512
#endif
#ifndef ZOND_BARE_DEPTH
#define ZOND_BARE_DEPTH 128
#endif
/* Calling contexts: each adds sizeof(struct zr_context) (80 bytes) to the raw buffer. */
#ifndef ZOND_BARE_CONTEXTS
#define ZOND_BARE_CONTEXTS 512
#endif
#ifndef ZOND_BARE_STRINGS
#define ZOND_BARE_STRINGS 4096
#endif
/*
 * The semihosting file the raw data go to (zond_bare_file).  Empty by
 * default: run outside zond the program writes nothing, as the Linux
 * runtime without ZOND_DIR; `zond record` patches an absolute path of its
 * own into its copy of the ELF, so no file lands in QEMU's directory.
 */
#ifndef ZOND_BARE_FILE
#define ZOND_BARE_FILE ""
#endif
/* zond_bare_file's room: the longest path zond record can patch in, its NUL included. */
#ifndef ZOND_BARE_FILE_MAX
#define ZOND_BARE_FILE_MAX 256
#endif
/* The clock's nominal frequency: under QEMU -icount shift=0 one instruction is 1 ns. */
#ifndef ZOND_BARE_HZ
#define ZOND_BARE_HZ 1e9
#endif

/* The one hart's probe state. */
extern struct zrt_thread zb_self;

/* The cycle counter, read inline on the per-call path. */
static inline uint64_t zb_clock(void)
{
#if __riscv_xlen == 32
	uint32_t hi, lo, again;
	do {
#ifdef ZOND_BARE_USER
		__asm__ volatile("rdcycleh %0" : "=r"(hi));
		__asm__ volatile("rdcycle %0" : "=r"(lo));
		__asm__ volatile("rdcycleh %0" : "=r"(again));
#else
		__asm__ volatile("csrr %0, mcycleh" : "=r"(hi));
		__asm__ volatile("csrr %0, mcycle" : "=r"(lo));
		__asm__ volatile("csrr %0, mcycleh" : "=r"(again));
#endif
	} while (hi != again);
	return (uint64_t)hi << 32 | lo;
#else
	uint64_t c;
#ifdef ZOND_BARE_USER
	__asm__ volatile("rdcycle %0" : "=r"(c));
#else
	__asm__ volatile("csrr %0, mcycle" : "=r"(c));
#endif
	return c;
#endif
}

/*
 * zond's own cost, accounted exactly where the cycle counter counts
 * instructions (QEMU -icount shift=0): every hook reads the counter first
 * (c0) and last (c1), and zond's own cycles so far, zb_own, grow by
 * c1 - c0 plus the hook's constant instructions outside the two reads
 * (struct zb_cost: the call instruction and what runs before c0, what runs
 * after c1 until the return), measured once at start-up.  The program's
 * clock is the counter less zb_own; zb_now is its value at the call
 * instruction of the hook running now, the clock the core sees (port_clock).
 * A hook's total is set from zb_own as it was at its start, so that hooks
 * nested in it (start-up, an instrumented interrupt handler) are counted
 * once.
 */
enum { ZB_ENTER, ZB_EXIT, ZB_BEGIN, ZB_END, ZB_RETURN, ZB_HOOKS };
struct zb_cost {
	uint64_t pre;  /* instructions from the call instruction up to c0's read */
	uint64_t rest; /* the hook's instructions that c1 - c0 does not count */
};
extern struct zb_cost zb_cost[ZB_HOOKS];
extern uint64_t zb_own, zb_now;
/*
 * The program's clock at the last outermost hook (zb_last), and the hooks
 * where it would have gone back from there (zb_clamped, the raw header's
 * clamped_clock).  Under -icount it never does; where the counter is not
 * instructions (QEMU without -icount: the host's clock) the constants of
 * zb_cost can exceed what a hook took, zb_own outgrow the counter and the
 * program's clock run backwards (times wrapped below 0, main's 0: QA s13 U
 * F2): a hook that finds it behind zb_last (as it was at the hook's start)
 * gives zond's excess back (its zb_own lowered) and runs at zb_last.
 */
extern uint64_t zb_last;
extern uint32_t zb_clamped;
/*
 * Hooks ended so far (mod 2^32), moved by each after its last write of
 * zb_own.  An interrupt handler's hooks run whole inside the hook they
 * interrupt, at any instruction of it: one that lands between a hook's
 * counter read and its read (c0) or write (c1) of zb_own moves zb_seq, and
 * the hook reads both again, so that the handler's hooks are counted once
 * and in zb_own, never lost nor taken twice.  Nothing is masked, no atomic
 * instruction needed.
 */
extern uint32_t zb_seq;
/* Hook calls so far (entry probes): zb_own / zb_calls is the mean cost per probe pair. */
extern uint64_t zb_calls;

/* zb_return's instructions before its call of zb_late_exit and after it returns. */
enum { ZB_RETURN_BEFORE = 3, ZB_RETURN_AFTER = 5 };
/* The exit of a frame whose return was replaced (above): the real return address. */
uintptr_t zb_late_exit(void);
/* Makes the next zb_late_exit close fn's frame (probe frame sp) and return to real: 0, or -1 (full). */
int zb_defer_exit(uintptr_t fn, uintptr_t sp, uintptr_t real);

/*
 * The instrumented function's own instructions that lie outside its probed
 * interval, from its code (sites.c): zb_before, those from its entry fn to
 * the call of the entry hook that returns to ra; zb_after, those from the
 * exit hook's return address ra to the function's return, that included.
 * Straight-line code is assumed (jumps are followed after the exit call);
 * where the code is not, 0 and zb_inexact_sites counts the site.
 */
uint32_t zb_before(uintptr_t fn, uintptr_t ra);
uint32_t zb_after(uintptr_t ra);
extern uint32_t zb_inexact_sites;
/* 1 when zb_after(ra) is exact. */
int zb_after_known(uintptr_t ra);

/*
 * When the code after the exit hook's call is not straight-line (gcc moves
 * calls of functions it deems pure, libgcc's __muldf3 in Square(x) { return
 * x * x; }, past the exit hook), the function's end is taken where it
 * really returns: the exit hook replaces the return address the function
 * will reload from its stack by zb_return's, and zb_return (hooks.c) closes
 * the frame and returns to the real address.  zb_ra_slot gives the offset
 * from sp (unchanged from the hook's call to the reload) of that reload in
 * the code from ra, or -1 where there is none that is sure.
 */
int32_t zb_ra_slot(uintptr_t ra);

/* Starts the runtime on the first call; 1 when the hart records. */
int zb_ready(struct zrt_thread *t);

/*
 * Writes the raw data out through semihosting to zond_bare_file: 0, or -1
 * (no debugger, or it refused); nothing (0) when the name is empty.
 */
int zb_write_out(const void *data, uint64_t bytes);
extern char zond_bare_file[ZOND_BARE_FILE_MAX];

#endif
