/*
 * guard.c - the program's calls that meet zond's own doings, as both
 * collectors handle them (guard.h).
 */
#define _GNU_SOURCE
#include "guard.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stddef.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sample.h"
#include "tasks.h"

int zl_guard_disposition(int sig, const void *handler)
{
	return zl_sample_signal_taken(sig, handler);
}

/* no memset: the audit library's C library is not the program's */
static void zero_sigaction(struct sigaction *sa)
{
	volatile char *b = (volatile char *)sa;
	for (size_t i = 0; i < sizeof *sa; i++)
		b[i] = 0;
}

void zl_guard_disposition_seen(int sig, struct sigaction *old)
{
	zl_sample_disposition_seen(sig, old);
}

sighandler_t zl_guard_handler_seen(int sig, sighandler_t was)
{
	struct sigaction seen;
	zero_sigaction(&seen);
	seen.sa_handler = was;
	zl_sample_disposition_seen(sig, &seen);
	return seen.sa_handler;
}

enum { WORD_BITS = 8 * sizeof(unsigned long) };

/* Word and bit of sig in a sigset_t, as the kernel and glibc lay it out (no libc call). */
static unsigned word_of(int sig)
{
	return (unsigned)(sig - 1) / WORD_BITS;
}

static unsigned long bit_of(int sig)
{
	return 1ul << ((unsigned)(sig - 1) % WORD_BITS);
}

void zl_guard_altstack(struct zrt_thread *t, const stack_t *ss)
{
	if (!ss)
		return;
	uint64_t lo = (uintptr_t)ss->ss_sp;
	int on = !(ss->ss_flags & SS_DISABLE);
	t->alt_hi = 0; /* no range while it changes (a handler may read it) */
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	t->alt_lo = on ? lo : 0;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	t->alt_hi = on ? lo + ss->ss_size : 0;
}

static int has_signal(const sigset_t *set, int sig)
{
	return (((const unsigned long *)(const void *)set)[word_of(sig)] & bit_of(sig)) != 0;
}

int zl_guard_sigmask(int (*real)(int, const sigset_t *, sigset_t *), int how,
		     const sigset_t *set, sigset_t *old)
{
	int sig = zl_sample_signal_active();
	if (!sig)
		return real(how, set, old);
	int had = zl_sample_program_blocks(), in = set && has_signal(set, sig);
	sigset_t own;
	const sigset_t *pass = set;
	if (in && how != SIG_UNBLOCK) {
		own = *set;
		((unsigned long *)(void *)&own)[word_of(sig)] &= ~bit_of(sig);
		pass = &own;
	}
	int rc = real(how, pass, old);
	if (rc != 0)
		return rc;
	if (set && (how == SIG_SETMASK || in))
		zl_sample_set_program_blocks(how == SIG_SETMASK ? in : how == SIG_BLOCK);
	/* read back as the program set it (a mask saved, restored, handed on) */
	if (old && had)
		((unsigned long *)(void *)old)[word_of(sig)] |= bit_of(sig);
	return rc;
}

int zl_guard_sigsetmask(int (*real)(int), int mask)
{
	int rc = real(mask);
	if (zl_sample_signal_active())
		zl_sample_set_program_blocks(0);
	return rc;
}

int zl_guard_sighold(int (*real)(int), int sig, int hold)
{
	int own = zl_sample_signal_active();
	if (!own || sig != own)
		return real(sig);
	zl_sample_set_program_blocks(hold);
	return 0;
}

