/*
 * port.c - the Linux port proper, shared by libzond and libzond-audit
 * (linux.h): the data file, thread ids and names, the environment, exit,
 * fork and the probe-cost calibration.  Free of floating point: the audit
 * collector builds it general-register-only.
 */
#define _GNU_SOURCE
#include "linux.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../core/calibrate.h"
#include "../core/port.h"
#include "sample.h"

/* the calling thread's struct (tasks.h, tasks.c: built into each collector) */
struct zrt_thread *zl_owner(void);

/*
 * ZOND_DIR, copied at start-up: the environment's strings are the program's
 * to overwrite (a process title set over argv and environ, as nginx and
 * PostgreSQL do), and a child forked after that still needs the directory.
 */
static char out_dir[PATH_MAX];

/* ---- the core's port interface ------------------------------------------ */

/* The raw file of this process image, for port_reserve_output and port_drop_output. */
static char out_path[PATH_MAX];
/* its mapping, for port_reserve_output when the path is out of reach */
static uint8_t *out_map;
static uint64_t out_bytes;

/*
 * In a forked child that could not make its raw file (lost_processes), the
 * first page of its parent's mapping, kept: the header its own children and
 * exec'ed images are counted in, with the cause (PORT_NO_*) of its own loss.
 */
static struct zr_header *lost_to;
static int lost_why;
static int32_t lost_pid; /* the process whose loss is counted (the audit port's fork
			    handler and fork wrapper both call zl_process_forked) */

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif
#ifndef SYS_faccessat2
#define SYS_faccessat2 439
#endif

/* Why a system call on zond's directory or file failed with err (a negative errno). */
static int why_of(long err)
{
	switch (-err) {
	case ENOSPC:
	case EDQUOT:
	case EFBIG:
	case ENOMEM:
		return PORT_NO_ROOM;
	default: /* EACCES, EPERM after setuid; ENOENT, ENOTDIR after chroot; EROFS, EMFILE... */
		return PORT_NO_ACCESS;
	}
}

/* ---- seccomp ------------------------------------------------------------ */

int zl_sealed;
static int32_t sealed_pid;

int32_t zl_pid(void)
{
	if (__atomic_load_n(&zl_sealed, __ATOMIC_ACQUIRE))
		return sealed_pid;
	return (int32_t)zl_syscall6(SYS_getpid, 0, 0, 0, 0, 0, 0);
}

int zl_seal(int mode)
{
	int previous = __atomic_load_n(&zl_sealed, __ATOMIC_ACQUIRE);
	if (mode <= previous)
		return previous;
	if (!previous)
		sealed_pid = (int32_t)zl_syscall6(SYS_getpid, 0, 0, 0, 0, 0, 0);
	struct zr_header *h = zrt.hdr;
	if (h && !h->seccomp_ticks) {
		uint64_t now = port_clock();
		h->seccomp_ticks = now ? now : 1;
	}
	if (mode == ZL_SECCOMP_STRICT)
		zl_clock_freeze();
	if (h)
		__atomic_fetch_or(&h->flags,
				  ZR_FLAG_SECCOMP | (mode == ZL_SECCOMP_STRICT ? ZR_FLAG_SECCOMP_STRICT : 0),
				  __ATOMIC_RELAXED);
	__atomic_store_n(&zl_sealed, mode, __ATOMIC_RELEASE);
	return previous;
}

void zl_unseal(int previous)
{
	int mode = __atomic_load_n(&zl_sealed, __ATOMIC_ACQUIRE);
	if (mode <= previous)
		return;
	struct zr_header *h = zrt.hdr;
	if (mode == ZL_SECCOMP_STRICT) {
		zl_clock_thaw();
		if (h)
			__atomic_fetch_and(&h->flags, ~ZR_FLAG_SECCOMP_STRICT, __ATOMIC_RELAXED);
	}
	if (!previous && h) {
		__atomic_fetch_and(&h->flags, ~ZR_FLAG_SECCOMP, __ATOMIC_RELAXED);
		h->seccomp_ticks = 0;
	}
	__atomic_store_n(&zl_sealed, previous, __ATOMIC_RELEASE);
}

