/* calibrate.c - the probes' own cost (calibrate.h).  Freestanding, like the core. */
#include "calibrate.h"

#include "port.h"

enum { CALIBRATION_ROUNDS = 10 };

/* Fake function addresses: below any code, so no module is recorded for them. */
static uint64_t fake_fn(int round, int which)
{
	return 0x100u + 0x20u * (uint64_t)(2 * round + which);
}

/* The self time of the fake function leaf and the inclusive time of outer so far. */
static void record_of(const struct zrt_thread *t, uint64_t leaf, uint64_t outer,
		      uint64_t *leaf_self, uint64_t *outer_incl)
{
	for (uint32_t i = 0; i < t->info->n_funcs; i++) {
		uint64_t self, incl;
		zrt_func_times(t, i, &self, &incl);
		if (t->funcs[i].addr == leaf)
			*leaf_self = self;
		if (t->funcs[i].addr == outer)
			*outer_incl = incl;
	}
}

void *zrt_scratch_begin(struct zrt_thread *t, struct zrt_thread *saved)
{
	uint64_t slot_bytes = zrt_thread_bytes(), bytes = slot_bytes + zrt_index_bytes();
	uint8_t *scratch = port_map_index(bytes);
	if (!scratch)
		return (void *)0;
	*saved = *t;
	/* measured uncorrected, also when an earlier calibration set a cost (bind copies zrt.pair) */
	zrt.inner = zrt.pair = 0;
	zrt_thread_bind(t, scratch, scratch + slot_bytes);
	t->state = ZRT_THREAD_ON;
	return scratch;
}

void zrt_scratch_end(struct zrt_thread *t, const struct zrt_thread *saved, void *scratch)
{
	*t = *saved;
	port_unmap_index(scratch, zrt_thread_bytes() + zrt_index_bytes());
}

void zrt_calibrate(struct zrt_thread *t, void (*probed)(uint64_t outer, uint64_t leaf),
		   void (*bare)(void), uint32_t calls)
{
	struct zrt_thread saved;
	void *scratch = zrt_scratch_begin(t, &saved);
	if (!scratch)
		return;
	uint64_t inner = UINT64_MAX, pair = UINT64_MAX;
	for (int r = 0; r < CALIBRATION_ROUNDS; r++) {
		uint64_t outer = fake_fn(r, 0), leaf = fake_fn(r, 1);
		/* a first pass takes the slow paths (new functions, new edges): not measured */
		probed(outer, leaf);
		uint64_t leaf_self = 0, outer_incl = 0;
		record_of(t, leaf, outer, &leaf_self, &outer_incl);
		probed(outer, leaf);
		uint64_t t0 = port_clock();
		bare();
		uint64_t base = port_clock() - t0;
		uint64_t leaf_self2 = 0, outer_incl2 = 0;
		record_of(t, leaf, outer, &leaf_self2, &outer_incl2);
		uint64_t round_inner = (leaf_self2 - leaf_self) / calls;
		uint64_t outer_raw = outer_incl2 - outer_incl;
		uint64_t round_pair = outer_raw > base ? (outer_raw - base) / calls : 0;
		if (round_inner < inner)
			inner = round_inner;
		if (round_pair < pair)
			pair = round_pair;
	}
	zrt_scratch_end(t, &saved, scratch);
	if (pair < inner)
		pair = inner;
	zrt.inner = inner;
	zrt.pair = pair;
	zrt.hdr->overhead_inner_ticks = inner;
	zrt.hdr->overhead_pair_ticks = pair;
}
