/*
 * probes.c - what the wrapper calls around a library call (audit.h): the
 * per-call path and the cold paths it may reach (a thread's first call, a
 * fork returning in the child, exit).
 *
 * Built with -mgeneral-regs-only and calling no libc function: the wrapper
 * keeps only the general registers, so nothing here may touch a vector or
 * x87 register while the callee's arguments or the caller's results are in
 * them.  System calls are made directly (the shared Linux port, linux.h,
 * which is built the same way).
 */
#include <stddef.h>
#include <sys/syscall.h>

#include "audit.h"

#include "../core/port.h"
#include "../core/timeline.h"
#include "../linux/linux.h"
#include "../linux/sample.h"

__thread struct za_thread za_self __attribute__((tls_model("initial-exec")));
__thread struct za_fast *za_fast __attribute__((tls_model("initial-exec")));

static void drop_fast_table(void);

/* ---- a thread's first call --------------------------------------------- */

int za_thread_frames(struct za_thread *t)
{
	if (!t->frames) {
		if (zl_sealed) /* no system call of zond's under seccomp (linux.h) */
			return 0;
		long m = zl_syscall6(SYS_mmap, 0, ZA_MAX_FRAMES * sizeof(struct za_frame),
				     3 /* PROT_READ | PROT_WRITE */,
				     0x22 /* MAP_PRIVATE | MAP_ANONYMOUS */, -1, 0);
		if (m < 0 && m > -4096)
			return 0;
		t->frames = (struct za_frame *)m;
	}
	return 1;
}

int za_thread_start(struct za_thread *t)
{
	if (t->core.state == ZRT_THREAD_OFF)
		return 0;
	if (!zrt.hdr || !za_thread_frames(t)) {
		t->core.state = ZRT_THREAD_OFF;
		return 0;
	}
	zrt_thread_attach(&t->core);
	return t->core.state == ZRT_THREAD_ON;
}

/* ---- the port, as far as the probes reach it ---------------------------- */

/*
 * A thread's end is noted as libzond notes it, by the destructor of a
 * thread-specific key, but the key is the program's (its libc runs the
 * destructors of its threads, not ours): audit.c creates it once the
 * program's libc is relocated and sets these.  Its pthread_setspecific for
 * a key of the first block (below 32) stores two words and calls nothing,
 * so it may be called from here, with the callee's arguments in the vector
 * registers.
 */
int (*za_setspecific)(unsigned int key, const void *value);
unsigned int za_thread_key;

void port_thread_attached(void)
{
	int (*set)(unsigned int, const void *) =
		__atomic_load_n(&za_setspecific, __ATOMIC_ACQUIRE);
	if (set && za_thread_key < 32)
		set(za_thread_key, &za_self);
	zl_sample_thread_start();
}

void za_thread_gone(void *arg)
{
	(void)arg;
	zl_sample_thread_end();
	if (za_self.core.state == ZRT_THREAD_SHARED) {
		/* tasks on its TLS still run: their states and frames stay theirs */
		zrt_thread_end(zl_owner());
		return;
	}
	zrt_thread_end(&za_self.core);
	if (za_self.core.state == ZRT_THREAD_ON)
		return;
	/* its counters point into a slot that a new thread may take over */
	drop_fast_table();
	/* no call is timed any more (za_enter stops at the thread's state) */
	if (za_self.frames && !zl_sealed)
		zl_syscall6(SYS_munmap, (long)za_self.frames,
			    ZA_MAX_FRAMES * sizeof(struct za_frame), 0, 0, 0, 0);
	za_self.frames = NULL;
	za_self.depth = 0;
}

/* ---- tasks on their creator's TLS (tasks.h) ---------------------------- */

/* The owner's fast table while its TLS is shared: every task counts through za_count. */
static __thread struct za_fast *fast_kept __attribute__((tls_model("initial-exec")));

void za_tasks_sharing(int on)
{
	if (on) {
		fast_kept = za_fast;
		za_fast = NULL;
	} else {
		za_fast = fast_kept;
		fast_kept = NULL;
	}
}