static int sealed(void)
{
	return __atomic_load_n(&zl_sealed, __ATOMIC_RELAXED) != ZL_SECCOMP_NONE;
}

int32_t zl_tid(void)
{
	return (int32_t)zl_syscall6(SYS_gettid, 0, 0, 0, 0, 0, 0);
}

/* ---- ids as zond sees them ---------------------------------------------- */

/*
 * A process in a pid namespace of its own (unshare(CLONE_NEWPID) then a
 * fork, as sandboxes, container runtimes and `unshare -fp` make them) has
 * ids of its own there: two such processes are both pid 1, and their
 * threads were filed as one (QA s14 V2 F6).  The ids the /proc it sees
 * shows are in /proc/self/status: NSpid (that /proc's namespace's first,
 * the process's own last) and PPid.  That /proc is zond's unless the program
 * mounted one of its own namespace: a forked child reads it before it can
 * mount one, so a child made pid 1 has its outer ids.  Learned at start-up
 * and in a forked child, never per call; a thread's at its first call, and
 * only in a process nested below /proc's namespace (raw.h zr_header.pid_levels).
 */
static struct zrt_ids ids;

/* What a status file says: NSpid's first and last ids and their count, PPid. */
struct status_ids {
	int32_t first, last, ppid;
	uint32_t levels;
	int has_ppid;
};

enum { KEY_OTHER, KEY_NSPID, KEY_PPID };

/* 1 when the len bytes at key are word (no libc: the audit wrapper may call this). */
static int is_key(const char *key, int len, const char *word)
{
	int i = 0;
	for (; i < len && word[i] && key[i] == word[i]; i++)
		;
	return i == len && !word[i];
}

/* The key of a status line ("NSpid", "PPid"), its len bytes at key. */
static int status_key(const char *key, int len)
{
	if (is_key(key, len, "NSpid"))
		return KEY_NSPID;
	if (is_key(key, len, "PPid"))
		return KEY_PPID;
	return KEY_OTHER;
}

static void status_number(struct status_ids *st, int key, int64_t n)
{
	if (n < 0 || n > INT32_MAX)
		return;
	if (key == KEY_PPID) {
		st->ppid = (int32_t)n;
		st->has_ppid = 1;
	} else if (key == KEY_NSPID) {
		if (!st->levels++)
			st->first = (int32_t)n;
		st->last = (int32_t)n;
	}
}

/*
 * Reads the status file at path into *st (levels 0 when it cannot be read),
 * a few hundred bytes at a time: system calls and the caller's stack only.
 */
static void status_ids(const char *path, struct status_ids *st)
{
	*st = (struct status_ids){0};
	long fd = zl_syscall6(SYS_openat, AT_FDCWD, (long)path, O_RDONLY | O_CLOEXEC, 0, 0, 0);
	if (fd < 0)
		return;
	char buf[256], key[8];
	int len = 0, in_key = 1, which = KEY_OTHER, done = 0;
	int64_t n = -1;
	long got;
	while (!done && (got = zl_syscall6(SYS_read, fd, (long)buf, sizeof buf, 0, 0, 0)) > 0) {
		for (long i = 0; i < got && !done; i++) {
			char c = buf[i];
			if (c == '\n' || (!in_key && (c < '0' || c > '9'))) {
				status_number(st, which, n);
				n = -1;
			}
			if (c == '\n') {
				done = which == KEY_NSPID; /* the last line wanted */
				in_key = 1, len = 0, which = KEY_OTHER;
			} else if (in_key && c == ':') {
				in_key = 0;
				which = status_key(key, len);
			} else if (in_key) {
				if (len < (int)sizeof key)
					key[len] = c;
				len += len <= (int)sizeof key; /* a longer key matches none */
			} else if (which != KEY_OTHER && c >= '0' && c <= '9') {
				n = (n < 0 ? 0 : n) * 10 + (c - '0');
				if (n > INT32_MAX)
					n = INT64_MAX / 16;
			}
		}
	}
	zl_syscall6(SYS_close, fd, 0, 0, 0, 0, 0);
}

