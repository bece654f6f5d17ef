/*
 * profile.h - the profile model every collector ends in and every report reads.
 *
 * A profile is one run: its metadata, the events it measured (each with a
 * unit), the threads it saw, the nodes that cost was charged to (functions,
 * hand-marked blocks, basic blocks) and the edges between them (calls and,
 * for trace collectors, jumps).  Costs are vectors over the run's events.
 *
 * Statistics are kept per thread.  Reports that want the whole process call
 * profile_view(), which sums every thread (or picks one) into a flat array
 * indexed like p->nodes.
 *
 * Contract:
 *  - All strings are owned by the profile (copied in).
 *  - Node and edge ids are indexes into p->nodes / p->edges and are stable
 *    for the life of the profile.
 *  - Costs are unsigned 64-bit integers in the unit of their event.  min is
 *    UINT64_MAX when nothing was measured.
 *  - Inclusive cost of a recursive function counts its outermost activation
 *    only; self cost is exact at any depth.  Edge inclusive cost is the sum
 *    over every call along that edge (as callgrind does).
 *  - Calling contexts (struct zp_context), where a collector records them,
 *    are the truth the stats and call edges sum up: a context is one node
 *    reached along one path of calls from its thread's root, so stacks,
 *    trees and flame graphs are read from contexts, never rebuilt from
 *    edges.  A context's parent always has a smaller id than the context.
 *  - Allocation failure aborts: the tool, not the profiled program, runs this.
 */
#ifndef ZOND_PROFILE_H
#define ZOND_PROFILE_H

#include <stddef.h>
#include <stdint.h>

#define ZP_MAX_EVENTS 8
#define ZP_NONE UINT32_MAX /* "no node": the caller of a thread's root calls */

enum zp_node_kind {
	ZP_FUNCTION = 0,    /* a function of the program or a library */
	ZP_BLOCK = 1,       /* a code region marked by hand (zond.h) */
	ZP_BASIC_BLOCK = 2, /* a basic block found by a trace collector */
};

enum zp_edge_kind {
	ZP_CALL = 0, /* caller called callee */
	ZP_JUMP = 1, /* control went from one basic block to another */
	/* control went between basic blocks by a call, return or other change of
	 * function (trace collectors); reports of calls use ZP_CALL edges instead */
	ZP_TRANSFER = 2,
};

struct zp_event {
	char *name; /* "time", "cycles", "Ir", ... */
	char *unit; /* "ns", "cycles", "instructions", ... */
};

struct zp_meta {
	char *key;
	char *value;
};

struct zp_run {
	int64_t id;         /* store id, 0 until stored */
	char *campaign;     /* NULL when the run belongs to none */
	char *collector;    /* "record", "libcalls", "trace", "inject" */
	char *command;      /* the profiled command line, space-joined */
	char *host;
	char *arch;         /* "x86_64", "aarch64", "riscv64" */
	char *clock;        /* "tsc", "clock_gettime", "cntvct", "icount" */
	int64_t start_ns;   /* wall clock at start, ns since the epoch */
	int64_t duration_ns;
	int64_t pid;
	int exit_status;    /* -1 when unknown or killed by a signal */
	int term_signal;    /* 0 when it exited */
	double overhead_ns; /* per-call probe cost subtracted, 0 if none */
	size_t nmeta;       /* further key/value facts (overflow counts...) */
	struct zp_meta *meta;
};

/*
 * Above any real pid (PID_MAX_LIMIT is 4194304): a process whose collector
 * could not learn a pid of zond's namespace for it (doc/raw-format.md
 * "Process ids") is filed under k * ZP_NS_PIDS + its pid in its own pid
 * namespace, k numbering such processes of the run from 1.
 */
#define ZP_NS_PIDS 10000000

struct zp_thread {
	int64_t pid; /* threads of forked/exec'ed processes of one run keep their pid */
	int64_t tid;
	char *name;
};

struct zp_node {
	enum zp_node_kind kind;
	char *name;      /* symbol (demangled), block name, or func+0xoff */
	char *module;    /* path of the ELF file, "" when unknown */
	char *file;      /* source file, "" when unknown */
	int line;        /* 0 when unknown */
	uint64_t addr;   /* address inside module (link-time), 0 for blocks */
	uint32_t parent; /* for basic blocks: the function node, else ZP_NONE */
};

