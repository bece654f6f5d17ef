/*
 * hooks.c - the entry points compiled code calls on bare metal: the
 * -finstrument-functions hooks and the API of include/zond.h.  As on Linux
 * (runtime/linux/hooks.c), each passes its own frame address as the "sp" of
 * the frame it opens or closes.  Nothing here masks interrupts or takes a
 * lock, so the hooks and ZOND_BEGIN/END work the same with interrupts off;
 * an instrumented interrupt handler that comes in the middle of a probe is
 * not recorded (core.h: busy flag).
 *
 * Each hook is a thin shell around a worker that is never inlined: the
 * shell reads the counter first and last and accounts its whole cost to
 * zond (bare.h: zb_own), so that the instructions outside the two reads are
 * the same on every call, whatever path the worker takes.
 */
#include "bare.h"

#include "../../include/zond.h"

struct zb_cost zb_cost[ZB_HOOKS];
uint64_t zb_own, zb_now, zb_calls, zb_last;
uint32_t zb_clamped, zb_seq;

/* zb_seq as it is in memory now, not as the compiler last saw it */
static inline uint32_t seq_now(void)
{
	return *(volatile uint32_t *)&zb_seq;
}

/* Keeps the counter's reads and the accesses of zb_own and zb_seq in program order. */
#define ORDERED() __asm__ volatile("" ::: "memory")

/*
 * The return address an exit hook put in place of a function's (bare.h):
 * keeps the return value (a0, a1), closes the frame and returns to the real
 * address.  Its instruction counts are ZB_RETURN_BEFORE and _AFTER.
 */
void zb_return(void);
#if __riscv_xlen == 64
#define ZB_SAVE "sd"
#define ZB_LOAD "ld"
#define ZB_SECOND "8"
#else
#define ZB_SAVE "sw"
#define ZB_LOAD "lw"
#define ZB_SECOND "4"
#endif
__asm__(".text\n"
	".globl zb_return\n"
	".type zb_return, @function\n"
	".p2align 2\n"
	"zb_return:\n"
	"	addi sp, sp, -16\n"
	"	" ZB_SAVE " a0, 0(sp)\n"
	"	" ZB_SAVE " a1, " ZB_SECOND "(sp)\n"
	"	jal zb_late_exit\n"
	"	mv t0, a0\n"
	"	" ZB_LOAD " a0, 0(sp)\n"
	"	" ZB_LOAD " a1, " ZB_SECOND "(sp)\n"
	"	addi sp, sp, 16\n"
	"	jr t0\n"
	".size zb_return, .-zb_return\n");

enum { DEFERRED = 32 };
static struct {
	uintptr_t fn, sp, real;
} deferred[DEFERRED];
static uint32_t n_deferred;

int zb_defer_exit(uintptr_t fn, uintptr_t sp, uintptr_t real)
{
	if (n_deferred == DEFERRED)
		return -1;
	deferred[n_deferred].fn = fn;
	deferred[n_deferred].sp = sp;
	deferred[n_deferred].real = real;
	n_deferred++;
	return 0;
}

/* The program's clock at the call of a hook that read c0 first, with zb_own then own0. */
static inline uint64_t program_clock(int kind, uint64_t c0, uint64_t own0)
{
	return c0 - zb_cost[kind].pre - own0;
}

/* What a hook read at its start, after c0: zb_own and zb_last (bare.h). */
struct start {
	uint64_t own0, last;
};

/*
 * c0, with zb_own and zb_last as they were at that read: read again when a
 * handler's hooks ended in between (zb_seq moved, bare.h), so that their
 * cost is in own0 or in c1 - c0, never in both.
 */
__attribute__((always_inline)) static inline uint64_t hook_start(struct start *h)
{
	uint32_t s;
	uint64_t c0;
	do {
		s = seq_now();
		ORDERED();
		c0 = zb_clock();
		ORDERED();
		h->own0 = zb_own;
		h->last = zb_last;
		ORDERED();
	} while (s != seq_now());
	return c0;
}