/* The inode of the process's pid namespace ("pid:[4026531836]"), 0 unknown. */
static uint64_t pid_ns_inode(void)
{
	char link[64];
	long n = zl_syscall6(SYS_readlinkat, AT_FDCWD, (long)"/proc/self/ns/pid", (long)link,
			     sizeof link, 0, 0);
	uint64_t ino = 0;
	for (long i = 0; i < n; i++)
		if (link[i] >= '0' && link[i] <= '9')
			ino = ino * 10 + (uint64_t)(link[i] - '0');
	return ino;
}

/* The calling process's ids (and the ids of its threads after it) into *out. */
static void learn_ids(struct zrt_ids *out)
{
	int32_t own = zl_pid();
	struct status_ids st;
	status_ids("/proc/self/status", &st);
	if (st.levels && st.last != own) /* not this process's: not a /proc we know */
		st.levels = 0;
	ids = (struct zrt_ids){
		.pid = st.levels ? st.first : own,
		.ppid = st.levels && st.has_ppid
				? st.ppid
				: (int32_t)zl_syscall6(SYS_getppid, 0, 0, 0, 0, 0, 0),
		.ns_pid = own,
		.pid_levels = st.levels,
		.pid_ns = pid_ns_inode(),
	};
	*out = ids;
}

int zl_own_image(const struct zr_header *h)
{
	return h->ns_pid == zl_pid();
}

/* Appends s to the path being built at *at (end: one past the buffer): 0, or -1 when full. */
static int append(char **at, char *end, const char *s)
{
	for (; *s; s++) {
		if (*at + 1 >= end)
			return -1;
		*(*at)++ = *s;
	}
	**at = 0;
	return 0;
}

static int append_uint(char **at, char *end, uint64_t n)
{
	char digits[24];
	char *d = digits + sizeof digits - 1;
	*d = 0;
	do
		*--d = (char)('0' + n % 10);
	while (n /= 10);
	return append(at, end, d);
}

/* out_dir/<pid>.<n>.zraw (the pid as /proc shows it, learn_ids): 0, or -1 when too long. */
static int raw_path(char *path, size_t size, int n)
{
	char *at = path, *end = path + size;
	return append(&at, end, out_dir) || append(&at, end, "/") ||
			       append_uint(&at, end, (uint32_t)ids.pid) ||
			       append(&at, end, ".") || append_uint(&at, end, (uint32_t)n) ||
			       append(&at, end, ".zraw")
		       ? -1
		       : 0;
}

/*
 * openat(path, flags, 0644); where the program has used up its fds (EMFILE:
 * a server at its soft limit, a small `ulimit -n`), once more with the soft
 * limit raised to the hard one for the call where that leaves room: the
 * callers close the fd at once (the file stays mapped), and the program's
 * limit is back before it runs on.
 */
static long open_raw(const char *path, int flags)
{
	long fd = zl_syscall6(SYS_openat, AT_FDCWD, (long)path, flags, 0644, 0, 0);
	struct {
		uint64_t cur, max;
	} lim, raised;
	if (fd != -EMFILE ||
	    zl_syscall6(SYS_prlimit64, 0, RLIMIT_NOFILE, 0, (long)&lim, 0, 0) != 0 ||
	    lim.cur >= lim.max)
		return fd;
	/* the lowest free fd may be far above the limit (fds inherited open): the hard one */
	raised = lim;
	raised.cur = lim.max;
	if (zl_syscall6(SYS_prlimit64, 0, RLIMIT_NOFILE, (long)&raised, 0, 0, 0) != 0)
		return fd;
	fd = zl_syscall6(SYS_openat, AT_FDCWD, (long)path, flags, 0644, 0, 0);
	zl_syscall6(SYS_prlimit64, 0, RLIMIT_NOFILE, (long)&lim, 0, 0, 0);
	return fd;
}

/*
 * System calls only, here as everywhere the runtime can: the program may
 * define open, mmap or malloc itself (and its own are not ours to call).
 */
