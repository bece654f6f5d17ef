/*
 * init.c - libzond's start-up and the life of the process: reading its own
 * settings (manual start, trigger, filter), calibrating the hooks' cost, and
 * noting thread ends, exit, _exit and fork through the shared port
 * (linux.h).
 *
 * No signal handler is installed: the tables live in a MAP_SHARED file, so a
 * crash loses only the end time, and the program's signals stay its own.
 */
#define _GNU_SOURCE
#include "instrument.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../core/port.h"
#include "sample.h"
#include "tasks.h"

__thread struct zrt_thread zl_self __attribute__((tls_model("initial-exec")));
char zl_exe_path[4096];

enum { START_NONE, START_RUNNING, START_DONE };
static uint32_t start_state;
static pthread_key_t thread_key;
static void (*real_exit)(int);

/* ---- threads ----------------------------------------------------------- */

void port_thread_attached(void)
{
	/* any non-NULL value: the key's destructor runs when the thread ends */
	pthread_setspecific(thread_key, &zl_self);
	zl_sample_thread_start();
}

static void thread_gone(void *arg)
{
	(void)arg;
	zl_sample_thread_end();
	zrt_thread_end(zl_owner());
}

/* the sampler's: its signal goes to the thread that owns zl_self only */
static struct zrt_thread *self(void)
{
	return zl_owner();
}

/* ---- probe cost -------------------------------------------------------- */

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
	for (int i = 0; i < ZL_CALIBRATION_CALLS; i++)
		probed_leaf(leaf);
	__cyg_profile_func_exit((void *)outer, NULL);
}

static void bare_loop(void)
{
	for (int i = 0; i < ZL_CALIBRATION_CALLS; i++)
		empty_leaf(0);
}

/* ---- the empty hooks' cost (sampled time) ------------------------------ */

/*
 * GCC puts a call of __cyg_profile_func_enter and one of _exit in every
 * instrumented function.  Without zond they reach glibc's empty hooks: a
 * call, the PLT's jump through the GOT and a return each, time the program
 * spends in the function's own code.  Under zond those instructions run
 * into zond's probes, whose samples are zond's, so no sample of the
 * program holds them: sampled time charges each call their cost instead
 * (raw.h hook_pair_ticks), measured here as an instrumented function calls
 * its hooks, through a pointer loaded from memory (as the GOT is), with
 * the function's address and call site as arguments.
 */
__attribute__((noinline)) static void empty_hook(void *fn, void *site)
{
	__asm__ volatile("" : : "r"(fn), "r"(site) : "memory");
}

static void (*volatile empty_hook_got)(void *fn, void *site) = empty_hook;

__attribute__((noinline)) static void hooked_leaf(uint64_t fn)
{
	empty_hook_got((void *)fn, __builtin_return_address(0));
	__asm__ volatile("" : : "r"(fn) : "memory");
	empty_hook_got((void *)fn, __builtin_return_address(0));
	__asm__ volatile("" : : : "memory");
}

enum { HOOK_ROUNDS = 16 };

/* Ticks per call of a loop of hooked calls beyond the same loop's bare ones, the cheapest of a few rounds. */
static double hook_pair_ticks(void)
{
	uint64_t hooked = UINT64_MAX, bare = UINT64_MAX;
	for (int r = 0; r < HOOK_ROUNDS; r++) {
		uint64_t t0 = port_clock();
		for (int i = 0; i < ZL_CALIBRATION_CALLS; i++)
			hooked_leaf((uint64_t)i);
		uint64_t t1 = port_clock();
		bare_loop();
		uint64_t t2 = port_clock();
		if (t1 - t0 < hooked)
			hooked = t1 - t0;
		if (t2 - t1 < bare)
			bare = t2 - t1;
	}
	return hooked > bare ? (double)(hooked - bare) / ZL_CALIBRATION_CALLS : 0;
}

/* ---- exit and fork ----------------------------------------------------- */

static void on_process_exit(int status, void *arg)
{
	(void)arg;
	zl_process_end(1, status);
}

__attribute__((visibility("default"), noreturn)) void _exit(int status)
{
	zl_process_end(1, status);
	if (real_exit)
		real_exit(status);
	for (;;)
		zl_syscall6(SYS_exit_group, status, 0, 0, 0, 0, 0);
}

__attribute__((visibility("default"), noreturn)) void _Exit(int status)
{
	_exit(status);
}

/*
 * dlclose: the objects it unloaded are closed in the raw file
 * (zl_note_unloaded), and a namespace made for a dlmopen that holds nothing
 * of the program's any more is closed (namespace.c, the shared library only).
 */
__attribute__((visibility("default"))) int dlclose(void *handle)
{
	static int (*real_dlclose)(void *);
	if (!real_dlclose)
		real_dlclose = (int (*)(void *))dlsym(RTLD_NEXT, "dlclose");
	if (!real_dlclose)
		return -1;
	int rc = real_dlclose(handle);
	int saved_errno = errno;
	zl_note_unloaded();
	if (zl_ns_release_idle)
		zl_ns_release_idle();
	errno = saved_errno;
	return rc;
}

static void before_fork(void)
{
	zrt_fork_prepare(zl_me());
}

static void in_forked_child(void)
{
	zl_process_forked(zl_tasks_forked());
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
	struct zrt_config cfg = {
		.max_threads = 64, .max_funcs = 16384, .max_edges = 65536, .max_depth = 4096,
		.max_contexts = 1u << 20,
		.max_modules = 512,
	};
	int saved_errno = errno;
	if (zl_configure(&cfg) < 0)
		return;
	zl_sample_configure(&cfg);
	/* the hooks measure their own cost on every call (zrt_probe_paid) */
	if (!(cfg.flags & ZR_FLAG_NO_TIME))
		cfg.flags |= ZR_FLAG_PAID_EVERY_CALL;
	/* module paths and block names: room for a fair share per function */
	cfg.string_bytes =
		65536 + 64 * (cfg.max_funcs < (1u << 16) ? cfg.max_funcs : (1u << 16));
	cfg.manual = zl_env_flag("ZOND_MANUAL");
	find_exe_path();
	real_exit = (void (*)(int))dlsym(RTLD_NEXT, "_exit");
	if (zrt_process_start(&cfg) == 0) {
		const char *filter = zl_getenv("ZOND_FILTER");
		if (filter && *filter)
			zl_load_filters(filter);
		const char *trigger = zl_getenv("ZOND_TRIGGER");
		if (trigger && *trigger) {
			zrt.trigger = zl_find_trigger(trigger);
			zrt.gate |= ZRT_GATE_TRIGGER;
		}
		if (zrt.timed)
			zl_calibrate(&zl_self, probed_loop, bare_loop);
		if (zrt.hdr->flags & ZR_FLAG_SAMPLED)
			zrt.hdr->hook_pair_ticks = hook_pair_ticks();
		zl_sample_hooks((uintptr_t)__cyg_profile_func_enter,
				(uintptr_t)__cyg_profile_func_exit);
		zl_sample_start(self);
		pthread_key_create(&thread_key, thread_gone);
		pthread_atfork(before_fork, zrt_fork_done, in_forked_child);
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
		if (t->shared_tls) {
			/* errno is another task's too: the attach makes bare system calls only */
			zrt_thread_attach(t);
		} else {
			int saved_errno = errno;
			zrt_thread_attach(t);
			errno = saved_errno;
		}
	}
	return t->state == ZRT_THREAD_ON;
}

__attribute__((constructor)) static void start_at_load(void)
{
	zl_start();
}
