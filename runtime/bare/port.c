/*
 * port.c - the bare-metal port proper (bare.h): the static buffers behind
 * port.h, start-up on the first probe, the probe-cost calibration and the
 * write-out at exit.
 */
#include "bare.h"

#include "../core/calibrate.h"
#include "../core/port.h"

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

uint64_t port_clock(void)
{
	return zb_clock();
}

void *port_map_output(uint64_t bytes)
{
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

/* ---- probe cost ---------------------------------------------------------- */

enum { CALIBRATION_CALLS = 100 };

void __cyg_profile_func_enter(void *fn, void *site);
void __cyg_profile_func_exit(void *fn, void *site);

__attribute__((noinline)) static void empty_leaf(uint64_t fn)
{
	__asm__ volatile("" : : "r"(fn) : "memory");
}

/* Shaped like instrumented code (see runtime/linux/init.c). */
__attribute__((noinline)) static void probed_leaf(uint64_t fn)
{
	__cyg_profile_func_enter((void *)(uintptr_t)fn, (void *)0);
	__cyg_profile_func_exit((void *)(uintptr_t)fn, (void *)0);
	__asm__ volatile("" : : : "memory");
}

__attribute__((noinline)) static void probed_loop(uint64_t outer, uint64_t leaf)
{
	__cyg_profile_func_enter((void *)(uintptr_t)outer, (void *)0);
	for (int i = 0; i < CALIBRATION_CALLS; i++)
		probed_leaf(leaf);
	__cyg_profile_func_exit((void *)(uintptr_t)outer, (void *)0);
}

static void bare_loop(void)
{
	for (int i = 0; i < CALIBRATION_CALLS; i++)
		empty_leaf(0);
}

/* ---- slow entries -------------------------------------------------------- */

uint64_t zb_enter_cost = UINT64_MAX;
/* While the entry cost is measured: the cheapest entry of a nested call seen. */
static int measuring_entry;
static uint64_t cheapest_entry = UINT64_MAX;

uint64_t zb_discount(struct zrt_thread *t, struct zr_frame *fr, uint64_t t0)
{
	uint64_t now = zb_clock();
	if (measuring_entry) {
		/* a nested call's: a root call skips the caller's checks */
		if (fr > t->stack && now - t0 < cheapest_entry)
			cheapest_entry = now - t0;
		return zb_clock();
	}
	/* the open frames below fr started that much later, as far as their cycles go */
	uint64_t extra = now - t0 - zb_enter_cost;
	for (struct zr_frame *open = t->stack; open < fr; open++)
		open->enter_ticks += extra;
	return zb_clock();
}

/*
 * The probe cost, in two rounds: the first, with every entry going through
 * zb_discount, finds the per-call entry's cost; the second, with that cost
 * known, measures the probes as the program will run them.
 */
static void calibrate(void)
{
	measuring_entry = 1;
	zb_enter_cost = 0;
	zrt_calibrate(&zb_self, probed_loop, bare_loop, CALIBRATION_CALLS);
	measuring_entry = 0;
	zb_enter_cost = cheapest_entry;
	zrt_calibrate(&zb_self, probed_loop, bare_loop, CALIBRATION_CALLS);
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
		.pid = 1,
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
_Static_assert(sizeof(struct zr_header) == 304, "raw header layout");
_Static_assert(sizeof(struct zr_module) == 32, "raw module layout");
_Static_assert(sizeof(struct zr_thread) == 152, "raw thread layout");
_Static_assert(sizeof(struct zr_func) == 80, "raw function layout");
_Static_assert(sizeof(struct zr_edge) == 32, "raw edge layout");
_Static_assert(sizeof(struct zr_context) == 80, "raw context layout");
_Static_assert(sizeof(struct zr_frame) == 64, "raw frame layout");
_Static_assert(sizeof(struct zr_sample_pc) == 24, "raw sample pc layout");
_Static_assert(sizeof(struct zr_event) == 16, "raw timeline event layout");