void *port_map_output(uint64_t bytes, int *why)
{
	*why = PORT_NO_ACCESS;
	if (sealed())
		return NULL;
	char *path = out_path;
	long fd = -EEXIST;
	for (int n = 0; n < 1000 && fd == -EEXIST; n++) {
		if (raw_path(path, sizeof out_path, n) < 0)
			return NULL;
		fd = open_raw(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC);
	}
	if (fd < 0) {
		*why = why_of(fd);
		return NULL;
	}
	long map = zl_syscall6(SYS_ftruncate, fd, (long)bytes, 0, 0, 0, 0);
	if (map == 0)
		map = zl_syscall6(SYS_mmap, 0, (long)bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
				  0);
	zl_syscall6(SYS_close, fd, 0, 0, 0, 0, 0);
	if (map < 0 && map > -4096) {
		*why = why_of(map);
		zl_syscall6(SYS_unlinkat, AT_FDCWD, (long)path, 0, 0, 0, 0);
		return NULL;
	}
	out_map = (uint8_t *)map;
	out_bytes = bytes;
	/*
	 * A first touch of a hole would otherwise read ahead (and zero) a large
	 * run of page cache after it: most of the start-up cost on ext4.  The
	 * tables are touched sparsely; one page a fault is what they need.
	 */
	zl_syscall6(SYS_madvise, map, (long)bytes, MADV_RANDOM, 0, 0, 0);
	return (void *)map;
}

/* The soft limit of resource (RLIM_INFINITY is UINT64_MAX); UINT64_MAX when unknown. */
static uint64_t soft_limit(int resource)
{
	struct {
		uint64_t cur, max;
	} lim;
	if (zl_syscall6(SYS_prlimit64, 0, resource, 0, (long)&lim, 0, 0) != 0)
		return UINT64_MAX;
	return lim.cur;
}

/*
 * The address space the process has mapped now (/proc/self/statm's first
 * field, in pages), by system calls; 0 when it cannot be read.
 */
static uint64_t mapped_now(void)
{
	char text[128];
	long fd = zl_syscall6(SYS_openat, AT_FDCWD, (long)"/proc/self/statm", O_RDONLY | O_CLOEXEC,
			      0, 0, 0);
	if (fd < 0)
		return 0;
	long n = zl_syscall6(SYS_read, fd, (long)text, sizeof text - 1, 0, 0, 0);
	zl_syscall6(SYS_close, fd, 0, 0, 0, 0, 0);
	uint64_t pages = 0;
	for (long i = 0; i < n && text[i] >= '0' && text[i] <= '9'; i++)
		pages = pages * 10 + (uint64_t)(text[i] - '0');
	return pages * 4096;
}

/*
 * RLIMIT_FSIZE, and under an address-space limit (ulimit -v) a small share
 * of what is left of it (AS_SHARE): the mapping comes out of the program's
 * own budget, which must stay (nearly) what it is without zond.  What does
 * not fit is zond's data, lost and counted (core.c map_file_with_room).
 */
enum { AS_SHARE = 32 };

uint64_t port_output_limit(void)
{
	uint64_t file = soft_limit(RLIMIT_FSIZE), space = soft_limit(RLIMIT_AS);
	if (space == UINT64_MAX)
		return file;
	uint64_t used = mapped_now(), left = space > used ? space - used : 0;
	return left / AS_SHARE < file ? left / AS_SHARE : file;
}

/*
 * A thread's first call may come from the audit wrapper: system calls only.
 * The file is opened again by its path: an fd kept open would be one more
 * fd in the program (and a program closing fds it does not know would close it).
 *
 * A process that changed its user (setuid: EACCES, zond's directory is
 * private) or its root (chroot: ENOENT), or has no fd left (EMFILE), cannot
 * open it: its blocks are then had through the mapping it still holds,
 * MADV_POPULATE_WRITE (Linux 5.14), which faults the pages in for writing
 * as a write would (the file system allocates or reserves their blocks),
 * and fails with EFAULT where a write would raise SIGBUS (a full file
 * system), never with the signal.  The pages so populated are the page
 * cache's, resident and dirty (zeros), where fallocate reserved blocks
 * alone: the reserved parts of a slot's tables (about 1.1 MiB a thread,
 * then each table's growth).  Without it (EINVAL: an older kernel), the
 * open's failure is the cause: PORT_NO_ACCESS (or PORT_NO_ROOM).
 */
