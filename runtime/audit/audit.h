/*
 * audit.h - the library-call collector's internal interface: what the
 * rtld-audit side (audit.c), the redirector pool (redirect.c), the probes
 * (probes.c) and the assembly wrapper (arch/<arch>/wrapper.S) share.
 *
 * How a call is seen.  la_symbind64() hands the dynamic loader, in place of
 * a library function's address, the address of a redirector: a few
 * instructions, one per bound (function, flavour), that load the address of
 * their struct za_target into a scratch register (x86-64 r11, aarch64 x17)
 * and jump to the target's wrapper.  Two wrappers exist:
 *
 *   za_wrap_timed   keeps every argument register, pops the caller's return
 *                   address into a per-thread frame (struct za_frame), calls
 *                   the real function so that it sees its stack exactly as
 *                   the caller left it, then pushes the return address back
 *                   and returns.  Between the two it calls za_enter() and
 *                   za_exit(), which count and time the call in the core's
 *                   per-thread tables (runtime/core).
 *   za_wrap_count   calls za_count() with the argument registers kept and
 *                   jumps to the real function: the caller's frame is never
 *                   touched.  For functions that look at their return
 *                   address or never return (setjmp, dlopen, exit...).
 *   za_wrap_fast    when only counts are kept: adds 1 to the thread's
 *                   counters of the function (struct za_fast) in a few
 *                   instructions and jumps to it; a thread's first call of
 *                   it goes on to za_wrap_count, which sets them up.
 *
 * The probes are C built with -mgeneral-regs-only and call no libc function
 * on the per-call path, so vector, x87 and flag state stay the program's.
 *
 * The wrapper finds the frame again after the call through a callee-saved
 * register (x86-64 rbx, aarch64 x19) whose own value is kept in the frame;
 * its call frame information says so, so that C++ exceptions, pthread_exit
 * and cancellation unwind through a profiled call.  Frames abandoned that
 * way (or by longjmp) are dropped when a call from higher up the stack is
 * seen.
 */
#ifndef ZOND_AUDIT_H
#define ZOND_AUDIT_H

#include <stdint.h>

#include "../core/core.h"

/* One bound function, as its redirectors see it.  Offsets are used by wrapper.S. */
struct za_target {
	uint64_t wrapper; /* +0: za_wrap_timed, za_wrap_count or za_wrap_fast */
	uint64_t real;    /* +8: the function's address */
	uint64_t key;     /* the address recorded for it: real + alias (and for calibration) */
	uint32_t name;    /* string offset of its symbol name in the raw file */
	uint32_t kind;    /* enum za_kind */
	uint64_t code;    /* its redirector */
	uint64_t fast;    /* +40: byte offset of its struct za_fast in a thread's table,
			     ZA_NO_FAST when it has none */
	uint32_t alias;   /* how many other names were bound at real before this one */
	uint32_t binder;  /* the object whose PLT slot was bound to it (its serial number,
			     audit.c), 0 for none known: a dlsym pointer, calibration */
	uint64_t lo, len; /* that object's range, [lo, lo + len); len 0 for none known */
};

/*
 * The site a call of target returning to ret is filed under: a root call's
 * caller is the module of its site (the core's zrt_root_caller).  A call
 * through an object's PLT slot is made by that object's code, also when its
 * return address lies elsewhere: a tail call (a library function ending in
 * `jmp other@plt`) returns to its own caller, maybe in the program, which
 * never made that call.  Such a call is filed under a site inside the
 * object (its first byte + 1: no call instruction of its own), so that the
 * object is its calling module, in every time mode alike.
 */
static inline uint64_t za_site(const struct za_target *target, uint64_t ret)
{
	if (__builtin_expect(ret - target->lo >= target->len, 0) && target->len)
		return target->lo + 1;
	return ret;
}

/*
 * Counting only (no times), every call is a root call: a thread counts a
 * function's calls in its zr_func and in the edge from the calling module
 * (the core keeps root edges per calling module).  A target bound through
 * an object's PLT is called by that object's code alone (za_site), so its
 * calls on a thread always go to the same two counters.  Each thread has a
 * table of these, indexed by target, that points at both once the core
 * has counted the thread's first call, so that the wrapper counts the
 * later ones without the core.  An unloaded object's targets are never
 * called again, and one loaded later (at the same addresses or not) has
 * targets of its own.  Targets with no binding object (dlsym pointers)
 * have no entry: za_wrap_count.  Only the thread writes them, so plain
 * increments are exact; a signal handler's calls land between two whole
 * increments.
 */
struct za_fast {
	uint64_t *func_calls; /* +0: NULL until the thread's first call of it (and while
				 the entry is being changed) */
	uint64_t *edge_calls; /* +8 */
	uint64_t real;        /* +16: the function (x86-64 jumps through it) */
	uint64_t target;      /* +24: its struct za_target (for a debugger) */
	uint64_t pad[4];
};

#define ZA_MAX_FAST 65536u
#define ZA_NO_FAST UINT64_MAX

/* The calling thread's table (ZA_MAX_FAST entries), NULL until its first counted call. */
extern __thread struct za_fast *za_fast __attribute__((tls_model("initial-exec")));

