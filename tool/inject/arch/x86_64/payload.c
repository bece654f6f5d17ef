/*
 * payload.c - the x86-64 payload of zond inject (payload.S) as the engine
 * uses it: the blob with its header filled, the per-function stubs, and
 * the payload's cost measured by running the very same code here.
 *
 * Counter: rdtsc after lfence (the invariant TSC).  Hardware event counters
 * (rdpmc) are not used: the development VM has no PMU, so rdtsc is the only
 * counter zond inject reads today.
 */
#if defined(ZOND_HAVE_ZYDIS) && defined(__x86_64__)
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <x86intrin.h>

#include "../../arch.h"
#include "../../results.h"

extern const uint8_t za_blob[], za_blob_end[], za_entry[], za_exit[];

#define STUB_LEN 9 /* .long id; call rel32 */

size_t inject_x86_64_payload(uint8_t *out, size_t cap, const struct inject_payload_args *a)
{
	size_t n = (size_t)(za_blob_end - za_blob);
	if (n > cap)
		return 0;
	memcpy(out, za_blob, n);
	uint64_t head[6] = {a->shm, a->threads, a->slot_size, a->stats, a->c0, a->cpair};
	memcpy(out, head, sizeof head);
	return n;
}

uint64_t inject_x86_64_exit_addr(uint64_t payload_at)
{
	return payload_at + (uint64_t)(za_exit - za_blob);
}

void inject_x86_64_stub(uint8_t *out, uint64_t at, uint64_t payload_at, uint32_t id)
{
	memcpy(out, &id, 4);
	out[4] = 0xe8;
	int32_t rel = (int32_t)(payload_at + (uint64_t)(za_entry - za_blob) - (at + STUB_LEN));
	memcpy(out + 5, &rel, 4);
}

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* TSC ticks per second over 20 ms of the monotonic clock. */
static uint64_t tsc_hz(void)
{
	uint64_t n0 = now_ns(), t0 = __rdtsc(), n1, t1;
	do {
		n1 = now_ns();
		t1 = __rdtsc();
	} while (n1 - n0 < 20000000u);
	return (uint64_t)((unsigned __int128)(t1 - t0) * 1000000000u / (n1 - n0));
}

/*
 * Ticks per call of fn, and the mean measured interval per call st saw,
 * from the round of 200 calls that took least time of 50.
 */
static uint64_t ticks_per_call(void (*fn)(void), const struct inject_stat *st, uint64_t *inside)
{
	uint64_t best = UINT64_MAX;
	for (int r = 0; r < 50; r++) {
		uint64_t incl0 = st ? st->incl : 0;
		_mm_lfence();
		uint64_t t0 = __rdtsc();
		for (int i = 0; i < 200; i++)
			fn();
		_mm_lfence();
		uint64_t d = (__rdtsc() - t0) / 200;
		if (d < best) {
			best = d;
			if (st)
				*inside = (st->incl - incl0) / 200;
		}
	}
	return best;
}

int inject_x86_64_calibrate(uint64_t *c0, uint64_t *cpair, uint64_t *hz, struct zerr *err)
{
	size_t blob = (size_t)(za_blob_end - za_blob), page = 4096;
	uint64_t size = inject_results_size(1);
	uint8_t *res = aligned_alloc(64, (size + 63) & ~(uint64_t)63);
	uint8_t *code = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			     -1, 0);
	if (!res || code == MAP_FAILED) {
		free(res);
		return zerr_set(err, "calibrating the payload: %s", strerror(errno));
	}
	memset(res, 0, size);
	struct inject_stat *st = (struct inject_stat *)(res + INJ_HDR);
	st->min = UINT64_MAX;
	struct inject_payload_args a = {(uint64_t)res, (uint64_t)(res + INJ_HDR + INJ_STAT),
					INJ_SLOT(1), (uint64_t)st, 0, 0};
	inject_x86_64_payload(code, page, &a);
	uint8_t *stub = code + ((blob + 63) & ~(size_t)63), *plain = code + page;
	inject_x86_64_stub(stub, (uint64_t)stub, (uint64_t)code, 0);
	stub[STUB_LEN] = 0xc3; /* the relocated copy of an empty function */
	plain[0] = 0xc3;
	if (mprotect(code, 2 * page, PROT_READ | PROT_EXEC) < 0) {
		munmap(code, 2 * page);
		free(res);
		return zerr_set(err, "calibrating the payload: %s", strerror(errno));
	}
	void (*measured)(void) = (void (*)(void))(uintptr_t)(stub + 4);
	void (*bare)(void) = (void (*)(void))(uintptr_t)plain;
	uint64_t inside = 0;
	uint64_t with = ticks_per_call(measured, st, &inside), without = ticks_per_call(bare, NULL, NULL);
	*c0 = inside; /* an empty body: its whole interval is the payload's */
	*cpair = with > without ? with - without : 0;
	*hz = tsc_hz();
	munmap(code, 2 * page);
	free(res);
	return 0;
}
#else
typedef int zond_no_x86_64_payload; /* ISO C: a translation unit is not empty */
#endif
