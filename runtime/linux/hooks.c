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
#include "tasks.h"
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
	if (zrt_unlikely(t->state != ZRT_THREAD_ON) && !zl_thread_ready(t)) {
		zrt_count_lost_call(t);
		return;
	}
	struct zr_frame *fr = zrt_enter(t, fn, site, sp, pc);
	if (fr && zrt.timed) {
		uint64_t now = zl_clock_enter();
		zrt_probe_paid(t, fr > t->stack ? fr - 1 : NULL, 0, now - start);
		fr->enter_ticks = zrt_frame_clock(t, now);
	}
	if (zrt_unlikely(zrt.timeline) && fr)
		zrt_timeline_enter(t, fr, zrt.timed ? fr->enter_ticks : zl_clock());
}

/* The entry probe on a TLS several tasks run on (tasks.h): the struct of the one at sp. */
static __attribute__((noinline, cold)) void enter_shared(uint64_t fn, uint64_t site, uint64_t sp,
							 uint64_t pc, uint64_t start)
{
	struct zrt_thread *t = zl_shared_task(sp, ZL_TASK_ENTER);
	if (!t)
		return;
	if (t->state == ZRT_THREAD_ON && !zrt.clocked && zrt_enter_fast(t, fn, site, sp, pc))
		return;
	enter(t, fn, site, sp, pc, start);
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
	if (zrt_unlikely(t->state == ZRT_THREAD_SHARED))
		enter_shared((uintptr_t)fn, (uintptr_t)site, ZL_PROBE_SP(), pc, start);
	else
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

uint64_t zl_unwind_resume;

#if defined(__x86_64__)
static int32_t rel32(const uint8_t *p)
{
	int32_t v;
	__builtin_memcpy(&v, p, sizeof v);
	return v;
}

static uint64_t load64(const uint8_t *p)
{
	uint64_t v;
	__builtin_memcpy(&v, p, sizeof v);
	return v;
}

/* p past an endbr64 (-fcf-protection's landing mark) at p */
static const uint8_t *past_endbr(const uint8_t *p)
{
	return p[0] == 0xf3 && p[1] == 0x0f && p[2] == 0x1e && p[3] == 0xfa ? p + 4 : p;
}

/*
 * 1 when a call whose target is at slot (a GOT entry) calls fn: the entry
 * holds fn, or, lazily bound, still the PLT's stub that binds it on the
 * first call ([endbr64] push index; [bnd] jmp): which function that binds
 * is not known here, taken for fn (a module's first _Unwind_Resume).
 */
static int slot_calls(const uint8_t *slot, uint64_t fn)
{
	uint64_t v = load64(slot);
	if (v == fn)
		return 1;
	const uint8_t *p = past_endbr((const uint8_t *)(uintptr_t)v);
	if (p[0] != 0x68)
		return 0;
	p += 5;
	p += p[0] == 0xf2;
	return p[0] == 0xe9;
}
#endif

/*
 * 1 when the code an exit probe returns to (ra) goes on to call
 * _Unwind_Resume (zl_unwind_resume): gcc's cleanup landing pad of a function
 * calls the exit probe, moves the exception into the first argument and
 * calls _Unwind_Resume, directly, through a PLT stub ([endbr64] [bnd] jmp
 * *slot) or through the GOT (-fno-plt), where a function's return calls
 * nothing after its exit probe.  Register moves and jumps are followed; any
 * other instruction ends the look.  Only while an exception may be in
 * flight (t->throwing): it reads the code.
 */
static __attribute__((noinline, cold)) int resumes_unwinding(uint64_t ra)
{
#if defined(__x86_64__)
	uint64_t fn = __atomic_load_n(&zl_unwind_resume, __ATOMIC_RELAXED);
	const uint8_t *p = (const uint8_t *)(uintptr_t)ra;
	for (int n = 0; fn && n < 8; n++) {
		const uint8_t *q = p + ((p[0] & 0xf0) == 0x40); /* REX */
		if ((q[0] == 0x89 || q[0] == 0x8b) && (q[1] & 0xc0) == 0xc0) {
			p = q + 2; /* mov between registers */
		} else if (q != p) {
			return 0;
		} else if (p[0] == 0xeb) {
			p += 2 + (int8_t)p[1];
		} else if (p[0] == 0xe9) {
			p += 5 + rel32(p + 1);
		} else if (p[0] == 0xe8) {
			const uint8_t *to = p + 5 + rel32(p + 1);
			if ((uintptr_t)to == fn)
				return 1;
			to = past_endbr(to);
			to += to[0] == 0xf2; /* bnd */
			return to[0] == 0xff && to[1] == 0x25 && slot_calls(to + 6 + rel32(to + 2), fn);
		} else if (p[0] == 0xff && p[1] == 0x15) {
			return slot_calls(p + 6 + rel32(p + 2), fn);
		} else {
			return 0;
		}
	}
#else
	(void)ra;
#endif
	return 0;
}

/*
 * The exit probe of a cleanup that goes on unwinding: fn's frame stays open
 * (zrt_exit_resuming), closed by the thread's next probe or its catch.
 */
static __attribute__((noinline, cold)) void exit_resuming(struct zrt_thread *t, uint64_t fn,
							  uint64_t sp)
{
	uint64_t clock = zrt.timed ? zl_clock_exit() : zrt.clocked ? zl_clock() : 0;
	uint64_t now = zrt.timed ? zrt_frame_clock(t, clock) : clock;
	uint32_t before = t->info->depth;
	zrt_exit_resuming(t, fn, sp, now);
	/* what it closed above fn's frame, or a frame resuming before */
	if (zrt_unlikely(zrt.timeline) && t->info->depth < before)
		zrt_timeline_closed(t, t->info->depth, now);
	if (zrt.timed)
		zrt_probe_paid(t, top_frame(t), 1, zl_clock() - clock);
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

/* The exit probe on t (ON), at stack address sp, returning to ra. */
static inline __attribute__((always_inline)) void exit_on(struct zrt_thread *t, uint64_t fn,
							  uint64_t sp, uint64_t ra)
{
	if (zrt_unlikely(t->throwing) && resumes_unwinding(ra)) {
		exit_resuming(t, fn, sp);
		return;
	}
	if (zrt.clocked) {
		if (zrt_unlikely(zrt.timeline))
			exit_timeline(t, fn, sp);
		else
			exit_timed(t, fn, sp);
	} else if (zrt_unlikely(!zrt_exit_fast(t, fn, sp, 0)))
		zrt_exit_slow(t, fn, sp, 0);
}

/* The exit probe on a TLS several tasks run on (tasks.h): the struct of the one at sp. */
static __attribute__((noinline, cold)) void exit_shared(uint64_t fn, uint64_t sp, uint64_t ra)
{
	struct zrt_thread *t = zl_shared_task(sp, ZL_TASK_EXIT);
	if (t && t->state == ZRT_THREAD_ON)
		exit_on(t, fn, sp, ra);
}

API void __cyg_profile_func_exit(void *fn, void *site)
{
	(void)site;
	struct zrt_thread *t = &zl_self;
	if (zrt_unlikely(t->state != ZRT_THREAD_ON)) {
		if (t->state == ZRT_THREAD_SHARED)
			exit_shared((uintptr_t)fn, ZL_PROBE_SP(),
				    (uintptr_t)__builtin_return_address(0));
		return;
	}
	exit_on(t, (uintptr_t)fn, ZL_PROBE_SP(), (uintptr_t)__builtin_return_address(0));
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
	struct zrt_thread *t = zl_task_at(ZL_PROBE_SP());
	if (t->state != ZRT_THREAD_ON && !zl_thread_ready(t))
		return;
	zrt_block_begin(t, (uintptr_t)__builtin_return_address(0), name, file, line,
			ZL_PROBE_SP());
}

API void zond_block_end(const char *name)
{
	struct zrt_thread *t = zl_task_at(ZL_PROBE_SP());
	if (t->state != ZRT_THREAD_ON)
		return;
	/* untimed, the time is the timeline's (the exit probe's, exit_timeline) */
	zrt_block_end(t, name,
		      zrt.timed ? zrt_frame_clock(t, zl_clock_exit()) : zrt.clocked ? zl_clock() : 0);
}
