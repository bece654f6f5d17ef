/*
 * tasks.h - tasks that run on another thread's thread-local storage: a
 * clone with CLONE_VM and without CLONE_SETTLS (green threads, sandboxes),
 * and a vfork child.  zl_self, found through the thread pointer, is then
 * the same for all of them; each gets a struct zrt_thread of its own
 * (tasks.c), found by its stack pointer while the owner's zl_self is
 * ZRT_THREAD_SHARED.  Threads that never share their TLS never come here:
 * the probes' fast paths test zl_self's state as they always did.
 */
#ifndef ZOND_TASKS_H
#define ZOND_TASKS_H

#include "instrument.h"

/* What asks zl_shared_task: an entry probe (a call that is not kept is
   counted, lost_shared_tls_calls), an exit probe, anything else. */
enum { ZL_TASK_ENTER, ZL_TASK_EXIT, ZL_TASK_OTHER };

/*
 * zl_self.state == ZRT_THREAD_SHARED: the struct of the task whose code runs
 * at stack address sp; NULL when its calls are not recorded (more tasks
 * than zond keeps apart: counted).  A probe of the owner finding no other
 * task left gives the owner its zl_self back (ENTER, EXIT).
 */
struct zrt_thread *zl_shared_task(uint64_t sp, int how);

/* A struct whose state is ZRT_THREAD_OFF: where a task with no struct of its own writes. */
extern struct zrt_thread zl_no_task;

/* The calling task's struct (not for the probes' fast paths). */
static inline struct zrt_thread *zl_task_at(uint64_t sp)
{
	if (__builtin_expect(zl_self.state != ZRT_THREAD_SHARED, 1))
		return &zl_self;
	struct zrt_thread *t = zl_shared_task(sp, ZL_TASK_OTHER);
	return t ? t : &zl_no_task;
}
#define zl_me() zl_task_at((uint64_t)(uintptr_t)__builtin_frame_address(0))

/* The struct of the thread that owns zl_self (the one its sampler samples). */
struct zrt_thread *zl_owner(void);

/*
 * A clone about to start a task on the caller's TLS whose stack lies below
 * hi (its top), the caller's stack pointer at caller_sp: its entry, to be
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

/* vfork (clone.c): in the child (rc 0), and in the parent when it goes on (rc != 0). */
void zl_task_vforked(long rc);

/* In a forked child: the forking task's struct moved into zl_self, the
   tasks of the parent forgotten; zl_self's address. */
struct zrt_thread *zl_tasks_forked(void);

#endif
