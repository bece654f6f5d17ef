/*
 * tasks.c - tasks sharing a thread's thread-local storage (tasks.h).
 *
 * A clone with CLONE_VM and without CLONE_SETTLS starts a task that runs
 * with its creator's thread pointer, so on its zl_self, at the same time:
 * both would push and pop one shadow stack, each returning to the other's
 * frames (QA s11 F5: calls lost, invented stacks, a full function table
 * blamed).  The creator's thread gets a group: zl_self turns
 * ZRT_THREAD_SHARED, its own struct moves into the group (parent), and each
 * such task gets an entry with a struct of its own and the range of its
 * stack, [lo, hi): hi the stack's top the clone was given, lo the bottom of
 * the mapping that holds it (/proc/self/maps), or, where the creator's own
 * stack is in that mapping too (a child's stack in one of its frames), just
 * above the creator's frames below hi.  A probe that finds zl_self shared
 * takes the struct of the entry whose range holds its stack pointer (the
 * smallest hi: stacks of one heap mapping), else the owner's.  A task is
 * recorded as a thread of its own (its tid, its own root), its calls timed
 * by the clock with exact time and not sampled (the samplers are per
 * thread: the owner's).  Its end, its function's return, ends its struct;
 * the owner's first probe that finds no other task left takes its zl_self
 * back, and probes it on the fast path again.
 *
 * Nothing here touches errno, the thread pointer or the signal mask on the
 * task's side: errno is the owner's variable, read and written by the owner
 * at the same time.  Only system calls of the port's (raw, no errno).
 *
 * Written for libzond's state (zl_self, a struct zrt_thread) and built
 * into libzond-audit as well (runtime/audit/tasks.c) with its own (za_self,
 * a struct za_thread): the collector's header names it (tasks.h,
 * ZL_TASK_STATE ...); zl_self above stands for either.
 *
 * A vfork child runs on its parent's stack and TLS while the parent waits:
 * zl_self is swapped for a fresh struct in the child (zl_task_vforked) and
 * swapped back when the parent goes on, the child's frames closed then.
 */
#define _GNU_SOURCE
/* libzond's state, unless the collector that includes this file named its own (tasks.h) */
#ifndef ZL_TASK_STATE
#include "instrument.h"
#endif
#include "tasks.h"

#include <fcntl.h>
#include <sys/syscall.h>

enum { GROUPS = 8, TASKS = 64 };
enum { TASK_FREE, TASK_CLAIMED, TASK_LIVE };

struct zl_task {
	uint32_t state; /* TASK_* */
	uint32_t gen;   /* claims of this entry so far */
	uint64_t lo, hi;
	int (*fn)(void *);
	void *arg;
	ZL_TASK_STATE t;
};

struct group {
	uint32_t used;
	/* an entry could not be had: calls outside every entry's range are
	   not recorded from now on (counted), the owner's included */
	uint32_t lost;
	uint32_t top; /* entries ever claimed: [0, top) */
	ZL_TASK_STATE parent;
	struct zl_task tasks[TASKS];
};

static struct group groups[GROUPS];
/* a thread whose TLS is shared and that found no group: nothing recorded on it */
static struct group no_group = {.used = 1, .lost = 1};
ZL_TASK_STATE zl_no_task;
#define SELF (&ZL_TASK_SELF)
#define CORE(s) ZL_TASK_CORE(s)

/* zl_no_task OFF (zero is NEW) before any task can be started */
__attribute__((constructor)) static void no_task_off(void)
{
	CORE(&zl_no_task)->state = ZRT_THREAD_OFF;
}
/* the state's own word comes first: the rest of it is copied before it */
_Static_assert(__builtin_offsetof(struct zrt_thread, state) == 0, "state first");


/* The group of the calling thread's TLS (NULL: not shared). */
static __thread struct group *my_group __attribute__((tls_model("initial-exec")));

/* ---- finding a task's struct -------------------------------------------- */

