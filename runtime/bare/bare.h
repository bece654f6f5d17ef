/*
 * bare.h - the bare-metal RISC-V port (rv32imac, rv64imac, picolibc): one
 * hart, no operating system, no malloc.
 *
 * The raw data (raw.h) live in one static RAM buffer, zond_raw_buffer,
 * laid out exactly like the Linux runtime's file; at exit the port writes
 * it out through semihosting (SYS_OPEN/SYS_WRITE to ZOND_BARE_FILE).  On a
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
/* The semihosting file name, relative to the debugger's (QEMU's) working directory. */
#ifndef ZOND_BARE_FILE
#define ZOND_BARE_FILE "zond.zraw"
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
 * The entry probe's cost on the per-call path (measured at start-up:
 * calibrating a first time, with zb_enter_cost 0, finds it).  An entry that
 * costs more took the core's slow path (a function's or an edge's first
 * call, a hash collision): zb_discount takes what it cost beyond the per-call
 * path out of every open frame, so that the callers' cycles do not include
 * it, and gives the time to store as the new frame's entry.  t0: the clock
 * before the probe's work.
 */
extern uint64_t zb_enter_cost;
uint64_t zb_discount(struct zrt_thread *t, struct zr_frame *fr, uint64_t t0);

/* Starts the runtime on the first call; 1 when the hart records. */
int zb_ready(struct zrt_thread *t);

/* Writes the raw data out through semihosting: 0, or -1 (no debugger, or it refused). */
int zb_write_out(const void *data, uint64_t bytes);

#endif
