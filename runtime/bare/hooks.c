/*
 * hooks.c - the entry points compiled code calls on bare metal: the
 * -finstrument-functions hooks and the API of include/zond.h.  As on Linux
 * (runtime/linux/hooks.c), each passes its own frame address as the "sp" of
 * the frame it opens or closes.  Nothing here masks interrupts or takes a
 * lock, so the hooks and ZOND_BEGIN/END work the same with interrupts off;
 * an instrumented interrupt handler that comes in the middle of a probe is
 * not recorded (core.h: busy flag).  The entry probe also times its own
 * work, so that a slow first call costs the callers nothing (bare.h:
 * zb_discount).
 */
#include "bare.h"

#include "../../include/zond.h"

void __cyg_profile_func_enter(void *fn, void *site)
{
	struct zrt_thread *t = &zb_self;
	if (zrt_unlikely(t->state != ZRT_THREAD_ON) && !zb_ready(t))
		return;
	uint64_t t0 = zb_clock();
	struct zr_frame *fr =
		zrt_enter(t, (uintptr_t)fn, (uintptr_t)site, (uintptr_t)__builtin_frame_address(0));
	if (fr && zrt.timed) {
		uint64_t now = zb_clock();
		if (zrt_unlikely(now - t0 > zb_enter_cost))
			now = zb_discount(t, fr, t0);
		fr->enter_ticks = now;
	}
}

void __cyg_profile_func_exit(void *fn, void *site)
{
	(void)site;
	struct zrt_thread *t = &zb_self;
	if (zrt_unlikely(t->state != ZRT_THREAD_ON))
		return;
	uint64_t now = zrt.timed ? zb_clock() : 0;
	zrt_exit(t, (uintptr_t)fn, (uintptr_t)__builtin_frame_address(0), now);
}

void zond_start(void)
{
	zb_ready(&zb_self);
	zrt_set_recording(1);
}

void zond_stop(void)
{
	zb_ready(&zb_self);
	zrt_set_recording(0);
}

void zond_block_begin(const char *name, const char *file, int line)
{
	struct zrt_thread *t = &zb_self;
	if (t->state != ZRT_THREAD_ON && !zb_ready(t))
		return;
	zrt_block_begin(t, (uintptr_t)__builtin_return_address(0), name, file, line,
			(uintptr_t)__builtin_frame_address(0));
}

void zond_block_end(const char *name)
{
	struct zrt_thread *t = &zb_self;
	if (t->state != ZRT_THREAD_ON)
		return;
	zrt_block_end(t, name, zrt.timed ? zb_clock() : 0);
}
