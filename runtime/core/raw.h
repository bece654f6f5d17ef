/*
 * raw.h - the raw data file: what the runtime inside a profiled program
 * writes and what `zond` reads back.  Shared, byte for byte, by both sides;
 * described for people in doc/raw-format.md.
 *
 * One file per process.  The runtime creates it at start-up, sizes it from
 * its pool limits, maps it MAP_SHARED and keeps every table *in* the mapping,
 * so whatever the process counted is in the file the moment it was counted:
 * a crash, _exit or SIGKILL loses nothing but the end time.
 *
 * Layout (all offsets from the start of the file, all in host byte order,
 * every section 64-byte aligned, every thread slot page aligned):
 *
 *   struct zr_header
 *   struct zr_module   modules[max_modules]
 *   char               strings[string_bytes]        NUL-terminated, offset 0 = ""
 *   struct zr_thread_slot threads[max_threads], each thread_bytes long:
 *        struct zr_thread
 *        struct zr_func  funcs[max_funcs]
 *        struct zr_edge  edges[max_edges]
 *        struct zr_frame stack[max_depth]
 *        struct zr_context contexts[max_contexts]
 *        struct zr_sample_pc sample_pcs[max_sample_pcs]
 *        struct zr_event events[max_events]          the timeline's ring
 *
 * The runtime's hash indexes (func_hash_size, edge_hash_size, ctx_hash_size
 * entries) live in its private memory, not in the file (func_hash_off,
 * where seccomp_ticks is now, and edge_hash_off, where lost_threads_room is,
 * were always 0).
 *
 * Per-thread tables are written only by their thread, so no update is ever
 * lost and no lock is taken on the per-call path.  Counters shared by all
 * threads (n_threads, n_modules, string_used, overflow counts) are updated
 * with atomic operations on cold paths only.
 *
 * Times are in clock ticks; ticks_per_sec converts them.  Function records
 * keep *corrected* times: the probe cost has already been taken out (see
 * overhead_* below and zr_frame_charge).  The sums are signed (two's
 * complement in uint64_t): with ZR_FLAG_BOUND_SUMS the reader bounds them
 * (no self below 1 tick per call, and contexts above raised as much);
 * older writers bounded each call themselves.  zr_func.overhead is what was
 * taken out of a function's self time.
 *
 * The only dependency is <stdint.h>: this header is included by the
 * freestanding runtime core.
 */
#ifndef ZOND_RAW_H
#define ZOND_RAW_H

#include <stdint.h>

#define ZR_MAGIC "ZONDRAW\0"
#define ZR_VERSION 4
#define ZR_NONE 0xffffffffu /* no index (caller of a root call) */

/* zr_header.state */
enum zr_state {
	ZR_RUNNING = 1, /* still running, or ended without saying (crash, kill, raw exec) */
	ZR_EXITED = 2,  /* exit()/return from main/_exit: exit_status valid */
	ZR_SIGNALED = 3,/* a fatal signal: term_signal valid (a runtime that installs
			   no signal handler, like the Linux one, never writes it) */
	ZR_EXECED = 4,  /* replaced by exec: end_ticks is the exec, the new image has
			   its own file */
};

/* zr_header.arch: the machine the addresses and ticks come from */
enum zr_arch {
	ZR_ARCH_X86_64 = 1,
	ZR_ARCH_AARCH64 = 2,
	ZR_ARCH_RISCV32 = 3,   /* bare-metal runtime (runtime/bare) */
	ZR_ARCH_RISCV64 = 4,
};

/* zr_header.clock */
enum zr_clock {
	ZR_CLOCK_TSC = 1,           /* x86 rdtsc, invariant */
	ZR_CLOCK_MONOTONIC = 2,     /* clock_gettime(CLOCK_MONOTONIC), ticks are ns */
	ZR_CLOCK_CNTVCT = 3,        /* aarch64 virtual counter */
	ZR_CLOCK_MCYCLE = 4,        /* RISC-V mcycle (or cycle in user mode): ticks are
				       cycles, stored as event "cycles", not converted */
};

/* zr_header.flags */
#define ZR_FLAG_NO_TIME 1u    /* counts and edges only: no times at all */
#define ZR_FLAG_FAST_CLOCK 2u /* clock reads not fenced (ZOND_FAST_CLOCK=1) */
#define ZR_FLAG_SAMPLED 4u    /* CPU time sampled per context (ZOND_TIME=sampled):
				 zr_context.samples, zr_thread.samples*; the hooks
				 read no clock (NO_TIME is set with it) */
