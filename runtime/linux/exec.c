/*
 * exec.c - the end of a process image by exec.  The image's file is left
 * behind (the new image starts a file of its own), so just before the real
 * call its end is noted: end time, the calling thread's last time and state
 * ZR_EXECED; the reader then closes the frames left open at that time.  When
 * the real call returns, the exec failed: the notes are taken back and errno
 * is the real call's.
 *
 * Every member of the family is interposed: glibc's execl, execvp and the
 * others reach the system call through internal calls, not through execve.
 * The variadic ones build their argv on the stack (as glibc does) and call
 * the vector form.  Arguments pass through untouched, and the environment
 * too unless it lacks zond's variables (guard.h zl_exec_env: the programs
 * the program runs are recorded); execv and execvp are made execve and
 * execvpe with the environment.  What is done around the real call is
 * guard.c's, shared with libzond-audit.
 *
 * Only in the shared runtime: the real functions are found with
 * dlsym(RTLD_NEXT), once, on the first call.
 */
#define _GNU_SOURCE
#include "guard.h"
#include "instrument.h"
#include "tasks.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <spawn.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <unistd.h>

#define API __attribute__((visibility("default")))

enum { R_EXECVE, R_EXECVPE, R_FEXECVE, R_EXECVEAT, R_SYSTEM, R_POPEN, R_COUNT };
static const char *const real_names[R_COUNT] = {"execve",   "execvpe", "fexecve",
						"execveat", "system",  "popen"};
static void *reals[R_COUNT];

/* The real function i, looked up once (errno kept). */
static void *real(int i)
{
	void *fn = __atomic_load_n(&reals[i], __ATOMIC_ACQUIRE);
	if (!fn) {
		int saved_errno = errno;
		fn = dlsym(RTLD_NEXT, real_names[i]);
		__atomic_store_n(&reals[i], fn, __ATOMIC_RELEASE);
		errno = saved_errno;
	}
	return fn;
}

/*
 * Looked up at load: a vfork child's exec then calls no dlsym (which may
 * allocate, in the parent's memory).  zond's variables are kept from the
 * environment as it is at load, before the program can change it.
 */
__attribute__((constructor)) static void find_reals(void)
{
	for (int i = 0; i < R_COUNT; i++)
		real(i);
	zl_exec_env_keep(environ, "LD_PRELOAD");
}

#define REAL(type, i) ((type)real(i))

/* A real function that is not there (execveat before glibc 2.34). */
static int missing(void)
{
	errno = ENOSYS;
	return -1;
}

/* c on this thread, between the image's end and its taking back (guard.h). */
static int guarded(int real_index, struct zl_exec_call c, char *const envp[])
{
	c.real = real(real_index);
	if (!c.real)
		return missing();
	return zl_guard_exec_call(zl_me(), &c, envp);
}

/* execv and execvp are execve and execvpe with the environment: it may need zond's variables. */
API int execve(const char *path, char *const argv[], char *const envp[])
{
	return guarded(R_EXECVE, (struct zl_exec_call){.path = path, .argv = argv}, envp);
}

API int execv(const char *path, char *const argv[])
{
	return guarded(R_EXECVE, (struct zl_exec_call){.path = path, .argv = argv}, environ);
}

API int execvp(const char *file, char *const argv[])
{
	return guarded(R_EXECVPE, (struct zl_exec_call){.path = file, .argv = argv}, environ);
}

API int execvpe(const char *file, char *const argv[], char *const envp[])
{
	return guarded(R_EXECVPE, (struct zl_exec_call){.path = file, .argv = argv}, envp);
}

API int fexecve(int fd, char *const argv[], char *const envp[])
{
	return guarded(R_FEXECVE, (struct zl_exec_call){.shape = ZL_EXEC_FD, .fd = fd, .argv = argv},
		       envp);
}

#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
API int execveat(int dirfd, const char *path, char *const argv[], char *const envp[],
		 int flags)
{
	return guarded(R_EXECVEAT,
		       (struct zl_exec_call){.shape = ZL_EXEC_AT, .fd = dirfd, .flags = flags,
					     .path = path, .argv = argv},
		       envp);
}
#endif

/*
 * posix_spawn and posix_spawnp run a program in a new process, whose exec
 * happens inside the C library (no exec of ours sees it): its environment
 * gets zond's variables here, like an exec's.
 */
static int spawn(const char *name, struct zl_exec_call c, char *const envp[])
{
	c.shape = ZL_EXEC_SPAWN;
	c.real = dlsym(RTLD_NEXT, name);
	return c.real ? zl_exec_call(&c, envp) : ENOSYS;
}

API int posix_spawn(pid_t *pid, const char *path, const posix_spawn_file_actions_t *actions,
		    const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	return spawn("posix_spawn",
		     (struct zl_exec_call){.pid = pid, .path = path, .actions = actions,
					   .attr = attr, .argv = argv},
		     envp);
}

API int posix_spawnp(pid_t *pid, const char *file, const posix_spawn_file_actions_t *actions,
		     const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	return spawn("posix_spawnp",
		     (struct zl_exec_call){.pid = pid, .path = file, .actions = actions,
					   .attr = attr, .argv = argv},
		     envp);
}

/* The shell of system and popen gets zond's variables too (guard.h). */
API int system(const char *command)
{
	typedef int system_fn(const char *);
	if (!real(R_SYSTEM)) {
		errno = ENOSYS;
		return -1;
	}
	return zl_guard_system(REAL(system_fn *, R_SYSTEM), &environ, command);
}

API FILE *popen(const char *command, const char *mode)
{
	typedef void *popen_fn(const char *, const char *);
	if (!real(R_POPEN)) {
		errno = ENOSYS;
		return NULL;
	}
	return zl_guard_popen(REAL(popen_fn *, R_POPEN), &environ, command, mode);
}

/*
 * The variadic forms: their arguments as a vector (guard.c), then the
 * vector forms above, which note the end.
 */
API int execl(const char *path, const char *arg0, ...)
{
	va_list ap;
	va_start(ap, arg0);
	int rc = zl_exec_list(execv, execve, path, arg0, 0, ap);
	va_end(ap);
	return rc;
}

API int execlp(const char *file, const char *arg0, ...)
{
	va_list ap;
	va_start(ap, arg0);
	int rc = zl_exec_list(execvp, execve, file, arg0, 0, ap);
	va_end(ap);
	return rc;
}

API int execle(const char *path, const char *arg0, ...)
{
	va_list ap;
	va_start(ap, arg0);
	int rc = zl_exec_list(execv, execve, path, arg0, 1, ap);
	va_end(ap);
	return rc;
}
