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
#include <sys/syscall.h>
#include <unistd.h>

#include "../core/port.h"

static const char *out_dir;

/* ---- the core's port interface ------------------------------------------ */

void *port_map_output(uint64_t bytes)
{
	char path[PATH_MAX];
	int fd = -1;
	for (int n = 0; n < 1000 && fd < 0; n++) {
		snprintf(path, sizeof path, "%s/%d.%d.zraw", out_dir, (int)getpid(), n);
		fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		if (fd < 0 && errno != EEXIST)
			return NULL;
	}
	if (fd < 0)
		return NULL;
	void *map = MAP_FAILED;
	if (ftruncate(fd, (off_t)bytes) == 0)
		map = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (map == MAP_FAILED) {
		unlink(path);
		return NULL;
	}
	/*
	 * A first touch of a hole would otherwise read ahead (and zero) a large
	 * run of page cache after it: most of the start-up cost on ext4.  The
	 * tables are touched sparsely; one page a fault is what they need.
	 */
	madvise(map, bytes, MADV_RANDOM);
	return map;
}

/* A thread's first call may come from the audit wrapper: no libc. */
void *port_map_index(uint64_t bytes)
{
	long m = zl_syscall6(SYS_mmap, 0, (long)bytes, PROT_READ | PROT_WRITE,
			     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return m < 0 && m > -4096 ? NULL : (void *)m;
}

int32_t port_thread_id(void)
{
	return (int32_t)zl_syscall6(SYS_gettid, 0, 0, 0, 0, 0, 0);
}

void port_thread_name(char name[16])
{
	zl_syscall6(SYS_prctl, PR_GET_NAME, (long)name, 0, 0, 0, 0);
	name[15] = 0;
}

int64_t zl_realtime_ns(void)
{
	struct {
		long sec, nsec;
	} ts = {0, 0};
	zl_syscall6(SYS_clock_gettime, CLOCK_REALTIME, (long)&ts, 0, 0, 0, 0);
	return (int64_t)ts.sec * 1000000000 + ts.nsec;
}

static int32_t current_pid(void)
{
	return (int32_t)zl_syscall6(SYS_getpid, 0, 0, 0, 0, 0, 0);
}

/* ---- the environment ---------------------------------------------------- */

static uint32_t env_count(const char *name, uint32_t fallback, uint32_t max)
{
	const char *s = getenv(name);
	if (!s || !*s)
		return fallback;
	char *end;
	unsigned long v = strtoul(s, &end, 10);
	return *end || v == 0 || v > max ? fallback : (uint32_t)v;
}

int zl_env_flag(const char *name)
{
	const char *s = getenv(name);
	return s && *s && strcmp(s, "0") != 0;
}

int zl_configure(struct zrt_config *cfg)
{
	out_dir = getenv("ZOND_DIR");
	if (!out_dir || !*out_dir)
		return -1;
	cfg->max_threads = env_count("ZOND_THREADS", cfg->max_threads, 1u << 16);
	cfg->max_funcs = env_count("ZOND_FUNCS", cfg->max_funcs, 1u << 24);
	cfg->max_edges = env_count("ZOND_EDGES", cfg->max_edges, 1u << 26);
	cfg->max_depth = env_count("ZOND_DEPTH", cfg->max_depth, 1u << 20);
	cfg->max_contexts = env_count("ZOND_CONTEXTS", cfg->max_contexts ? cfg->max_contexts : 65536,
				      1u << 26);
	cfg->flags |= zl_env_flag("ZOND_NO_TIME") ? ZR_FLAG_NO_TIME : 0;
	cfg->pid = current_pid();
	cfg->ppid = (int32_t)zl_syscall6(SYS_getppid, 0, 0, 0, 0, 0, 0);
	zl_clock_setup(cfg, !(cfg->flags & ZR_FLAG_NO_TIME));
	cfg->start_realtime_ns = zl_realtime_ns();
	return 0;
}

/* ---- exit and fork ------------------------------------------------------ */

void zl_process_end(int exited, int status)
{
	if (zrt.hdr && zrt.hdr->pid == current_pid()) {
		zl_clock_refine(&zrt.hdr->ticks_per_sec);
		zrt_process_end(exited, status, zl_realtime_ns());
	}
}

void zl_process_exec(struct zrt_thread *t, struct zl_exec_note *note)
{
	struct zr_header *h = zrt.hdr;
	note->noted = 0;
	if (!h || h->pid != current_pid() || h->state != ZR_RUNNING)
		return;
	zl_clock_refine(&h->ticks_per_sec);
	zrt_process_end(0, 0, zl_realtime_ns());
	if (t && t->state == ZRT_THREAD_ON) {
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
	if (!zrt.hdr)
		return;
	void *old = zrt.base;
	uint64_t old_bytes = zrt.file_bytes;
	zrt_process_forked(t, current_pid(), (int32_t)zl_syscall6(SYS_getppid, 0, 0, 0, 0, 0, 0),
			   zl_realtime_ns());
	zl_syscall6(SYS_munmap, (long)old, (long)old_bytes, 0, 0, 0, 0);
}

/* ---- probe cost --------------------------------------------------------- */

enum { CALIBRATION_ROUNDS = 10 };

/* Fake function addresses: below any mapping, so no module is recorded for them. */
static uint64_t fake_fn(int round, int which)
{
	return 0x100u + 0x20u * (uint64_t)(2 * round + which);
}

void zl_calibrate(struct zrt_thread *t, void (*probed)(uint64_t outer, uint64_t leaf),
		  void (*bare)(void))
{
	uint64_t slot_bytes = zrt_thread_bytes(), bytes = slot_bytes + zrt_index_bytes();
	uint8_t *scratch =
		mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (scratch == MAP_FAILED)
		return;
	struct zrt_thread saved = *t;
	zrt_thread_bind(t, scratch, scratch + slot_bytes);
	t->state = ZRT_THREAD_ON;
	uint64_t inner = UINT64_MAX, pair = UINT64_MAX;
	for (int r = 0; r < CALIBRATION_ROUNDS; r++) {
		uint64_t outer = fake_fn(r, 0), leaf = fake_fn(r, 1);
		probed(outer, leaf);
		uint64_t t0 = port_clock();
		bare();
		uint64_t base = port_clock() - t0;
		uint64_t round_inner = 0, round_pair = 0;
		for (uint32_t i = 0; i < t->info->n_funcs; i++) {
			uint64_t self, incl;
			zrt_func_times(t, i, &self, &incl);
			if (t->funcs[i].addr == leaf)
				round_inner = self / ZL_CALIBRATION_CALLS;
			if (t->funcs[i].addr == outer && incl > base)
				round_pair = (incl - base) / ZL_CALIBRATION_CALLS;
		}
		if (round_inner < inner)
			inner = round_inner;
		if (round_pair < pair)
			pair = round_pair;
	}
	*t = saved;
	munmap(scratch, bytes);
	if (pair < inner)
		pair = inner;
	zrt.inner = inner;
	zrt.pair = pair;
	zrt.hdr->overhead_inner_ticks = inner;
	zrt.hdr->overhead_pair_ticks = pair;
}
