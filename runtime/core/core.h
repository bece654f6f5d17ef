/*
 * core.h - the runtime core: the per-thread tables, the shadow stack and the
 * probe logic that fills them, all inside the raw file's mapping (raw.h).
 *
 * A port (port.h) owns the entry points.  It fills a struct zrt_config,
 * calls zrt_process_start() once, and from its hooks calls zrt_enter() and
 * zrt_exit() with the thread's struct zrt_thread (kept in thread-local
 * storage by the port), the function's run-time address and the probe's own
 * frame address.  zrt_enter() returns the new frame, or NULL when the call is
 * not timed; the port then stores the clock in frame->enter_ticks as the last
 * thing it does, and reads the clock first thing before zrt_exit(), so that
 * as little probe work as possible falls inside the measured interval.
 *
 * Rules of the per-call path (zrt_enter, zrt_exit): no lock, no allocation,
 * no call out of the core except on a thread's or a function's first call.
 * Every table is written by its own thread only.  A probe interrupted by a
 * signal handler whose code is instrumented ignores the handler's calls
 * (busy flag) rather than corrupt the stack.
 *
 * Frames abandoned by longjmp or by an exception unwinding code that calls no
 * exit probe are found by their stack address: a frame whose probe ran at a
 * lower address than the current probe cannot be live any more.  Functions
 * inlined into their caller (gcc and clang keep their probes) and blocks run
 * their probes from the caller's frame, at the same address: an exit closes
 * whatever its function left open in its own frame.  Closed frames count up
 * to the current time.
 *
 * Calling contexts: every frame carries the context it runs in (its path
 * from the thread's root, raw.h struct zr_context).  The entry probe's one
 * lookup is the context's, by (caller's context, callee address), and the
 * call is counted (and timed) on the context only; the context caches the
 * function's and the edge's indexes.  Function and edge records count only
 * calls that have no context (raw.h).  Recursion keeps
 * the full path (doc/raw-format.md says why).
 *
 * Times: raw = exit - enter ticks on the thread's frame clock, which leaves
 * out what a port measured of its probes' own cost (zrt_probe_paid); the
 * calibrated rest is taken out before anything is stored (zr_frame_charge
 * in raw.h), unbounded: the reader bounds the sums (ZR_FLAG_BOUND_SUMS).
 *
 * Sampled time (ZR_FLAG_SAMPLED): the port's per-thread sampler calls
 * zrt_sample() from its signal handler; a sample is charged to the context
 * on top of the shadow stack, or to zond when it lands inside a probe, and
 * kept with its program counter so that the reader can tell a callee's
 * prologue and epilogue (outside its hooks) from its caller's own code.
 *
 * Only <stdint.h>/<stddef.h> and compiler builtins are used.
 */
#ifndef ZOND_CORE_H
#define ZOND_CORE_H

#include <stddef.h>
#include <stdint.h>

#include "raw.h"

/*
 * Where a process image's clock meets the wall clock (raw.h start_ticks,
 * start_realtime_ns): read together by the port, so that a tick means the
 * same ns in every process of a run (QA s15 W1 F1: read tens of us apart,
 * a forked worker's timeline ran up to 100 us off its parent's).
 */
struct zrt_anchor {
	uint64_t ticks;
	int64_t realtime_ns;
};

/* A process image's ids, as its header records them (raw.h: pid, ppid, ns_pid, pid_levels, pid_ns). */
struct zrt_ids {
	int32_t pid, ppid, ns_pid;
	uint32_t pid_levels;
	uint64_t pid_ns;
};

/* What the port learned from its environment at start-up. */
struct zrt_config {
	uint32_t max_threads, max_funcs, max_edges, max_depth, max_contexts;
	uint32_t max_modules, string_bytes;
	uint64_t sample_period_ns; /* ZR_FLAG_SAMPLED */
	uint32_t sample_signal;
	uint32_t max_sample_pcs;   /* ZR_FLAG_SAMPLED: (context, pc) entries per thread, 0 none */
	uint32_t timeline_events;  /* the timeline's ring: events per thread, 0 none (timeline.h) */
	uint32_t timeline_flags;   /* ZR_TIMELINE_* */
	uint32_t flags;       /* ZR_FLAG_* */
	uint32_t clock, arch; /* enum zr_clock, enum zr_arch */
	double ticks_per_sec;
	struct zrt_ids ids;
	struct zrt_anchor start; /* ticks 0: the core reads port_clock() itself */
	int manual; /* start with recording off */
};

/* An address range excluded from recording, in link-time addresses of one module. */
struct zrt_filter {
	const char *module;  /* path, or a base name that matches any directory */
	uint64_t start, end; /* [start, end) */
};

