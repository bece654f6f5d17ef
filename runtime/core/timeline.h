/*
 * timeline.h - the timeline: every enter and exit of a recorded function, in
 * order and with its time, kept per thread in a bounded ring of the raw file
 * (raw.h struct zr_event; `zond record --timeline`, doc/raw-format.md).
 *
 * Contract with the ports:
 *  - Off unless zrt.timeline (the ring's size) is nonzero; a port's hooks
 *    test it once per probe (zrt_unlikely) and call in here only when set,
 *    so that the per-call path without a timeline is what it was.
 *  - zrt_timeline_enter() after zrt_enter() gave a frame, with the frame's
 *    entry time; zrt_timeline_exit() instead of zrt_exit(), with the exit
 *    time.  Times are the port's clock ticks, read by the port even when
 *    the run keeps no times otherwise (sampled time, --no-time).
 *  - An event is written into the thread's own ring before
 *    zr_thread.events_written counts it, under the thread's busy flag: a
 *    crash loses at most the event being written.  A full ring keeps its
 *    oldest events (later ones are counted, not kept) or, with
 *    ZR_TIMELINE_KEEP_NEWEST, overwrites them.
 *  - Blocks (zond.h) have events as functions do, their times read by
 *    the core.  Frames deeper than max_depth have no events; frames a
 *    forked child carries over have one each, continued, at its start.
 *    Stack switches (zrt_park, zrt_unpark) are events too.  A reader closes
 *    a frame left open at the thread's end.
 * Freestanding like the rest of the core.
 */
#ifndef ZOND_TIMELINE_H
#define ZOND_TIMELINE_H

#include "core.h"

/* Lays out the ring from cfg at slot offset off (64-byte aligned); the offset past it. */
uint64_t zrt_timeline_lay_out(struct zr_header *h, const struct zrt_config *cfg, uint64_t off);

/* The frame fr that zrt_enter() just opened on t, entered at ticks. */
void zrt_timeline_enter(struct zrt_thread *t, const struct zr_frame *fr, uint64_t ticks);

/* zrt_exit(t, fn, sp, ticks), noting the frames it closed. */
void zrt_timeline_exit(struct zrt_thread *t, uint64_t fn, uint64_t sp, uint64_t ticks);

/* The frames from index d up were closed at ticks (zrt_pop): notes their end.
 * The outermost one closed must still be in its slot of the stack. */
void zrt_timeline_closed(struct zrt_thread *t, uint32_t d, uint64_t ticks);

/*
 * A stack switch on t (zrt_park, zrt_unpark; the caller holds t's busy
 * flag): kind ZR_SWITCH_*, id the stack's (raw.h ZR_EVENT_SWITCH).
 */
void zrt_timeline_switch(struct zrt_thread *t, uint32_t kind, uint32_t id, uint64_t ticks);

/* Frame fr, carried over into a forked child, continues from ticks (ZR_EVENT_CONTINUED). */
void zrt_timeline_continued(struct zrt_thread *t, const struct zr_frame *fr, uint64_t ticks);

/* The ended thread d is merged into s (core.c): its events are lost, and counted in s. */
void zrt_timeline_merged(struct zrt_thread *s, const struct zrt_thread *d);

#endif