int zl_guard_sigmask_syscall(zl_syscall_fn *real, long nr, long how, long set, long old,
			     long size, long *ret)
{
	if (nr != SYS_rt_sigprocmask)
		return 0;
	int sig = zl_sample_signal_active();
	/* the kernel's sigset is one word here (x86-64, aarch64): another size fails as it would */
	if (!sig || size != sizeof(unsigned long) || word_of(sig) != 0) {
		*ret = real(nr, how, set, old, size, 0, 0);
		return 1;
	}
	unsigned long bit = bit_of(sig);
	int had = zl_sample_program_blocks();
	/*
	 * The set is read after the kernel did (a bad pointer fails with EFAULT
	 * as it would), but for one that is also the old set, which the call
	 * overwrites.  The signal, blocked by the call, is unblocked right after
	 * (one of zond's samples may wait meanwhile).
	 */
	int in = set && set == old && (*(const unsigned long *)set & bit);
	*ret = real(nr, how, set, old, size, 0, 0);
	if (*ret != 0)
		return 1;
	if (set && set != old)
		in = (*(const unsigned long *)set & bit) != 0;
	if (in && how != SIG_UNBLOCK)
		zl_sample_mask(sig, SIG_UNBLOCK);
	if (set && (how == SIG_SETMASK || in))
		zl_sample_set_program_blocks(how == SIG_SETMASK ? in : how == SIG_BLOCK);
	if (old && had)
		*(unsigned long *)old |= bit;
	return 1;
}

int zl_guard_inherit_begin(void)
{
	int sig = zl_sample_signal_active();
	if (!sig || !zl_sample_program_blocks())
		return 0;
	zl_sample_mask(sig, SIG_BLOCK);
	return sig;
}

void zl_guard_inherit_end(int blocked)
{
	if (blocked)
		zl_sample_mask(blocked, SIG_UNBLOCK);
}

int zl_guard_clone(zl_clone_fn *real, int (*fn)(void *), void *stack, int flags, void *arg,
		   pid_t *ptid, void *tls, pid_t *ctid, uint64_t caller_sp)
{
	struct zl_task *k = NULL;
	if ((flags & CLONE_VM) && !(flags & CLONE_SETTLS) && fn && stack)
		k = zl_task_new((uintptr_t)stack, caller_sp, fn, arg);
	uint32_t gen = k ? zl_task_gen(k) : 0;
	int blocked = zl_guard_inherit_begin();
	int rc = k ? real(zl_task_run, stack, flags, k, ptid, tls, ctid)
		   : real(fn, stack, flags, arg, ptid, tls, ctid);
	int saved_errno = errno;
	zl_guard_inherit_end(blocked);
	/* no child, or a CLONE_VFORK child that exec'ed or ended: its entry gone */
	if (k && (rc == -1 || (flags & CLONE_VFORK)))
		zl_task_done(k, gen);
	errno = saved_errno;
	return rc;
}

/* The sampling signal the program blocked (in its view) while exec ran, 0 for none. */
static __thread int blocked_at_exec __attribute__((tls_model("initial-exec")));

void zl_guard_exec(struct zrt_thread *t, struct zl_exec_note *note)
{
	int saved_errno = errno;
	int sig = zl_sample_signal_active();
	zl_process_exec(t, note);
	/* a sample signal still pending at the exec would meet the new image's default action */
	zl_sample_exec();
	/* the new image starts with the mask the program set */
	blocked_at_exec = sig && zl_sample_program_blocks() ? sig : 0;
	if (blocked_at_exec)
		zl_sample_mask(blocked_at_exec, SIG_BLOCK);
	errno = saved_errno;
}

int zl_guard_exec_failed(struct zrt_thread *t, const struct zl_exec_note *note, int ret)
{
	int saved_errno = errno;
	if (blocked_at_exec)
		zl_sample_mask(blocked_at_exec, SIG_UNBLOCK);
	blocked_at_exec = 0;
	zl_process_exec_failed(t, note);
	zl_sample_exec_failed();
	errno = saved_errno;
	return ret;
}

/*
 * Counted and copied as glibc does (arg0, then every argument up to and
 * including the terminating NULL; execle's environment after it).
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

int zl_exec_list(zl_execv_fn *vector, zl_execve_fn *execve, const char *file, const char *arg0,
		 int with_envp, va_list ap)
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
	return with_envp ? execve(file, argv, envp) : vector(file, argv);
}

/*
 * zond's variables as the image started with them: every ZOND_*, and the
 * loader's variable naming zond's library (libzond's LD_PRELOAD, the audit
 * library's LD_AUDIT), whose first element is zond's (the launcher puts it
 * first).  Copied once at start; none (n 0) when they do not fit.
 */