/* zrt_process.gate: reasons a call may not be recorded (checked off the fast path) */
#define ZRT_GATE_STOPPED 1u /* ZOND_MANUAL before zond_start(), or after zond_stop() */
#define ZRT_GATE_TRIGGER 2u /* only while the trigger function is active */

/* Loaded modules without a record that are told apart, for lost_modules. */
#define ZRT_UNRECORDED 64

/*
 * Counters of the calls of threads that found no slot, each on its own
 * cache line so that such threads do not slow each other or the recorded
 * ones; threads beyond ZRT_LOST_COUNTERS share them.
 */
#ifndef ZRT_LOST_COUNTERS /* a port of one thread (bare metal) needs none */
#define ZRT_LOST_COUNTERS 16
#endif
struct zrt_lost_counter {
	uint64_t calls;
	uint64_t pad[7];
};

/* The process-wide state; hdr == NULL means nothing is recorded. */
struct zrt_process {
	struct zr_header *hdr;
	uint8_t *base;
	uint64_t file_bytes;
	int slots_cut;        /* the file has fewer thread slots than asked: no room for more */
	uint32_t func_mask, edge_mask, max_funcs, max_edges, max_depth;
	uint32_t ctx_mask, max_contexts;
	uint32_t pc_mask;     /* the (context, pc) tables' size - 1, 0 without them */
	uint32_t timeline;    /* events per thread's timeline ring, 0: no timeline (timeline.h) */
	uint64_t index_bytes; /* a thread's hash indexes, outside the file */
	uint32_t gate;        /* ZRT_GATE_*, changed atomically */
	int timed;            /* !(flags & ZR_FLAG_NO_TIME) */
	int clocked;          /* timed or timeline: the hooks read a clock at every call
				 (one test on the fast paths of the modes that read none) */
	int stacked;          /* timed or sampled: calls open frames on the shadow stack */
	uint64_t inner, pair; /* probe cost in ticks (see top) */
	uint64_t trigger;     /* run-time address of the trigger function, 0 if unresolved */
	const struct zrt_filter *filters;
	size_t n_filters;
	uint32_t module_lock;
	int unrecorded;       /* some function is of a module the table had no room for */
	/* loaded modules the table had no room for, counted once each in lost_modules
	   (under module_lock): their ranges, until they are unloaded */
	uint64_t unrecorded_at[ZRT_UNRECORDED][2];
	/* the calls of threads not recorded, summed into the header's
	   lost_thread_calls at the process's end (zrt_count_lost_call) */
	struct zrt_lost_counter lost_calls[ZRT_LOST_COUNTERS];
	uint32_t n_lost_threads;
	/*
	 * Set by a port that knows functions' names itself (the library-call
	 * collector): the string offset (zrt_keep_string) of the name of the
	 * function at addr, 0 for none.  Called on a function's first call on a
	 * thread.
	 */
	uint32_t (*function_name)(uint64_t addr);
	/*
	 * Set by the same port: a root call's caller is a ZR_FUNC_MODULE record
	 * of the module its return address is in, so that root edges are kept
	 * per (calling module, callee).
	 */
	int root_modules;
	/*
	 * Unloads so far (zrt_module_closed): a thread's cached calling module
	 * (zrt_thread.root_lo...) is good only while this is its root_gen, since
	 * an object loaded later may take the unloaded one's addresses.
	 */
	uint32_t modules_closed;
};

extern struct zrt_process zrt;

enum zrt_thread_state {
	ZRT_THREAD_NEW = 0, /* first call still to come: attach on it */
	ZRT_THREAD_ON = 1,  /* owns a slot: record */
	ZRT_THREAD_OFF = 2, /* nothing to record (no file, or no free slot) */
	/*
	 * The port's thread-local state is shared by several tasks (a clone
	 * with CLONE_VM and without CLONE_SETTLS, a vfork child): the port
	 * finds each task's own struct zrt_thread (runtime/linux/tasks.c); the
	 * core never sees a thread in this state.
	 */
	ZRT_THREAD_SHARED = 3,
};

/* One thread's view of its slot; lives in the port's thread-local storage. */
#define ZRT_MISSED 64