/* Per (thread, node) statistics. */
struct zp_stat {
	uint32_t thread;
	uint32_t node;
	uint64_t calls;
	uint64_t self[ZP_MAX_EVENTS];
	uint64_t incl[ZP_MAX_EVENTS];
	uint64_t min[ZP_MAX_EVENTS]; /* inclusive cost of the cheapest call */
	uint64_t max[ZP_MAX_EVENTS]; /* inclusive cost of the dearest call */
};

/* Per (thread, kind, caller, callee) statistics. */
struct zp_edge {
	uint32_t thread;
	enum zp_edge_kind kind;
	uint32_t caller; /* ZP_NONE for a thread's root calls */
	uint32_t callee;
	uint64_t calls;  /* calls, or times a jump was executed */
	uint64_t taken;  /* jumps: times a conditional jump was followed */
	uint64_t site;   /* address of the call/jump in caller's module, 0 if unknown */
	int site_line;   /* its source line, 0 if unknown */
	uint64_t incl[ZP_MAX_EVENTS];
};

/*
 * Per (thread, instruction) costs, from collectors that see every
 * instruction (trace).  node is the basic block (or function) holding it;
 * addr is link-time, in node's module; line is its DWARF line, 0 if unknown.
 * Exports with instruction positions (callgrind) use them when present.
 * Basic blocks of a trace have no stats: their costs are those of their
 * instructions, so that a run's totals do not count an instruction twice.
 */
struct zp_instr {
	uint32_t thread;
	uint32_t node;
	uint64_t addr;
	int line;
	uint64_t cost[ZP_MAX_EVENTS];
};

/*
 * A calling context: node called along one path from a thread's root (the
 * path is the chain of parents).  Costs as in zp_stat, over the activations
 * of node on exactly this path; a context is never active twice at once, so
 * its inclusive cost needs no recursion rule.  Recursion keeps the full path:
 * f called from f is a child context of f's.
 */
struct zp_context {
	uint32_t thread;
	uint32_t parent; /* context id of the caller, ZP_NONE for a root call */
	uint32_t node;
	int site_line;   /* source line of site, 0 if unknown */
	uint64_t site;   /* address of the first call seen (caller's module), 0 if unknown */
	uint64_t calls;
	uint64_t self[ZP_MAX_EVENTS];
	uint64_t incl[ZP_MAX_EVENTS];
	uint64_t min[ZP_MAX_EVENTS]; /* inclusive cost of the cheapest call */
	uint64_t max[ZP_MAX_EVENTS]; /* inclusive cost of the dearest call */
};

/*
 * One call on the run's timeline (`zond record --timeline`): node active on
 * thread from start to end, its frame depth (0: a root call).  Times are in
 * the timeline's unit, run meta "timeline_unit": "ns" since the epoch (as
 * run.start_ns) for record and libcalls, "instructions" since the run's
 * start for trace; profile_timeline_origin() is the run's start in it.  A
 * thread's spans are in the order their calls were entered, parents before
 * their children; a span lies inside its parent's.
 */
struct zp_span {
	uint32_t thread;
	uint32_t node;
	uint32_t depth;
	uint32_t flags; /* ZP_SPAN_* */
	int64_t start, end;
};
/* entered before the first event the timeline kept: start is that event's time */
#define ZP_SPAN_NO_START 1u
/* not seen ending (the timeline was full, or the thread ended first): end is the last time known */
#define ZP_SPAN_NO_END 2u
/* a call continued from an earlier span, not one of its own calls: made before the process
   (a forked child's inherited frames: start is the process's start), or resumed with its
   coroutine's stack (start is the resume) */
#define ZP_SPAN_CONTINUED 4u
/* its callers are not known (a coroutine's stack whose frames were lost while it was
   suspended): counted on no calling context, a root on no edge */
#define ZP_SPAN_NO_CALLERS 8u
/* ends where its stack was switched away (a coroutine suspended): the call goes on, if it
   resumes, in a later span (ZP_SPAN_CONTINUED); the time between is not its */
