/*
 * guards.c - the library-call collector guards what libzond.so guards
 * (runtime/linux/guard.h): the program's and its libraries' PLT calls of
 * sigaction, signal, sigprocmask, pthread_sigmask, sigaltstack, the exec
 * family, posix_spawn(p), system, popen, swapcontext, prctl, syscall, pthread_create,
 * thrd_create, sigsetmask, sighold, sigrelse, backtrace, clone, close, close_range
 * and closefrom are bound to the
 * functions here (la_symbind64, audit.c),
 * profiled or not, and these call the function the binding was for.  A
 * profiled one is still counted: its target's real function is the guard.
 *
 * The real functions are the program's C library's, one address per name
 * (the first binding's; a binding to another definition of the name, the
 * program's own say, is left alone).  The list forms of exec call the
 * guarded vector forms, whose addresses la_preinit finds when the program
 * bound none (za_guard_find).  Calls the C library makes internally, and
 * calls through dlsym pointers (unless --dlsym), are not seen.
 *
 * These run as the program's own calls, on its stack, with the program's
 * C library's errno, which only the real functions set.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <spawn.h>
#include <stdarg.h>
#include <string.h>
#include <sys/syscall.h>
#include <ucontext.h>

#include "audit.h"

#include "../linux/guard.h"
#include "../linux/sample.h"

typedef int sigaction_fn(int, const struct sigaction *, struct sigaction *);
typedef sighandler_t signal_fn(int, sighandler_t);
typedef int sigmask_fn(int, const sigset_t *, sigset_t *);
typedef int sigaltstack_fn(const stack_t *, stack_t *);
typedef int prctl_fn(int, unsigned long, unsigned long, unsigned long, unsigned long);
typedef long syscall_fn(long, long, long, long, long, long, long);

enum {
	G_SIGACTION, G_SIGNAL, G_SIGPROCMASK, G_PTHREAD_SIGMASK, G_SIGALTSTACK,
	G_EXECVE, G_EXECV, G_EXECVP, G_EXECVPE, G_FEXECVE, G_EXECVEAT,
	G_EXECL, G_EXECLP, G_EXECLE, G_POSIX_SPAWN, G_POSIX_SPAWNP, G_SYSTEM, G_POPEN,
	G_SWAPCONTEXT, G_PRCTL, G_SYSCALL, G_PTHREAD_CREATE, G_THRD_CREATE,
	G_SIGSETMASK, G_SIGHOLD, G_SIGRELSE, G_BACKTRACE, G_CLONE,
	G_CLOSE, G_CLOSE_RANGE, G_CLOSEFROM,
	G_COUNT
};

/* the C library's function of each name, 0 until bound or found */
static uint64_t reals[G_COUNT];

#define REAL(type, i) ((type *)(uintptr_t)__atomic_load_n(&reals[i], __ATOMIC_ACQUIRE))

static int guard_sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	if (act && zl_guard_disposition(sig, (const void *)act->sa_handler))
		act = NULL;
	int rc = REAL(sigaction_fn, G_SIGACTION)(sig, act, old);
	if (rc == 0)
		zl_guard_disposition_seen(sig, old);
	return rc;
}

static sighandler_t guard_signal(int sig, sighandler_t handler)
{
	if (zl_guard_disposition(sig, (const void *)handler))
		return zl_guard_handler_seen(sig, handler);
	return zl_guard_handler_seen(sig, REAL(signal_fn, G_SIGNAL)(sig, handler));
}

static int guard_sigprocmask(int how, const sigset_t *set, sigset_t *old)
{
	return zl_guard_sigmask(REAL(sigmask_fn, G_SIGPROCMASK), how, set, old);
}

static int guard_pthread_sigmask(int how, const sigset_t *set, sigset_t *old)
{
	return zl_guard_sigmask(REAL(sigmask_fn, G_PTHREAD_SIGMASK), how, set, old);
}

typedef int int_fn(int);

static int guard_sigsetmask(int mask)
{
	return zl_guard_sigsetmask(REAL(int_fn, G_SIGSETMASK), mask);
}

static int guard_sighold(int sig)
{
	return zl_guard_sighold(REAL(int_fn, G_SIGHOLD), sig, 1);
}

static int guard_sigrelse(int sig)
{
	return zl_guard_sighold(REAL(int_fn, G_SIGRELSE), sig, 0);
}