struct zrt_thread {
	uint32_t state; /* enum zrt_thread_state */
	/*
	 * Nonzero while the thread may have an exception in flight (set by a
	 * port that sees throws and catches): its exit probes then check whether
	 * they run in a cleanup that goes on unwinding (zrt_exit_resuming).
	 * Only a hint: wrong, it costs a look (set) or the unwinding's share
	 * of time (not set), never a call or a frame.
	 */
	uint32_t throwing;
	/*
	 * Inside a probe: an address on the stack the probe runs on, at or below
	 * the instrumented code it serves (zrt_take); 0 outside.  A signal
	 * handler interrupting the probe runs below it; a jump out of that
	 * handler (siglongjmp) to a frame above it leaves the probe for good
	 * (zrt_still_busy).
	 */
	uint64_t busy;
	struct zr_thread *info;
	struct zr_func *funcs;
	struct zr_edge *edges;
	uint32_t *func_hash, *edge_hash;
	struct zr_frame *stack;
	struct zr_context *contexts;
	uint32_t *ctx_hash;
	uint32_t ctx_mask; /* ctx_hash's size - 1: grows with the contexts (core.c) */
	/*
	 * The function, edge and context tables are laid out for max_funcs,
	 * max_edges and max_contexts but their file blocks are reserved as they
	 * fill (core.c table_room): entries below *_room may be written; *_limit,
	 * the table's size until a reservation failed (no room), bounds it.
	 */
	uint32_t func_room, func_limit, edge_room, edge_limit;
	uint32_t ctx_room, ctx_limit;
	/*
	 * The context of the thread's last counted call: the entry probe's
	 * first guess at a call's context is the one the thread entered after
	 * it last time (its zr_context.next), a program's calls following each
	 * other in the same order again and again.  Only a guess, checked.
	 */
	uint32_t last_ctx;
	struct zr_sample_pc *sample_pcs;
	struct zr_event *events; /* the timeline's ring (timeline.h) */
	/*
	 * Ports that key root calls by calling module (zrt.root_modules): the
	 * module of the last root call, [root_lo, root_lo + root_len), its
	 * ZR_FUNC_MODULE record, the caller of root calls from it, and that
	 * record's root context, the parent of their contexts; root_last, the
	 * context of the last root call from it that the fast path found (what
	 * a frame's last_child is to the calls made from the frame), ZR_NONE
	 * for none; root_gen, zrt.modules_closed when they were found (an
	 * unload since makes them stale).
	 */
	uint64_t root_lo, root_len;
	uint32_t root_func, root_ctx, root_last, root_gen;
	/*
	 * Exact time: the rest of the probe pair's cost per call (zrt.pair),
	 * and what zrt_probe_paid measured: calls until the next update of the
	 * thread's mean [0], sums and counts of the measured parts.
	 */
	uint64_t pair;
	uint32_t measure[2];
	uint64_t paid_sum[2], paid_n[2];
	/*
	 * Calls whose entry probe ran while another probe of the thread was
	 * busy: a signal handler's calls, the signal having landed in a probe
	 * (in call-heavy code, most of them).  Their functions wait here and are
	 * counted when the busy probe is done (zrt_unbusy): exact calls, with no
	 * context (lost_contexts) and no time.  Only a handler appends, only a
	 * probe (busy) takes them.
	 */
	uint64_t missed[ZRT_MISSED];
	uint32_t n_missed;
	/*
	 * The thread's signal stack, [alt_lo, alt_hi) (0, 0: none, or not known
	 * to the port), where its signal handlers' probes run: frames on the
	 * other stack are compared with them by the stack they are on, not by
	 * address (zrt_frame_stale), wherever the program put that stack.
	 */
	uint64_t alt_lo, alt_hi;
	/*
	 * Stack switches (swapcontext, setcontext): the frames of the stacks
	 * the thread left, by the context it comes back through (zrt_park);
	 * NULL until its first switch.  lost_path: the stack the thread runs on
	 * lost its frames (no room to keep them while it was suspended): its
	 * calls have no calling context.  park_lost: some stack's frames found
	 * no room (or were parked in the parent of a forked child), so a stack
	 * resumed that was never seen parked may be one of them.
	 */
	struct zrt_parking *parking;
	uint32_t lost_path, park_lost;
	/*
	 * The last context the thread saved with getcontext (the port's
	 * interposer), the one a setcontext leaving this stack will most
	 * likely come back through; 0: none.
	 */
	uint64_t saved_ctx;
	/*
	 * Nonzero: a task that runs on another thread's thread-local storage
	 * (ZRT_THREAD_SHARED), whose struct is not there: attached without
	 * port_thread_attached (the port's per-thread services, sampling among
	 * them, are the owner's).
	 */
	uint32_t shared_tls;
	/* a thread that found no slot: 1 + its counter in zrt.lost_calls; else 0 */
	uint32_t lost_counter;
};

/*
 * Counts a call of a thread not recorded (state ZRT_THREAD_OFF): in the
 * header's lost_thread_calls at the process's end, for a thread that found
 * no slot (zrt_thread_attach); nothing for one of a process not recorded.
 */
static inline void zrt_count_lost_call(struct zrt_thread *t)
{
	if (t->lost_counter)
		__atomic_fetch_add(&zrt.lost_calls[t->lost_counter - 1].calls, 1,
				   __ATOMIC_RELAXED);
}

