/*
 * payload.c - the x86-64 payload of zond inject (payload.S) as the engine
 * uses it: the blob with its header filled, the per-function stubs, and
 * the payload's cost measured by running the very same code here.
 *
 * Counter: rdtsc after lfence (the invariant TSC), or with --event a
 * perf_event counter each thread of the target opens for itself at its
 * first measured call and reads with rdpmc where the kernel allows, read()
 * otherwise (payload.S: za_open, za_read).  The calibration runs the same
 * payload here with the same counter (zond's own thread opens one).
 * --fast-clock: the same blob with the TSC's fences written as nops, the
 * calibration run on that variant too.
 */
#if defined(ZOND_HAVE_ZYDIS) && defined(__x86_64__)
#include <errno.h>
#include <linux/perf_event.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <x86intrin.h>

#include "../../arch.h"
#include "../../results.h"
#include "payload.h"
#include "util/clock.h"

extern const uint8_t za_blob[], za_blob_end[], za_entry[], za_exit[], za_from[], za_to[],
	za_unwind[], za_switch[], za_catch[], za_safe[], za_loaded[], za_clone[], za_prctl[],
	za_syscall[], za_close[], za_closer[], za_fence_entry[],
	za_fence_exit[], za_fence_to[];

#define STUB_LEN 9   /* .long id; call rel32 */
#define ZA_HEAD  128 /* the blob's header, then the event's attr (payload.S) */

_Static_assert(sizeof(struct perf_event_attr) <= ZA_ATTR, "payload.S's room for the attr");
_Static_assert(offsetof(struct perf_event_mmap_page, lock) == PG_LOCK &&
		       offsetof(struct perf_event_mmap_page, index) == PG_INDEX &&
		       offsetof(struct perf_event_mmap_page, offset) == PG_OFFSET &&
		       offsetof(struct perf_event_mmap_page, capabilities) == PG_CAPS &&
		       offsetof(struct perf_event_mmap_page, pmc_width) == PG_WIDTH,
	       "payload.S's view of the perf_event page");

/* The attr the payload opens an event's counter with, for the thread that opens it. */
static void event_attr(const struct inject_event *ev, struct perf_event_attr *attr)
{
	memset(attr, 0, sizeof *attr);
	attr->size = sizeof *attr;
	attr->type = ev->type;
	attr->config = ev->config;
	attr->exclude_kernel = ev->exclude_kernel != 0;
	attr->exclude_hv = 1;
}
#define REGION_STUB_LEN 22 /* .long id; lea -128(%rsp),%rsp; call rel32; lea 128(%rsp),%rsp */

/*
 * The blob at out with the lfence before each TSC read (entry, exit, a
 * region's end) written as a nop of its length: the reads are no longer
 * held until the instructions before them have completed.
 */
static void unfence(uint8_t *out)
{
	static const uint8_t lfence[] = {0x0f, 0xae, 0xe8};
	static const uint8_t nop3[] = {0x0f, 0x1f, 0x00}; /* nopl (%rax) */
	const uint8_t *at[] = {za_fence_entry, za_fence_exit, za_fence_to};
	for (size_t i = 0; i < sizeof at / sizeof at[0]; i++) {
		uint8_t *p = out + (at[i] - za_blob);
		if (memcmp(p, lfence, sizeof lfence) != 0) { /* payload.S moved a label */
			fputs("zond: payload.S: za_fence_* is not at an lfence\n", stderr);
			abort();
		}
		memcpy(p, nop3, sizeof nop3);
	}
}

size_t inject_x86_64_payload(uint8_t *out, size_t cap, const struct inject_payload_args *a)
{
	size_t n = (size_t)(za_blob_end - za_blob);
	if (n > cap)
		return 0;
	memcpy(out, za_blob, n);
	uint64_t head[15] = {a->shm,      a->threads, a->slot_size,     a->stats,
			     a->c0,       a->cpair,   a->exit,          a->blocks,
			     a->block_size, a->edges, a->nfuncs,        a->event != NULL,
			     a->fd_base,  a->contexts, a->proc};
	memcpy(out, head, sizeof head);
	if (a->event) {
		struct perf_event_attr attr;
		event_attr(a->event, &attr);
		memcpy(out + ZA_HEAD, &attr, sizeof attr);
	}
	memcpy(out + ZA_HEAD + ZA_ATTR, &a->tidoff, 8); /* za_tidoff */
	if (a->fast_clock)
		unfence(out);
	return n;
}

