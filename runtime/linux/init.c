/*
 * init.c - start-up and the life of the process on Linux: reading the
 * environment (doc/architecture.md), creating the raw file, calibrating the
 * probe cost, and noting thread ends, exit, _exit and fork.
 *
 * No signal handler is installed: the tables live in a MAP_SHARED file, so a
 * crash loses only the end time, and the program's signals stay its own.
 */
#define _GNU_SOURCE
#include "linux.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../core/port.h"

__thread struct zrt_thread zl_self __attribute__((tls_model("initial-exec")));
char zl_exe_path[4096];

enum { START_NONE, START_RUNNING, START_DONE };
static uint32_t start_state;
static pthread_key_t thread_key;
static const char *out_dir;
static void (*real_exit)(int);

/* ---- the port interface ------------------------------------------------ */

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
	return map;
}

int32_t port_thread_id(void)
{
	return (int32_t)syscall(SYS_gettid);
}

void port_thread_name(char name[16])
{
	prctl(PR_GET_NAME, name, 0, 0, 0);
	name[15] = 0;
}

void port_thread_attached(void)
{
	/* any non-NULL value: the key's destructor runs when the thread ends */
	pthread_setspecific(thread_key, &zl_self);
}

static void thread_gone(void *arg)
{
	(void)arg;
	zrt_thread_end(&zl_self);
}

/* ---- environment ------------------------------------------------------- */

static uint32_t env_count(const char *name, uint32_t fallback, uint32_t max)
{
	const char *s = getenv(name);
	if (!s || !*s)
		return fallback;
	char *end;
	unsigned long v = strtoul(s, &end, 10);
	if (*end || v == 0 || v > max)
		return fallback;
	return (uint32_t)v;
}

static int env_flag(const char *name)
{
	const char *s = getenv(name);
	return s && *s && strcmp(s, "0") != 0;
}

static void read_config(struct zrt_config *cfg)
{
	cfg->max_threads = env_count("ZOND_THREADS", 64, 1u << 16);
	cfg->max_funcs = env_count("ZOND_FUNCS", 16384, 1u << 24);
	cfg->max_edges = env_count("ZOND_EDGES", 65536, 1u << 26);
	cfg->max_depth = env_count("ZOND_DEPTH", 4096, 1u << 20);
	cfg->max_modules = 512;
	/* module paths and block names: room for a fair share per function */
	cfg->string_bytes =
		65536 + 64 * (cfg->max_funcs < (1u << 16) ? cfg->max_funcs : (1u << 16));
	cfg->flags = env_flag("ZOND_NO_TIME") ? ZR_FLAG_NO_TIME : 0;
	cfg->manual = env_flag("ZOND_MANUAL");
	cfg->pid = (int32_t)getpid();
	cfg->ppid = (int32_t)getppid();
}

/* ---- probe cost -------------------------------------------------------- */

enum { CALIBRATION_CALLS = 2000, CALIBRATION_ROUNDS = 12 };

/* Fake function addresses: below any mapping, so no module is recorded for them. */
static uint64_t fake_fn(int round, int which)
{
	return 0x100u + 0x20u * (uint64_t)(2 * round + which);
}

__attribute__((noinline)) static void empty_leaf(uint64_t fn)
{
	__asm__ volatile("" : : "r"(fn) : "memory");
}

/*
 * Shaped like instrumented code: the barrier after the exit probe keeps it a
 * call from the same frame as the entry probe, not a tail call.
 */
__attribute__((noinline)) static void probed_leaf(uint64_t fn)
{
	__cyg_profile_func_enter((void *)fn, NULL);
	__cyg_profile_func_exit((void *)fn, NULL);
	__asm__ volatile("" : : : "memory");
}

__attribute__((noinline)) static void probed_loop(uint64_t outer, uint64_t leaf)
{
	__cyg_profile_func_enter((void *)outer, NULL);
	for (int i = 0; i < CALIBRATION_CALLS; i++)
		probed_leaf(leaf);
	__cyg_profile_func_exit((void *)outer, NULL);
}

static uint64_t loop_cost(void)
{
	uint64_t t0 = zl_clock();
	for (int i = 0; i < CALIBRATION_CALLS; i++)
		empty_leaf(0);
	return zl_clock() - t0;
}

/*
 * Runs the real hooks on a scratch thread slot with no correction: an empty
 * leaf's own time is the inner part of a probe pair, and its parent's time
 * per call, less a bare loop, the whole pair.  The cheapest round wins.
 */