static struct {
	char text[16384];
	char *vars[64];
	uint32_t n;
	const char *loader;     /* "LD_PRELOAD=..." or "LD_AUDIT=...", one of vars */
	size_t loader_name_len; /* up to and with the '=' */
	char lib[PATH_MAX];     /* zond's library, the loader variable's first element */
} kept;

/* s's length, without the C library's strlen (the audit library's is not the program's) */
static size_t text_len(const char *s)
{
	size_t n = 0;
	while (s[n])
		n++;
	return n;
}

/* 1 when entry ("NAME=value") has the name prefix[0..len) (which may end with '='). */
static int starts_with(const char *entry, const char *prefix, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (entry[i] != prefix[i])
			return 0;
	return 1;
}

/* The length of entry's name with its '=' (0: no '='). */
static size_t name_len(const char *entry)
{
	for (size_t i = 0; entry[i]; i++)
		if (entry[i] == '=')
			return i + 1;
	return 0;
}

/* Keeps a copy of entry in kept; 0 when there is no room. */
static int keep_var(const char *entry, size_t *used)
{
	size_t len = text_len(entry) + 1;
	if (kept.n == sizeof kept.vars / sizeof *kept.vars || len > sizeof kept.text - *used)
		return 0;
	char *copy = kept.text + *used;
	for (size_t i = 0; i < len; i++)
		copy[i] = entry[i];
	*used += len;
	kept.vars[kept.n++] = copy;
	return 1;
}

void zl_exec_env_keep(char *const *envp, const char *loader_var)
{
	size_t used = 0, loader_len = text_len(loader_var);
	for (char *const *e = envp; e && *e; e++) {
		int loader = starts_with(*e, loader_var, loader_len) && (*e)[loader_len] == '=';
		if (!loader && !starts_with(*e, "ZOND_", 5))
			continue;
		if (!keep_var(*e, &used)) {
			kept.n = 0;
			kept.loader = NULL;
			return;
		}
		if (loader) {
			kept.loader = kept.vars[kept.n - 1];
			kept.loader_name_len = loader_len + 1;
		}
	}
	if (!kept.loader)
		return;
	/* its first element: ':' or ' ' separate them (ld.so(8)) */
	const char *v = kept.loader + kept.loader_name_len;
	size_t i = 0;
	for (; v[i] && v[i] != ':' && v[i] != ' ' && i + 1 < sizeof kept.lib; i++)
		kept.lib[i] = v[i];
	kept.lib[i] = 0;
}

/* The entry of env named like entry (up to its '='), or NULL. */
static char *const *find_var(char *const *env, const char *entry)
{
	size_t len = name_len(entry);
	for (char *const *e = env; e && *e; e++)
		if (starts_with(*e, entry, len))
			return e;
	return NULL;
}

/* 1 when value (the loader variable's, after '=') names zond's library. */
static int names_lib(const char *value)
{
	size_t len = text_len(kept.lib);
	for (const char *v = value; *v;) {
		if (starts_with(v, kept.lib, len) && (!v[len] || v[len] == ':' || v[len] == ' '))
			return 1;
		while (*v && *v != ':' && *v != ' ')
			v++;
		while (*v == ':' || *v == ' ')
			v++;
	}
	return 0;
}

/*
 * 1 when env was made without zond's variables (no ZOND_DIR: execve's own
 * envp, clearenv, env -i).  An environment that keeps ZOND_DIR but drops
 * the loader's variable was made to run something without zond: left so.
 */
static int env_lacks_zond(char *const *env)
{
	return kept.loader && !find_var(env, "ZOND_DIR=");
}