/* Every this many measured probes, zrt_probe_paid updates the thread's mean pair. */
#define ZRT_MEASURE_EVERY 255u

/* ---- cold paths (core.c) ----------------------------------------------- */

/* Lays out and maps the raw file and fills its header.  0, or -1 (nothing recorded). */
int zrt_process_start(const struct zrt_config *cfg);

/* Marks the end of the process image in the header. */
void zrt_process_end(int exited, int status, int64_t realtime_ns);

/*
 * In a forked child, on the thread that forked: moves recording to a fresh
 * file (modules and strings are kept, statistics start from zero) and
 * carries t's open frames over: continued, not called again (their calls
 * were counted in the parent's file).  0, or when the child's file could not
 * be made (the child is then not recorded, and counted in the parent's
 * header: lost_processes, lost_processes_room) PORT_NO_ACCESS or PORT_NO_ROOM.
 */
int zrt_process_forked(struct zrt_thread *t, const struct zrt_ids *ids,
		       const struct zrt_anchor *start);

/*
 * Fork handlers: zrt_fork_prepare, in the parent just before a fork, copies
 * t's open frames for the child's zrt_process_forked (the parent changes
 * them again as soon as fork returns); zrt_fork_done, in the parent after
 * it, drops the copy.
 */
void zrt_fork_prepare(struct zrt_thread *t);
void zrt_fork_done(void);

/* Gives the calling thread a slot (or marks it OFF when none is free). */
void zrt_thread_attach(struct zrt_thread *t);

/*
 * Points t at a thread slot's tables (thread_bytes at slot) and its hash
 * indexes (zeroed, index_bytes at index): calibration binds scratch memory.
 */
void zrt_thread_bind(struct zrt_thread *t, void *slot, void *index);
uint64_t zrt_thread_bytes(void);
uint64_t zrt_index_bytes(void);

/* Notes the calling thread's end. */
void zrt_thread_end(struct zrt_thread *t);

/* zond_start() / zond_stop() */
void zrt_set_recording(int on);

/* Hand-placed blocks (zond.h).  site: return address of the begin call. */
void zrt_block_begin(struct zrt_thread *t, uint64_t site, const char *name, const char *file,
		     int line, uint64_t sp);
void zrt_block_end(struct zrt_thread *t, const char *name, uint64_t now);

/*
 * Control is back in the function whose probes run at frame address sp
 * (a catch clause): closes every frame called from it.
 */
void zrt_unwound(struct zrt_thread *t, uint64_t sp);

/*
 * The exit probe of fn, run at sp (at time now) by a cleanup that goes on
 * unwinding: gcc's cleanup landing pad calls the exit probe, then
 * _Unwind_Resume from fn's own stack frame, so the unwinding up to the next
 * frame's landing pad or the catch is still fn's (it is on the machine
 * stack, as perf sees it).  What fn left open in its own stack frame is
 * closed as by an exit, but fn's frame stays open, resuming: its probe
 * address is 0, below any probe's, so the next probe of the thread of any
 * kind (the next landing pad's exit, a destructor's entry, the catch's
 * zrt_unwound, a block) finds it stale and closes it at that probe's time,
 * once; a sample meanwhile is its own.  Exact calls are unchanged.
 */
void zrt_exit_resuming(struct zrt_thread *t, uint64_t fn, uint64_t sp, uint64_t now);

/*
 * t is busy and code at stack address sp (a probe, or a longjmp's target)
 * wants it: 1 when the busy probe may still be running, so sp is inside a
 * signal handler that interrupted it (below it on its stack, or on the
 * signal stack while it is not).  0 when it cannot be: a handler that
 * interrupted it left it by a jump (siglongjmp), and it never ends; t is
 * then no longer busy, the calls the handler made meanwhile counted by the
 * next probe.
 */
int zrt_still_busy(struct zrt_thread *t, uint64_t sp);

/*
 * Stack switches (a coroutine's swapcontext or setcontext): each stack has
 * frames of its own.  zrt_park(t, key, by_swap) moves every open frame of t
 * into its parking area under key (the context through which the thread
 * will come back to this stack: by_swap, the return of the swapcontext
 * that saved it; else a getcontext's), so that the stack switched to
 * starts with none, or with its own; zrt_unpark(t, key) puts the frames
 * parked under key back, in place of any still open (a stack left by
 * setcontext or a context's end: dead).  Timed, a parked frame's time
 * stops while parked.  The area grows with the stacks parked, each as deep
 * as the shadow stack; where it cannot (no memory), the stack is counted
 * in lost_stacks and, once resumed, its calls in lost_stack_calls: counted
 * on their functions, never under callers they did not have.  Resumed on
 * another thread, a stack finds nothing parked: its calls are roots there.
 * zrt_parked_by(t, key): how the frames parked under key were parked, 0
 * for none; ZRT_PARKED_GET (by a setcontext, for a getcontext's context) are
 * put back by the switch to key, whose landing runs no code of zond's.  Not from a signal handler (swapcontext is not
 * async-signal-safe either).  With the timeline, each is an event.
 */
