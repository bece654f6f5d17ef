/*
 * clock.c - the Linux port's clock: the invariant TSC on x86-64 (calibrated
 * against CLOCK_MONOTONIC), the virtual counter on aarch64, CLOCK_MONOTONIC
 * everywhere else.
 */
#include "linux.h"

#include <stdlib.h>

#include "../core/port.h"

#if defined(__x86_64__)
#include <cpuid.h>
#endif

int zl_use_tsc;
int zl_clock_fenced = 1;

/* Cold paths and a block's begin: waits for the work before it (zl_clock_exit). */
uint64_t port_clock(void)
{
	return zl_clock_exit();
}

#if defined(__x86_64__)
/* Only an invariant TSC ticks at one rate on every core and in every power state. */
static int tsc_is_invariant(void)
{
	unsigned a, b, c, d;
	if (!__get_cpuid(0x80000000, &a, &b, &c, &d) || a < 0x80000007)
		return 0;
	__get_cpuid(0x80000007, &a, &b, &c, &d);
	return (d >> 8) & 1;
}

/* TSC ticks per second, measured against CLOCK_MONOTONIC over a few ms. */
static double tsc_frequency(void)
{
	struct timespec pause = {0, 5000000};
	uint64_t ns0 = zl_monotonic_ns(), tsc0 = __builtin_ia32_rdtsc();
	nanosleep(&pause, NULL);
	uint64_t ns1 = zl_monotonic_ns(), tsc1 = __builtin_ia32_rdtsc();
	if (ns1 <= ns0 || tsc1 <= tsc0)
		return 0;
	return (double)(tsc1 - tsc0) * 1e9 / (double)(ns1 - ns0);
}
#endif

void zl_clock_setup(struct zrt_config *cfg, int timed)
{
	const char *fast = getenv("ZOND_FAST_CLOCK");
	if (fast && *fast == '1') {
		zl_clock_fenced = 0;
		cfg->flags |= ZR_FLAG_FAST_CLOCK;
	}
	cfg->clock = ZR_CLOCK_MONOTONIC;
	cfg->ticks_per_sec = 1e9;
#if defined(__x86_64__)
	cfg->arch = ZR_ARCH_X86_64;
	if (timed && tsc_is_invariant()) {
		double hz = tsc_frequency();
		if (hz > 0) {
			zl_use_tsc = 1;
			cfg->clock = ZR_CLOCK_TSC;
			cfg->ticks_per_sec = hz;
		}
	}
#elif defined(__aarch64__)
	uint64_t hz;
	__asm__ volatile("mrs %0, cntfrq_el0" : "=r"(hz));
	cfg->arch = ZR_ARCH_AARCH64;
	cfg->clock = ZR_CLOCK_CNTVCT;
	cfg->ticks_per_sec = (double)hz;
	(void)timed;
#else
#error "zond's runtime knows x86-64 and aarch64"
#endif
}