void za_task_end(struct za_thread *t)
{
	zrt_thread_end(&t->core);
	if (t->frames && !zl_sealed)
		zl_syscall6(SYS_munmap, (long)t->frames, ZA_MAX_FRAMES * sizeof(struct za_frame),
			    0, 0, 0, 0);
	t->frames = NULL;
	t->depth = 0;
}

/* ready's rare case: a thread's first call, a thread not recorded, a shared TLS */
static __attribute__((noinline, cold)) struct za_thread *ready_slow(struct za_thread *t,
								      uint64_t sp)
{
	if (t->core.state == ZRT_THREAD_SHARED) {
		/* the task whose stack holds sp; NULL: its calls are not kept (counted) */
		t = zl_shared_task(sp, ZL_TASK_ENTER);
		if (!t)
			return NULL;
		if (t->core.state == ZRT_THREAD_ON)
			return t;
	}
	if (za_thread_start(t))
		return t;
	zrt_count_lost_call(&t->core);
	return NULL;
}

/*
 * The state of the task making a call at sp, when it records; NULL else (a
 * call of a thread that found no slot is counted as lost).
 */
static inline struct za_thread *ready(uint64_t sp)
{
	struct za_thread *t = &za_self;
	if (zrt_likely(t->core.state == ZRT_THREAD_ON))
		return t;
	return ready_slow(t, sp);
}

/* za_exit on a shared TLS: the state whose frames hold fr, NULL for none. */
static __attribute__((noinline, cold)) struct za_thread *frame_owner(struct za_frame *fr)
{
	struct za_thread *t = zl_shared_task(fr->sp, ZL_TASK_FRAME);
	if (t->frames && fr >= t->frames && fr < t->frames + ZA_MAX_FRAMES)
		return t;
	return NULL;
}

/* ---- frames abandoned by longjmp, exceptions, cancellation -------------- */

/*
 * A frame is dead when a call is made from higher up the stack than the one
 * it wraps, or from the same place without being a tail call out of it (a
 * tail call out of a profiled function returns to the wrapper).
 */
static int frame_dead(const struct za_frame *fr, uint64_t sp, uint64_t ret)
{
	return fr->sp < sp || (fr->sp == sp && ret != (uint64_t)za_return_point);
}

static int may_be_live(const struct za_frame *fr);

static uint32_t drop_dead_frames(struct za_thread *t, uint64_t sp, uint64_t ret)
{
	uint32_t d = t->depth, was = d;
	for (; d && frame_dead(&t->frames[d - 1], sp, ret); d--)
		if (!may_be_live(&t->frames[d - 1]))
			t->frames[d - 1].sp = 0; /* closed (see za_exit) */
	if (d != was) {
		t->depth = d;
		/* the core's frames of those calls, by the same rule */
		zrt_unwound(&t->core, ret == (uint64_t)za_return_point ? sp : sp + 1);
	}
	return d;
}

/*
 * The rule above also drops the frames of code that a handler running on
 * an alternate signal stack (higher up) interrupted; their calls will still
 * return.  On x86-64 such a frame's return slot holds the wrapper's return
 * point, and its record is not reused.  (Slots being filled have sp ~0.)
 */
static int may_be_live(const struct za_frame *fr)
{
	if (fr->sp == UINT64_MAX)
		return 1;
#if defined(__x86_64__)
	return fr->sp && *(const uint64_t *)fr->sp == (uint64_t)za_return_point;
#else
	return 0;
#endif
}

/* ---- the per-call path ------------------------------------------------- */

/*
 * The frame a call at sp with return address ret takes when the top one is
 * dead or the next one still live (za_enter's rare case): above the live
 * ones, ZA_MAX_FRAMES when none is free.
 */
static __attribute__((noinline)) uint32_t free_frame(struct za_thread *t, uint32_t d, uint64_t sp,
						     uint64_t ret)
{
	if (d && frame_dead(&t->frames[d - 1], sp, ret))
		d = drop_dead_frames(t, sp, ret);
	while (d < ZA_MAX_FRAMES && may_be_live(&t->frames[d]))
		d++;
	return d;
}