/*
 * The file system or a limit (RLIMIT_FSIZE, RLIMIT_AS) left no room for some
 * of the data: fewer thread slots than asked, a slot or contexts whose
 * blocks could not be reserved (threads not recorded: lost_threads_room),
 * none at all when not even the fixed part had room.
 */
#define ZR_FLAG_NO_ROOM 8u
/*
 * Exact time: every probe's own cost outside the measured intervals was
 * measured where it was paid and kept out of every frame (frame times run
 * on the clock minus zr_thread.paid_ticks); overhead_pair_ticks is only the
 * rest per call, and zr_thread.paid_pair_ticks the mean whole pair.
 */
#define ZR_FLAG_PAID_EVERY_CALL 16u
/*
 * Exact time: calls were charged their corrected time unbounded (signed
 * sums, zr_frame_charge); the reader bounds the sums.  Without it (older
 * writers, and the bare-metal runtime, whose accounting is exact) the sums
 * are taken as they are.
 */
#define ZR_FLAG_BOUND_SUMS 32u
/*
 * The program put itself under seccomp (prctl(PR_SET_SECCOMP), the seccomp
 * system call) at seccomp_ticks: the runtime made no system call of its own
 * from then on (sampling stopped, later threads and forked children not
 * recorded: doc/raw-format.md).  STRICT: strict mode, where the x86 time-
 * stamp counter is denied: the clock stopped there, later calls are
 * counted, not timed.
 */
#define ZR_FLAG_SECCOMP 64u
#define ZR_FLAG_SECCOMP_STRICT 128u
/*
 * The process could no longer reach its raw file or zond's directory (it
 * changed its user or root: setuid, chroot): blocks it could not reserve
 * (threads not recorded: lost_threads_access; tables ended: lost_*), or
 * (processes it forked or exec'ed that could not create their files are
 * counted in lost_processes).  Not room: ZR_FLAG_NO_ROOM says that.
 */
#define ZR_FLAG_NO_ACCESS 256u

/* zr_header.samplers: what counted a thread's CPU time for its samples */
#define ZR_SAMPLER_PERF 1u  /* a perf_event software task clock, one period at a time */
#define ZR_SAMPLER_TIMER 2u /* a POSIX timer on the thread's CPU-time clock (checked at the tick) */

/* zr_func.flags */
#define ZR_FUNC_BLOCK 1u    /* a hand-marked block: name/file/line are set */
#define ZR_FUNC_FILTERED 2u /* excluded by a filter: never counted */
#define ZR_FUNC_NAMED 4u    /* a function the collector named (name is set): e.g. the
			       dynamic symbol a library call was bound by */
#define ZR_FUNC_MODULE 8u   /* a calling module (libcalls): not a function but the caller
                               of the root calls made from that module's code; name is its
                               path, addr its start | ZR_MODULE_BIT; never on a stack */
/*
 * A function of a module the module table had no room for (lost_modules):
 * named by no module, so its calls are counted on this record (calls) and
 * nowhere else, never on a stack, edge or context; the reader counts them as
 * lost (lost_module_calls), never on another module's function.
 */
#define ZR_FUNC_UNRECORDED 16u

/*
 * A block's zr_func.addr is the run-time address its begin was called from
 * with this bit set, so that it can never equal a function's entry address.
 */
#define ZR_BLOCK_BIT (1ull << 63)
#define ZR_MODULE_BIT (1ull << 62) /* key of a ZR_FUNC_MODULE record */
/*
 * Set on the addr of a function (or block, or calling module) whose module
 * was unloaded: the same address in an object loaded later is a different
 * function.  The address is addr without it, in the module zr_func.module.
 */
#define ZR_CLOSED_BIT (1ull << 61)

struct zr_header {
	char magic[8];
	uint32_t version;
	uint32_t header_bytes;   /* sizeof(struct zr_header) of the writer */
	uint64_t file_bytes;
	uint32_t state;          /* enum zr_state */
	uint32_t flags;          /* ZR_FLAG_* */
	int32_t pid, ppid;       /* as the /proc the process saw shows them (pid_levels) */
	int32_t exit_status;     /* valid when state == ZR_EXITED */
	int32_t term_signal;     /* valid when state == ZR_SIGNALED */