/*
 * The program's clock at the call of a hook that read c0 first, with h as
 * it read them, held at the last hook's where it would be behind it (bare.h:
 * zb_last): h->own0 is then lowered by zond's excess.  Called where the hook
 * needs the clock for a frame, in the entry probe after it has opened its
 * own (an interrupt some 90 instructions into a call still finds the probe
 * busy: tests/bare/messages.sh).  zb_last as the hook started: a handler's
 * hooks nested in it set it later.
 */
static inline uint64_t held_clock(int kind, uint64_t c0, struct start *h)
{
	uint64_t now = program_clock(kind, c0, h->own0);
	if (zrt_unlikely((int64_t)(now - h->last) < 0)) {
		h->own0 = c0 - zb_cost[kind].pre - h->last;
		now = h->last;
		zb_clamped++;
		if (zrt.hdr)
			zrt.hdr->clamped_clock = zb_clamped;
	}
	return now;
}

/*
 * zond's cycles when a hook that started at c0, with zb_own then own0, returns;
 * its program clock the last (a hook nested in it returns first).  A
 * handler's hooks that end between c1's read and the check wrote zb_own
 * too, their cost outside c1 - c0: c1 is read again, after them (before,
 * their cost was lost, charged to the program: QA s15 W3 F1).  Then
 * zb_seq moves, for a hook this one interrupted.
 */
__attribute__((always_inline)) static inline void hook_done(int kind, uint64_t c0, uint64_t own0)
{
	uint32_t s;
	do {
		s = seq_now();
		ORDERED();
		uint64_t c1 = zb_clock();
		zb_own = own0 + (c1 - c0) + zb_cost[kind].rest;
		ORDERED();
	} while (s != seq_now());
	zb_last = program_clock(kind, c0, own0);
	ORDERED();
	*(volatile uint32_t *)&zb_seq = s + 1;
}

__attribute__((noinline)) static void enter_work(void *fn, void *site, uintptr_t sp,
						 uintptr_t ra, uint64_t c0, struct start *h)
{
	struct zrt_thread *t = &zb_self;
	zb_now = program_clock(ZB_ENTER, c0, h->own0);
	if (zrt_unlikely(t->state != ZRT_THREAD_ON) && !zb_ready(t))
		return;
	/* start-up measured zb_cost and ran hooks of its own */
	zb_now = program_clock(ZB_ENTER, c0, h->own0);
	zb_calls++;
	struct zr_frame *fr = zrt_enter(t, (uintptr_t)fn, (uintptr_t)site, sp, ra);
	if (fr && zrt.timed)
		fr->enter_ticks = (zb_now = held_clock(ZB_ENTER, c0, h)) -
				  zb_before((uintptr_t)fn, ra);
}

void __cyg_profile_func_enter(void *fn, void *site)
{
	struct start h;
	uint64_t c0 = hook_start(&h);
	enter_work(fn, site, (uintptr_t)__builtin_frame_address(0),
		   (uintptr_t)__builtin_return_address(0), c0, &h);
	hook_done(ZB_ENTER, c0, h.own0);
}