/* No frame free: the call is counted, not timed (what the core's own stack overflow reports). */
static __attribute__((noinline)) void lost_frame(struct za_thread *t,
						 const struct za_target *target, uint64_t sp,
						 uint64_t ret)
{
	t->lost++;
	if (t->core.state == ZRT_THREAD_ON)
		t->core.info->lost_frames++;
	zrt_count_call(&t->core, target->key, za_site(target, ret), sp, ret);
}

/* The timeline's entry event, and with exact time the call's clock read before it. */
static __attribute__((noinline)) void enter_timeline(struct za_thread *t, struct zr_frame *core)
{
	uint64_t now = zrt.timed ? (core->enter_ticks = zl_clock_enter()) : zl_clock();
	zrt_timeline_enter(&t->core, core, now);
}

struct za_frame *za_enter(const struct za_target *target, uint64_t sp, uint64_t ret,
			  uint64_t saved)
{
	struct za_thread *t = ready(sp);
	if (!t)
		return NULL;
	uint32_t d = t->depth;
	if (zrt_unlikely((d && frame_dead(&t->frames[d - 1], sp, ret)) || d >= ZA_MAX_FRAMES ||
			 may_be_live(&t->frames[d])))
		d = free_frame(t, d, sp, ret);
	if (zrt_unlikely(d >= ZA_MAX_FRAMES)) {
		lost_frame(t, target, sp, ret);
		return NULL;
	}
	/*
	 * Take the frame before filling it: a signal handler's calls between
	 * the two use the frames above it.
	 */
	struct za_frame *fr = &t->frames[d];
	fr->sp = UINT64_MAX;
	zrt_signal_fence();
	t->depth = d + 1;
	zrt_signal_fence();
	fr->ret = ret;
	fr->saved = saved;
	fr->real = target->real;
	fr->target = target;
	fr->core = NULL;
	if (target->kind & ZA_HIDDEN)
		; /* watched only */
	else if (zrt_likely(zrt.stacked))
		fr->core = zrt_enter(&t->core, target->key, za_site(target, ret), sp, ret);
	else /* fork when only counting: every call stays a root call (za_fast) */
		zrt_count_call(&t->core, target->key, za_site(target, ret), sp, ret);
	fr->sp = sp;
	/* the clock last: as little of the probe as possible inside the call's time */
	if (fr->core && zrt.clocked) {
		if (zrt_likely(!zrt.timeline))
			fr->core->enter_ticks = zl_clock_enter();
		else
			enter_timeline(t, fr->core);
	}
	return fr;
}

/*
 * In a forked child, from the program's libc (its fork handlers) or from
 * the wrapper of fork: moves the child to a file of its own, once.  A fork
 * made inside a library, never through a PLT (daemon()), is seen only by
 * the handler.
 */
/* In the parent, from the program's libc just before a fork: the child's frames. */
void za_fork_prepare(void)
{
	zrt_fork_prepare(za_me());
}

void za_forked_child(void)
{
	/* a child of a process not recorded: counted (zl_process_forked, once) */
	if (!zrt.hdr) {
		zl_process_forked(&za_self.core);
		return;
	}
	/* sealed, the pid is the parent's (zl_pid), and only a child calls this: not recorded */
	if (!zl_sealed && zl_own_image(zrt.hdr))
		return;
	/* forked by a task on a shared TLS: its state is the child's thread's */
	zl_process_forked(&zl_tasks_forked()->core);
	drop_fast_table();
}