uint64_t inject_x86_64_exit_addr(uint64_t payload_at)
{
	return payload_at + (uint64_t)(za_exit - za_blob);
}

/* call rel32 at out (address at) to the blob's routine fn, written at payload_at. */
static void put_call(uint8_t *out, uint64_t at, uint64_t payload_at, const uint8_t *fn)
{
	out[0] = 0xe8;
	int32_t rel = (int32_t)(payload_at + (uint64_t)(fn - za_blob) - (at + 5));
	memcpy(out + 1, &rel, 4);
}

size_t inject_x86_64_stub(uint8_t *out, uint64_t at, uint64_t payload_at, uint32_t id,
			  enum inject_probe kind)
{
	memcpy(out, &id, 4);
	if (kind != INJECT_REGION_FROM && kind != INJECT_REGION_TO) {
		put_call(out + 4, at + 4, payload_at,
			 kind == INJECT_UNWIND ? za_unwind
			 : kind == INJECT_SWITCH ? za_switch
			 : kind == INJECT_CATCH ? za_catch
			 : kind == INJECT_CLONE ? za_clone
			 : kind == INJECT_PRCTL ? za_prctl
			 : kind == INJECT_SYSCALL ? za_syscall
			 : kind == INJECT_CLOSE ? za_close
			 : kind == INJECT_CLOSE_RANGE ? za_closer
			 : kind == INJECT_SAFE ? za_safe
			 : kind == INJECT_LOADED ? za_loaded
					       : za_entry);
		return STUB_LEN;
	}
	static const uint8_t below[] = {0x48, 0x8d, 0x64, 0x24, 0x80}; /* lea -128(%rsp),%rsp */
	static const uint8_t back[] = {0x48, 0x8d, 0xa4, 0x24,
				       0x80, 0,    0,    0}; /* lea 128(%rsp),%rsp */
	memcpy(out + 4, below, sizeof below);
	put_call(out + 9, at + 9, payload_at, kind == INJECT_REGION_FROM ? za_from : za_to);
	memcpy(out + 14, back, sizeof back);
	return REGION_STUB_LEN;
}

/* TSC ticks per second over 20 ms of the monotonic clock, in the payload's units (payload.h). */
static uint64_t tsc_hz(void)
{
	uint64_t n0 = (uint64_t)clock_now_ns(CLOCK_MONOTONIC), t0 = __rdtsc(), n1, t1;
	do {
		n1 = (uint64_t)clock_now_ns(CLOCK_MONOTONIC);
		t1 = __rdtsc();
	} while (n1 - n0 < 20000000u);
	return (uint64_t)(((unsigned __int128)(t1 - t0) << ZA_FRAC) * 1000000000u / (n1 - n0));
}

#define CAL_FUNCS  3   /* the calibration's records: outer, inner, outer of plain calls */
#define CAL_CALLS  200 /* calls per round */
#define CAL_ROUNDS 50

/* The incl sum of record k over every block of the calibration's results at res. */
static uint64_t incl_sum(const uint8_t *res, size_t k)
{
	uint64_t sum = 0;
	for (size_t t = 0; t < INJ_THREADS; t++) {
		const struct inject_stat *st =
			(const void *)(res + INJ_HDR + t * (size_t)INJ_SBLOCK(CAL_FUNCS) +
				       INJ_SB_STATS(CAL_FUNCS) + k * INJ_STAT);
		sum += st->incl;
	}
	return sum;
}

/* The payload running inside zond, on results of CAL_FUNCS records, for calibration. */
struct bench {
	uint8_t *res, *slots, *code, *free_at; /* free_at: first byte after the blob */
	uint8_t *proc;                          /* the payload's process page (za_forked) */
	size_t len, res_len;
	const struct inject_event *event; /* NULL: the TSC */
};