/* The real function of c called with env. */
static int call_real(const struct zl_exec_call *c, char *const env[])
{
	typedef int path_fn(const char *, char *const[], char *const[]);
	typedef int fd_fn(int, char *const[], char *const[]);
	typedef int at_fn(int, const char *, char *const[], char *const[], int);
	typedef int spawn_fn(pid_t *, const char *, const void *, const void *, char *const[],
			     char *const[]);
	switch (c->shape) {
	case ZL_EXEC_FD:
		return ((fd_fn *)c->real)(c->fd, c->argv, env);
	case ZL_EXEC_AT:
		return ((at_fn *)c->real)(c->fd, c->path, c->argv, env, c->flags);
	case ZL_EXEC_SPAWN:
		return ((spawn_fn *)c->real)(c->pid, c->path, c->actions, c->attr, c->argv, env);
	case ZL_EXEC_SHELL: {
		/* the program's other threads see env meanwhile: what the shell gets */
		char **saved = *c->environ;
		*c->environ = (char **)env;
		c->run(c->arg);
		*c->environ = saved;
		return 0;
	}
	default:
		return ((path_fn *)c->real)(c->path, c->argv, env);
	}
}

/* The value of variable name ("NAME=") in env, or NULL. */
static const char *env_value(char *const *env, const char *name)
{
	size_t len = text_len(name);
	for (char *const *e = env; e && *e; e++)
		if (starts_with(*e, name, len))
			return *e + len;
	return NULL;
}

/*
 * 1 when the file at dirfd/path runs set-user-ID or set-group-ID to ids
 * other than this process's real ones (the kernel's AT_SECURE: its loader
 * ignores LD_PRELOAD and LD_AUDIT, so zond's runtime never starts in it).
 * Raw system calls: a vfork child runs this.
 */
static int secure_file(int dirfd, const char *path, int flags)
{
	struct stat st;
	if (zl_syscall6(SYS_newfstatat, dirfd, (long)path, (long)&st, flags, 0, 0) != 0)
		return 0;
	int uid = (st.st_mode & S_ISUID) && st.st_uid != (uid_t)zl_syscall6(SYS_getuid, 0, 0, 0, 0, 0, 0);
	int gid = (st.st_mode & S_ISGID) && (st.st_mode & S_IXGRP) &&
		  st.st_gid != (gid_t)zl_syscall6(SYS_getgid, 0, 0, 0, 0, 0, 0);
	if (!uid && !gid)
		return 0;
	/* a file system mounted nosuid ignores the bits (the file at an fd: its own) */
	struct statfs fs;
	long rc = !*path ? zl_syscall6(SYS_fstatfs, dirfd, (long)&fs, 0, 0, 0, 0)
		  : dirfd == AT_FDCWD || *path == '/'
		      ? zl_syscall6(SYS_statfs, (long)path, (long)&fs, 0, 0, 0, 0)
		      : -1;
	return rc != 0 || !(fs.f_flags & ST_NOSUID);
}

/*
 * 1 when the program c execs runs in secure mode (secure_file): a name
 * without a slash is looked for along envp's PATH as execvp does (the
 * exec functions without p take it from the working directory, rarely).
 */
static int exec_secure(const struct zl_exec_call *c, char *const *envp)
{
	if (__atomic_load_n(&zl_sealed, __ATOMIC_RELAXED))
		return 0;
	if (c->shape == ZL_EXEC_FD)
		return secure_file(c->fd, "", AT_EMPTY_PATH);
	if (c->shape == ZL_EXEC_AT)
		return secure_file(c->fd, c->path, c->flags & (AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW));
	if (c->shape == ZL_EXEC_SHELL || !c->path || !*c->path)
		return 0;
	for (const char *p = c->path; *p; p++)
		if (*p == '/')
			return secure_file(AT_FDCWD, c->path, 0);
	const char *dirs = env_value(envp, "PATH=");
	if (!dirs)
		dirs = "/bin:/usr/bin";
	size_t name_length = text_len(c->path);
	char file[PATH_MAX];
	while (*dirs) {
		size_t n = 0;
		while (dirs[n] && dirs[n] != ':')
			n++;
		if (n + 1 + name_length < sizeof file) {
			size_t k = 0;
			for (size_t i = 0; i < n; i++)
				file[k++] = dirs[i];
			if (n)
				file[k++] = '/';
			for (size_t i = 0; i <= name_length; i++)
				file[k++] = c->path[i];
			if (zl_syscall6(SYS_faccessat, AT_FDCWD, (long)file, X_OK, 0, 0, 0) == 0)
				return secure_file(AT_FDCWD, file, 0);
		}
		dirs += n + (dirs[n] == ':');
	}
	return 0;
}