void zrt_park(struct zrt_thread *t, uint64_t key, int by_swap);
void zrt_unpark(struct zrt_thread *t, uint64_t key);
int zrt_parked_by(struct zrt_thread *t, uint64_t key);
#define ZRT_PARKED_GET 1
#define ZRT_PARKED_SWAP 2

/*
 * Counts a call of fn that opens no frame (its time is its caller's): a
 * function that must not be returned through, or any call when only counts
 * are kept.  Frames below sp are dropped first; the edge comes from the
 * caller on top of the shadow stack.  The edge's index, ZR_NONE when the
 * call was not counted on one.
 */
uint32_t zrt_count_call(struct zrt_thread *t, uint64_t fn, uint64_t site, uint64_t sp, uint64_t pc);

/*
 * The caller index of a root call made from site: ZR_NONE, or with
 * zrt.root_modules the ZR_FUNC_MODULE record of site's module (added on
 * first sight; ZR_NONE when the module is unknown or the table full).
 */
uint32_t zrt_root_caller(struct zrt_thread *t, uint64_t site);

/*
 * The object at [start, end) was unloaded (dlclose): its module record is
 * closed and every thread's functions, blocks and calling-module records
 * keyed inside it are retired (ZR_CLOSED_BIT on their addr), so that an
 * object loaded later at the same addresses gets functions of its own.  No
 * thread may run the object's code any more; every thread's cached calling
 * module of root calls (libcalls) becomes stale (zrt.modules_closed).
 */
void zrt_module_closed(uint64_t start, uint64_t end);
/*
 * After an unload, for a port that hears only of unloaded objects it has a
 * record of (zrt_module_closed): the functions of unrecorded modules
 * (ZR_FUNC_UNRECORDED) no longer loaded are retired, so that an object
 * loaded later at their addresses is looked up afresh.
 */
void zrt_unrecorded_closed(void);

/*
 * Charges one sample of the thread's CPU-time timer (n: 1 + the timer's
 * overruns) to the context on top of t's shadow stack, or to zond when the
 * port saw it land in zond's own code (in_zond) or t is inside a probe;
 * called from the port's signal handler, so it only adds to t's own
 * counters.  A sample charged to a context is also counted at (context,
 * pc), pc being the interrupted program counter, in the thread's table
 * (raw.h struct zr_sample_pc), or as unplaced when that is full.
 */
void zrt_sample(struct zrt_thread *t, uint64_t n, int in_zond, uint64_t pc);
/*
 * Sampled time: n samples (0 or more) whose period zond's own sampling work
 * filled (sample.c), counted as zond's; cost_ticks, the sampling's own time
 * since the last call, added to the thread's sample_cost_ticks.
 */
void zrt_sample_sampling(struct zrt_thread *t, uint64_t n, uint64_t cost_ticks);

/*
 * Exact time (ZR_FLAG_PAID_EVERY_CALL): a port's measurement of what one
 * probe cost outside the measured intervals, where it was paid: which 0,
 * the entry probe from its start to its clock read; 1, the exit probe from
 * its clock read to its end.  Those ticks lie in the interval of frame fr
 * (the probe's caller: below the frame the entry opened, on top after the
 * exit closed one; NULL for none), which then starts that much later, and
 * its context's (or function's) overhead counts them.  So a caller is
 * never charged its callees' probes by an estimate, only by what they
 * cost; zrt.pair is left for the rest (the call itself, the hook's first
 * and last instructions: see zrt_calibrate).  Also keeps the thread's mean
 * whole pair (zr_thread.paid_pair_ticks) for the reports.
 */
void zrt_probe_paid(struct zrt_thread *t, struct zr_frame *fr, int which, uint64_t ticks);

/*
 * Function i's self and inclusive (outermost activations) ticks on t: its
 * contexts' and its own (calibration reads its scratch thread with it).
 */
void zrt_func_times(const struct zrt_thread *t, uint32_t i, uint64_t *self, uint64_t *incl);

/* Copies s into the raw file's string pool: its offset, 0 when the pool is full. */
uint32_t zrt_keep_string(const char *s);

/* 1 when a filter's or trigger's module name designates the module at path. */
int zrt_module_matches(const char *wanted, const char *path);

/* ---- the per-call path ------------------------------------------------- */

/* The time on t's frame clock of the port's clock reading now (zrt_probe_paid). */
static inline uint64_t zrt_frame_clock(const struct zrt_thread *t, uint64_t now)
{
	return now - t->info->paid_ticks;
}

