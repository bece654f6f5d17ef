/*
 * port.c - the bare-metal port proper (bare.h): the static buffers behind
 * port.h, start-up on the first probe, the probe-cost calibration and the
 * write-out at exit.
 */
#include "bare.h"

#include "../core/calibrate.h"
#include "../core/port.h"

#include "../../include/zond.h"

#define ALIGN(n, a) (((n) + (a) - 1) / (a) * (a))

/* The raw data's size for one thread and one module: what core.c's lay_out makes of them. */
#define SLOT_BYTES                                                                                 \
	ALIGN(ALIGN(ALIGN(sizeof(struct zr_thread), 64) +                                          \
			    ALIGN((uint64_t)ZOND_BARE_FUNCS * sizeof(struct zr_func), 64) +        \
			    ALIGN((uint64_t)ZOND_BARE_EDGES * sizeof(struct zr_edge), 64) +        \
			    (uint64_t)ZOND_BARE_DEPTH * sizeof(struct zr_frame),                   \
		    64) +                                                                          \
		      (uint64_t)ZOND_BARE_CONTEXTS * sizeof(struct zr_context),                    \
	      4096)
#define FIXED_BYTES                                                                                \
	ALIGN(ALIGN(ALIGN(sizeof(struct zr_header), 64) + sizeof(struct zr_module), 64) +         \
		      ZOND_BARE_STRINGS,                                                           \
	      4096)
/* A thread's hash indexes: at most 4 entries of 4 bytes per function, edge and context. */
#define INDEX_BYTES                                                                                \
	ALIGN(16 * ((uint64_t)ZOND_BARE_FUNCS + ZOND_BARE_EDGES + ZOND_BARE_CONTEXTS), 4096)

/*
 * The raw data, byte for byte the file the Linux runtime writes.  A
 * debugger reads it from here (its first zr_header.file_bytes bytes) when
 * there is no semihosting.
 */
__attribute__((aligned(64), used)) uint8_t zond_raw_buffer[FIXED_BYTES + SLOT_BYTES];

/* The hart's hash indexes, and calibration's scratch slot and indexes: a stack. */
static __attribute__((aligned(64))) uint8_t arena[2 * INDEX_BYTES + SLOT_BYTES];
static uint64_t arena_used;

struct zrt_thread zb_self;

enum { START_NONE, START_RUNNING, START_DONE };
static uint32_t start_state;

/* ---- port.h ------------------------------------------------------------- */

/* The program's clock at the hook running now (bare.h: zb_now). */
uint64_t port_clock(void)
{
	return zb_now;
}

void *port_map_output(uint64_t bytes, int *why)
{
	*why = PORT_NO_ROOM;
	if (bytes > sizeof zond_raw_buffer)
		return (void *)0;
	for (uint64_t i = 0; i < bytes; i++)
		zond_raw_buffer[i] = 0;
	return zond_raw_buffer;
}

uint64_t port_output_limit(void)
{
	return sizeof zond_raw_buffer;
}

int port_reserve_output(uint64_t offset, uint64_t bytes)
{
	(void)offset;
	(void)bytes;
	return 0;
}

void port_drop_output(void *map, uint64_t bytes)
{
	(void)map;
	(void)bytes;
}

void *port_map_index(uint64_t bytes)
{
	bytes = ALIGN(bytes, 64);
	if (bytes > sizeof arena - arena_used)
		return (void *)0;
	uint8_t *p = arena + arena_used;
	for (uint64_t i = 0; i < bytes; i++)
		p[i] = 0;
	arena_used += bytes;
	return p;
}

/* Memory goes back in the reverse order it was taken (calibration's scratch). */
void port_unmap_index(void *p, uint64_t bytes)
{
	(void)bytes;
	arena_used = (uint64_t)((uint8_t *)p - arena);
}

int32_t port_thread_id(void)
{
	return 1;
}

void port_thread_name(char name[16])
{
	static const char hart[] = "hart0";
	for (unsigned i = 0; i < sizeof hart; i++)
		name[i] = hart[i];
}

void port_thread_attached(void)
{
}

/*
 * One module, the program: every address from 4 KiB up (calibration's fake
 * functions lie below).  Its path is a placeholder that `zond record`
 * replaces by the ELF file's (doc/bare-metal.md).
 */
