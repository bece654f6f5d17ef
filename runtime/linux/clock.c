/*
 * clock.c - the Linux port's clock: the invariant TSC on x86-64 (calibrated
 * against CLOCK_MONOTONIC), the virtual counter on aarch64, CLOCK_MONOTONIC
 * everywhere else.
 *
 * The TSC's rate is measured twice: over a short spin at start-up (a first
 * figure, good to a few parts in 10^4, without the milliseconds a longer
 * wait would add to every process's start), then over the whole life of
 * the process when it ends (zl_clock_refine), which is what a normal run's
 * file keeps.
 */
#include "linux.h"

#include <stdlib.h>

#include "../core/port.h"

#if defined(__x86_64__)
#include <cpuid.h>
#endif

int zl_use_tsc;
int zl_clock_fenced = 1;
int zl_clock_frozen;
uint64_t zl_frozen_ticks;

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

/* The TSC and CLOCK_MONOTONIC read together: the tightest of a few brackets. */
static void clock_pair(uint64_t *tsc, uint64_t *ns)
{
	uint64_t best = UINT64_MAX;
	for (int i = 0; i < 4; i++) {
		uint64_t a = zl_monotonic_ns(), t = __builtin_ia32_rdtsc(), b = zl_monotonic_ns();
		if (b - a < best) {
			best = b - a;
			*tsc = t;
			*ns = a + (b - a) / 2;
		}
	}
}

enum { SPIN_NS = 200000, REFINE_MIN_NS = 20000000 };

/* Where the rate was first measured from (zl_clock_refine measures from there too). */
static uint64_t start_tsc, start_ns;

/* TSC ticks per second, against CLOCK_MONOTONIC over a short spin. */
static double tsc_frequency(void)
{
	uint64_t tsc1, ns1;
	clock_pair(&start_tsc, &start_ns);
	do
		clock_pair(&tsc1, &ns1);
	while (ns1 - start_ns < SPIN_NS);
	if (tsc1 <= start_tsc)
		return 0;
	return (double)(tsc1 - start_tsc) * 1e9 / (double)(ns1 - start_ns);
}

/* n as the bits of an IEEE double (exact below 2^53), in integer code. */
static uint64_t double_bits(uint64_t n)
{
	if (!n)
		return 0;
	int e = 63 - __builtin_clzll(n);
	uint64_t mantissa = e <= 52 ? n << (52 - e) : n >> (e - 52);
	return (uint64_t)(1023 + e) << 52 | (mantissa & ((1ull << 52) - 1));
}

/*
 * Integer only: it may run from the audit collector's probes, between a
 * library call's arguments and its callee.
 */
void zl_clock_refine(double *ticks_per_sec)
{
	if (!zl_use_tsc)
		return;
	uint64_t tsc, ns;
	clock_pair(&tsc, &ns);
	if (ns - start_ns < REFINE_MIN_NS || tsc <= start_tsc)
		return;
	uint64_t hz = (uint64_t)((unsigned __int128)(tsc - start_tsc) * 1000000000u /
				 (ns - start_ns));
	uint64_t bits = double_bits(hz);
	__builtin_memcpy(ticks_per_sec, &bits, sizeof bits);
}
#else
void zl_clock_refine(double *ticks_per_sec)
{
	(void)ticks_per_sec; /* the counter's rate is given (aarch64), or ticks are ns */
}
#endif

#if defined(__x86_64__)
static int tsc_before_freeze; /* zl_use_tsc, for zl_clock_thaw */

/*
 * The time is taken first, then the readers are sent to it: a thread that
 * read the counter in between closes a call a little before it opened
 * (the reader bounds such times: ZR_FLAG_BOUND_SUMS).
 */
void zl_clock_freeze(void)
{
	if (zl_clock_frozen)
		return;
	zl_frozen_ticks = zl_clock();
	__atomic_store_n(&zl_clock_frozen, 1, __ATOMIC_RELEASE);
	tsc_before_freeze = zl_use_tsc;
	__atomic_store_n(&zl_use_tsc, 0, __ATOMIC_RELEASE);
}

void zl_clock_thaw(void)
{
	if (!zl_clock_frozen)
		return;
	__atomic_store_n(&zl_use_tsc, tsc_before_freeze, __ATOMIC_RELEASE);
	__atomic_store_n(&zl_clock_frozen, 0, __ATOMIC_RELEASE);
}
#else
void zl_clock_freeze(void)
{
}

void zl_clock_thaw(void)
{
}
#endif

void zl_clock_setup(struct zrt_config *cfg, int timed)
{
	const char *fast = zl_getenv("ZOND_FAST_CLOCK");
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

uint64_t zl_clock_ticks_of_ns(const void *ticks_per_sec, uint64_t ns)
{
	double hz;
	__builtin_memcpy(&hz, ticks_per_sec, sizeof hz);
	return (uint64_t)((double)ns * hz / 1e9);
}