#define ZP_SPAN_SUSPENDED 16u
/*
 * Bits 8 to 31: the stack the call ran on (coroutines: swapcontext, setcontext),
 * numbered per thread in the order seen, 0 the thread's own.  Calls nest by depth
 * within their stack; the stacks of a thread interleave in time.
 */
#define ZP_SPAN_STACK_SHIFT 8
#define ZP_SPAN_STACK(flags) ((flags) >> ZP_SPAN_STACK_SHIFT)

struct zp_profile {
	struct zp_run run;
	size_t nevents;
	struct zp_event events[ZP_MAX_EVENTS];
	size_t nthreads, nnodes, nstats, nedges;
	struct zp_thread *threads;
	struct zp_node *nodes;
	struct zp_stat *stats;
	struct zp_edge *edges;
	struct zp_index *index; /* private lookup tables */
	size_t ninstrs;
	struct zp_instr *instrs; /* in the order added; empty for most collectors */
	size_t ncontexts;
	struct zp_context *contexts; /* empty when the collector kept none (store v1) */
	size_t nspans;
	struct zp_span *spans; /* the timeline; empty without one */
};

struct zp_profile *profile_new(void);
void profile_free(struct zp_profile *p);

/* Metadata. Strings are copied; NULL is stored as NULL. */
void profile_set_str(char **field, const char *value);
void profile_add_meta(struct zp_profile *p, const char *key, const char *value);
const char *profile_meta(const struct zp_profile *p, const char *key);
/* Adds n to the whole number of meta key (absent: 0); n == 0 adds nothing, not even the key. */
void profile_add_count(struct zp_profile *p, const char *key, uint64_t n);

/* Returns the event's index; adds it if new. */
unsigned profile_event(struct zp_profile *p, const char *name, const char *unit);
/* Returns the index of the event named name, or -1. */
int profile_find_event(const struct zp_profile *p, const char *name);

/* Returns the thread's index; adds it if no thread has that pid and tid. */
uint32_t profile_thread(struct zp_profile *p, int64_t pid, int64_t tid, const char *name);

/*
 * Returns the node's id, adding it if no node of the same kind, module,
 * name and addr exists.  file/line are set on first sight.
 */
uint32_t profile_node(struct zp_profile *p, enum zp_node_kind kind, const char *name,
		      const char *module, const char *file, int line, uint64_t addr);

/*
 * What tells node's name from a namesake's, a function of the same name in
 * another object (two copies of a plugin, a static function of two
 * libraries): NULL when no other object has a function of that name, else
 * the object's base name, or its path where a namesake's object has the
 * same base name.
 * Worked out for every node at the first call, again once nodes were added;
 * the string lives as long as the node.
 */
const char *profile_namesake_object(const struct zp_profile *p, uint32_t node);

/* The statistics of node in thread, created zeroed (min = UINT64_MAX). */
struct zp_stat *profile_stat(struct zp_profile *p, uint32_t thread, uint32_t node);

/* The edge of that kind from caller to callee in thread, created zeroed. */
struct zp_edge *profile_edge(struct zp_profile *p, uint32_t thread, enum zp_edge_kind kind,
			     uint32_t caller, uint32_t callee);

/*
 * The context of node called from context parent (ZP_NONE: a root call of
 * thread), created zeroed (min = UINT64_MAX) if new.  parent must be a
 * context of the same thread.  Its id is the index into p->contexts.
 */
uint32_t profile_context(struct zp_profile *p, uint32_t thread, uint32_t parent, uint32_t node);

/* Adds one context's costs into another's (calls, self, incl, min, max; site if unset). */
void profile_context_add(struct zp_context *dst, const struct zp_context *src, size_t nevents);

/* Appends a span to the timeline (see struct zp_span for the order). */
void profile_add_span(struct zp_profile *p, uint32_t thread, uint32_t node, uint32_t depth,
		      uint32_t flags, int64_t start, int64_t end);

/*
 * One enter or exit of a call, as a collector's timeline keeps it: its time
 * in the timeline's unit, the call's node (ZP_NONE: a call not shown, whose
 * frame still nests the others) and its depth (0: the thread's root).
 */