#define zrt_likely(x)   __builtin_expect(!!(x), 1)
#define zrt_unlikely(x) __builtin_expect(!!(x), 0)

/*
 * The general enter and exit: anything the fast paths below do not handle.
 * They set t->busy themselves.
 */
struct zr_frame *zrt_enter_slow(struct zrt_thread *t, uint64_t fn, uint64_t site, uint64_t sp,
				uint64_t pc);
void zrt_exit_slow(struct zrt_thread *t, uint64_t fn, uint64_t sp, uint64_t now);

/* Orders the busy flag against the table updates as seen by a signal handler. */
static inline void zrt_signal_fence(void)
{
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
}

/* A call of fn whose entry probe found the thread busy: counted when the busy probe is done. */
void zrt_note_missed(struct zrt_thread *t, uint64_t fn);
/* Counts the calls noted meanwhile (t->busy still set). */
void zrt_count_missed(struct zrt_thread *t);

/* The start of a probe running at stack address at (nonzero), t not busy. */
static inline __attribute__((always_inline)) void zrt_take(struct zrt_thread *t, uint64_t at)
{
	t->busy = at;
	zrt_signal_fence();
}

/* The start of a probe whose stack address is its own frame's (a macro: the
   frame must be the probe's, not a helper's). */
#define ZRT_HERE() ((uint64_t)(uintptr_t)__builtin_frame_address(0))

/* The end of a probe that set t->busy: the calls a signal handler made meanwhile counted. */
static inline void zrt_unbusy(struct zrt_thread *t)
{
	zrt_signal_fence();
	if (__builtin_expect(t->n_missed != 0, 0))
		zrt_count_missed(t);
	t->busy = 0;
}

static inline uint32_t zrt_hash(uint64_t key)
{
	return (uint32_t)((key * 0x9e3779b97f4a7c15ull) >> 32);
}

/* Edges are found by caller index and callee address. */
static inline uint32_t zrt_edge_hash(uint32_t caller, uint64_t callee_addr)
{
	return zrt_hash(callee_addr ^ (uint64_t)caller << 40);
}

/* Contexts by parent context and callee address: the one lookup per call. */
static inline uint32_t zrt_ctx_hash(uint32_t parent, uint64_t callee_addr)
{
	return zrt_hash(callee_addr ^ (uint64_t)parent << 32 ^ (uint64_t)parent << 44);
}