static void count_lost(void)
{
	struct zr_header *h = zrt.hdr;
	if (h)
		__atomic_fetch_add(&h->lost_shared_tls_calls, 1, __ATOMIC_RELAXED);
}

/* The owner, alone again: its struct back in zl_self (a probe of its own, not busy). */
static ZL_TASK_STATE *unshare(struct group *g)
{
	ZL_TASK_STATE *p = &g->parent;
	uint32_t state = CORE(p)->state;
	zrt_take(CORE(p), ZRT_HERE());
	/* everything but the state first: a signal handler (the sampler) reading
	   the state takes the group's struct until the state says otherwise */
	__builtin_memcpy((char *)SELF + sizeof state, (char *)p + sizeof state,
			 sizeof *p - sizeof state);
	zrt_signal_fence();
	__atomic_store_n(&CORE(SELF)->state, state, __ATOMIC_RELAXED);
	zrt_signal_fence();
	my_group = NULL;
	ZL_TASK_SHARING(0);
	__atomic_store_n(&g->used, 0, __ATOMIC_RELEASE);
	zrt_unbusy(CORE(SELF));
	return SELF;
}

ZL_TASK_STATE *zl_shared_task(uint64_t sp, int how)
{
	struct group *g = my_group;
	if (!g)
		return &zl_no_task; /* not reached: shared without a group */
	struct zl_task *best = NULL;
	int others = 0;
	uint32_t top = __atomic_load_n(&g->top, __ATOMIC_ACQUIRE);
	for (uint32_t i = 0; i < top; i++) {
		struct zl_task *k = &g->tasks[i];
		uint32_t s = __atomic_load_n(&k->state, __ATOMIC_ACQUIRE);
		if (s == TASK_FREE)
			continue;
		others = 1;
		if (s == TASK_LIVE && sp >= k->lo && sp < k->hi && (!best || k->hi < best->hi))
			best = k;
	}
	if (best)
		return &best->t;
	if (__atomic_load_n(&g->lost, __ATOMIC_RELAXED)) {
		if (how == ZL_TASK_ENTER)
			count_lost();
		/* the owner's frames opened before: in its struct (no group: still its own) */
		if (how == ZL_TASK_FRAME)
			return g == &no_group ? SELF : &g->parent;
		return NULL;
	}
	if (!others && how != ZL_TASK_OTHER && !CORE(&g->parent)->busy)
		return unshare(g);
	return &g->parent;
}

struct zrt_thread *zl_owner(void)
{
	if (__builtin_expect(CORE(SELF)->state != ZRT_THREAD_SHARED, 1))
		return CORE(SELF);
	struct group *g = my_group;
	return g && g != &no_group ? CORE(&g->parent) : CORE(&zl_no_task);
}

/* ---- new tasks ------------------------------------------------------------ */

