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
 * the real vector form.  Arguments and environment pass through untouched.
 *
 * Only in the shared runtime: the real functions are found with
 * dlsym(RTLD_NEXT), once, on the first call.
 */
#define _GNU_SOURCE
#include "instrument.h"
#include "sample.h"

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

/* Before the real call: the image ends here. */
static void before(struct zl_exec_note *note)
{
	int saved_errno = errno;
	zl_process_exec(&zl_self, note);
	/* a sample signal still pending at the exec would meet the new image's default action */
	zl_sample_exec();
	errno = saved_errno;
}

/* After a real call that returned ret: it failed, the image goes on. */
static int after(struct zl_exec_note *note, int ret)
{
	int saved_errno = errno;
	zl_process_exec_failed(&zl_self, note);
	zl_sample_exec_failed();
	errno = saved_errno;
	return ret;
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
 * The variadic forms, counted and copied as glibc does (arg0, then every
 * argument up to and including the terminating NULL; execle's environment
 * after it), onto the stack: no malloc, which is neither async-signal-safe
 * nor fit for a vfork child.  Then the vector form above, which notes the end.
 */
static int count_args(va_list ap, ptrdiff_t *argc)
{
	for (*argc = 1; va_arg(ap, const char *); (*argc)++)
		if (*argc == INT_MAX) {
			errno = E2BIG;
			return -1;
		}
	return 0;
}

/* argv[0..argc] from arg0 and the arguments after it (the last one NULL). */
static void copy_args(const char *arg0, char **argv, ptrdiff_t argc, va_list *ap)
{
	argv[0] = (char *)arg0;
	for (ptrdiff_t i = 1; i <= argc; i++)
		argv[i] = va_arg(*ap, char *);
}

/* The three list forms in one: the arguments after arg0 as a vector, then
 * execle's environment after the NULL when envp is wanted, then EXEC (execv,
 * execvp) or execve. */
static int exec_list(int (*exec)(const char *, char *const[]), const char *file,
		     const char *arg0, int with_envp, va_list ap)
{
	ptrdiff_t argc;
	va_list counting;
	va_copy(counting, ap);
	int bad = count_args(counting, &argc);
	va_end(counting);
	if (bad)
		return -1;
	/* a local copy: a va_list parameter may be an array turned pointer */
	va_list args;
	va_copy(args, ap);
	char *argv[argc + 1];
	copy_args(arg0, argv, argc, &args);
	char *const *envp = with_envp ? va_arg(args, char *const *) : NULL;
	va_end(args);
	return with_envp ? execve(file, argv, envp) : exec(file, argv);
}

API int execl(const char *path, const char *arg0, ...)
{
	va_list ap;
	va_start(ap, arg0);
	int rc = exec_list(execv, path, arg0, 0, ap);
	va_end(ap);
	return rc;
}

API int execlp(const char *file, const char *arg0, ...)
{
	va_list ap;
	va_start(ap, arg0);
	int rc = exec_list(execvp, file, arg0, 0, ap);
	va_end(ap);
	return rc;
}

API int execle(const char *path, const char *arg0, ...)
{
	va_list ap;
	va_start(ap, arg0);
	int rc = exec_list(NULL, path, arg0, 1, ap);
	va_end(ap);
	return rc;
}