	uint32_t clock;          /* enum zr_clock */
	uint32_t arch;           /* enum zr_arch */
	double ticks_per_sec;    /* calibrated frequency of the clock */
	uint64_t start_ticks, end_ticks;   /* end_ticks 0 until the process ends */
	int64_t start_realtime_ns;         /* CLOCK_REALTIME at start */
	int64_t end_realtime_ns;           /* 0 until the process ends */
	/*
	 * Probe cost, measured at start-up: inner = the part of one probe pair
	 * that falls inside the measured interval of the function itself;
	 * pair = the whole cost of one entry+exit probe pair.
	 */
	uint64_t overhead_inner_ticks;
	uint64_t overhead_pair_ticks;

	/* capacities, fixed at start-up */
	uint32_t max_modules, max_threads, max_funcs, max_edges;
	uint32_t func_hash_size, edge_hash_size, max_depth;
	uint32_t string_bytes;
	uint64_t thread_bytes;   /* size of one thread slot */
	uint64_t modules_off, strings_off, threads_off;
	/* offsets inside one thread slot */
	uint64_t funcs_off, edges_off;
	uint64_t seccomp_ticks;  /* ZR_FLAG_SECCOMP: the clock at the seccomp call (was
				    func_hash_off, always 0) */
	/* threads not profiled for want of room: their slot's blocks could not be
	   reserved, or the file was made with fewer slots than asked (ZR_FLAG_NO_ROOM);
	   was the low half of edge_hash_off, always 0 */
	uint32_t lost_threads_room;
	/* processes not recorded (forked children, exec'ed images) because they could
	   not create their raw file in zond's directory: no permission, or not reachable
	   (the program changed its user or root: setuid, chroot), counted by the process
	   that forked or exec'ed them; was unused0, the high half of edge_hash_off,
	   always 0 */
	uint32_t lost_processes;
	uint64_t stack_off;

	/* shared counters (atomic) */
	uint32_t n_modules, n_threads, string_used;
	uint32_t lost_threads;   /* threads not profiled: every slot taken (lost_threads_room:
				    no room for one) */
	uint32_t lost_modules;   /* modules not recorded: table full */
	uint32_t lost_strings;   /* strings not kept: pool full */

	/* version 2: calling contexts and sampled time */
	uint32_t max_contexts, ctx_hash_size;
	uint64_t contexts_off;    /* offset of the context pool inside one thread slot */
	uint64_t sample_period_ns; /* CPU time between two samples (ZR_FLAG_SAMPLED) */
	uint32_t sample_signal;   /* the signal the sampling timers raise */
	uint32_t sample_state;    /* 1 sampling ran; 2 stopped: the program took the signal;
				     3 stopped at a seccomp call (ZR_FLAG_SECCOMP) */
	/* sampled time: the (context, pc) table of each thread slot, open addressing;
	   max_sample_pcs is a power of two, or 0 for none (libcalls) */
	uint32_t max_sample_pcs;
	uint32_t samplers;        /* ZR_SAMPLER_*: what sampled the threads (was padding: 0) */
	uint64_t sample_pcs_off;  /* offset of the table inside one thread slot */

	/* version 3: the timeline (zond record --timeline), a ring of struct
	   zr_event per thread slot; max_events 0: no timeline */
	uint32_t max_events;
	uint32_t timeline_flags; /* ZR_TIMELINE_* */
	uint64_t events_off;     /* offset of the ring inside one thread slot */

	/* version 4: sampled time's part that no sample can see, the program's
	   own calls of its instrumentation hooks: the cost of one call's pair of
	   calls to empty __cyg_profile_func_enter/exit, in ticks of the clock,
	   measured at start-up (0: not measured, or not -finstrument-functions:
	   libcalls).  The reader charges it to each function per call
	   (doc/raw-format.md "Sampled time"). */
	double hook_pair_ticks;

	/* header_bytes 320 (still version 4: a file of 312 has these 0, the padding
	   before the module table): threads not recorded because their slot's blocks
	   could not be reserved, the raw file being out of reach (ZR_FLAG_NO_ACCESS;
	   where the kernel has no MADV_POPULATE_WRITE); processes not recorded for
	   want of room (a forked child whose file had no room, lost_processes'
	   twin) */
	uint32_t lost_threads_access;
	uint32_t lost_processes_room;