static int guard_sigaltstack(const stack_t *ss, stack_t *old)
{
	int rc = REAL(sigaltstack_fn, G_SIGALTSTACK)(ss, old);
	if (rc == 0)
		zl_guard_altstack(za_me(), ss);
	return rc;
}

/* The real exec call c, made between the guard's notes (the exec failed if it returns). */
static int guarded(int real_index, struct zl_exec_call c, char *const envp[])
{
	c.real = REAL(void, real_index);
	return zl_guard_exec_call(za_me(), &c, envp);
}

/* the program's environ (its C library's, not ours), found at la_preinit */
static char ***program_environ;

static int guard_execve(const char *path, char *const argv[], char *const envp[])
{
	return guarded(G_EXECVE, (struct zl_exec_call){.path = path, .argv = argv}, envp);
}

/* execv and execvp are execve and execvpe with the environment: it may need zond's variables */
static int guard_execv(const char *path, char *const argv[])
{
	if (program_environ && reals[G_EXECVE])
		return guarded(G_EXECVE, (struct zl_exec_call){.path = path, .argv = argv},
			       *program_environ);
	struct zl_exec_note note = {0};
	zl_guard_exec(za_me(), &note);
	return zl_guard_exec_failed(za_me(), &note, REAL(zl_execv_fn, G_EXECV)(path, argv));
}

static int guard_execvp(const char *file, char *const argv[])
{
	if (program_environ && reals[G_EXECVPE])
		return guarded(G_EXECVPE, (struct zl_exec_call){.path = file, .argv = argv},
			       *program_environ);
	struct zl_exec_note note = {0};
	zl_guard_exec(za_me(), &note);
	return zl_guard_exec_failed(za_me(), &note, REAL(zl_execv_fn, G_EXECVP)(file, argv));
}

static int guard_execvpe(const char *file, char *const argv[], char *const envp[])
{
	return guarded(G_EXECVPE, (struct zl_exec_call){.path = file, .argv = argv}, envp);
}

static int guard_fexecve(int fd, char *const argv[], char *const envp[])
{
	return guarded(G_FEXECVE, (struct zl_exec_call){.shape = ZL_EXEC_FD, .fd = fd, .argv = argv},
		       envp);
}

static int guard_execveat(int dirfd, const char *path, char *const argv[], char *const envp[],
			  int flags)
{
	return guarded(G_EXECVEAT,
		       (struct zl_exec_call){.shape = ZL_EXEC_AT, .fd = dirfd, .flags = flags,
					     .path = path, .argv = argv},
		       envp);
}

/*
 * posix_spawn and posix_spawnp exec inside the C library: the new process's
 * environment gets zond's variables here, like an exec's.
 */
static int guard_posix_spawn(pid_t *pid, const char *path,
			     const posix_spawn_file_actions_t *actions,
			     const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	return zl_exec_call(&(struct zl_exec_call){.shape = ZL_EXEC_SPAWN,
						    .real = REAL(void, G_POSIX_SPAWN), .pid = pid,
						    .path = path, .actions = actions, .attr = attr,
						    .argv = argv},
			    envp);
}

static int guard_posix_spawnp(pid_t *pid, const char *file,
			      const posix_spawn_file_actions_t *actions,
			      const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	return zl_exec_call(&(struct zl_exec_call){.shape = ZL_EXEC_SPAWN,
						    .real = REAL(void, G_POSIX_SPAWNP), .pid = pid,
						    .path = file, .actions = actions, .attr = attr,
						    .argv = argv},
			    envp);
}

/* The shell of system and popen: with the program's environ, which may need zond's variables */
static int guard_system(const char *command)
{
	typedef int system_fn(const char *);
	if (!program_environ)
		return REAL(system_fn, G_SYSTEM)(command);
	return zl_guard_system(REAL(system_fn, G_SYSTEM), program_environ, command);
}

static void *guard_popen(const char *command, const char *mode)
{
	typedef void *popen_fn(const char *, const char *);
	if (!program_environ)
		return REAL(popen_fn, G_POPEN)(command, mode);
	return zl_guard_popen(REAL(popen_fn, G_POPEN), program_environ, command, mode);
}

