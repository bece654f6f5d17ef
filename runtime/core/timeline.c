/* timeline.c - the timeline's ring of enter and exit events (timeline.h). */
#include "timeline.h"

/* the size doc/raw-format.md promises */
_Static_assert(sizeof(struct zr_event) == 16, "zr_event layout");

uint64_t zrt_timeline_lay_out(struct zr_header *h, const struct zrt_config *cfg, uint64_t off)
{
	h->timeline_flags =
		cfg->timeline_events ? cfg->timeline_flags | ZR_TIMELINE_SWITCHES : 0;
	/* keeping the newest, the slot written next is never read (it may be half
	   written when the thread dies): one more, so that as many are kept as asked */
	h->max_events = cfg->timeline_events +
			(cfg->timeline_events && (h->timeline_flags & ZR_TIMELINE_KEEP_NEWEST) &&
			 cfg->timeline_events < UINT32_MAX);
	h->events_off = off;
	return off + (uint64_t)h->max_events * sizeof(struct zr_event);
}

/*
 * Appends one event to t's ring; the caller holds t's busy flag.  ticks are
 * on t's frame clock, which with exact time leaves out what t's probes paid
 * so far (zrt_probe_paid): the event keeps the clock's own reading, so that
 * the threads and processes of a run share one time line (QA s15: a forked
 * child's timeline drawn 190 us before the parent's calls that caused it,
 * each thread's frame clock behind by its own probes' cost).
 */
static void put(struct zrt_thread *t, uint64_t ticks, uint32_t func, uint32_t depth)
{
	struct zr_thread *ti = t->info;
	ticks += ti->paid_ticks;
	uint64_t n = ti->events_written;
	uint32_t max = zrt.timeline;
	if (n < max || (zrt.hdr->timeline_flags & ZR_TIMELINE_KEEP_NEWEST)) {
		struct zr_event *e = &t->events[n < max ? n : n % max];
		e->ticks = ticks;
		e->func = func;
		e->depth = depth;
	}
	zrt_signal_fence();
	ti->events_written = n + 1;
}

void zrt_timeline_enter(struct zrt_thread *t, const struct zr_frame *fr, uint64_t ticks)
{
	if (t->busy)
		return;
	zrt_take(t, ZRT_HERE());
	put(t, ticks, fr->func, (uint32_t)(fr - t->stack));
	zrt_unbusy(t);
}

void zrt_timeline_exit(struct zrt_thread *t, uint64_t fn, uint64_t sp, uint64_t ticks)
{
	uint32_t before = t->info->depth;
	zrt_exit(t, fn, sp, ticks);
	uint32_t d = t->info->depth;
	/* nothing closed (a call that was not pushed) */
	if (d < before)
		zrt_timeline_closed(t, d, ticks);
}

void zrt_timeline_closed(struct zrt_thread *t, uint32_t d, uint64_t ticks)
{
	/* no frame kept so deep */
	if (d >= zrt.max_depth || t->busy)
		return;
	zrt_take(t, ZRT_HERE());
	put(t, ticks, t->stack[d].func, d | ZR_EVENT_EXIT);
	zrt_unbusy(t);
}

void zrt_timeline_switch(struct zrt_thread *t, uint32_t kind, uint32_t id, uint64_t ticks)
{
	put(t, ticks, id, ZR_EVENT_SWITCH | kind);
}

void zrt_timeline_continued(struct zrt_thread *t, const struct zr_frame *fr, uint64_t ticks)
{
	if (t->busy)
		return;
	zrt_take(t, ZRT_HERE());
	put(t, ticks, fr->func, (uint32_t)(fr - t->stack) | ZR_EVENT_CONTINUED);
	zrt_unbusy(t);
}

void zrt_timeline_merged(struct zrt_thread *s, const struct zrt_thread *d)
{
	s->info->events_lost += d->info->events_written + d->info->events_lost;
}