int zl_guard_exec_call(struct zrt_thread *t, const struct zl_exec_call *c, char *const envp[])
{
	struct zl_exec_note note = {.secure = exec_secure(c, envp)};
	zl_guard_exec(t, &note);
	return zl_guard_exec_failed(t, &note, zl_exec_call(c, envp));
}

static int exec_call(const struct zl_exec_call *c, char *const *envp);

/* 1 when system() and popen() find their shell (not in a chroot without one). */
static int shell_runs(void)
{
	return !__atomic_load_n(&zl_sealed, __ATOMIC_RELAXED) && zl_syscall6(SYS_faccessat, AT_FDCWD, (long)"/bin/sh", X_OK, 0, 0, 0) == 0;
}

int zl_exec_call(const struct zl_exec_call *c, char *const *envp)
{
	/* a spawned process or the shell starts with the program's mask (an exec's: zl_guard_exec) */
	int inherit = c->shape == ZL_EXEC_SPAWN || c->shape == ZL_EXEC_SHELL;
	int blocked = inherit ? zl_guard_inherit_begin() : 0;
	int secure = c->shape == ZL_EXEC_SPAWN && exec_secure(c, envp);
	int rc = exec_call(c, envp);
	zl_guard_inherit_end(blocked);
	/* a spawned process's image (an exec's is counted by zl_guard_exec), or the
	   shell of system() and popen() where there is one, that cannot be
	   recorded: counted as not recorded */
	if ((c->shape == ZL_EXEC_SPAWN && rc == 0) || (c->shape == ZL_EXEC_SHELL && shell_runs())) {
		int saved_errno = errno;
		zl_count_lost_image(secure);
		errno = saved_errno;
	}
	return rc;
}

/*
 * 1 when zond's library cannot be opened from here (a chroot without it):
 * the image runs without zond then (counted by zl_guard_exec), and the
 * loader, finding its variable naming a file that is not there, would
 * print an error into the program's stderr.
 */
static int lib_unreachable(void)
{
	/* under seccomp no system call of zond's own: the filter may kill the process */
	return kept.loader && kept.lib[0] && !__atomic_load_n(&zl_sealed, __ATOMIC_RELAXED) &&
	       zl_syscall6(SYS_faccessat, AT_FDCWD, (long)kept.lib, R_OK, 0, 0, 0) != 0;
}

/* Copies value (a loader variable's) to out without the elements naming zond's library. */
static void value_without_lib(const char *value, char *out)
{
	size_t len = text_len(kept.lib);
	char *o = out;
	for (const char *v = value; *v;) {
		const char *end = v;
		while (*end && *end != ':' && *end != ' ')
			end++;
		if (!((size_t)(end - v) == len && starts_with(v, kept.lib, len))) {
			if (o > out)
				*o++ = ':';
			while (v < end)
				*o++ = *v++;
		}
		v = end;
		while (*v == ':' || *v == ' ')
			v++;
	}
	*o = 0;
}

/* c called with envp less zond's: its variables, and its library in the loader's. */
static int call_without_zond(const struct zl_exec_call *c, char *const *envp)
{
	size_t n = 0;
	for (char *const *e = envp; e && *e; e++)
		n++;
	char *const *loader = find_var(envp, kept.loader);
	size_t loader_len = loader ? text_len(*loader) + 1 : 1;
	char stripped[loader_len];
	char *env[n + 1];
	size_t k = 0;
	if (loader) {
		for (size_t i = 0; i < kept.loader_name_len; i++)
			stripped[i] = (*loader)[i];
		value_without_lib(*loader + kept.loader_name_len, stripped + kept.loader_name_len);
	}
	for (char *const *e = envp; e && *e; e++) {
		if (starts_with(*e, "ZOND_", 5))
			continue;
		if (e == loader) {
			if (stripped[kept.loader_name_len])
				env[k++] = stripped;
			continue;
		}
		env[k++] = *e;
	}
	env[k] = NULL;
	return call_real(c, env);
}