/* A new thread starts with its creator's mask as the program sees it (guard.h). */
typedef int pthread_create_fn(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
typedef int thrd_create_fn(void *, int (*)(void *), void *);

static int guard_pthread_create(pthread_t *thread, const pthread_attr_t *attr,
				void *(*start)(void *), void *arg)
{
	int blocked = zl_guard_inherit_begin();
	int rc = REAL(pthread_create_fn, G_PTHREAD_CREATE)(thread, attr, start, arg);
	zl_guard_inherit_end(blocked);
	return rc;
}

static int guard_thrd_create(void *thread, int (*start)(void *), void *arg)
{
	int blocked = zl_guard_inherit_begin();
	int rc = REAL(thrd_create_fn, G_THRD_CREATE)(thread, start, arg);
	zl_guard_inherit_end(blocked);
	return rc;
}

/*
 * clone: a task on its creator's thread pointer (CLONE_VM without
 * CLONE_SETTLS) gets a state of its own (tasks.h), its calls kept apart
 * from its creator's.  glibc's clone reads all seven arguments whatever
 * the flags, and so does this (see prctl below).
 */
static int guard_clone(int (*fn)(void *), void *stack, int flags, void *arg, pid_t *ptid,
		       void *tls, pid_t *ctid)
{
	return zl_guard_clone(REAL(zl_clone_fn, G_CLONE), fn, stack, flags, arg, ptid, tls, ctid,
			      (uintptr_t)__builtin_dwarf_cfa());
}

/*
 * backtrace: the program's stack as it would be without zond.  A timed
 * wrapper returns into itself (za_return_point), so an unwinder finds one
 * frame of this library for each wrapped call open on the stack, and this
 * guard's own below the program's caller: those are left out, and the real
 * backtrace is asked for as many more entries, so that a full buffer is as
 * full as it would be.  No C library call but the real one (a crash handler
 * may call it).  Other unwinders (_Unwind_Backtrace, libunwind, debuggers)
 * still see the frames: doc/libcalls.md.
 */
typedef int backtrace_fn(void **, int);
extern const char __ehdr_start[] __attribute__((visibility("hidden")));
extern const char etext[] __attribute__((visibility("hidden")));

enum { BACKTRACE_EXTRA = 64, BACKTRACE_LOCAL = 1024 };

/* 1 when pc is in this library's code (its wrappers, this guard) */
static int own_pc(const void *pc)
{
	return (const char *)pc >= __ehdr_start && (const char *)pc < etext;
}

static int guard_backtrace(void **buffer, int size)
{
	backtrace_fn *real = REAL(backtrace_fn, G_BACKTRACE);
	if (size <= 0)
		return real(buffer, size);
	/* room for the frames left out, on the stack up to a bound */
	int wide = size <= BACKTRACE_LOCAL;
	void *local[wide ? size + BACKTRACE_EXTRA : 1];
	void **all = wide ? local : buffer;
	int n = real(all, wide ? size + BACKTRACE_EXTRA : size), kept = 0;
	for (int i = 0; i < n && kept < size; i++)
		if (!own_pc(all[i]))
			buffer[kept++] = all[i];
	return kept;
}

/*
 * swapcontext between stacks (coroutines): the calls open on the stack being
 * left are parked under the context it saves and put back when the thread
 * comes back through it (core.h zrt_park), as libzond's switch.c does, so
 * that a coroutine resumed later finds its own callers.
 */
typedef int swapcontext_fn(ucontext_t *, const ucontext_t *);

static int guard_swapcontext(ucontext_t *save, const ucontext_t *to)
{
	struct zrt_thread *t = za_me();
	if (t->state == ZRT_THREAD_ON)
		zrt_park(t, (uintptr_t)save, 1);
	int rc = REAL(swapcontext_fn, G_SWAPCONTEXT)(save, to);
	t = za_me(); /* back through save: maybe on another thread */
	if (t->state == ZRT_THREAD_ON)
		zrt_unpark(t, (uintptr_t)save);
	return rc;
}

/*
 * The list forms call the vector forms' guards; la_preinit found those
 * functions (a C library without them cannot be: the call fails).
 */
static int guard_execl(const char *path, const char *arg0, ...)
{
	if (!reals[G_EXECV])
		return -1;
	va_list ap;
	va_start(ap, arg0);
	int rc = zl_exec_list(guard_execv, guard_execve, path, arg0, 0, ap);
	va_end(ap);
	return rc;
}

static int guard_execlp(const char *file, const char *arg0, ...)
{
	if (!reals[G_EXECVP])
		return -1;
	va_list ap;
	va_start(ap, arg0);
	int rc = zl_exec_list(guard_execvp, guard_execve, file, arg0, 0, ap);
	va_end(ap);
	return rc;
}

static int guard_execle(const char *path, const char *arg0, ...)
{
	if (!reals[G_EXECVE])
		return -1;
	va_list ap;
	va_start(ap, arg0);
	int rc = zl_exec_list(guard_execv, guard_execve, path, arg0, 1, ap);
	va_end(ap);
	return rc;
}

/*
 * prctl and syscall are variadic; glibc reads four and six words after the
 * first whatever the option or number, and so do these (integer arguments
 * are passed alike to variadic and fixed functions on x86-64 and aarch64
 * Linux).
 */
static int guard_prctl(int option, unsigned long a2, unsigned long a3, unsigned long a4,
		       unsigned long a5)
{
	int mode = zl_seccomp_of_prctl(option, (long)a2, (long)a3);
	int previous = zl_guard_seccomp(mode);
	int rc = REAL(prctl_fn, G_PRCTL)(option, a2, a3, a4, a5);
	zl_guard_seccomp_done(mode, previous, rc);
	return rc;
}

/*
 * close, close_range, closefrom and their system calls through syscall():
 * the samplers' perf_event fds outlive a daemon's close of every fd from 3
 * up, which would take every later sample of the run without a word (as in
 * libzond, runtime/linux/fds.c).  A close of one does nothing and succeeds;
 * a range is closed around them by the program's own C library.
 */
typedef int close_fn(int);
typedef int close_range_fn(unsigned, unsigned, int);
typedef void closefrom_fn(int);

static int guard_close(int fd)
{
	return zl_sample_owns_fd(fd) ? 0 : REAL(close_fn, G_CLOSE)(fd);
}

static long close_piece(unsigned from, unsigned to, int flags, void *arg)
{
	(void)arg;
	return REAL(close_range_fn, G_CLOSE_RANGE)(from, to, flags);
}

static int guard_close_range(unsigned first, unsigned last, int flags)
{
	return (int)zl_sample_close_around(first, last, flags, close_piece, NULL);
}

static void guard_closefrom(int low)
{
	unsigned first = low < 0 ? 0 : (unsigned)low;
	/* glibc's closefrom is close_range to the end, or a loop where the kernel has none */
	if (zl_sample_next_fd((int)first) < 0 || !REAL(close_range_fn, G_CLOSE_RANGE) ||
	    guard_close_range(first, ~0u, 0) != 0)
		REAL(closefrom_fn, G_CLOSEFROM)(low);
}

static long syscall_close_piece(unsigned from, unsigned to, int flags, void *arg)
{
	(void)arg;
	return REAL(syscall_fn, G_SYSCALL)(SYS_close_range, from, to, flags, 0, 0, 0);
}

static long guard_syscall(long nr, long a, long b, long c, long d, long e, long f)
{
	long ret;
	if (zl_guard_sigmask_syscall(REAL(syscall_fn, G_SYSCALL), nr, a, b, c, d, &ret))
		return ret;
	if (nr == SYS_close && zl_sample_owns_fd((int)a))
		return 0;
	if (nr == SYS_close_range)
		return zl_sample_close_around((unsigned)a, (unsigned)b, (int)c, syscall_close_piece,
					      NULL);
	int mode = nr == SYS_seccomp ? zl_seccomp_of_syscall(a, c)
		   : nr == SYS_prctl ? zl_seccomp_of_prctl(a, b, c)
				     : ZL_SECCOMP_NONE;
	if (mode == ZL_SECCOMP_NONE)
		return REAL(syscall_fn, G_SYSCALL)(nr, a, b, c, d, e, f);
	int previous = zl_guard_seccomp(mode);
	long rc = REAL(syscall_fn, G_SYSCALL)(nr, a, b, c, d, e, f);
	zl_guard_seccomp_done(mode, previous, rc);
	return rc;
}

static const struct {
	const char *name;
	void *guard;
	int needs; /* the vector form a list form calls, or -1 */
} guards[G_COUNT] = {
	[G_SIGACTION] = {"sigaction", (void *)guard_sigaction, -1},
	[G_SIGNAL] = {"signal", (void *)guard_signal, -1},
	[G_SIGPROCMASK] = {"sigprocmask", (void *)guard_sigprocmask, -1},
	[G_PTHREAD_SIGMASK] = {"pthread_sigmask", (void *)guard_pthread_sigmask, -1},
	[G_SIGALTSTACK] = {"sigaltstack", (void *)guard_sigaltstack, -1},
	[G_EXECVE] = {"execve", (void *)guard_execve, -1},
	[G_EXECV] = {"execv", (void *)guard_execv, -1},
	[G_EXECVP] = {"execvp", (void *)guard_execvp, -1},
	[G_EXECVPE] = {"execvpe", (void *)guard_execvpe, -1},
	[G_FEXECVE] = {"fexecve", (void *)guard_fexecve, -1},
	[G_EXECVEAT] = {"execveat", (void *)guard_execveat, -1},
	[G_EXECL] = {"execl", (void *)guard_execl, G_EXECV},
	[G_EXECLP] = {"execlp", (void *)guard_execlp, G_EXECVP},
	[G_EXECLE] = {"execle", (void *)guard_execle, G_EXECVE},
	[G_POSIX_SPAWN] = {"posix_spawn", (void *)guard_posix_spawn, -1},
	[G_POSIX_SPAWNP] = {"posix_spawnp", (void *)guard_posix_spawnp, -1},
	[G_SYSTEM] = {"system", (void *)guard_system, -1},
	[G_POPEN] = {"popen", (void *)guard_popen, -1},
	[G_SWAPCONTEXT] = {"swapcontext", (void *)guard_swapcontext, -1},
	[G_PRCTL] = {"prctl", (void *)guard_prctl, -1},
	[G_SYSCALL] = {"syscall", (void *)guard_syscall, -1},
	[G_PTHREAD_CREATE] = {"pthread_create", (void *)guard_pthread_create, -1},
	[G_THRD_CREATE] = {"thrd_create", (void *)guard_thrd_create, -1},
	[G_SIGSETMASK] = {"sigsetmask", (void *)guard_sigsetmask, -1},
	[G_SIGHOLD] = {"sighold", (void *)guard_sighold, -1},
	[G_SIGRELSE] = {"sigrelse", (void *)guard_sigrelse, -1},
	[G_BACKTRACE] = {"backtrace", (void *)guard_backtrace, -1},
	[G_CLONE] = {"clone", (void *)guard_clone, -1},
	[G_CLOSE] = {"close", (void *)guard_close, -1},
	[G_CLOSE_RANGE] = {"close_range", (void *)guard_close_range, -1},
	[G_CLOSEFROM] = {"closefrom", (void *)guard_closefrom, G_CLOSE_RANGE},
};

static int guard_index(const char *name)
{
	for (int i = 0; i < G_COUNT; i++)
		if (!strcmp(name, guards[i].name))
			return i;
	return -1;
}

uint64_t za_guard_of(const char *name, uint64_t real)
{
	int i = guard_index(name);
	if (i < 0 || !real)
		return 0;
	uint64_t was = 0;
	if (!__atomic_compare_exchange_n(&reals[i], &was, real, 0, __ATOMIC_ACQ_REL,
					 __ATOMIC_ACQUIRE) &&
	    was != real)
		return 0; /* another definition of the name: left alone */
	return (uintptr_t)guards[i].guard;
}

uint64_t za_guard_of_exec(const char *name, uint64_t real)
{
	int i = guard_index(name);
	if ((i < G_EXECVE || i > G_EXECLE) && i != G_POSIX_SPAWN && i != G_POSIX_SPAWNP)
		return 0;
	return za_guard_of(name, real);
}

/* Finds real function i when no binding gave it. */
static void find_real(int i, void *(*lookup)(const char *name))
{
	if (__atomic_load_n(&reals[i], __ATOMIC_ACQUIRE))
		return;
	void *fn = lookup(guards[i].name);
	uint64_t none = 0;
	if (fn)
		__atomic_compare_exchange_n(&reals[i], &none, (uintptr_t)fn, 0, __ATOMIC_ACQ_REL,
					    __ATOMIC_ACQUIRE);
}

void za_guard_find(void *(*lookup)(const char *name))
{
	for (int i = 0; i < G_COUNT; i++)
		if (guards[i].needs >= 0)
			find_real(guards[i].needs, lookup);
	/* execv and execvp run as execve and execvpe with the program's environ */
	find_real(G_EXECVE, lookup);
	find_real(G_EXECVPE, lookup);
	program_environ = lookup("environ");
	/* our C library's environ: the environment the process started with */
	zl_exec_env_keep(environ, "LD_AUDIT");
}
