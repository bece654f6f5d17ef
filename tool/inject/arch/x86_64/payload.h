/*
 * payload.h - what the x86-64 payload's assembly (payload.S) and its C side
 * (payload.c) agree on beyond the results' layout (results.h).
 *
 * Costs are kept in units of 1/2^ZA_FRAC of a counter tick: the payload
 * shifts each measured interval left by ZA_FRAC before it subtracts the
 * compensation, so the calibrated costs (c0, cpair: a few tens of ticks
 * measured as a mean over many calls) keep their fractions.  In whole
 * ticks, the rounding of c0 alone (0.4 ns a tick here) moved the sum of a
 * function called 10^6 times by 0.4 ms.  zond sees the finer unit as a
 * faster counter: hz is given in the same units.
 */
#ifndef ZOND_INJECT_X86_64_PAYLOAD_H
#define ZOND_INJECT_X86_64_PAYLOAD_H

#define ZA_FRAC 8

/* Bytes the blob keeps for the struct perf_event_attr of --event (payload.c checks its size). */
#define ZA_ATTR 128

/* struct perf_event_mmap_page, as the payload reads it for rdpmc (payload.c checks them) */
#define PG_LOCK      8
#define PG_INDEX     12
#define PG_OFFSET    16
#define PG_CAPS      40
#define PG_CAP_RDPMC 4 /* cap_user_rdpmc: bit 2 of the capabilities */
#define PG_WIDTH     48

#endif