int port_reserve_output(uint64_t offset, uint64_t bytes)
{
	if (sealed())
		return PORT_NO_ROOM;
	long fd = open_raw(out_path, O_RDWR | O_CLOEXEC);
	if (fd >= 0) {
		long rc = zl_syscall6(SYS_fallocate, fd, 0, (long)offset, (long)bytes, 0, 0);
		zl_syscall6(SYS_close, fd, 0, 0, 0, 0, 0);
		/* a file system that cannot preallocate: the pages stay holes, as before */
		return rc == 0 || rc == -EOPNOTSUPP ? 0 : PORT_NO_ROOM;
	}
	if (!out_map || offset >= out_bytes)
		return why_of(fd);
	uint64_t lo = offset & ~(uint64_t)4095, hi = (offset + bytes + 4095) & ~(uint64_t)4095;
	if (hi > out_bytes)
		hi = out_bytes;
	long rc = zl_syscall6(SYS_madvise, (long)(out_map + lo), (long)(hi - lo),
			      MADV_POPULATE_WRITE, 0, 0, 0);
	if (rc == 0)
		return 0;
	/* EFAULT: a write would have been a SIGBUS (no room); EINVAL: not in this kernel */
	return rc == -EINVAL || rc == -ENOSYS ? why_of(fd) : PORT_NO_ROOM;
}

/*
 * 1 when this process can no longer create a file in zond's directory, as
 * the kernel checks it (effective ids, capabilities, its root): it changed
 * its user (setuid: the directory is private to zond's user) or root
 * (chroot).  A process image it execs would then not be recorded.
 */
static int dir_unreachable(void)
{
	if (!out_dir[0] || sealed())
		return 0;
	long rc = zl_syscall6(SYS_faccessat2, AT_FDCWD, (long)out_dir, W_OK | X_OK, AT_EACCESS, 0,
			      0);
	if (rc == -ENOSYS) /* before Linux 5.8: the real ids (a setuid drops both) */
		rc = zl_syscall6(SYS_faccessat, AT_FDCWD, (long)out_dir, W_OK | X_OK, 0, 0, 0);
	return rc == -EACCES || rc == -EPERM || rc == -ENOENT || rc == -ENOTDIR ||
	       rc == -EROFS || rc == -ELOOP;
}

/* The header a process not recorded is counted in: this image's, or lost_to. */
static struct zr_header *tally(void)
{
	return zrt.hdr ? zrt.hdr : lost_to;
}

struct zr_header *zl_count_lost_image(int secure)
{
	struct zr_header *h = tally();
	if (!h || !(secure || dir_unreachable()))
		return NULL;
	__atomic_fetch_add(&h->lost_processes, 1, __ATOMIC_RELAXED);
	return h;
}

int zl_recording_lost(void)
{
	return lost_to != NULL;
}

void zl_uncount_lost_image(struct zr_header *h)
{
	if (h)
		__atomic_fetch_sub(&h->lost_processes, 1, __ATOMIC_RELAXED);
}

void port_drop_output(void *map, uint64_t bytes)
{
	if (sealed())
		return;
	zl_syscall6(SYS_munmap, (long)map, (long)bytes, 0, 0, 0, 0);
	zl_syscall6(SYS_unlinkat, AT_FDCWD, (long)out_path, 0, 0, 0, 0);
}