	/* header_bytes 328 (a file of 320 or 312 has it 0): the bare-metal runtime's
	   instrumented call sites whose prologue or epilogue outside the hooks it
	   could not count from the code (runtime/bare/sites.c), their functions'
	   figures short by those instructions; 0 elsewhere */
	uint32_t inexact_sites;
	/* calls not recorded (Linux): made by tasks sharing a thread's TLS (a
	   clone with CLONE_VM and without CLONE_SETTLS) beyond the ones zond keeps
	   apart (runtime/linux/tasks.c); was unused (0) */
	uint32_t lost_shared_tls_calls;

	/* header_bytes 336 (an older file has it 0): calls made by the threads
	   not recorded (lost_threads, lost_threads_room, lost_threads_access), as
	   counted up to the process's end: a thread still running then may make
	   a few more */
	uint64_t lost_thread_calls;

	/* header_bytes 344 (an older file has it 0: its edges are
	   ZR_EDGE_V4_BYTES long, without pc): the size of a zr_edge record */
	uint32_t edge_bytes;
	/* the bare-metal runtime's hooks where the program's clock (the counter less
	   zond's own cycles) would have gone back, and was held where it was: QEMU
	   without -icount, where mcycle follows the host's clock and the cost
	   constants measured at start-up are no longer exact (runtime/bare/hooks.c);
	   0 elsewhere; was padding (0) */
	uint32_t clamped_clock;

	/*
	 * header_bytes 360 (an older file has them 0: its pid is getpid's).  A
	 * process in a pid namespace of its own (unshare(CLONE_NEWPID), then a
	 * fork: sandboxes, containers) has small ids there, pid 1 in each: pid,
	 * ppid and the threads' tids are then those of the /proc it saw, read from
	 * /proc/self/status (NSpid, PPid) at start-up and in a forked child, which
	 * is zond's /proc unless the program mounted its own namespace's.
	 * pid_levels: the count of NSpid's ids (1: /proc's namespace is the
	 * process's own; more: pid is of a namespace above it; 0: /proc could not
	 * be read, pid is getpid's); ns_pid: getpid's; pid_ns: the inode of the
	 * process's pid namespace (/proc/self/ns/pid), 0 unknown.  The reader
	 * files a process whose namespace is not zond's and whose /proc was its own
	 * (pid_levels 1) under an id no real pid has (doc/raw-format.md "Process ids").
	 */
	uint64_t pid_ns;
	int32_t ns_pid;
	uint32_t pid_levels;
};

/* the header of version 4's first writers, without lost_threads_access and lost_processes_room */
#define ZR_HEADER_V4_BYTES 312u
/* a zr_edge of a writer without zr_header.edge_bytes (no pc) */
#define ZR_EDGE_V4_BYTES 32u

/* zr_header.timeline_flags: a full ring overwrites its oldest event (else new ones are dropped) */
#define ZR_TIMELINE_KEEP_NEWEST 1u
/* the ring may hold stack switches and continued frames (ZR_EVENT_SWITCH,
   ZR_EVENT_CONTINUED); readers of older writers' files never see either */
#define ZR_TIMELINE_SWITCHES 2u

/* A loaded ELF object, recorded the first time one of its functions runs. */
struct zr_module {
	uint64_t start, end;     /* run-time address range of its PT_LOAD segments */
	uint64_t bias;           /* load bias: link-time address = address - bias */
	uint32_t path;           /* string offset of its path (absolute when known) */
	uint32_t flags;          /* ZR_MODULE_*; was padding (0) */
};

/* zr_module.flags */
/* unloaded (dlclose): a later object at its addresses has a record of its own */
#define ZR_MODULE_CLOSED 1u

