/*
 * hooks.c - the entry points compiled code calls: the -finstrument-functions
 * hooks (the per-call path) and the API of include/zond.h.
 *
 * Every entry point passes its own frame address (ZL_PROBE_SP) as the "sp"
 * of the frame it opens or closes.  They all compute it the same way, so it
 * always lies the same distance below the calling function's stack pointer,
 * which is what makes frames of different probes comparable (see core.h).
 */
#include "instrument.h"
#include "../core/timeline.h"

#include "../../include/zond.h"

#define API __attribute__((visibility("default")))

/*
 * The entry probe but its fast path without a clock: a thread's first call,
 * exact time (start: the clock read first thing in the hook).
 */
static __attribute__((noinline)) void enter(struct zrt_thread *t, uint64_t fn, uint64_t site,
					    uint64_t sp, uint64_t pc, uint64_t start)
{
	if (zrt_unlikely(t->state != ZRT_THREAD_ON) && !zl_thread_ready(t))
		return;
	struct zr_frame *fr = zrt_enter(t, fn, site, sp, pc);
	if (fr && zrt.timed) {
		uint64_t now = zl_clock_enter();
		zrt_probe_paid(t, fr > t->stack ? fr - 1 : NULL, 0, now - start);
		fr->enter_ticks = zrt_frame_clock(t, now);
	}
	if (zrt_unlikely(zrt.timeline) && fr)
		zrt_timeline_enter(t, fr, zrt.timed ? fr->enter_ticks : zl_clock());
}

API void __cyg_profile_func_enter(void *fn, void *site)
{
	/*
	 * exact time: what the probe costs from here to its clock read is its
	 * caller's, kept out.  An unfenced read: fences facing the caller's work
	 * (as a function's exit read has) cost more and, in bench/accuracy, hold
	 * back memory-bound code's outstanding loads at every probe, its time
	 * then charged to it (doc/accuracy.md)
	 */
	uint64_t start = zrt.timed ? zl_clock() : 0;
	struct zrt_thread *t = &zl_self;
	uint64_t pc = (uintptr_t)__builtin_return_address(0);
	/* sampled time or counts only: the common call costs no call and no frame */
	if (zrt_likely(t->state == ZRT_THREAD_ON) && !zrt.clocked &&
	    zrt_likely(zrt_enter_fast(t, (uintptr_t)fn, (uintptr_t)site, ZL_PROBE_SP(), pc) != NULL))
		return;
	enter(t, (uintptr_t)fn, (uintptr_t)site, ZL_PROBE_SP(), pc, start);
}

/* The frame on top of t's stack after an exit probe: its caller's, NULL for none. */
static struct zr_frame *top_frame(struct zrt_thread *t)
{
	uint32_t d = t->info->depth;
	return d && d <= zrt.max_depth ? &t->stack[d - 1] : NULL;
}

/* The exit probe with exact time. */
static __attribute__((noinline)) void exit_timed(struct zrt_thread *t, uint64_t fn, uint64_t sp)
{
	uint64_t now = zl_clock_exit();
	zrt_exit(t, fn, sp, zrt_frame_clock(t, now));
	/* what this probe costs after its clock read: its caller's, kept out (unfenced: above) */
	zrt_probe_paid(t, top_frame(t), 1, zl_clock() - now);
}

/* The exit probe with the timeline on: the event takes the exit's time, read by
 * the clock whether or not calls are timed. */
static __attribute__((noinline)) void exit_timeline(struct zrt_thread *t, uint64_t fn, uint64_t sp)
{
	uint64_t now = zrt.timed ? zl_clock_exit() : zl_clock();
	zrt_timeline_exit(t, fn, sp, zrt.timed ? zrt_frame_clock(t, now) : now);
	if (zrt.timed)
		zrt_probe_paid(t, top_frame(t), 1, zl_clock() - now);
}

API void __cyg_profile_func_exit(void *fn, void *site)
{
	(void)site;
	struct zrt_thread *t = &zl_self;
	if (zrt_unlikely(t->state != ZRT_THREAD_ON))
		return;
	if (zrt.clocked) {
		if (zrt_unlikely(zrt.timeline))
			exit_timeline(t, (uintptr_t)fn, ZL_PROBE_SP());
		else
			exit_timed(t, (uintptr_t)fn, ZL_PROBE_SP());
	} else if (zrt_unlikely(!zrt_exit_fast(t, (uintptr_t)fn, ZL_PROBE_SP(), 0)))
		zrt_exit_slow(t, (uintptr_t)fn, ZL_PROBE_SP(), 0);
}

API void zond_start(void)
{
	zl_start();
	zrt_set_recording(1);
}

API void zond_stop(void)
{
	zl_start();
	zrt_set_recording(0);
}

API void zond_block_begin(const char *name, const char *file, int line)
{
	struct zrt_thread *t = &zl_self;
	if (t->state != ZRT_THREAD_ON && !zl_thread_ready(t))
		return;
	zrt_block_begin(t, (uintptr_t)__builtin_return_address(0), name, file, line,
			ZL_PROBE_SP());
}

API void zond_block_end(const char *name)
{
	struct zrt_thread *t = &zl_self;
	if (t->state != ZRT_THREAD_ON)
		return;
	/* untimed, the time is the timeline's (the exit probe's, exit_timeline) */
	zrt_block_end(t, name,
		      zrt.timed ? zrt_frame_clock(t, zl_clock_exit()) : zrt.clocked ? zl_clock() : 0);
}