/* How the calibration's payload reads its counter: as the target's will. */
struct clock_kind {
	const struct inject_event *event; /* NULL: the TSC */
	int fast;                         /* the TSC unfenced (--fast-clock) */
};

/*
 * Where this thread's TCB holds its id (as scenario.c finds it in a target),
 * so that the calibration's payload reads it as the target's does.
 */
static uint64_t own_tidoff(void)
{
	const uint32_t *tcb;
	uint32_t tid = (uint32_t)syscall(SYS_gettid);
	uint64_t found = 0;
	__asm__("mov %%fs:0, %0" : "=r"(tcb));
	for (size_t off = 16; off < 1024; off += 4)
		if (tcb[off / 4] == tid) {
			if (found)
				return 0;
			found = off;
		}
	return found;
}

static int bench_open(struct bench *b, struct clock_kind k, struct zerr *err)
{
	size_t blob = (size_t)(za_blob_end - za_blob);
	uint64_t results = inject_results_size(CAL_FUNCS);
	b->res_len = results + inject_contexts_size(); /* mapped: touched pages only */
	b->len = 3 * 4096;
	b->res = mmap(NULL, b->res_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	b->slots = calloc(1, inject_slots_size(CAL_FUNCS));
	b->code = mmap(NULL, b->len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	b->proc = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (b->res == MAP_FAILED || !b->slots || b->code == MAP_FAILED || b->proc == MAP_FAILED) {
		if (b->res != MAP_FAILED)
			munmap(b->res, b->res_len);
		if (b->code != MAP_FAILED)
			munmap(b->code, b->len);
		if (b->proc != MAP_FAILED)
			munmap(b->proc, 4096);
		free(b->slots);
		return zerr_set(err, "calibrating the payload: %s", strerror(errno));
	}
	const struct inject_event *ev = k.event;
	b->event = ev;
	struct inject_payload_args a = {(uint64_t)b->res,
					(uint64_t)b->slots,
					INJ_PSLOT(CAL_FUNCS),
					INJ_SB_STATS(CAL_FUNCS),
					0,
					0,
					inject_x86_64_exit_addr((uint64_t)b->code),
					(uint64_t)(b->res + INJ_HDR),
					INJ_SBLOCK(CAL_FUNCS),
					INJ_SB_EDGES(CAL_FUNCS),
					CAL_FUNCS,
					ev,
					3,
					(uint64_t)(b->res + results),
					(uint64_t)b->proc,
					own_tidoff(),
					k.fast,
					0};
	inject_x86_64_payload(b->code, b->len, &a);
	b->free_at = b->code + ((blob + 63) & ~(size_t)63);
	return 0;
}

/* Makes the code executable; -1 with err set. */
static int bench_ready(struct bench *b, struct zerr *err)
{
	if (mprotect(b->code, b->len, PROT_READ | PROT_EXEC) == 0)
		return 0;
	return zerr_set(err, "calibrating the payload: %s", strerror(errno));
}

/* 0 when every thread that ran the payload here had its counter; -1 with err set. */
static int bench_counted(const struct bench *b, struct zerr *err)
{
	const struct inject_header *h = (const void *)b->res;
	return h->nocounter ? zerr_set(err, "calibrating the payload: its counter cannot be "
					    "opened (perf_event_open)")
			    : 0;
}

/* Frees the bench, closing the counters the payload opened here (and their pages). */
static void bench_close(struct bench *b)
{
	for (size_t t = 0; t < INJ_THREADS; t++) {
		const uint8_t *slot = b->slots + t * (size_t)INJ_PSLOT(CAL_FUNCS);
		int64_t key, fd;
		uint64_t page;
		memcpy(&key, slot + INJ_T_KEY, 8);
		memcpy(&fd, slot + INJ_T_FD, 8);
		memcpy(&page, slot + INJ_T_PAGE, 8);
		if (!key || !b->event)
			continue;
		if (page)
			munmap((void *)(uintptr_t)page, 4096);
		if (fd >= 0)
			close((int)fd);
	}
	munmap(b->code, b->len);
	munmap(b->res, b->res_len);
	munmap(b->proc, 4096);
	free(b->slots);
}

/*
 * At out (address at): a function's relocated copy that calls target
 * CAL_CALLS times in a loop (push %rbx; mov $N,%ebx; 1: call target;
 * dec %ebx; jnz 1b; pop %rbx; ret), as a program's loop calls a small
 * function; returns its length.
 */
static size_t put_loop(uint8_t *out, uint64_t at, uint64_t target)
{
	static const uint8_t head[] = {0x53, 0xbb, CAL_CALLS, 0, 0, 0};
	static const uint8_t tail[] = {0xff, 0xcb, 0x75, 0xf7, 0x5b, 0xc3}; /* jnz: to the call */
	memcpy(out, head, sizeof head);
	out[sizeof head] = 0xe8;
	int32_t rel = (int32_t)(target - (at + sizeof head + 5));
	memcpy(out + sizeof head + 1, &rel, 4);
	memcpy(out + sizeof head + 5, tail, sizeof tail);
	return sizeof head + 5 + sizeof tail;
}

/* The median of n values (reordered). */
static uint64_t median(uint64_t *v, size_t n)
{
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && v[j - 1] > v[j]; j--) {
			uint64_t t = v[j];
			v[j] = v[j - 1];
			v[j - 1] = t;
		}
	return v[n / 2];
}

/* The payload's units per second of the counter: the TSC's, or per 10^9 events. */
static uint64_t units_hz(const struct inject_event *ev)
{
	return ev ? (uint64_t)1000000000 << ZA_FRAC : tsc_hz();
}

/*
 * The payload's cost as a measured caller pays it.  Three functions run
 * under the payload here, as in a target: `outer` calls the measured empty
 * function `inner` CAL_CALLS times in a loop, `plain_outer` the same loop
 * calling an unmeasured empty function.  The difference of the two outer
 * intervals per call is cpair, what one measured call adds to its measured
 * caller's interval: the whole path the caller pays, its frame's update, the
 * call edge and the calling context included (a calibration without a
 * measured caller skipped the first two: 2-3 ns per nested call short on
 * the development VM).  c0 is
 * inner's own interval (its body is empty).  Medians of CAL_ROUNDS rounds:
 * the program pays the usual cost, not the luckiest.
 */
static int calibrate_with(struct clock_kind k, uint64_t *c0, uint64_t *cpair, uint64_t *hz,
			  struct zerr *err)
{
	struct bench b;
	if (bench_open(&b, k, err) < 0)
		return -1;
	uint8_t *inner = b.free_at, *outer = inner + 64, *plain_outer = outer + 64;
	uint8_t *plain = plain_outer + 64; /* after the blob, wherever it ends (was code + 4096:
					      a blob past 3.9 KiB put plain_outer on it) */
	inject_x86_64_stub(inner, (uint64_t)inner, (uint64_t)b.code, 1, INJECT_FUNCTION);
	inner[STUB_LEN] = 0xc3; /* the relocated copy of an empty function */
	plain[0] = 0xc3;
	inject_x86_64_stub(outer, (uint64_t)outer, (uint64_t)b.code, 0, INJECT_FUNCTION);
	put_loop(outer + STUB_LEN, (uint64_t)outer + STUB_LEN, (uint64_t)inner + 4);
	inject_x86_64_stub(plain_outer, (uint64_t)plain_outer, (uint64_t)b.code, 2,
			   INJECT_FUNCTION);
	put_loop(plain_outer + STUB_LEN, (uint64_t)plain_outer + STUB_LEN, (uint64_t)plain);
	if (bench_ready(&b, err) < 0) {
		bench_close(&b);
		return -1;
	}
	void (*with)(void) = (void (*)(void))(uintptr_t)(outer + 4);
	void (*without)(void) = (void (*)(void))(uintptr_t)(plain_outer + 4);
	uint64_t pair[CAL_ROUNDS], inside[CAL_ROUNDS];
	for (int r = 0; r < CAL_ROUNDS; r++) {
		uint64_t o = incl_sum(b.res, 0), i = incl_sum(b.res, 1), p = incl_sum(b.res, 2);
		with();
		without();
		o = incl_sum(b.res, 0) - o;
		p = incl_sum(b.res, 2) - p;
		pair[r] = o > p ? (o - p) / CAL_CALLS : 0;
		inside[r] = (incl_sum(b.res, 1) - i) / CAL_CALLS;
	}
	*c0 = median(inside, CAL_ROUNDS);
	*cpair = median(pair, CAL_ROUNDS);
	*hz = units_hz(k.event);
	int rc = bench_counted(&b, err);
	bench_close(&b);
	return rc;
}

int inject_x86_64_calibrate(uint64_t *c0, uint64_t *cpair, uint64_t *hz, struct zerr *err)
{
	return calibrate_with((struct clock_kind){NULL, 0}, c0, cpair, hz, err);
}

/*
 * The region probes' own part of a pass: a function whose body is the
 * FROM stub, a jmp over the TO stub's id, the TO stub and ret.
 */
static int calibrate_region_with(struct clock_kind k, uint64_t *c0, uint64_t *hz, struct zerr *err)
{
	struct bench b;
	if (bench_open(&b, k, err) < 0)
		return -1;
	uint8_t *from = b.free_at;
	size_t n =
		inject_x86_64_stub(from, (uint64_t)from, (uint64_t)b.code, 0, INJECT_REGION_FROM);
	from[n] = 0xeb; /* jmp .+6: over the TO stub's id */
	from[n + 1] = 4;
	uint8_t *to = from + n + 2;
	n = inject_x86_64_stub(to, (uint64_t)to, (uint64_t)b.code, 0, INJECT_REGION_TO);
	to[n] = 0xc3;
	if (bench_ready(&b, err) < 0) {
		bench_close(&b);
		return -1;
	}
	void (*pass)(void) = (void (*)(void))(uintptr_t)(from + 4);
	uint64_t inside[CAL_ROUNDS];
	for (int r = 0; r < CAL_ROUNDS; r++) {
		uint64_t i = incl_sum(b.res, 0);
		for (int k = 0; k < CAL_CALLS; k++)
			pass();
		inside[r] = (incl_sum(b.res, 0) - i) / CAL_CALLS;
	}
	*c0 = median(inside, CAL_ROUNDS);
	*hz = units_hz(k.event);
	int rc = bench_counted(&b, err);
	bench_close(&b);
	return rc;
}

int inject_x86_64_calibrate_region(uint64_t *c0, uint64_t *hz, struct zerr *err)
{
	return calibrate_region_with((struct clock_kind){NULL, 0}, c0, hz, err);
}

int inject_x86_64_calibrate_fast(uint64_t *c0, uint64_t *cpair, uint64_t *hz, struct zerr *err)
{
	struct clock_kind fast = {NULL, 1};
	return cpair ? calibrate_with(fast, c0, cpair, hz, err)
		     : calibrate_region_with(fast, c0, hz, err);
}

/*
 * The kernel's own event counts (faults, switches, migrations): the payload
 * causes none (its pages are populated at a thread's first call), so what a
 * calibration would see is another process preempting it, not its cost.
 */
static int counts_kernel_events(const struct inject_event *ev)
{
	return ev->type == PERF_TYPE_SOFTWARE && ev->config != PERF_COUNT_SW_TASK_CLOCK &&
	       ev->config != PERF_COUNT_SW_CPU_CLOCK;
}

int inject_x86_64_calibrate_event(const struct inject_event *ev, uint64_t *c0, uint64_t *cpair,
				  uint64_t *hz, struct zerr *err)
{
	struct clock_kind k = {ev, 0};
	int rc = cpair ? calibrate_with(k, c0, cpair, hz, err)
		       : calibrate_region_with(k, c0, hz, err);
	if (rc == 0 && counts_kernel_events(ev)) {
		*c0 = 0;
		if (cpair)
			*cpair = 0;
	}
	return rc;
}
#else
typedef int zond_no_x86_64_payload; /* ISO C: a translation unit is not empty */
#endif
