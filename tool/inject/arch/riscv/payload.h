/*
 * payload.h - what the bare-metal controller (tool/inject/bare.c) needs of
 * the RISC-V payload besides struct inject_arch: its cost in instructions
 * and its private area (payload.c has the layout).
 */
#ifndef ZOND_INJECT_RISCV_PAYLOAD_H
#define ZOND_INJECT_RISCV_PAYLOAD_H

#include <stddef.h>
#include <stdint.h>

#include "../../arch.h"

/*
 * A second counter the payload reads next to the first (two counters in
 * one run, e.g. mcycle and minstret for IPC): its CSR, and the offsets in
 * the shared block of its statistics (nfuncs struct inject_stat, calls
 * left 0: the first's count) and of its call edges (the edges' layout,
 * only the inclusive sums written; 0 when args->edges is 0).  The entry
 * reads it right after the first counter and the exit likewise, so both
 * intervals hold the same payload instructions: one c0 and cpair for both.
 */
struct inject_riscv_second {
	uint32_t csr;
	uint64_t stats, edges;
};

/*
 * The payload's cost in instructions for these arguments (c0 and cpair of
 * a are not read) and second counter (NULL: none): c0 inside a measured
 * interval, cpair one call's all.
 */
void inject_riscv_costs(int xlen, const struct inject_payload_args *a,
			const struct inject_riscv_second *two, uint64_t *c0, uint64_t *cpair);

/*
 * The payload blob as struct inject_arch's payload() writes it, reading
 * the counter CSR csr (0xb00 mcycle, 0xb02 minstret, 0xb03.. mhpmcounterN)
 * instead of mcycle, and two's next to it (NULL: none).  Without two, the
 * same length and cost in instructions as payload(); with it, a longer
 * za_entry: a->exit must be inject_riscv_exit_at(.., two).
 */
size_t inject_riscv_payload_reading(uint8_t *out, size_t cap, const struct inject_payload_args *a,
				    int xlen, uint32_t csr, const struct inject_riscv_second *two);

/* za_exit's address in a blob at payload_at reading two too (NULL: exit_addr()'s). */
uint64_t inject_riscv_exit_at(int xlen, uint64_t payload_at, const struct inject_riscv_second *two);

/*
 * The instructions a measured call that never returns ran of the payload
 * (the entry's jal, the stub, za_entry; its copy's extra ones are the
 * function's, inject_riscv_copy_extra).
 */
uint64_t inject_riscv_open_cost(int xlen, const struct inject_riscv_second *two);

/*
 * Bytes of the private area (args->threads) for nfuncs functions and a
 * shadow stack of depth measured calls nested at once (0: INJ_DEPTH), as
 * args->depth must say.
 */
size_t inject_riscv_private_size(int xlen, size_t nfuncs, uint32_t depth);

/*
 * The private area's first contents into buf (private_size bytes): an
 * empty shadow stack of depth frames (0: INJ_DEPTH) over the sentinel
 * frame, which holds the bound za_entry checks, and per function the
 * instructions its relocated copy runs beyond the original ones (extra),
 * and those its callers see beyond the payload's constant (caller_extra:
 * extra, and a far jump's second instruction at the entry).
 */
void inject_riscv_private_init(uint8_t *buf, int xlen, size_t nfuncs, uint32_t depth,
			       const int32_t *extra, const int32_t *caller_extra);

/* Instructions the relocated copy (len bytes) runs beyond the ninsn originals, on its straight path. */
int32_t inject_riscv_copy_extra(const uint8_t *copy, size_t len, uint32_t ninsn);

#endif
