/*
 * guard.h - what both in-process collectors do around the program's calls
 * that meet zond's own doings, so that the program behaves as without zond
 * (zond's trouble costs zond's data, never the program):
 *
 *   sigaction, signal          a disposition of its own for zond's sampling
 *                              signal stops sampling (sample.h)
 *   sigprocmask,               a mask never blocks the sampling signal while
 *   pthread_sigmask,           zond samples: nothing of zond's is pending for
 *   syscall(rt_sigprocmask),   sigwait, sigtimedwait, a signalfd or an exec;
 *   sigsetmask, sighold,       yet the program reads back the mask it set
 *   sigrelse
 *   pthread_create,            a new thread or process starts with the mask
 *   thrd_create, posix_spawn,  its creator has in the program's view
 *   system, popen
 *   the exec family            the image's end noted, the thread's sampler
 *                              ended and a sample signal still pending taken
 *   prctl(PR_SET_SECCOMP),     the runtime stops everything that makes system
 *   syscall(SYS_seccomp or     calls of its own before the call (linux.h,
 *   SYS_prctl)                 zl_seal), and takes that back if it failed
 *
 * libzond.so interposes those functions (signals.c, exec.c, seccomp.c);
 * libzond-audit binds the program's and its libraries' PLT calls of them to
 * guards of its own (runtime/audit/guards.c).  Both call these, with the
 * C library's real function.  Calls the C library makes internally, not
 * through a PLT, are not seen by either.
 *
 * Nothing here calls the C library but the real function handed in (the
 * audit collector's C library is not the program's), nor changes errno
 * but through it.
 */
#ifndef ZOND_GUARD_H
#define ZOND_GUARD_H

#include <signal.h>
#include <sys/types.h>
#include <stdarg.h>

#include "linux.h"

/*
 * sigaction(sig, act, ...) with act set (not a query), or signal(sig,
 * handler): handler is act's sa_handler (sa_sigaction shares its place).
 * 1 when the real call must change nothing (a query only): the program
 * puts back on zond's sampling signal the disposition it was shown.
 */
int zl_guard_disposition(int sig, const void *handler);
/*
 * After the real call: the old disposition it returned (*old, may be NULL;
 * signal's return value) as the program would see it without zond: never
 * zond's sampling handler.
 */
void zl_guard_disposition_seen(int sig, struct sigaction *old);
sighandler_t zl_guard_handler_seen(int sig, sighandler_t was);

/*
 * sigprocmask or pthread_sigmask(how, set, old) made through real: while
 * zond samples, the mask never blocks the sampling signal, yet reads back
 * (*old) with it as the program last set it on this thread.
 */
int zl_guard_sigmask(int (*real)(int, const sigset_t *, sigset_t *), int how,
		     const sigset_t *set, sigset_t *old);

/*
 * The BSD and System V forms, which glibc makes without its PLT: sigsetmask
 * sets the whole mask (the real-time signals unblocked), so the program's
 * view has the sampling signal unblocked after it; sighold and sigrelse of
 * the sampling signal change the view only.  real is the C library's.
 */
int zl_guard_sigsetmask(int (*real)(int), int mask);
int zl_guard_sighold(int (*real)(int), int sig, int hold);

/*
 * syscall(SYS_rt_sigprocmask, how, set, old, size) made through real (the
 * C library's syscall): the same for the system call's own form (the
 * kernel's sigset of size bytes).  Any other number: 0, nothing done.
 * 1 when it was one: *ret is its result (errno as the real call left it).
 */
typedef long zl_syscall_fn(long, long, long, long, long, long, long);
int zl_guard_sigmask_syscall(zl_syscall_fn *real, long nr, long how, long set, long old,
			     long size, long *ret);

/*
 * Around a call that starts a thread or a process inheriting the calling
 * thread's mask (pthread_create, thrd_create, posix_spawn without a mask of
 * its own, the shell of system and popen): when the program's view has the
 * sampling signal blocked, it is blocked for real for the call, so that the
 * new thread or process starts with the mask the program has (the new
 * thread's sampler takes it back into its view: sample.h).  begin returns
 * what end takes.  errno untouched.
 */
int zl_guard_inherit_begin(void);
void zl_guard_inherit_end(int blocked);

/*
 * After a sigaltstack(ss, ...) that succeeded on the thread whose probe
 * state is t: its signal stack told to the core (zrt_thread.alt_lo), so
 * that frames are compared by the stack they are on (core.h).
 */
