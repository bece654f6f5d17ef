/*
 * hooks.c - the entry points compiled code calls: the -finstrument-functions
 * hooks (the per-call path) and the API of include/zond.h.
 *
 * Every entry point passes its own frame address as the "sp" of the frame it
 * opens or closes.  They all compute it the same way, so it always lies the
 * same distance below the calling function's stack pointer, which is what
 * makes frames of different probes comparable (see core.h).
 */
#include "instrument.h"

#include "../../include/zond.h"

#define API __attribute__((visibility("default")))

API void __cyg_profile_func_enter(void *fn, void *site)
{
	struct zrt_thread *t = &zl_self;
	if (zrt_unlikely(t->state != ZRT_THREAD_ON) && !zl_thread_ready(t))
		return;
	/* now and then, what this probe costs before its clock read (zrt_probe_paid) */
	uint64_t start = zrt.timed && zrt_unlikely(!t->measure[0]--) ? zl_clock() : 0;
	struct zr_frame *fr =
		zrt_enter(t, (uintptr_t)fn, (uintptr_t)site, (uintptr_t)__builtin_frame_address(0));
	if (fr && zrt.timed) {
		fr->enter_ticks = zl_clock_enter();
		if (zrt_unlikely(start))
			zrt_probe_paid(t, 0, fr->enter_ticks - start);
	}
}

API void __cyg_profile_func_exit(void *fn, void *site)
{
	(void)site;
	struct zrt_thread *t = &zl_self;
	if (zrt_unlikely(t->state != ZRT_THREAD_ON))
		return;
	uint64_t now = zrt.timed ? zl_clock_exit() : 0;
	zrt_exit(t, (uintptr_t)fn, (uintptr_t)__builtin_frame_address(0), now);
	/* now and then, what this probe costs after its clock read */
	if (zrt.timed && zrt_unlikely(!t->measure[1]--))
		zrt_probe_paid(t, 1, zl_clock() - now);
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
			(uintptr_t)__builtin_frame_address(0));
}

API void zond_block_end(const char *name)
{
	struct zrt_thread *t = &zl_self;
	if (t->state != ZRT_THREAD_ON)
		return;
	zrt_block_end(t, name, zrt.timed ? zl_clock_exit() : 0);
}