__attribute__((noinline)) static void exit_work(void *fn, void *site, uintptr_t sp, uintptr_t ra,
						uint64_t c0, struct start *h)
{
	struct zrt_thread *t = &zb_self;
	if (zrt_unlikely(t->state != ZRT_THREAD_ON))
		return;
	uint64_t now = zb_now = held_clock(ZB_EXIT, c0, h);
	/*
	 * gcc may jump to this hook after the epilogue: it then returns for the
	 * function, and sp is already the caller's (the frame of a recursive
	 * caller has it too): the frame on top, when it is fn's, is the one.
	 */
	if (ra == (uintptr_t)site) {
		uint32_t d = t->info->depth;
		if (d && d - 1 < zrt.max_depth && t->stack[d - 1].addr == (uintptr_t)fn)
			sp = zrt_frame_sp(&t->stack[d - 1]);
		zrt_exit(t, (uintptr_t)fn, sp, now);
		return;
	}
	if (!zrt.timed) {
		zrt_exit(t, (uintptr_t)fn, sp, now);
		return;
	}
	if (zb_after_known(ra)) {
		zrt_exit(t, (uintptr_t)fn, sp, now + zb_after(ra));
		return;
	}
	/* calls after the hook: the frame ends where the function returns (bare.h) */
	int32_t off = zb_ra_slot(ra);
	uintptr_t *slot = (uintptr_t *)(sp + (intptr_t)off);
	if (off >= 0 && *slot == (uintptr_t)site && zb_defer_exit((uintptr_t)fn, sp, *slot) == 0)
		*slot = (uintptr_t)zb_return;
	else
		zrt_exit(t, (uintptr_t)fn, sp, now);
}

void __cyg_profile_func_exit(void *fn, void *site)
{
	struct start h;
	uint64_t c0 = hook_start(&h);
	exit_work(fn, site, (uintptr_t)__builtin_frame_address(0), (uintptr_t)__builtin_return_address(0),
		  c0, &h);
	hook_done(ZB_EXIT, c0, h.own0);
}

/* zond_start and zond_stop are rare: their cost is the program's. */
void zond_start(void)
{
	zb_now = zb_clock() - zb_own;
	zb_ready(&zb_self);
	zrt_set_recording(1);
}

void zond_stop(void)
{
	zb_now = zb_clock() - zb_own;
	zb_ready(&zb_self);
	zrt_set_recording(0);
}

__attribute__((noinline)) static void begin_work(const char *name, const char *file, int line,
						 uintptr_t site, uintptr_t sp, uint64_t c0,
						 struct start *h)
{
	struct zrt_thread *t = &zb_self;
	zb_now = program_clock(ZB_BEGIN, c0, h->own0);
	if (t->state != ZRT_THREAD_ON && !zb_ready(t))
		return;
	zb_now = held_clock(ZB_BEGIN, c0, h);
	zrt_block_begin(t, site, name, file, line, sp);
}

void zond_block_begin(const char *name, const char *file, int line)
{
	struct start h;
	uint64_t c0 = hook_start(&h);
	begin_work(name, file, line, (uintptr_t)__builtin_return_address(0),
		   (uintptr_t)__builtin_frame_address(0), c0, &h);
	hook_done(ZB_BEGIN, c0, h.own0);
}

__attribute__((noinline)) static void end_work(const char *name, uint64_t c0, struct start *h)
{
	struct zrt_thread *t = &zb_self;
	if (t->state != ZRT_THREAD_ON)
		return;
	uint64_t now = zb_now = held_clock(ZB_END, c0, h);
	zrt_block_end(t, name, zrt.timed ? now : 0);
}

__attribute__((noinline)) static uintptr_t late_work(uint64_t c0, struct start *h)
{
	struct zrt_thread *t = &zb_self;
	if (!n_deferred)
		return 0; /* cannot happen: zb_return is reached through a deferred exit only */
	n_deferred--;
	uint64_t now = zb_now = held_clock(ZB_RETURN, c0, h);
	if (t->state == ZRT_THREAD_ON)
		zrt_exit(t, deferred[n_deferred].fn, deferred[n_deferred].sp, now);
	return deferred[n_deferred].real;
}

uintptr_t zb_late_exit(void)
{
	struct start h;
	uint64_t c0 = hook_start(&h);
	uintptr_t real = late_work(c0, &h);
	hook_done(ZB_RETURN, c0, h.own0);
	return real;
}

void zond_block_end(const char *name)
{
	struct start h;
	uint64_t c0 = hook_start(&h);
	end_work(name, c0, &h);
	hook_done(ZB_END, c0, h.own0);
}