struct zr_thread {
	int32_t tid;
	uint32_t used;           /* 1 once the slot belongs to a thread */
	char name[16];           /* prctl(PR_GET_NAME) at its first call, again when it ends */
	uint64_t start_ticks;
	uint64_t last_ticks;     /* last time the thread left a function */
	uint64_t end_ticks;      /* 0 while the thread lives */
	uint32_t n_funcs, n_edges;
	uint32_t depth;          /* frames on the shadow stack (may exceed max_depth) */
	uint32_t lost_funcs;     /* calls not counted: function table full */
	uint32_t lost_edges;     /* calls whose edge was not counted: edge table full */
	uint32_t lost_frames;    /* calls deeper than max_depth: counted, not timed,
				    no edge */
	uint32_t n_contexts;
	uint32_t lost_contexts;  /* calls not counted on a context: pool full, or
				    below a call that was not */
	/* sampled time (ZR_FLAG_SAMPLED): every sample lands in exactly one of
	   zr_context.samples, samples_zond, samples_root and samples_lost */
	uint64_t samples;        /* every sample taken on this thread (timer overruns included) */
	uint64_t samples_zond;   /* inside zond's own probes: zond's cost, not the program's */
	uint64_t samples_root;   /* no function open on the shadow stack */
	uint64_t samples_lost;   /* the open frame has no context (the pool was full) */
	uint64_t paid_pair_ticks; /* exact time: the probe pair's cost as measured on this
				     thread's own calls (0: not yet); without
				     ZR_FLAG_PAID_EVERY_CALL used instead of
				     overhead_pair_ticks once known */
	/* sampled time: samples charged to a context (zr_context.samples) that are
	   in no zr_sample_pc entry because the thread's table was full */
	uint64_t samples_unplaced;
	uint32_t n_sample_pcs;    /* entries used in the thread's zr_sample_pc table */
	uint32_t unstacked_calls; /* calls a signal handler made while a probe of the
				     thread ran: counted on their functions, with no
				     context and no time (core.h zrt_thread.missed) */
	/* the timeline (version 3): events offered to the ring, kept or not; event
	   n is at index n % max_events, kept while n is among the max_events first
	   (keep oldest) or last (ZR_TIMELINE_KEEP_NEWEST) */
	uint64_t events_written;
	uint64_t events_lost; /* events of ended threads merged into this slot (their
				 rings are not kept) */
	/* exact time with ZR_FLAG_PAID_EVERY_CALL (was room before funcs_off, 0): the
	   probes' own cost measured so far outside the measured intervals; the
	   thread's frame times (enter_ticks, last_ticks) are on the clock minus it */
	uint64_t paid_ticks;
	/* stack switches (swapcontext, setcontext; room before funcs_off, 0 in files
	   of older writers): */
	uint32_t lost_stacks;       /* suspended stacks whose frames the runtime could not
				       keep (no memory for more): their calls go on counted,
				       their callers lost */
	uint32_t lost_stack_calls;  /* calls made on a resumed stack whose frames were
				       not kept: counted on their functions, on no
				       context, a root call on no edge */
	/* a forked child's first thread (room before funcs_off, 0 in files of older
	   writers): its frames below this depth are the calls in progress at the fork,
	   continued here, not called: closed as cut short (zr_frame_charge ended 0) */
	uint32_t continued_frames;
	/* sampled time (room before funcs_off, 0 in files of older writers): samples
	   whose period was filled by zond's own sampling work rather than the
	   program (the handlers' time, counted on the thread's CPU clock, adds up to
	   a period: see doc/raw-format.md "Sampled time"), counted in samples_zond
	   too; and the handlers' own time in clock ticks */
	uint64_t samples_sampling;
	uint64_t sample_cost_ticks;
};

/*
 * One function (or block) as seen by one thread.  Its counts and times are
 * those of calls counted on no context (the context pool was full, too
 * deep, libcalls' --no-time wrapper counters): a call counted on a context
 * is counted there only, and the reader adds the contexts' in (doc/
 * raw-format.md), so that the per-call path writes one counter.
 */
struct zr_func {
	uint64_t addr;           /* run-time entry address, or block site | ZR_BLOCK_BIT */
	uint32_t flags;          /* ZR_FUNC_* */
	uint32_t depth;          /* live activations with no context (recursion) */
	uint64_t calls;
	uint64_t incl;           /* ticks (signed sum), outermost activations only */
	uint64_t self;           /* ticks (signed sum), all activations */
	uint64_t min, max;       /* inclusive ticks of one call; min UINT64_MAX if none */
	uint32_t name, file;     /* blocks: string offsets; named functions: name;
				    other functions: 0 */
	uint32_t line;           /* blocks: source line */
	uint32_t module;         /* its zr_module's index + 1, 0 when not known (older
				    writers: the module whose range holds addr) */
	uint64_t overhead;       /* ticks of probe cost taken out of self (signed sum) */
};