struct zp_tl_event {
	int64_t time;
	uint32_t node, depth;
	int exit;
	/*
	 * ZP_TL_CALL: an enter or exit.  ZP_TL_CONTINUED: an enter of a call made
	 * before the process (ZP_SPAN_CONTINUED).  ZP_TL_PARK: the thread leaves the
	 * stack it runs on, whose calls stay open under stack (0: they end here);
	 * it then runs on a new stack.  ZP_TL_RESUME: the stack parked under stack
	 * is back (0 or not known: a new stack), the calls open before it switched
	 * end here; lost: its callers are not known (ZP_SPAN_NO_CALLERS).
	 */
	int kind;
	uint32_t stack;
	int lost;
};
#define ZP_TL_CALL 0
#define ZP_TL_CONTINUED 1
#define ZP_TL_PARK 2
#define ZP_TL_RESUME 3

/*
 * Appends the spans of one thread's events ev[0..n) (in the order they
 * happened) to p: an event at depth d ends the calls open at d and above
 * at its time, an enter opens one.  lost_start: the events are the newest
 * of more, so an exit below every depth seen so far ends a call entered
 * before ev[0] (ZP_SPAN_NO_START, starting at ev[0]'s time).  Calls still
 * open after the last event end at end (ZP_SPAN_NO_END), never before
 * the last event.  A time earlier than the event before it (a counter read
 * on another CPU) counts as that event's time, so a thread's spans nest by
 * time as they do by depth.  Spans go in the order of struct zp_span.
 */
void profile_add_timeline(struct zp_profile *p, uint32_t thread, const struct zp_tl_event *ev,
			  size_t n, int lost_start, int64_t end);

/* Appends an instruction's costs (zeroed); instructions are not merged by address. */
struct zp_instr *profile_add_instr(struct zp_profile *p, uint32_t thread, uint32_t node,
				   uint64_t addr, int line);

/* Adds one sample of every cost of src into dst (calls, self, incl, min, max). */
void profile_stat_add(struct zp_stat *dst, const struct zp_stat *src, size_t nevents);

/*
 * Adds every thread, node, stat and edge of src into dst, matching events by
 * name (adding those dst lacks), nodes by identity and threads by (pid, tid).
 * Used to combine the runs of a campaign into one profile.
 */
void profile_merge(struct zp_profile *dst, const struct zp_profile *src);

/*
 * Removes p's calling contexts: what reads p then works from its call edges,
 * as for a run whose collector kept none (a campaign mixing runs with and
 * without contexts, whose contexts would leave the others' calls out).
 */
void profile_drop_contexts(struct zp_profile *p);

/*
 * p: the runs of a campaign merged, whose runs measured different functions
 * (zond inject --per-run, --descend), so that a function's self cost, its
 * inclusive less the callees measured in its own run, holds the callees
 * measured in other runs.  measured[r * p->nnodes + n]: run r of nruns
 * measured node n.  graph: a run that measured them all (inject's
 * NAME.graph), whose call edges give each function's calls of each callee
 * per call of its own.  A function some of whose callees (those of the
 * graph a run measured; through a callee no run measured to its callees,
 * whose time stays the caller's) were measured in other runs than its own
 * gets as self its inclusive cost less its calls times the graph's calls of
 * each callee per call of it times the callee's average inclusive cost per
 * outermost call (from the callee's runs); at least 0 and never more than
 * its self was.  Its stats' and contexts' selves are scaled alike; inclusive
 * costs, calls and edges stay as they were; a function whose callees were
 * all measured in its own runs keeps its self (exact).  Returns the number
 * of functions corrected, -1 when the graph has no call edges (nothing
 * done); *missing, the functions measured that the graph lacks (left as
 * they were).
 */
long profile_combine_selves(struct zp_profile *p, const unsigned char *measured, size_t nruns,
			    const struct zp_profile *graph, size_t *missing);

/*
 * A summary over threads.  thread == ZP_NONE sums all threads.  nodes[i]
 * holds the totals of node i (thread field = ZP_NONE when summed); edges
 * holds one entry per distinct (kind, caller, callee).  Free with
 * profile_view_free().
 */