/* A thread's first call may come from the audit wrapper: no libc. */
void *port_map_index(uint64_t bytes)
{
	if (sealed())
		return NULL;
	long m = zl_syscall6(SYS_mmap, 0, (long)bytes, PROT_READ | PROT_WRITE,
			     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return m < 0 && m > -4096 ? NULL : (void *)m;
}

void port_unmap_index(void *p, uint64_t bytes)
{
	if (sealed())
		return; /* kept: a few pages */
	zl_syscall6(SYS_munmap, (long)p, (long)bytes, 0, 0, 0, 0);
}

/* The thread's id as /proc shows it (learn_ids); the kernel's calls take zl_tid's. */
int32_t port_thread_id(void)
{
	if (sealed())
		return 0; /* not reached: no thread is attached once sealed */
	int32_t tid = zl_tid();
	if (ids.pid_levels < 2)
		return tid; /* /proc's namespace is the process's own: its ids are /proc's */
	if (tid == ids.ns_pid)
		return ids.pid;
	struct status_ids st;
	status_ids("/proc/thread-self/status", &st);
	/* else a /proc of the process's own namespace, mounted since: that namespace's tid */
	return st.levels == ids.pid_levels && st.last == tid ? st.first : tid;
}

void port_thread_name(char name[16])
{
	if (sealed())
		return; /* the name it had */
	zl_syscall6(SYS_prctl, PR_GET_NAME, (long)name, 0, 0, 0, 0);
	name[15] = 0;
}

void zl_anchor(struct zrt_anchor *a)
{
	/*
	 * The wall clock between two reads of the port's: its time is their
	 * midpoint's, within half the gap; of three tries the narrowest gap (one
	 * preempted in its system call would be milliseconds off).
	 */
	uint64_t best = UINT64_MAX;
	for (int i = 0; i < 3; i++) {
		uint64_t before = port_clock();
		int64_t realtime_ns = zl_realtime_ns();
		uint64_t after = port_clock();
		if (after - before < best) {
			best = after - before;
			a->ticks = before + best / 2;
			a->realtime_ns = realtime_ns;
		}
	}
}

int64_t zl_realtime_ns(void)
{
	struct {
		long sec, nsec;
	} ts = {0, 0};
	zl_syscall6(SYS_clock_gettime, CLOCK_REALTIME, (long)&ts, 0, 0, 0, 0);
	return (int64_t)ts.sec * 1000000000 + ts.nsec;
}

/* ---- the environment ---------------------------------------------------- */

/* getenv, read from environ directly: not a function the program may have replaced. */
const char *zl_getenv(const char *name)
{
	for (char **e = environ; e && *e; e++) {
		const char *v = *e, *n = name;
		while (*n && *v == *n)
			v++, n++;
		if (!*n && *v == '=')
			return v + 1;
	}
	return NULL;
}

uint64_t zl_env_number(const char *name, uint64_t fallback, uint64_t min, uint64_t max)
{
	const char *s = zl_getenv(name);
	if (!s || !*s)
		return fallback;
	uint64_t v = 0;
	for (; *s >= '0' && *s <= '9' && v <= max; s++)
		v = v * 10 + (uint64_t)(*s - '0');
	return *s || v < min || v > max ? fallback : v;
}

static uint32_t env_count(const char *name, uint32_t fallback, uint32_t max)
{
	return (uint32_t)zl_env_number(name, fallback, 1, max);
}

int zl_env_flag(const char *name)
{
	const char *s = zl_getenv(name);
	return s && *s && !(s[0] == '0' && !s[1]);
}

int zl_configure(struct zrt_config *cfg)
{
	const char *dir = zl_getenv("ZOND_DIR");
	size_t len = dir ? strlen(dir) : 0;
	if (!len || len >= sizeof out_dir)
		return -1;
	memcpy(out_dir, dir, len + 1);
	cfg->max_threads = env_count("ZOND_THREADS", cfg->max_threads, 1u << 16);
	cfg->max_funcs = env_count("ZOND_FUNCS", cfg->max_funcs, 1u << 24);
	cfg->max_edges = env_count("ZOND_EDGES", cfg->max_edges, 1u << 26);
	cfg->max_depth = env_count("ZOND_DEPTH", cfg->max_depth, 1u << 20);
	cfg->max_contexts = env_count("ZOND_CONTEXTS", cfg->max_contexts ? cfg->max_contexts : 1u << 20,
				      1u << 26);
	cfg->flags |= zl_env_flag("ZOND_NO_TIME") ? ZR_FLAG_NO_TIME : ZR_FLAG_BOUND_SUMS;
	/* the timeline (timeline.h): events per thread's ring, 0 or unset: none */
	cfg->timeline_events = (uint32_t)zl_env_number("ZOND_TIMELINE", 0, 1, 1u << 26);
	const char *keep = zl_getenv("ZOND_TIMELINE_KEEP");
	if (keep && keep[0] == 'n' && keep[1] == 'e' && keep[2] == 'w')
		cfg->timeline_flags |= ZR_TIMELINE_KEEP_NEWEST;
	learn_ids(&cfg->ids);
	zl_clock_setup(cfg, !(cfg->flags & ZR_FLAG_NO_TIME));
	zl_anchor(&cfg->start);
	return 0;
}

/* ---- exit and fork ------------------------------------------------------ */

/*
 * The wall-clock time of an end, and the clock's rate refined; neither
 * under seccomp (system calls; the TSC read in strict mode): the reader
 * then takes the end from the clock (end_realtime_ns 0).
 */
static int64_t end_realtime(struct zr_header *h)
{
	if (sealed())
		return 0;
	zl_clock_refine(&h->ticks_per_sec);
	return zl_realtime_ns();
}

void zl_process_end(int exited, int status)
{
	if (!zrt.hdr || !zl_own_image(zrt.hdr))
		return; /* a vfork child: the file is its parent's */
	/*
	 * The ending thread's name, read again: no thread end reads it
	 * (zrt_thread_end), and a main thread renamed after its first call
	 * (prctl(PR_SET_NAME)) kept its first name.
	 */
	struct zrt_thread *t = zl_owner();
	if (t && t->state == ZRT_THREAD_ON && t->info)
		port_thread_name(t->info->name);
	zrt_process_end(exited, status, end_realtime(zrt.hdr));
}

void zl_process_exec(struct zrt_thread *t, struct zl_exec_note *note)
{
	struct zr_header *h = zrt.hdr;
	note->noted = 0;
	/* the new image will not be recorded: counted now, taken back if the exec fails */
	note->lost = zl_count_lost_image(note->secure);
	if (!h || !zl_own_image(h) || h->state != ZR_RUNNING)
		return;
	zrt_process_end(0, 0, end_realtime(h));
	if (t && t->state == ZRT_THREAD_ON) {
		/* its name now (a prctl rename since its first call); the new image names its own */
		port_thread_name(t->info->name);
		note->last_ticks = t->info->last_ticks;
		if (h->end_ticks > t->info->last_ticks)
			t->info->last_ticks = h->end_ticks;
	}
	__atomic_store_n(&h->state, ZR_EXECED, __ATOMIC_RELEASE);
	note->noted = 1;
}

void zl_process_exec_failed(struct zrt_thread *t, const struct zl_exec_note *note)
{
	struct zr_header *h = zrt.hdr;
	zl_uncount_lost_image(note->lost);
	if (!note->noted || !h)
		return;
	__atomic_store_n(&h->state, ZR_RUNNING, __ATOMIC_RELEASE);
	h->end_ticks = 0;
	h->end_realtime_ns = 0;
	if (t && t->state == ZRT_THREAD_ON)
		t->info->last_ticks = note->last_ticks;
}

void zl_process_forked(struct zrt_thread *t)
{
	if (!zrt.hdr) {
		/* a child of a process that was not recorded itself: counted where it was */
		if (lost_to && !sealed() && lost_pid != zl_pid()) {
			lost_pid = zl_pid();
			__atomic_fetch_add(lost_why == PORT_NO_ACCESS ? &lost_to->lost_processes
								      : &lost_to->lost_processes_room,
					   1, __ATOMIC_RELAXED);
		}
		return;
	}
	if (sealed()) {
		/* the parent's file stays the parent's: nothing more of this process is written */
		t->state = ZRT_THREAD_OFF;
		zrt.hdr = NULL;
		return;
	}
	void *old = zrt.base;
	uint64_t old_bytes = zrt.file_bytes;
	zl_sample_forked();
	struct zrt_ids child;
	learn_ids(&child);
	struct zrt_anchor start;
	zl_anchor(&start);
	int why = zrt_process_forked(t, &child, &start);
	if (why < 0) {
		/* not recorded (counted in the parent's header): that header kept for its
		   children and exec'ed images, the rest of the parent's file let go */
		if (old_bytes > 4096)
			zl_syscall6(SYS_munmap, (long)((uint8_t *)old + 4096),
				    (long)(old_bytes - 4096), 0, 0, 0, 0);
		lost_to = old;
		lost_why = why;
		lost_pid = zl_pid();
		return;
	}
	zl_syscall6(SYS_munmap, (long)old, (long)old_bytes, 0, 0, 0, 0);
}

/* ---- probe cost --------------------------------------------------------- */

void zl_calibrate(struct zrt_thread *t, void (*probed)(uint64_t outer, uint64_t leaf),
		  void (*bare)(void))
{
	zrt_calibrate(t, probed, bare, ZL_CALIBRATION_CALLS);
}