struct za_ret za_exit(struct za_frame *fr, uint64_t result)
{
	uint64_t now = zrt.timed ? zl_clock_exit() : 0;
	struct za_ret r = {fr->ret, fr->saved};
	/* a forked child must not write into its parent's file */
	if (zrt_unlikely(fr->target->kind & ZA_FORK) && result == 0)
		za_forked_child();
	struct za_thread *t = &za_self;
	if (zrt_unlikely(t->core.state == ZRT_THREAD_SHARED)) {
		t = frame_owner(fr);
		if (!t)
			return r;
	}
	if (fr->core && t->core.state == ZRT_THREAD_ON) {
		if (zrt_unlikely(zrt.timeline))
			zrt_timeline_exit(&t->core, fr->target->key, fr->sp,
					  zrt.timed ? now : zl_clock());
		else
			zrt_exit(&t->core, fr->target->key, fr->sp, now);
	}
	/*
	 * Closed: its return slot may still hold the return point (a tail call
	 * out of a profiled function shares its caller's slot), and a stale
	 * frame that looked live would be stepped over by every later entry.
	 */
	fr->sp = 0;
	/*
	 * What is above this frame was abandoned (a longjmp out of a callback):
	 * closed too, but for calls still waiting to return on another stack
	 * (their return slots still hold the return point: a coroutine that a
	 * library call, Ruby's coroutine_transfer, switched away from), which
	 * later entries step over; an abandoned one whose slot still holds it
	 * is taken again once its slot is overwritten.
	 */
	uint32_t d = (uint32_t)(fr - t->frames);
	for (uint32_t k = t->depth; k > d + 1; k--)
		if (!may_be_live(&t->frames[k - 1]))
			t->frames[k - 1].sp = 0;
	t->depth = d;
	return r;
}

/* The calling thread's fast table, mapped on its first counted call; NULL if none. */
static struct za_fast *fast_table(void)
{
	if (!za_fast) {
		if (zl_sealed)
			return NULL;
		long m = zl_syscall6(SYS_mmap, 0, ZA_MAX_FAST * sizeof(struct za_fast),
				     3 /* PROT_READ | PROT_WRITE */,
				     0x22 /* MAP_PRIVATE | MAP_ANONYMOUS */, -1, 0);
		if (m < 0 && m > -4096)
			return NULL;
		za_fast = (struct za_fast *)m;
	}
	return za_fast;
}

/* In a forked child: the table points into the parent's file. */
static void drop_fast_table(void)
{
	if (za_fast && !zl_sealed)
		zl_syscall6(SYS_munmap, (long)za_fast, ZA_MAX_FAST * sizeof(struct za_fast), 0, 0,
			    0, 0);
	za_fast = NULL;
}

/*
 * Points the wrapper's counters of target on this thread at edge e, just
 * counted by the core: the root edge from its binding object's module.
 */
static void start_fast(struct za_thread *t, const struct za_target *target, uint32_t e)
{
	/* on a shared TLS every task counts through za_count (za_tasks_sharing) */
	if (za_self.core.state == ZRT_THREAD_SHARED)
		return;
	struct za_fast *table = fast_table();
	if (!table || e == ZR_NONE || t->fast_busy)
		return;
	struct zr_edge *edge = &t->core.edges[e];
	if (edge->caller == ZR_NONE || !(t->core.funcs[edge->caller].flags & ZR_FUNC_MODULE) ||
	    t->core.root_func != edge->caller)
		return;
	struct za_fast *f = (struct za_fast *)((uint8_t *)table + target->fast);
	if (f->func_calls && f->edge_calls == &edge->calls)
		return;
	t->fast_busy = 1;
	f->func_calls = NULL; /* the wrapper leaves the entry alone meanwhile */
	zrt_signal_fence();
	f->real = target->real;
	f->target = (uintptr_t)target;
	f->edge_calls = &edge->calls;
	zrt_signal_fence();
	f->func_calls = &t->core.funcs[edge->callee].calls;
	zrt_signal_fence();
	t->fast_busy = 0;
}

void za_count(const struct za_target *target, uint64_t sp, uint64_t ret, uint64_t arg0)
{
	struct za_thread *t = ready(sp);
	if (!t)
		return;
	/*
	 * Calls left by a longjmp are left here too, as at a wrapped call's
	 * entry: a setjmp after a longjmp out of a library call is made from the
	 * same place, not from inside it.
	 */
	uint32_t d = t->depth;
	if (d && d <= ZA_MAX_FRAMES && frame_dead(&t->frames[d - 1], sp, ret))
		drop_dead_frames(t, sp, ret);
	if (!(target->kind & ZA_HIDDEN)) {
		uint32_t e = zrt_count_call(&t->core, target->key, za_site(target, ret), sp, ret);
		if (target->wrapper == (uintptr_t)za_wrap_fast)
			start_fast(t, target, e);
	}
	if (target->kind & ZA_EXIT)
		zl_process_end(1, (int)arg0);
}
