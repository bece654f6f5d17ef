/*
 * results.h - the memory zond inject shares with its target: what the
 * payloads write and the controller reads.  Included by C and by the
 * payloads' assembly (offsets are macros), so both sides agree.
 *
 *   header        INJ_HDR bytes: magic, sizes, counts of what was lost
 *   stats         one struct inject_stat per measured function (by id)
 *   threads       INJ_THREADS slots, each INJ_SLOT(nfuncs) bytes: the key
 *                 (the thread pointer, %fs:0 on x86-64 glibc: the TCB's
 *                 self pointer, unique per live thread), the shadow stack's
 *                 depth, INJ_DEPTH frames, then one active count per
 *                 function (recursion: inclusive cost of the outermost
 *                 activation only, as the rest of zond counts it)
 *
 * Everything is updated by the target's threads with atomic instructions
 * (stats) or by one thread only (its slot), in place, so a crash or
 * SIGKILL of the target leaves every completed call's numbers readable.
 * Costs are compensated in the payload: a call's inclusive cost is its
 * measured interval less the payload's own part (c0) and the full cost
 * (cpair) of each measured call below it; self cost is exact by the same
 * token (doc/inject.md).
 */
#ifndef ZOND_INJECT_RESULTS_H
#define ZOND_INJECT_RESULTS_H

#define INJ_MAGIC 0x7a6f6e64696e6a31 /* "zondinj1" */
#define INJ_HDR 64
#define INJ_DEPTH 256   /* frames per thread */
#define INJ_THREADS 256 /* thread slots (a power of two) */
#define INJ_FRAME 64
#define INJ_STAT 64
#define INJ_SLOT_HDR 64
#define INJ_SLOT(nfuncs) (INJ_SLOT_HDR + INJ_DEPTH * INJ_FRAME + (((nfuncs) * 4 + 63) & ~63))

/* header offsets */
#define INJ_H_MAGIC 0
#define INJ_H_NFUNCS 8
#define INJ_H_DEEP 16     /* calls not measured: the shadow stack was full */
#define INJ_H_NOSLOT 24   /* calls not measured: no thread slot was free */

/* stat offsets */
#define INJ_S_CALLS 0
#define INJ_S_INCL 8
#define INJ_S_SELF 16
#define INJ_S_MIN 24
#define INJ_S_MAX 32

/* thread slot offsets */
#define INJ_T_KEY 0
#define INJ_T_DEPTH 8
#define INJ_T_RSTART 16 /* the region's counter at FROM, 0 when off */

/* frame offsets */
#define INJ_F_RET 0   /* the real return address */
#define INJ_F_START 8 /* counter at entry */
#define INJ_F_CHILD 16 /* compensated inclusive cost of measured children */
#define INJ_F_SLOT 24  /* address of the return-address slot (longjmp check) */
#define INJ_F_ID 32
#define INJ_F_NDESC 40 /* measured calls below this one */

#ifndef __ASSEMBLER__
#include <stdint.h>

struct inject_stat {
	uint64_t calls, incl, self, min, max, pad[3];
};

struct inject_header {
	uint64_t magic, nfuncs, deep, noslot, pad[4];
};

_Static_assert(sizeof(struct inject_stat) == INJ_STAT, "stat layout");
_Static_assert(sizeof(struct inject_header) == INJ_HDR, "header layout");

/* Bytes of shared memory for nfuncs functions. */
static inline uint64_t inject_results_size(uint64_t nfuncs)
{
	return INJ_HDR + nfuncs * INJ_STAT + (uint64_t)INJ_THREADS * INJ_SLOT(nfuncs);
}
#endif

#endif