int port_module_of(uint64_t addr, struct port_module *out)
{
	if (addr < 0x1000)
		return -1;
	out->start = 0x1000;
	out->end = (uint64_t)UINTPTR_MAX;
	out->bias = 0;
	out->path = "[elf]";
	return 0;
}

/* ---- zond's own cost ------------------------------------------------------ */

void __cyg_profile_func_enter(void *fn, void *site);
void __cyg_profile_func_exit(void *fn, void *site);

/* The low half of the counter: the differences measured here are small. */
static inline uintptr_t counter(void)
{
	uintptr_t c;
	__asm__ volatile("csrr %0, mcycle" : "=r"(c));
	return c;
}

/*
 * Calls hook(a0, a1, a2) between two counter reads, the call one jalr as
 * in instrumented code: the instructions from the call to the return, and
 * in *before those from the call up to the hook's first read (zb_now tells
 * where that was, with zb_cost 0).  The reads and the call are in one asm
 * statement so that nothing else runs between them.
 */
static uintptr_t time_hook(void *hook, uintptr_t a0, uintptr_t a1, uintptr_t a2, uint64_t *before)
{
	register uintptr_t r0 __asm__("a0") = a0;
	register uintptr_t r1 __asm__("a1") = a1;
	register uintptr_t r2 __asm__("a2") = a2;
	register uintptr_t t0 __asm__("s10");
	register uintptr_t t1 __asm__("s11");
	uint64_t own0 = zb_own;
	__asm__ volatile("csrr %0, mcycle\n\tjalr %5\n\tcsrr %1, mcycle"
			 : "=&r"(t0), "=&r"(t1), "+r"(r0), "+r"(r1), "+r"(r2)
			 : "r"(hook)
			 : "ra", "t0", "t1", "t2", "t3", "t4", "t5", "t6", "a3", "a4", "a5", "a6",
			   "a7", "memory");
	/* c0 = zb_now + own0 (zb_cost[].pre is 0); the call is the instruction after t0's read */
	*before = (uintptr_t)(zb_now + own0) - t0 - 1;
	return t1 - t0 - 1;
}

/*
 * zb_cost[kind] from one timed call of the hook: what the call cost less
 * what the hook counted itself (c1 - c0, with rest 0).
 */
static uint64_t measure_hook(int kind, void *hook, uintptr_t a0, uintptr_t a1, uintptr_t a2)
{
	uint64_t before, own0 = zb_own;
	zb_cost[kind].pre = zb_cost[kind].rest = 0;
	zb_last = 0; /* no clock held back here: the costs are being measured */
	uint64_t whole = time_hook(hook, a0, a1, a2, &before);
	zb_cost[kind].pre = before;
	zb_cost[kind].rest = whole - (zb_own - own0);
	zb_own = own0 + whole;
	return whole;
}

/*
 * Measures every hook's constant cost on a scratch thread (calibrate.h),
 * with fake functions below the program's addresses, then the probe pair's
 * per-call cost the same way (a second call of the same function, the path
 * every later call takes), written as overhead_pair_ticks.  Nothing is
 * corrected by ratio: the core charges nothing (inner and pair 0 while
 * recording), zb_own is the correction.
 */
static void calibrate(void)
{
	struct zrt_thread saved;
	void *scratch = zrt_scratch_begin(&zb_self, &saved);
	if (!scratch)
		return;
	static const char block[] = "calibration";
	uint64_t pair = 0;
	for (int round = 0; round < 2; round++) {
		uintptr_t fn = 0x100, site = 0x200;
		pair = measure_hook(ZB_ENTER, (void *)__cyg_profile_func_enter, fn, site, 0);
		pair += measure_hook(ZB_EXIT, (void *)__cyg_profile_func_exit, fn, site, 0);
		measure_hook(ZB_BEGIN, (void *)zond_block_begin, (uintptr_t)block, (uintptr_t)block, 1);
		measure_hook(ZB_END, (void *)zond_block_end, (uintptr_t)block, 0, 0);
		/* a deferred exit, zb_late_exit called as zb_return calls it */
		measure_hook(ZB_ENTER, (void *)__cyg_profile_func_enter, fn, site, 0);
		zb_defer_exit(fn, 0, site);
		measure_hook(ZB_RETURN, (void *)zb_late_exit, 0, 0, 0);
	}
	zb_cost[ZB_RETURN].pre += ZB_RETURN_BEFORE;
	zb_cost[ZB_RETURN].rest += ZB_RETURN_BEFORE + ZB_RETURN_AFTER; /* rest: all but c1 - c0 */
	zrt_scratch_end(&zb_self, &saved, scratch);
	zb_inexact_sites = zrt.hdr->inexact_sites = 0; /* calibration's fake sites */
	zrt.inner = zrt.pair = 0;
	zrt.hdr->overhead_inner_ticks = 0;
	zrt.hdr->overhead_pair_ticks = pair;
}