static int exec_call(const struct zl_exec_call *c, char *const *envp)
{
	if (lib_unreachable())
		return call_without_zond(c, envp);
	if (!env_lacks_zond(envp))
		return call_real(c, envp);
	size_t n = 0;
	for (char *const *e = envp; e && *e; e++)
		n++;
	char *const *theirs = find_var(envp, kept.loader);
	if (theirs && names_lib(*theirs + kept.loader_name_len))
		theirs = NULL; /* zond's library is in it already: kept as it is */
	/* their loader variable with zond's library first: "NAME=lib:theirs" */
	size_t merged_len = theirs ? kept.loader_name_len + text_len(kept.lib) + 1 +
					     text_len(*theirs + kept.loader_name_len) + 1
				   : 1;
	char merged[merged_len];
	char *env[n + kept.n + 1];
	size_t k = 0;
	for (char *const *e = envp; e && *e; e++)
		env[k++] = e == theirs ? merged : *e;
	for (uint32_t i = 0; i < kept.n; i++)
		if (!find_var(envp, kept.vars[i]))
			env[k++] = kept.vars[i];
	env[k] = NULL;
	if (theirs) {
		char *m = merged;
		for (size_t i = 0; i < kept.loader_name_len; i++)
			*m++ = kept.loader[i];
		for (const char *l = kept.lib; *l;)
			*m++ = *l++;
		*m++ = ':';
		for (const char *t = *theirs + kept.loader_name_len; *t;)
			*m++ = *t++;
		*m = 0;
	}
	return call_real(c, env);
}

struct shell_call {
	void *real;
	const char *command, *mode;
	int status;
	void *stream;
};

static void run_system(void *arg)
{
	struct shell_call *s = arg;
	s->status = ((int (*)(const char *))s->real)(s->command);
}

static void run_popen(void *arg)
{
	struct shell_call *s = arg;
	s->stream = ((void *(*)(const char *, const char *))s->real)(s->command, s->mode);
}

int zl_guard_system(int (*real)(const char *), char ***environ, const char *command)
{
	struct shell_call s = {.real = (void *)real, .command = command};
	zl_exec_call(&(struct zl_exec_call){.shape = ZL_EXEC_SHELL, .run = run_system, .arg = &s,
					    .environ = environ},
		     *environ);
	return s.status;
}

void *zl_guard_popen(void *(*real)(const char *, const char *), char ***environ,
		     const char *command, const char *mode)
{
	struct shell_call s = {.real = (void *)real, .command = command, .mode = mode};
	zl_exec_call(&(struct zl_exec_call){.shape = ZL_EXEC_SHELL, .run = run_popen, .arg = &s,
					    .environ = environ},
		     *environ);
	return s.stream;
}

int zl_seccomp_of_prctl(long option, long mode, long prog)
{
	if (option != PR_SET_SECCOMP)
		return ZL_SECCOMP_NONE;
	if (mode == SECCOMP_MODE_STRICT)
		return ZL_SECCOMP_STRICT;
	return mode == SECCOMP_MODE_FILTER && prog ? ZL_SECCOMP_FILTER : ZL_SECCOMP_NONE;
}

int zl_seccomp_of_syscall(long op, long args)
{
	if (op == SECCOMP_SET_MODE_STRICT)
		return ZL_SECCOMP_STRICT;
	return op == SECCOMP_SET_MODE_FILTER && args ? ZL_SECCOMP_FILTER : ZL_SECCOMP_NONE;
}

int zl_guard_seccomp(int mode)
{
	if (mode == ZL_SECCOMP_NONE)
		return zl_sealed;
	int saved_errno = errno;
	/* the samplers' system calls while they are still allowed */
	zl_sample_seal();
	int previous = zl_seal(mode);
	errno = saved_errno;
	return previous;
}

void zl_guard_seccomp_done(int mode, int previous, long ret)
{
	if (mode != ZL_SECCOMP_NONE && ret < 0)
		zl_unseal(previous); /* errno untouched: no libc, no system call */
}