enum za_kind {
	ZA_PLAIN = 0,   /* nothing special */
	ZA_FORK = 1,    /* fork, _Fork: the child gets its own raw file on return */
	ZA_EXIT = 2,    /* exit, _exit, _Exit: the process ends with status arg 0 */
	ZA_HIDDEN = 16, /* flag: watched for the above, not profiled (filtered out) */
};

/* One call in progress on a thread: what the wrapper needs to return to its caller. */
struct za_frame {
	uint64_t ret;                   /* +0: the caller's return address */
	uint64_t saved;                 /* +8: the caller's rbx / x19 */
	uint64_t real;                  /* +16: the function called */
	uint64_t sp;                    /* address of the return slot (x86-64) or sp */
	const struct za_target *target;
	struct zr_frame *core;          /* the core's frame, NULL when not timed */
};

/* A thread's state: the core's view of its slot and its stack of calls in progress. */
struct za_thread {
	struct zrt_thread core;
	struct za_frame *frames; /* ZA_MAX_FRAMES, mapped on the thread's first call */
	uint32_t depth;
	uint32_t lost;           /* calls passed through unseen: no frame free */
	uint32_t fast_busy;      /* changing a fast entry (a signal handler leaves it be) */
};

#define ZA_MAX_FRAMES 4096

extern __thread struct za_thread za_self __attribute__((tls_model("initial-exec")));

/*
 * Tasks that run on their creator's thread pointer (clone with CLONE_VM and
 * without CLONE_SETTLS: guards.c's clone): each gets a struct za_thread of
 * its own, found by its stack pointer while the creator's za_self is
 * ZRT_THREAD_SHARED (runtime/linux/tasks.h, tasks.c built here with these).
 * vfork children are not kept apart (vfork is counted, never wrapped).
 */
#define ZL_TASK_STATE struct za_thread
#define ZL_TASK_SELF za_self
#define ZL_TASK_CORE(s) (&(s)->core)
#define ZL_TASK_START() ((void)0)
#define ZL_TASK_SHARING(on) za_tasks_sharing(on)
#define ZL_TASK_END(s) za_task_end(s)
/* The creator's TLS shared (1: its fast counters put aside), or its own again (0). */
void za_tasks_sharing(int on);
/* A task's state ends: its slot ended, its frames unmapped. */
void za_task_end(struct za_thread *t);

#include "../linux/tasks.h"

/* The core's view of the calling task's slot (not for the per-call path). */
#define za_me() (&zl_me()->core)

/* ---- the wrapper (wrapper.S) and its probes (probes.c) ------------------ */

void za_wrap_timed(void);
/* x86-64: za_wrap_timed overwriting the return slot (ZOND_WRAPPER=overwrite, for measurement) */
void za_wrap_timed_ow(void);
void za_wrap_count(void);
void za_wrap_fast(void);
/* The address the wrapper's call of the real function returns to. */
extern const char za_return_point[];

/*
 * Entry of a timed call: target, the address of the slot holding the
 * caller's return address (x86-64; on aarch64 the caller's sp), the
 * return address and the caller's value of the register the wrapper uses.
 * The frame to keep, or NULL: pass the call through unseen.
 */
struct za_frame *za_enter(const struct za_target *target, uint64_t sp, uint64_t ret,
			  uint64_t saved);

/* Exit of a timed call: the caller's return address; *saved gets its register back. */
struct za_ret {
	uint64_t ret, saved;
};
struct za_ret za_exit(struct za_frame *fr, uint64_t result);

/* A call passed straight through: counted, no frame.  arg0: its first argument. */
void za_count(const struct za_target *target, uint64_t sp, uint64_t ret, uint64_t arg0);

/* ---- the rest of the runtime (audit.c, redirect.c) --------------------- */

/*
 * A zeroed target that lives as long as the process (its fast offset set),
 * and in *redirector the address of the code that jumps to its wrapper;
 * NULL when memory ran out.  Fill the target before handing out the
 * redirector.
 */
struct za_target *za_new_target(uint64_t *redirector);

/* The program's pthread_setspecific and its key whose destructor is za_thread_gone. */
extern int (*za_setspecific)(unsigned int key, const void *value);
extern unsigned int za_thread_key;
void za_thread_gone(void *arg);

/*
 * guards.c: the guard a binding of name to real gets instead (the program
 * behaves as without zond: runtime/linux/guard.h), 0 for none; and at
 * la_preinit, lookup(name) in the program's scope for the real functions
 * the guards call that no binding gave.
 */
uint64_t za_guard_of(const char *name, uint64_t real);
void za_guard_find(void *(*lookup)(const char *name));
/*
 * The guard of an exec or posix_spawn binding in a process that records
 * nothing (a forked child that could not make its raw file): the images it
 * starts are counted as not recorded (linux.h zl_count_lost_image); 0 for
 * other names.
 */
uint64_t za_guard_of_exec(const char *name, uint64_t real);

/* In a forked child (the program's fork handler, the fork wrapper): its own file, once. */
void za_forked_child(void);
/* Its prepare handler, in the parent just before the fork (core.h zrt_fork_prepare). */
void za_fork_prepare(void);

/* Cold paths the probes need: a thread's first call. */
int za_thread_start(struct za_thread *t);
/* Maps t's frames if it has none yet: 1 when it has them. */
int za_thread_frames(struct za_thread *t);

#endif