/* Calls from one function to another, as seen by one thread (flat like zr_func). */
struct zr_edge {
	uint32_t caller;         /* zr_func index in the same thread, ZR_NONE for a root */
	uint32_t callee;
	uint64_t calls;
	uint64_t incl;           /* ticks (signed sum) over every call on this edge */
	uint64_t site;           /* return address of the first call seen (run-time) */
	uint64_t pc;             /* the entry probe's own return address at that call
				    (run-time; 0 when not known): where the callee's
				    code runs, inside the caller's when the callee was
				    inlined there (its hooks kept); with edge_bytes */
};

/*
 * One calling context: the function func called along one path from the
 * thread's root (the chain of parents).  Keyed by (parent, addr); it caches
 * its function's and edge's indexes, so that one lookup per call finds all
 * three.  A child is always added after its parent (parent < its index).
 */
struct zr_context {
	uint32_t parent;         /* context index, ZR_NONE for a root call */
	uint32_t func;           /* zr_func index */
	uint32_t edge;           /* zr_edge index, ZR_NONE when not counted */
	uint32_t next;           /* the runtime's cache: the context its thread entered
				    next, last time (readers ignore it; was padding) */
	uint64_t addr;           /* the function's run-time address (the key) */
	uint64_t calls;
	uint64_t incl, self;     /* ticks; a context is never open twice at once */
	uint64_t min, max;       /* inclusive ticks of one call; min UINT64_MAX if none */
	uint64_t samples;        /* sampled time: samples with this context on top */
	uint64_t overhead;       /* ticks of probe cost taken out of self (signed sum) */
};

/*
 * Where a context's samples were taken: the interrupted program counter.  A
 * sample charged to context ctx (zr_context.samples) is also counted in the
 * entry (ctx, pc) of its thread's table, unless the table is full
 * (zr_thread.samples_unplaced): per context, the entries add up to at most
 * its samples.  The shadow stack changes inside the hooks, so a sample in a
 * callee's prologue or epilogue is charged to its caller's context; its pc
 * tells the reader which function it really was in (doc/raw-format.md).
 * An entry is free while samples is 0; its thread's signal handler alone
 * writes it, the key before the count.
 */
struct zr_sample_pc {
	uint64_t pc;             /* run-time address */
	uint32_t ctx;            /* zr_context index */
	uint32_t pad;
	uint64_t samples;
};

/*
 * One timeline event: a frame of the shadow stack opened (enter) or closed
 * (exit) at ticks.  depth is the frame's index on the stack: an enter opens
 * frame depth, and both close every frame at depth or above still open (an
 * exit closes more than one when frames were abandoned by longjmp or an
 * exception).  func is the function of the frame opened, or of the
 * outermost frame closed.  Written by its thread only, the event before
 * zr_thread.events_written counts it.
 */
struct zr_event {
	uint64_t ticks;
	uint32_t func;  /* zr_func index; a switch: the stack's id */
	uint32_t depth; /* frame index | ZR_EVENT_EXIT or ZR_EVENT_CONTINUED; or a switch */
};
#define ZR_EVENT_EXIT (1u << 31)
/*
 * With ZR_TIMELINE_SWITCHES: an enter of a frame a forked child continues
 * (entered in its parent before the fork, counted there): written first
 * thing in the child's ring, outermost first, at the child's start.
 */
#define ZR_EVENT_CONTINUED (1u << 30)
/*
 * With ZR_TIMELINE_SWITCHES: a stack switch (swapcontext, setcontext), depth
 * ZR_EVENT_SWITCH | ZR_SWITCH_*, func the id of a stack (per thread, 0: none).
 * PARK: the thread leaves the stack it runs on; its open frames are kept under
 * id (0: not kept, they end here: no frames, or no room).  The thread then
 * runs on a stack with no frames (a makecontext'd function's first run) until
 * RESUME id: the stack parked under id is back, its frames open again, in place
 * of any still open (a stack left for good); id 0: a stack not parked on this
 * thread, with no frames.  ZR_SWITCH_LOST with RESUME: the stack's callers were
 * lost (lost_stacks: its frames found no room, or an earlier resumption lost
 * them): its calls have no calling context until the stack is left.
 */
#define ZR_EVENT_SWITCH (1u << 29)
#define ZR_SWITCH_PARK 0u
#define ZR_SWITCH_RESUME 1u
#define ZR_SWITCH_LOST 2u

