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
 * the vector form.  Arguments and environment pass through untouched.  What
 * is done around the real call is guard.c's, shared with libzond-audit.
 *
 * Only in the shared runtime: the real functions are found with
 * dlsym(RTLD_NEXT), once, on the first call.
 */
#define _GNU_SOURCE
#include "guard.h"
#include "instrument.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <unistd.h>

#define API __attribute__((visibility("default")))

enum { R_EXECVE, R_EXECV, R_EXECVP, R_EXECVPE, R_FEXECVE, R_EXECVEAT, R_COUNT };
static const char *const real_names[R_COUNT] = {"execve", "execv", "execvp", "execvpe",
						"fexecve", "execveat"};
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
 * allocate, in the parent's memory).
 */
__attribute__((constructor)) static void find_reals(void)
{
	for (int i = 0; i < R_COUNT; i++)
		real(i);
}

#define REAL(type, i) ((type)real(i))

/* Before the real call: the image ends here (guard.h). */
static void before(struct zl_exec_note *note)
{
	zl_guard_exec(&zl_self, note);
}

/* After a real call that returned ret: it failed, the image goes on. */
static int after(struct zl_exec_note *note, int ret)
{
	return zl_guard_exec_failed(&zl_self, note, ret);
}

/* A real function that is not there (execveat before glibc 2.34). */
static int missing(void)
{
	errno = ENOSYS;
	return -1;
}

typedef int (*path_argv_envp_fn)(const char *, char *const[], char *const[]);
typedef int (*path_argv_fn)(const char *, char *const[]);

API int execve(const char *path, char *const argv[], char *const envp[])
{
	path_argv_envp_fn fn = REAL(path_argv_envp_fn, R_EXECVE);
	if (!fn)
		return missing();
	struct zl_exec_note note;
	before(&note);
	return after(&note, fn(path, argv, envp));
}

API int execv(const char *path, char *const argv[])
{
	path_argv_fn fn = REAL(path_argv_fn, R_EXECV);
	if (!fn)
		return missing();
	struct zl_exec_note note;
	before(&note);
	return after(&note, fn(path, argv));
}

API int execvp(const char *file, char *const argv[])
{
	path_argv_fn fn = REAL(path_argv_fn, R_EXECVP);
	if (!fn)
		return missing();
	struct zl_exec_note note;
	before(&note);
	return after(&note, fn(file, argv));
}

API int execvpe(const char *file, char *const argv[], char *const envp[])
{
	path_argv_envp_fn fn = REAL(path_argv_envp_fn, R_EXECVPE);
	if (!fn)
		return missing();
	struct zl_exec_note note;
	before(&note);
	return after(&note, fn(file, argv, envp));
}

API int fexecve(int fd, char *const argv[], char *const envp[])
{
	typedef int (*fn_t)(int, char *const[], char *const[]);
	fn_t fn = REAL(fn_t, R_FEXECVE);
	if (!fn)
		return missing();
	struct zl_exec_note note;
	before(&note);
	return after(&note, fn(fd, argv, envp));
}

#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
API int execveat(int dirfd, const char *path, char *const argv[], char *const envp[],
		 int flags)
{
	typedef int (*fn_t)(int, const char *, char *const[], char *const[], int);
	fn_t fn = REAL(fn_t, R_EXECVEAT);
	if (!fn)
		return missing();
	struct zl_exec_note note;
	before(&note);
	return after(&note, fn(dirfd, path, argv, envp, flags));
}
#endif

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