static void calibrate_probes(void)
{
	uint64_t bytes = zrt_thread_bytes();
	void *scratch =
		mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (scratch == MAP_FAILED)
		return;
	struct zrt_thread saved = zl_self;
	zrt_thread_bind(&zl_self, scratch);
	zl_self.state = ZRT_THREAD_ON;
	uint64_t inner = UINT64_MAX, pair = UINT64_MAX;
	for (int r = 0; r < CALIBRATION_ROUNDS; r++) {
		uint64_t outer = fake_fn(r, 0), leaf = fake_fn(r, 1);
		probed_loop(outer, leaf);
		uint64_t base = loop_cost();
		uint64_t round_inner = 0, round_pair = 0;
		for (uint32_t i = 0; i < zl_self.info->n_funcs; i++) {
			const struct zr_func *f = &zl_self.funcs[i];
			if (f->addr == leaf)
				round_inner = f->self / CALIBRATION_CALLS;
			if (f->addr == outer)
				round_pair =
					f->incl > base ? (f->incl - base) / CALIBRATION_CALLS : 0;
		}
		if (round_inner < inner)
			inner = round_inner;
		if (round_pair < pair)
			pair = round_pair;
	}
	zl_self = saved;
	munmap(scratch, bytes);
	if (pair < inner)
		pair = inner;
	zrt.inner = inner;
	zrt.pair = pair;
	zrt.hdr->overhead_inner_ticks = inner;
	zrt.hdr->overhead_pair_ticks = pair;
}

/* ---- exit and fork ----------------------------------------------------- */

/* A vfork child shares our memory: it must not end the parent's file. */
static int is_our_process(void)
{
	return zrt.hdr && zrt.hdr->pid == (int32_t)getpid();
}

static void on_process_exit(int status, void *arg)
{
	(void)arg;
	if (is_our_process())
		zrt_process_end(1, status, zl_realtime_ns());
}

__attribute__((visibility("default"), noreturn)) void _exit(int status)
{
	if (is_our_process())
		zrt_process_end(1, status, zl_realtime_ns());
	if (real_exit)
		real_exit(status);
	for (;;)
		syscall(SYS_exit_group, status);
}

__attribute__((visibility("default"), noreturn)) void _Exit(int status)
{
	_exit(status);
}

static void in_forked_child(void)
{
	if (!zrt.hdr)
		return;
	void *old = zrt.base;
	uint64_t old_bytes = zrt.file_bytes;
	zrt_process_forked(&zl_self, (int32_t)getpid(), (int32_t)getppid(), zl_realtime_ns());
	munmap(old, old_bytes);
}

/* ---- start-up ---------------------------------------------------------- */

static void find_exe_path(void)
{
	if (!realpath("/proc/self/exe", zl_exe_path)) {
		ssize_t n = readlink("/proc/self/exe", zl_exe_path, sizeof zl_exe_path - 1);
		zl_exe_path[n > 0 ? n : 0] = 0;
	}
}

static void start_recording(void)
{
	out_dir = getenv("ZOND_DIR");
	if (!out_dir || !*out_dir)
		return;
	int saved_errno = errno;
	struct zrt_config cfg = {0};
	read_config(&cfg);
	zl_clock_setup(&cfg, !(cfg.flags & ZR_FLAG_NO_TIME));
	cfg.start_realtime_ns = zl_realtime_ns();
	find_exe_path();
	real_exit = (void (*)(int))dlsym(RTLD_NEXT, "_exit");
	if (zrt_process_start(&cfg) == 0) {
		const char *filter = getenv("ZOND_FILTER");
		if (filter && *filter)
			zl_load_filters(filter);
		const char *trigger = getenv("ZOND_TRIGGER");
		if (trigger && *trigger) {
			zrt.trigger = zl_find_trigger(trigger);
			zrt.gate |= ZRT_GATE_TRIGGER;
		}
		if (zrt.timed)
			calibrate_probes();
		pthread_key_create(&thread_key, thread_gone);
		pthread_atfork(NULL, NULL, in_forked_child);
		on_exit(on_process_exit, NULL);
	}
	errno = saved_errno;
}

void zl_start(void)
{
	uint32_t expected = START_NONE;
	if (__atomic_compare_exchange_n(&start_state, &expected, START_RUNNING, 0, __ATOMIC_ACQUIRE,
					__ATOMIC_ACQUIRE)) {
		start_recording();
		__atomic_store_n(&start_state, START_DONE, __ATOMIC_RELEASE);
	}
}

int zl_thread_ready(struct zrt_thread *t)
{
	if (t->state == ZRT_THREAD_OFF)
		return 0;
	if (t->state == ZRT_THREAD_NEW) {
		zl_start();
		/* another thread is still starting the runtime: try again next call */
		if (__atomic_load_n(&start_state, __ATOMIC_ACQUIRE) != START_DONE)
			return 0;
		int saved_errno = errno;
		zrt_thread_attach(t);
		errno = saved_errno;
	}
	return t->state == ZRT_THREAD_ON;
}

__attribute__((constructor)) static void start_at_load(void)
{
	zl_start();
}