static int hex_digit(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* The mapping holding addr, from /proc/self/maps: 0, or -1 (not found, not readable). */
static int mapping_of(uint64_t addr, uint64_t *lo, uint64_t *hi)
{
	if (zl_sealed)
		return -1;
	long fd = zl_syscall6(SYS_openat, AT_FDCWD, (long)"/proc/self/maps", O_RDONLY | O_CLOEXEC,
			      0, 0, 0);
	if (fd < 0)
		return -1;
	char buf[4096];
	/* per line: the start, then the end, then the rest skipped */
	int field = 0, found = -1;
	uint64_t v[2] = {0, 0};
	for (;;) {
		long n = zl_syscall6(SYS_read, fd, (long)buf, sizeof buf, 0, 0, 0);
		if (n <= 0)
			break;
		for (long i = 0; i < n && found < 0; i++) {
			char c = buf[i];
			if (c == '\n') {
				field = 0;
				v[0] = v[1] = 0;
			} else if (field < 2 && hex_digit(c) >= 0) {
				v[field] = v[field] << 4 | (uint64_t)hex_digit(c);
			} else if (field < 2) {
				if (++field == 2 && addr >= v[0] && addr < v[1]) {
					*lo = v[0];
					*hi = v[1];
					found = 0;
				}
			}
		}
		if (found == 0)
			break;
	}
	zl_syscall6(SYS_close, fd, 0, 0, 0, 0, 0);
	return found;
}

/*
 * Room above the clone's caller's stack pointer that its own later calls
 * may still use: the stack arguments of the clone call itself (glibc's
 * clone takes its seventh on the stack), its calls made without them.
 */
enum { CALLER_ROOM = 64 };

/*
 * The bottom of the range of a new task's stack, whose top is hi, made by
 * caller (its stack pointer before the call of clone: caller_sp): the
 * mapping's, unless the caller's own stack is in it; then above the
 * caller's stack pointer (and CALLER_ROOM) and its frames below hi, the
 * stack being an array in one of the caller's frames, everything below it
 * the caller's.
 */
static uint64_t stack_floor(uint64_t hi, uint64_t caller_sp, const struct zrt_thread *caller)
{
	uint64_t mlo, mhi;
	if (mapping_of(hi - 1, &mlo, &mhi) == 0 && !(caller_sp >= mlo && caller_sp < mhi))
		return mlo;
	uint64_t lo = caller_sp < hi ? caller_sp + CALLER_ROOM : 0;
	if (lo > hi)
		lo = hi;
	if (caller->state == ZRT_THREAD_ON) {
		uint32_t d = caller->info->depth < zrt.max_depth ? caller->info->depth : zrt.max_depth;
		for (uint32_t k = 0; k < d; k++) {
			uint64_t sp = zrt_frame_sp(&caller->stack[k]);
			if (sp < hi && sp >= lo)
				lo = sp + 1;
		}
	}
	return lo;
}

/* The thread's state shared from now on: its struct moved into g. */
static void share(struct group *g)
{
	g->lost = 0;
	g->top = 0;
	zrt_take(CORE(SELF), ZRT_HERE());
	g->parent = *SELF;
	my_group = g;
	ZL_TASK_SHARING(1);
	zrt_signal_fence();
	__atomic_store_n(&CORE(SELF)->state, ZRT_THREAD_SHARED, __ATOMIC_RELAXED);
	zrt_signal_fence();
	zrt_unbusy(CORE(&g->parent));
}

struct zl_task *zl_task_new(uint64_t hi, uint64_t caller_sp, int (*fn)(void *), void *arg)
{
	ZL_TASK_START();
	if (!zrt.hdr)
		return NULL;
	struct group *g = my_group;
	if (!g) {
		uint32_t st = CORE(SELF)->state;
		if (st != ZRT_THREAD_ON && st != ZRT_THREAD_NEW)
			return NULL; /* nothing recorded on this TLS: neither task is */
		if (CORE(SELF)->busy) {
			/* a signal handler's clone inside a probe of the thread: that
			   probe goes on with zl_self, which cannot move */
			g = &no_group;
		} else {
			for (int i = 0; i < GROUPS && g == NULL; i++) {
				uint32_t free = 0;
				if (__atomic_compare_exchange_n(&groups[i].used, &free, 1, 0,
								__ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
					g = &groups[i];
			}
		}
		if (!g || g == &no_group) {
			my_group = &no_group;
			ZL_TASK_SHARING(1);
			__atomic_store_n(&CORE(SELF)->state, ZRT_THREAD_SHARED, __ATOMIC_RELEASE);
			return NULL;
		}
		share(g);
	}
	if (g == &no_group)
		return NULL;
	uint64_t lo = stack_floor(hi, caller_sp, CORE(zl_task_at(caller_sp)));
	struct zl_task *k = NULL;
	uint32_t i;
	for (i = 0; i < TASKS && !k; i++) {
		uint32_t free = TASK_FREE;
		if (__atomic_compare_exchange_n(&g->tasks[i].state, &free, TASK_CLAIMED, 0,
						__ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
			k = &g->tasks[i];
	}
	if (!k) {
		__atomic_store_n(&g->lost, 1, __ATOMIC_RELAXED);
		return NULL;
	}
	/* a task on the same stack before it is gone (its stack reused): it
	   ended without returning (an exec, a bare exit) */
	uint32_t top = __atomic_load_n(&g->top, __ATOMIC_ACQUIRE);
	for (uint32_t j = 0; j < top; j++) {
		struct zl_task *o = &g->tasks[j];
		if (o != k && __atomic_load_n(&o->state, __ATOMIC_ACQUIRE) == TASK_LIVE &&
		    o->hi == hi) {
			ZL_TASK_END(&o->t);
			__atomic_store_n(&o->state, TASK_FREE, __ATOMIC_RELEASE);
		}
	}
	while (top < i && !__atomic_compare_exchange_n(&g->top, &top, i, 0, __ATOMIC_RELEASE,
						       __ATOMIC_ACQUIRE))
		;
	k->lo = lo;
	k->hi = hi;
	k->fn = fn;
	k->arg = arg;
	__builtin_memset(&k->t, 0, sizeof k->t);
	CORE(&k->t)->state = ZRT_THREAD_NEW;
	CORE(&k->t)->shared_tls = 1;
	k->gen++;
	__atomic_store_n(&k->state, TASK_LIVE, __ATOMIC_RELEASE);
	return k;
}

uint32_t zl_task_gen(const struct zl_task *k)
{
	return k->gen;
}

static void task_end(struct zl_task *k)
{
	ZL_TASK_END(&k->t);
	__atomic_store_n(&k->state, TASK_FREE, __ATOMIC_RELEASE);
}

int zl_task_run(void *task)
{
	struct zl_task *k = task;
	int (*fn)(void *) = k->fn;
	void *arg = k->arg;
	int rc = fn(arg);
	task_end(k);
	return rc;
}

void zl_task_done(struct zl_task *k, uint32_t gen)
{
	if (__atomic_load_n(&k->state, __ATOMIC_ACQUIRE) == TASK_LIVE && k->gen == gen)
		task_end(k);
}

/* ---- vfork ---------------------------------------------------------------- */

#ifdef ZL_TASK_VFORK

/* The parent's struct while its vfork child runs on its TLS; vforked: 1 then. */
static __thread struct zrt_thread vfork_parent __attribute__((tls_model("initial-exec")));
static __thread int vforked __attribute__((tls_model("initial-exec")));

void zl_task_vforked(long rc)
{
	if (rc == 0) {
		/* the child (its parent waits): a struct of its own, attached on its
		   first call without the parent's per-thread services */
		uint32_t st = zl_self.state;
		if (vforked || zl_self.busy || (st != ZRT_THREAD_ON && st != ZRT_THREAD_NEW))
			return;
		vfork_parent = zl_self;
		__builtin_memset(&zl_self, 0, sizeof zl_self);
		zl_self.shared_tls = 1;
		vforked = 1;
		return;
	}
	if (!vforked)
		return;
	/* the parent again: the child exec'ed or ended; what it left open is closed now */
	zrt_thread_end(&zl_self);
	zl_self = vfork_parent;
	vforked = 0;
}
#endif

/* ---- fork ----------------------------------------------------------------- */

ZL_TASK_STATE *zl_tasks_forked(void)
{
	/* the forking task alone is in the child: the others' entries are stale */
	if (CORE(SELF)->state == ZRT_THREAD_SHARED) {
		ZL_TASK_STATE *t = zl_shared_task(ZRT_HERE(), ZL_TASK_OTHER);
		*SELF = t && t != &zl_no_task ? *t : zl_no_task;
		CORE(SELF)->shared_tls = 0;
		my_group = NULL;
		ZL_TASK_SHARING(0);
	}
	for (int i = 0; i < GROUPS; i++)
		if (__atomic_load_n(&groups[i].used, __ATOMIC_RELAXED)) {
			__builtin_memset(&groups[i], 0, sizeof groups[i]);
		}
	return SELF;
}