static inline uint64_t zrt_sub_clamp(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

/*
 * A frame's sp holds the probe's frame address in its low ZRT_SP_BITS bits
 * (user and bare-metal addresses fit) and, above, the low bits of the
 * entry probe's own call site (pc: the hook's return address, a PLT call's
 * return address, a block's site).
 */
#define ZRT_SP_BITS 48
#define ZRT_SP_MASK ((1ull << ZRT_SP_BITS) - 1)

static inline uint64_t zrt_frame_sp(const struct zr_frame *fr)
{
	return fr->sp & ZRT_SP_MASK;
}

static inline uint64_t zrt_sp_key(uint64_t sp, uint64_t pc)
{
	return (sp & ZRT_SP_MASK) | pc << ZRT_SP_BITS;
}

/*
 * 1 when frame fr, on top of the stack, cannot be live at a new call of fn
 * (key: address, or block site | ZR_BLOCK_BIT; 0: an exit or an unwinding,
 * which closes frames) whose entry probe runs at sp, called from pc: its
 * probe ran below sp (deeper than the new call's), or at sp for fn from
 * the same pc -- a call of fn from the same stack frame and the same code
 * that never returned (left by longjmp, then fn called again).  A live
 * ancestor's probe runs higher up, or at sp from another pc: the new call
 * was inlined into it (gcc inlines recursive functions into themselves).
 */
static inline int zrt_on_alt_stack(const struct zrt_thread *t, uint64_t sp)
{
	return sp - t->alt_lo < t->alt_hi - t->alt_lo;
}

/*
 * (continued) Where the thread has a signal stack and the probe and the
 * frame are on different stacks, their addresses say nothing: a probe on
 * the signal stack (a handler's call) leaves the frames it interrupted
 * live, and one off it finds the handler's frames dead (it returned, or
 * left by longjmp).  A signal stack above the interrupted frames (a buffer
 * of main's, a mapping made before the thread) had every frame closed.
 */
static inline int zrt_frame_stale(const struct zrt_thread *t, const struct zr_frame *fr,
				  uint64_t fn, uint64_t sp, uint64_t pc)
{
	uint64_t at = zrt_frame_sp(fr);
	if (zrt_unlikely(t->alt_hi != 0)) {
		int probe_alt = zrt_on_alt_stack(t, sp);
		if (probe_alt != zrt_on_alt_stack(t, at))
			return !probe_alt;
	}
	return at < sp || (fn && fr->sp == zrt_sp_key(sp, pc) && fr->addr == fn);
}

/* Opens a frame for func i, reached over edge e in context c, at stack depth d. */
static inline struct zr_frame *zrt_open_frame(struct zrt_thread *t, uint32_t d, uint64_t fn,
					      uint64_t sp, uint32_t i, uint32_t e, uint32_t c)
{
	struct zr_frame *fr = &t->stack[d];
	fr->addr = fn;
	fr->sp = sp;
	fr->func = i;
	fr->ctx = c;
	fr->last_child = ZR_NONE;
	if (zrt.timed) {
		if (c == ZR_NONE)
			t->funcs[i].depth++;
		fr->edge = e;
		fr->enter_ticks = 0;
		fr->child_ticks = 0;
		fr->child_incl = 0;
		fr->n_children = 0;
		fr->n_desc = 0;
	}
	t->info->depth = d + 1;
	return fr;
}

/* Charges the times of frame fr, just popped, at time now (core.c). */
void zrt_charge_popped(struct zrt_thread *t, struct zr_frame *fr, uint64_t now);

/*
 * Pops the top frame (stack depth d) at time now, charging its times.  The
 * charge is a call: untimed, the pop is a store the exit probe's fast path
 * makes without saving a register.
 */
static inline void zrt_pop(struct zrt_thread *t, uint32_t d, uint64_t now)
{
	t->info->depth = d - 1;
	if (zrt.timed)
		zrt_charge_popped(t, &t->stack[d - 1], now);
}

/*
 * The context the thread entered after its last one, last time, when it is
 * the one of fn called from parent and has its edge; ZR_NONE otherwise.
 * Any index below ctx_room may be read (a context not yet added has
 * address 0), so a stale guess (a merged or reset table) only misses.
 */
static inline uint32_t zrt_guess_context(const struct zrt_thread *t, uint32_t parent, uint64_t fn)
{
	uint32_t prev = t->last_ctx;
	if (zrt_unlikely(prev >= t->ctx_room))
		return ZR_NONE;
	uint32_t x = t->contexts[prev].next;
	if (zrt_unlikely(x >= t->ctx_room))
		return ZR_NONE;
	const struct zr_context *c = &t->contexts[x];
	return c->addr == fn && c->parent == parent && c->edge != ZR_NONE ? x : ZR_NONE;
}

/* Context x (which has its edge) was entered: the guess for next time. */
static inline void zrt_entered_context(struct zrt_thread *t, uint32_t x)
{
	uint32_t prev = t->last_ctx;
	if (prev < t->ctx_room)
		t->contexts[prev].next = x;
	t->last_ctx = x;
}

/*
 * The entry probe's fast path; the caller has checked t->state ==
 * ZRT_THREAD_ON.  A call in a context seen before (which has its edge),
 * from a live caller, with room on the stack and nothing gating the
 * recording: counted, its frame opened and returned.  NULL otherwise, with
 * nothing changed: t->busy still set when the probe must ignore the call
 * (zrt_enter's case), else zrt_enter_slow's case.  It calls nothing, so
 * that a port's hook can run it without a stack frame of its own.
 *
 * The context is found, cheapest first, as the thread's guess (the one
 * entered after the last one, last time: zrt_guess_context), in the
 * caller's frame (last_child: a caller calling the same function again, a
 * loop), or in the hash index.  The guess touches only a context the call
 * counts on anyway and one entered just before, where the index costs a
 * slot and the records of other contexts on the way, lines the program's
 * own memory-bound code then misses (doc/accuracy.md).  A frame's
 * last_child is always a context whose parent is the frame's and that has
 * its edge, so only the callee needs checking.  Root calls from the cached
 * calling module (root_modules) do the same with root_last, whose parent is
 * root_ctx.
 */
static inline __attribute__((always_inline)) struct zr_frame *
zrt_enter_fast(struct zrt_thread *t, uint64_t fn, uint64_t site, uint64_t sp, uint64_t pc)
{
	if (zrt_unlikely(t->busy))
		return NULL;
	zrt_take(t, sp);
	struct zr_frame *fr = NULL, *top = NULL;
	struct zr_context *c;
	uint32_t d = t->info->depth;
	uint32_t parent = ZR_NONE, x;
	if (zrt_unlikely(zrt.gate))
		goto done;
	if (d) {
		top = &t->stack[d - 1];
		/*
		 * A live ancestor's probe ran higher up the stack than ours, or in
		 * the same frame when we were inlined into it.
		 */
		if (zrt_unlikely(d >= zrt.max_depth || zrt_frame_stale(t, top, fn, sp, pc) ||
				 top->ctx == ZR_NONE))
			goto done;
		parent = top->ctx;
		x = zrt_guess_context(t, parent, fn);
		if (zrt_likely(x != ZR_NONE))
			goto found;
		x = top->last_child;
		if (zrt_likely(x != ZR_NONE) && zrt_likely(t->contexts[x].addr == fn))
			goto found;
	} else if (zrt_unlikely(t->lost_path)) {
		goto done; /* a stack whose callers were lost: no root context */
	} else if (zrt.root_modules) {
		/* a root call: its caller is the calling module's record */
		if (zrt_unlikely(site - t->root_lo >= t->root_len || t->root_ctx == ZR_NONE ||
				 t->root_gen != __atomic_load_n(&zrt.modules_closed,
								__ATOMIC_RELAXED)))
			goto done;
		parent = t->root_ctx;
		x = zrt_guess_context(t, parent, fn);
		if (zrt_likely(x != ZR_NONE))
			goto found;
		x = t->root_last;
		if (zrt_likely(x != ZR_NONE) && zrt_likely(t->contexts[x].addr == fn))
			goto found;
	} else {
		x = zrt_guess_context(t, parent, fn);
		if (zrt_likely(x != ZR_NONE))
			goto found;
	}
	/* linear probing, as find_context adds: the index is at most half full */
	for (uint32_t h = zrt_ctx_hash(parent, fn) & t->ctx_mask;; h = (h + 1) & t->ctx_mask) {
		x = t->ctx_hash[h];
		if (zrt_unlikely(!x))
			goto done;
		c = &t->contexts[--x];
		if (zrt_likely(c->parent == parent && c->addr == fn))
			break;
	}
	if (zrt_unlikely(c->edge == ZR_NONE))
		goto done;
found:
	zrt_entered_context(t, x);
	if (top)
		top->last_child = x;
	else if (zrt.root_modules)
		t->root_last = x; /* parent: root_ctx */
	c = &t->contexts[x];
	c->calls++;
	fr = zrt_open_frame(t, d, fn, zrt_sp_key(sp, pc), c->func, c->edge, x);
done:
	zrt_unbusy(t);
	return fr;
}

/*
 * The entry probe; the caller has checked t->state == ZRT_THREAD_ON.
 * The new frame, or NULL when the call opens none.
 */
static inline struct zr_frame *zrt_enter(struct zrt_thread *t, uint64_t fn, uint64_t site,
					 uint64_t sp, uint64_t pc)
{
	if (zrt_unlikely(t->busy) && zrt_still_busy(t, sp)) {
		zrt_note_missed(t, fn);
		return NULL;
	}
	struct zr_frame *fr = zrt_enter_fast(t, fn, site, sp, pc);
	return fr ? fr : zrt_enter_slow(t, fn, site, sp, pc);
}

/*
 * 1 when fn's exit probe, run at sp, closes the top frame of the d open
 * ones (fn's own): the probe ran at or below the frame's entry probe (an
 * alloca may have moved the stack pointer down since), or above it but not
 * above the frame below: a probe the compiler called last from fn's
 * epilogue (a jump, after fn's stack frame was given back) runs just below
 * fn's caller's frame.  A frame of fn abandoned by a longjmp to an older
 * activation of fn fails both: that activation's exit runs above the frame
 * below (it is that activation's own, or deeper).  zrt_exit_slow handles
 * every other case.
 */
static inline int zrt_exit_closes_top(const struct zrt_thread *t, uint32_t d, uint64_t sp)
{
	const struct zr_frame *top = &t->stack[d - 1];
	return zrt_frame_sp(top) >= sp || d == 1 || zrt_frame_sp(&top[-1]) >= sp;
}

/*
 * The exit probe's fast path; the caller has checked t->state ==
 * ZRT_THREAD_ON.  1 when done (fn's frame closed at now, or the call
 * ignored); 0: zrt_exit_slow's case, nothing changed.  Calls nothing.
 */
static inline __attribute__((always_inline)) int zrt_exit_fast(struct zrt_thread *t, uint64_t fn,
								uint64_t sp, uint64_t now)
{
	if (zrt_unlikely(t->busy))
		return 1;
	zrt_take(t, sp);
	uint32_t d = t->info->depth;
	int done = !d;
	if (zrt_likely(d - 1 < zrt.max_depth && t->stack[d - 1].addr == fn &&
		       zrt_exit_closes_top(t, d, sp))) {
		zrt_pop(t, d, now);
		done = 1;
	}
	zrt_unbusy(t);
	return done;
}

/* The exit probe; the caller has checked t->state == ZRT_THREAD_ON. */
static inline void zrt_exit(struct zrt_thread *t, uint64_t fn, uint64_t sp, uint64_t now)
{
	if (!zrt_exit_fast(t, fn, sp, now))
		zrt_exit_slow(t, fn, sp, now);
}

#endif