/* ---- start and end ------------------------------------------------------- */

static void start_recording(void)
{
	struct zrt_config cfg = {
		.max_threads = 1,
		.max_funcs = ZOND_BARE_FUNCS,
		.max_edges = ZOND_BARE_EDGES,
		.max_depth = ZOND_BARE_DEPTH,
		.max_contexts = ZOND_BARE_CONTEXTS,
		.max_modules = 1,
		.string_bytes = ZOND_BARE_STRINGS,
		.clock = ZR_CLOCK_MCYCLE,
		.arch = __riscv_xlen == 32 ? ZR_ARCH_RISCV32 : ZR_ARCH_RISCV64,
		.ticks_per_sec = ZOND_BARE_HZ,
		.ids = {.pid = 1},
	};
	if (zrt_process_start(&cfg) == 0 && zrt.timed)
		calibrate();
}

/*
 * One hart: start_state keeps a probe in an interrupt handler that came
 * during start-up (or calibration, whose probes come back here) from
 * starting again; it is not recorded.
 */
int zb_ready(struct zrt_thread *t)
{
	if (t->state == ZRT_THREAD_OFF || start_state == START_RUNNING)
		return 0;
	if (start_state == START_NONE) {
		start_state = START_RUNNING;
		start_recording();
		start_state = START_DONE;
	}
	if (t->state == ZRT_THREAD_NEW)
		zrt_thread_attach(t);
	return t->state == ZRT_THREAD_ON;
}

/*
 * Charges the frames still open at the end (exit() from inside) up to now,
 * here rather than in the reader, which would take a probe cost per call
 * out of them: zb_own has taken it out already.  The thread's mean cost
 * per probe pair (paid_pair_ticks) is zond's whole own cost, start-up
 * included, over the entry probes.
 */
static void close_frames(struct zrt_thread *t, uint64_t now)
{
	if (t->state != ZRT_THREAD_ON)
		return;
	uint32_t d = t->info->depth;
	if (d > zrt.max_depth)
		d = zrt.max_depth;
	for (; d > 0; d--)
		zrt_pop(t, d, now);
	t->info->depth = 0;
	t->info->paid_pair_ticks = zb_calls ? zb_own / zb_calls : 0;
}

/*
 * Ends the run with the program's status and writes the raw data out
 * (include/zond.h: zond_bare_flush).  Once: the data of a second call
 * would only repeat the first.
 */
int zond_bare_flush(int status)
{
	static int flushed;
	if (!zrt.hdr || flushed)
		return -1;
	flushed = 1;
	zb_now = zb_clock() - zb_own;
	if ((int64_t)(zb_now - zb_last) < 0) { /* bare.h: zb_last */
		zb_now = zb_last;
		zrt.hdr->clamped_clock = ++zb_clamped;
	}
	close_frames(&zb_self, zb_now);
	zrt_process_end(1, status, 0);
	return zb_write_out(zrt.hdr, zrt.hdr->file_bytes);
}

/* exit() and a return from main end in _exit: linked with -Wl,--wrap=_exit. */
void __real__exit(int status) __attribute__((noreturn));

__attribute__((noreturn)) void __wrap__exit(int status)
{
	zond_bare_flush(status);
	__real__exit(status);
}

/* The raw data are read on the host as they are (doc/raw-format.md gives these sizes). */
_Static_assert(sizeof(struct zr_header) == 360, "raw header layout");
_Static_assert(sizeof(struct zr_module) == 32, "raw module layout");
_Static_assert(sizeof(struct zr_thread) == 192, "raw thread layout");
_Static_assert(sizeof(struct zr_func) == 80, "raw function layout");
_Static_assert(sizeof(struct zr_edge) == 40, "raw edge layout");
_Static_assert(sizeof(struct zr_context) == 80, "raw context layout");
_Static_assert(sizeof(struct zr_frame) == 64, "raw frame layout");
_Static_assert(sizeof(struct zr_sample_pc) == 24, "raw sample pc layout");
_Static_assert(sizeof(struct zr_event) == 16, "raw timeline event layout");