struct zp_view {
	const struct zp_profile *p;
	struct zp_stat *nodes; /* p->nnodes entries */
	size_t nedges;
	struct zp_edge *edges;
	uint64_t total[ZP_MAX_EVENTS]; /* sum of self cost over all nodes */
	/*
	 * Per node (node * ZP_MAX_EVENTS + event) the inclusive cost summed over
	 * every call, a recursive function's inner activations too (a node's incl
	 * counts its outermost ones only), from the calling contexts; NULL when
	 * the run has none.
	 */
	uint64_t *incl_all;
	/*
	 * Per node the calls its contexts hold: fewer than its calls when some
	 * had no frame (deeper than --depth: lost_frames; a signal handler's
	 * calls inside a probe), calls counted with no time.  NULL with incl_all.
	 */
	uint64_t *ctx_calls;
	/*
	 * Per node (as incl_all) the inclusive cost of its contexts that hold
	 * no call: a forked child's pieces of calls in progress at the fork
	 * (continued there, called in the parent), in the totals but no call's
	 * time.  NULL with incl_all.
	 */
	uint64_t *incl_nocall;
};
/*
 * The frames of every context's stack of one thread (ZP_NONE: all), what a
 * format that writes each context's whole path (folded, pprof, speedscope)
 * writes: the sum of the contexts' depths; *deepest, the largest depth.
 */
uint64_t profile_stack_frames(const struct zp_profile *p, uint32_t thread, uint32_t *deepest);

struct zp_view *profile_view(const struct zp_profile *p, uint32_t thread);
void profile_view_free(struct zp_view *v);
/*
 * The average inclusive cost of one call of node n (UINT64_MAX: no call):
 * over every timed call where the contexts tell it (calls with no frame,
 * lost_frames, left out; the time of contexts with no call, a forked
 * child's continuation of its parent's calls, left out too, as from min
 * and max), else (a run without them) the node's inclusive cost over its
 * calls, which a recursive function's inner calls make too small.
 */
uint64_t profile_view_avg(const struct zp_view *v, uint32_t n, unsigned event);

/*
 * The calling contexts of one thread (thread != ZP_NONE), or of all threads
 * folded by path (ZP_NONE: roots of every thread with the same node merge,
 * and so on down).  Node ids are p's; parents come before their children;
 * the contexts' thread field is the thread asked for.  Free with
 * profile_context_view_free().
 */
struct zp_context_view {
	const struct zp_profile *p;
	size_t ncontexts;
	struct zp_context *contexts;
};
struct zp_context_view *profile_context_view(const struct zp_profile *p, uint32_t thread);
void profile_context_view_free(struct zp_context_view *v);

/*
 * The timeline (tool/model/timeline.c).  The run's start in the timeline's
 * unit: run.start_ns for an "ns" timeline, else 0.
 */
int64_t profile_timeline_origin(const struct zp_profile *p);

/*
 * For a run without a timeline: how to get one, as the user's next command
 * ("record it with --timeline"; a trace run's is read from its trace, not
 * recorded: "read its trace with `zond trace report --timeline`").
 */
const char *profile_timeline_howto(const struct zp_profile *p);

/*
 * The profile of what ran in the window [from, to) of p's timeline (times
 * from profile_timeline_origin): p's run, meta, threads and nodes, one event
 * (time in ns, or p's event counted in the timeline's unit: a trace's Ir), and calls, self and inclusive cost
 * per context, function and call edge recomputed from the spans that
 * overlap the window, each clipped to it.  A call counts once in every
 * window it ran in.  Its spans are those, clipped (flags ZP_SPAN_NO_START
 * and NO_END where clipped).  A new profile to free.
 */
struct zp_profile *profile_window(const struct zp_profile *p, int64_t from, int64_t to);

/* Checked allocation helpers for the tool; they abort on failure. */
void *zp_xmalloc(size_t n);
void *zp_xcalloc(size_t n, size_t size);
void *zp_xrealloc(void *ptr, size_t n);
char *zp_xstrdup(const char *s);
/* qsort that takes an empty array as it comes (qsort wants a non-null base even for 0). */
void zp_sort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *));
/*
 * Of the n elements of size bytes at base, sorted by the uint64_t at byte
 * offset of each, how many have it at or below key (binary search): the
 * element holding an address is the one before, if any.
 */
size_t zp_count_at_most(const void *base, size_t n, size_t size, size_t offset, uint64_t key);

#endif
