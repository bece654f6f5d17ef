/* bench/accuracy_floor.c - the cheapest probe a profiler with exact counts
 * could have, to measure what any such probe perturbs: bench/accuracy runs
 * the instrumented program with this library preloaded (its hooks found
 * before glibc's empty ones) under the same perf reference.  Each hook adds
 * one to a per-thread counter and does nothing else: it counts less than a
 * call count per function needs, so a real probe can only perturb the
 * program more.  The counter is never read; the hooks' stores are what is
 * measured. */
#include <stdint.h>

static __thread uint64_t hook_calls __attribute__((tls_model("initial-exec")));

void __cyg_profile_func_enter(void *fn, void *site)
{
	(void)fn;
	(void)site;
	hook_calls++;
}

void __cyg_profile_func_exit(void *fn, void *site)
{
	(void)fn;
	(void)site;
	hook_calls++;
}
