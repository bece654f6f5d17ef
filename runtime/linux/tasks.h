/*
 * tasks.h - tasks that run on another thread's thread-local storage: a
 * clone with CLONE_VM and without CLONE_SETTLS (green threads, sandboxes),
 * and a vfork child.  The collector's thread state (libzond's zl_self,
 * libzond-audit's za_self), found through the thread pointer, is then the
 * same for all of them; each gets a state of its own (tasks.c), found by
 * its stack pointer while the owner's is ZRT_THREAD_SHARED.  Threads that
 * never share their TLS never come here: the probes' fast paths test their
 * state as they always did.
 */
#ifndef ZOND_TASKS_H
#define ZOND_TASKS_H

#include "linux.h"

/*
 * A clone call, real(fn, stack, flags, arg, ptid, tls, ctid) as glibc's
 * clone takes them, made by a caller whose stack pointer before the call
 * was caller_sp (the callee's __builtin_dwarf_cfa: above the return
 * address, where the caller's next calls push theirs below): a
 * child that will run on the caller's TLS (CLONE_VM without CLONE_SETTLS)
 * is started through zl_task_run with a struct of its own; other clones
 * pass through untouched.  The new task's signal mask is its creator's in
 * the program's view (guard.h).  What real returns (errno is real's).
 * guard.c: both collectors' (libzond's clone, libzond-audit's guard).
 */
typedef int zl_clone_fn(int (*)(void *), void *, int, void *, pid_t *, void *, pid_t *);
int zl_guard_clone(zl_clone_fn *real, int (*fn)(void *), void *stack, int flags, void *arg,
		   pid_t *ptid, void *tls, pid_t *ctid, uint64_t caller_sp);

/*
 * A clone about to start a task on the caller's TLS whose stack lies below
 * hi (its top), the caller's stack pointer (as zl_guard_clone's) at caller_sp: its entry, to be
 * passed to zl_task_run in the child; NULL when it is not kept apart (the
 * TLS records nothing, or no entry is left: its calls are then counted as
 * lost, and the caller's with them).
 */
struct zl_task;
struct zl_task *zl_task_new(uint64_t hi, uint64_t caller_sp, int (*fn)(void *), void *arg);
/* In the child: runs the task's function, then ends its struct. */
int zl_task_run(void *task);
/* In the caller: the clone failed (or, CLONE_VFORK, the child is done): the
   entry gone, the child's frames closed.  gen: zl_task_gen's at the clone. */
void zl_task_done(struct zl_task *k, uint32_t gen);
uint32_t zl_task_gen(const struct zl_task *k);

/*
 * The rest needs the collector's per-thread state, which the collector's
 * header names before it includes this one (instrument.h: libzond's
 * struct zrt_thread zl_self; audit.h: libzond-audit's struct za_thread
 * za_self; tasks.c is built into each with its own):
 *
 *   ZL_TASK_STATE      the type of a thread's (and so a task's) state, whose
 *                      struct zrt_thread comes first
 *   ZL_TASK_SELF       the thread-local variable holding it
 *   ZL_TASK_CORE(s)    the struct zrt_thread of the state at s
 *   ZL_TASK_START()    starts the runtime if nobody has yet
 *   ZL_TASK_SHARING(on) the owner's TLS is shared from now on (1) or its own
 *                      again (0): what else of it the collector must put aside
 *   ZL_TASK_END(s)     a task's state at s ends (its frames closed)
 *   ZL_TASK_VFORK      defined: vfork children get a state of their own too
 */
#ifdef ZL_TASK_STATE

/* What asks zl_shared_task: an entry probe (a call that is not kept is
   counted, lost_shared_tls_calls), an exit probe, anything else; FRAME: the
   exit of a call whose frame is open, the struct of the task whose range
   holds sp, else the owner's even while calls are lost (never NULL, never
   taking the owner's state back). */
enum { ZL_TASK_ENTER, ZL_TASK_EXIT, ZL_TASK_OTHER, ZL_TASK_FRAME };

/*
 * zl_self.state == ZRT_THREAD_SHARED: the struct of the task whose code runs
 * at stack address sp; NULL when its calls are not recorded (more tasks
 * than zond keeps apart: counted).  A probe of the owner finding no other
 * task left gives the owner its zl_self back (ENTER, EXIT).
 */
ZL_TASK_STATE *zl_shared_task(uint64_t sp, int how);

/* A struct whose state is ZRT_THREAD_OFF: where a task with no struct of its own writes. */
extern ZL_TASK_STATE zl_no_task;

/* The calling task's struct (not for the probes' fast paths). */
static inline ZL_TASK_STATE *zl_task_at(uint64_t sp)
{
	if (__builtin_expect(ZL_TASK_CORE(&ZL_TASK_SELF)->state != ZRT_THREAD_SHARED, 1))
		return &ZL_TASK_SELF;
	ZL_TASK_STATE *t = zl_shared_task(sp, ZL_TASK_OTHER);
	return t ? t : &zl_no_task;
}
#define zl_me() zl_task_at((uint64_t)(uintptr_t)__builtin_frame_address(0))

/* The struct of the thread that owns zl_self (the one its sampler samples). */
struct zrt_thread *zl_owner(void);

#ifdef ZL_TASK_VFORK
/* vfork (clone.c): in the child (rc 0), and in the parent when it goes on (rc != 0). */
void zl_task_vforked(long rc);
#endif

/* In a forked child: the forking task's struct moved into zl_self, the
   tasks of the parent forgotten; ZL_TASK_SELF's address. */
ZL_TASK_STATE *zl_tasks_forked(void);

#endif /* ZL_TASK_STATE */

#endif