/* One live activation on a thread's shadow stack. */
struct zr_frame {
	uint64_t addr;           /* the function's run-time address */
	uint64_t sp;             /* the probe's frame address at entry: finds frames
				    abandoned by longjmp or an exception; above
				    bit 48 the entry probe's call site's low bits
				    (the runtime's: core.h zrt_frame_stale) */
	uint32_t func;           /* zr_func index, ZR_NONE when not counted */
	uint32_t edge;           /* zr_edge index, ZR_NONE when not counted */
	uint64_t enter_ticks;
	uint64_t child_ticks;    /* raw ticks spent in direct children */
	uint32_t n_children;     /* direct children */
	uint32_t n_desc;         /* all descendants (for overhead correction) */
	uint32_t ctx;            /* zr_context index, ZR_NONE when not counted */
	uint32_t last_child;     /* the runtime's cache: the context of the last call
				    made from this frame, ZR_NONE for none (readers
				    ignore it) */
	uint64_t child_incl;     /* corrected inclusive ticks of direct children */
};

/* One call's inclusive ticks into a shortest and longest call. */
static inline void zr_note_call(uint64_t *min, uint64_t *max, uint64_t incl)
{
	if (incl < *min)
		*min = incl;
	if (incl > *max)
		*max = incl;
}

/*
 * Charges one finished activation: its context's self and inclusive time,
 * min and max, or without a context its function's (inclusive: outermost
 * activations only) and its edge's; and its parent frame's child counts.  The one rule for the runtime, at a function's
 * exit, and for the reader, for frames a process left open.
 *
 * Times are corrected for the probes' own cost: inner is the part of one
 * probe pair inside the measured interval, pair a whole pair (or, with
 * ZR_FLAG_PAID_EVERY_CALL, what is left of it once the measured parts are
 * kept out), and a call with n_desc calls below it loses inner + n_desc *
 * pair.  The correction is an estimate, so one call may come out below its
 * children, or below zero: it is charged as it comes (the sums are signed),
 * because bounding each call would bias the sums (a caller of many tiny
 * callees lost what each bound gave them).  Readers bound the sums
 * (ZR_FLAG_BOUND_SUMS, doc/raw-format.md "Times"); min and max take a call
 * at 1 tick at least.  What the correction took out of the call's self time
 * is added to the overhead.  edge, ctx and parent may be NULL.  ended 0:
 * the call is cut short where the data end (a run read while it goes on,
 * a process killed without a word), not over, or is a forked child's piece
 * of a call its parent made (a frame continued from before the fork): its
 * time so far goes into the sums, but it is no call of a known length for
 * min and max.
 */
/* Closes frame fr without a time: its function's recursion depth, and its
   parent's count of calls made, as zr_frame_charge does. */
static inline void zr_frame_close_untimed(struct zr_frame *fr, struct zr_frame *parent,
					  struct zr_func *f)
{
	if (fr->ctx == ZR_NONE && f->depth)
		f->depth--;
	if (parent) {
		parent->n_children++;
		parent->n_desc += fr->n_desc + 1;
	}
}

static inline void zr_frame_charge(struct zr_frame *fr, struct zr_frame *parent, struct zr_func *f,
				   struct zr_edge *edge, struct zr_context *ctx, uint64_t now,
				   uint64_t inner, uint64_t pair, int ended)
{
	/* enter_ticks 0: the frame's start was never read (a signal handler
	   jumped out of its entry probe before the clock): it is closed untimed */
	if (!fr->enter_ticks) {
		zr_frame_close_untimed(fr, parent, f);
		return;
	}
	uint64_t raw = now > fr->enter_ticks ? now - fr->enter_ticks : 0;
	uint64_t incl = raw - (inner + fr->n_desc * pair); /* signed */
	uint64_t self = incl - fr->child_incl;             /* signed */
	uint64_t one = (int64_t)incl > 0 ? incl : 1;       /* for min and max */
	if (ctx) {
		ctx->incl += incl;
		ctx->self += self;
		ctx->overhead += raw - fr->child_ticks - self;
		if (ended)
			zr_note_call(&ctx->min, &ctx->max, one);
	} else {
		f->self += self;
		f->overhead += raw - fr->child_ticks - self;
		if (f->depth <= 1)
			f->incl += incl;
		if (f->depth)
			f->depth--;
		if (edge)
			edge->incl += incl;
		if (ended)
			zr_note_call(&f->min, &f->max, one);
	}
	if (parent) {
		parent->child_ticks += raw;
		parent->child_incl += incl;
		parent->n_children++;
		parent->n_desc += fr->n_desc + 1;
	}
}

#endif