void zl_guard_altstack(struct zrt_thread *t, const stack_t *ss);

/*
 * Just before a real exec call on the thread whose probe state is t, and
 * after it returned (it failed: ret is returned, errno kept).  note->secure
 * is the caller's (0 when the file is not known).
 */
void zl_guard_exec(struct zrt_thread *t, struct zl_exec_note *note);
int zl_guard_exec_failed(struct zrt_thread *t, const struct zl_exec_note *note, int ret);

typedef int zl_execv_fn(const char *, char *const[]);
typedef int zl_execve_fn(const char *, char *const[], char *const[]);

/*
 * execl, execlp, execle: the arguments after arg0 up to the NULL as a
 * vector on the stack (no malloc: a vfork child may call it), then
 * vector(file, argv), or with_envp: execve(file, argv, the pointer after
 * the NULL).  Those are the collector's guarded vector forms.
 */
int zl_exec_list(zl_execv_fn *vector, zl_execve_fn *execve, const char *file, const char *arg0,
		 int with_envp, va_list ap);

/*
 * The programs the program runs are recorded too (README): an exec whose
 * environment lacks zond's variables (execve's envp without them, execv
 * after clearenv, `env -i`, posix_spawn's envp) gets them.
 * zl_exec_env_keep, once at start, copies from envp every ZOND_* and
 * loader_var ("LD_PRELOAD" or "LD_AUDIT"), whose first element is zond's
 * library.
 */
void zl_exec_env_keep(char *const *envp, const char *loader_var);

/*
 * One call of the exec family or posix_spawn: its C library's function
 * (real) and its arguments but the environment, by the shape of the call.
 */
enum zl_exec_shape {
	ZL_EXEC_PATH,   /* execve, execvpe: path, argv */
	ZL_EXEC_FD,     /* fexecve: fd, argv */
	ZL_EXEC_AT,     /* execveat: fd, path, argv, flags */
	ZL_EXEC_SPAWN,  /* posix_spawn, posix_spawnp: pid, path, actions, attr, argv */
	ZL_EXEC_SHELL,  /* system, popen: run(arg), with *environ set to the environment */
};

struct zl_exec_call {
	enum zl_exec_shape shape;
	void *real;
	int fd, flags;
	const char *path;
	char *const *argv;
	pid_t *pid;
	const void *actions, *attr; /* posix_spawn's file actions and attributes */
	void (*run)(void *arg);     /* ZL_EXEC_SHELL: the call, made by the C library */
	void *arg;
	char ***environ;            /* the program's environ, set for the call */
};

/*
 * system and popen: the shell they start is exec'ed inside the C library,
 * with the program's environ; one without zond's variables (clearenv) gets
 * them for the call, as an exec's.  real is the C library's function.
 */
int zl_guard_system(int (*real)(const char *), char ***environ, const char *command);
void *zl_guard_popen(void *(*real)(const char *, const char *), char ***environ,
		     const char *command, const char *mode);

/*
 * Makes call c with the environment envp when it has ZOND_DIR (one that
 * keeps ZOND_DIR but drops the loader's variable was made to run something
 * without zond), else with envp plus every ZOND_* and zond's library put
 * first in the loader variable (added if absent); the program's other
 * variables stay as they are.  The real function's result.  Stack memory
 * only: a vfork child may call it.
 */
int zl_exec_call(const struct zl_exec_call *c, char *const envp[]);

/* An exec call c on the thread whose probe state is t, between zl_guard_exec and its taking back. */
int zl_guard_exec_call(struct zrt_thread *t, const struct zl_exec_call *c, char *const envp[]);
/*
 * The seccomp mode a call would set: prctl(option, arg2, arg3), or
 * seccomp(op, flags, args) (the system call), as ZL_SECCOMP_*; NONE for
 * any other call, and for a filter without a program (a probe for
 * seccomp support, which fails with EFAULT).
 */
int zl_seccomp_of_prctl(long option, long mode, long prog);
int zl_seccomp_of_syscall(long op, long args);

/*
 * Around a real call that may set seccomp mode (mode from the above):
 * before it, the runtime stops its system calls (linux.h zl_seal, after
 * the samplers are stopped: sample.h); after it, failed (ret < 0: nothing
 * was set) takes that back, but sampling stays stopped.  errno kept.
 */
int zl_guard_seccomp(int mode);
void zl_guard_seccomp_done(int mode, int previous, long ret);

#endif
