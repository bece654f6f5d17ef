/*
 * calibrate.h - measuring the probes' own cost, for every port.
 *
 * zrt_calibrate() measures it and stores it (zrt.inner, zrt.pair and the
 * header).  t is the thread state the probes use; for the measurement it is
 * bound to a scratch slot and index from port_map_index (one thread slot
 * plus the hash indexes), with no correction, and restored afterwards.
 * probed(outer, leaf) makes `calls` probed calls recorded as function leaf
 * from inside one probed call recorded as outer; bare() runs the same loop
 * without probes.  An empty leaf's own time is the inner part of a probe
 * pair; its parent's time per call, less the bare loop's, the whole pair.
 * Each round runs probed twice on fresh fake functions and measures the
 * second pass only, so that the slow path of a function's and an edge's
 * first call is left out: what is measured is the per-call path every later
 * call takes (under an instruction-exact clock, exactly its cost).  The
 * cheapest of a few rounds wins.  Nothing is changed when the scratch
 * memory cannot be had.  Needs a started process (zrt.hdr set).
 */
#ifndef ZOND_CALIBRATE_H
#define ZOND_CALIBRATE_H

#include "core.h"

void zrt_calibrate(struct zrt_thread *t, void (*probed)(uint64_t outer, uint64_t leaf),
		   void (*bare)(void), uint32_t calls);

/*
 * The scratch binding zrt_calibrate measures in, for a port's own
 * measurements: binds t to a fresh scratch slot and index (no correction,
 * state on), keeping what it was in *saved; NULL (t unchanged) when the
 * memory cannot be had.  zrt_scratch_end restores t and gives the memory back.
 */
void *zrt_scratch_begin(struct zrt_thread *t, struct zrt_thread *saved);
void zrt_scratch_end(struct zrt_thread *t, const struct zrt_thread *saved, void *scratch);

#endif
