/*
 * scenario.h - zond inject's runs: one run of the program with a set of
 * functions measured (inject_run), and the functions scenario's split of
 * the chosen functions into runs of at most K (inject_functions_plan).
 *
 * inject_run starts the program through the ptrace transport and lets it
 * run to its entry point (the loader has mapped its libraries, none of its
 * own code ran); calibrates the payload on this machine;
 * allocates the trampolines within 2 GiB of the program's code and the
 * results in memory shared with it; writes the payload, one stub and
 * relocated copy per function, then the jumps at the entries; lets the
 * program run with no further stop and waits for it.  The results are read
 * from the shared memory, so a crash or SIGKILL of the program loses only
 * the calls still open.  Measured: functions of the program's own ELF file.
 * Besides, zond's own probes (inject_own_probe) stand at the entries of
 * the C++ unwinders (_Unwind_RaiseException and kin, in libgcc_s or
 * linked in: the thread's replaced return addresses given back before the
 * stack is walked), of __cxa_begin_catch (the frames still live where an
 * exception is caught measured again) and of swapcontext and setcontext
 * (every frame given back and dropped before the thread leaves its
 * stack).  When preparing fails, the
 * program still runs (every jump written leads to a complete stub) and is
 * waited for: -1 with err set and out->status the program's.
 */
#ifndef ZOND_INJECT_SCENARIO_H
#define ZOND_INJECT_SCENARIO_H

#include <signal.h>
#include <stdint.h>

#include "engine.h"
#include "results.h"

struct inject_patch {
	const char *name;        /* for messages */
	const char *module;      /* the ELF file patched; NULL: the plan's */
	struct inject_site site; /* link-time, from the plan */
	enum inject_probe kind;
	uint32_t id; /* the statistics record it accumulates into */
};

/* One run's measurement: patches into the plan's file, nstats records. */
struct inject_job {
	const struct inject_plan *plan;
	const struct inject_patch *patches;
	size_t npatches, nstats;
	const struct inject_event *event; /* NULL: the architecture's counter (tsc) */
	int fast_clock; /* with event NULL: that counter read unfenced (arch calibrate_fast) */
};

/* The functions scenario's patches: plan->funcs[which[k]] as record k (malloc'ed). */
struct inject_patch *inject_function_patches(const struct inject_plan *plan, const size_t *which,
					     size_t n);

/*
 * The probe zond itself puts at the entry of the function called name (a
 * symbol's, "@VERSION" or not), or -1 for none: INJECT_UNWIND at an
 * unwinder's (inject_is_unwinder), INJECT_CATCH at __cxa_begin_catch's,
 * INJECT_SWITCH at swapcontext's and setcontext's, INJECT_CLONE at clone's,
 * INJECT_PRCTL at prctl's, INJECT_SYSCALL at syscall's; with event (a
 * perf_event counter per thread, whose fds the program must not close)
 * INJECT_CLOSE at close's, INJECT_CLOSE_RANGE at close_range's.  Such a
 * function is never a measured one (its entry has zond's probe).
 */
int inject_own_probe(const char *name, int event);

#define INJECT_NO_CALLER SIZE_MAX

/* Calls from the nearest measured caller (or none) to a record, on one thread. */
struct inject_edge {
	size_t thread; /* index into tids */
	size_t caller; /* a record, or INJECT_NO_CALLER */
	size_t callee;
	uint64_t calls;
	uint64_t incl; /* compensated ticks, signed like the stats' sums */
	uint64_t incl2; /* the second counter's (stats2), when there is one */
};

/* One calling context of one thread: a record called along one path (results.h). */
struct inject_context {
	size_t thread; /* index into tids */
	size_t parent; /* index into the result's contexts (before this one), or INJECT_NO_CALLER */
	size_t callee; /* a record */
	struct inject_stat st; /* calls, incl, self, min (UINT64_MAX: none), max */
};

struct inject_result {
	int status; /* wait status of the program */
	int clock_moved; /* over GDB: the target's clock ran on at a stop (inject_rsp_clock_moved) */
	int64_t pid;
	int64_t start_ns, duration_ns;
	uint64_t c0, cpair, hz;    /* compensation (payload units) and units per second
				    * (per 10^9 events of a perf_event counter) */
	uint64_t deep, noslot;     /* calls not measured, and why */
	uint64_t nocounter;        /* threads whose counter (job->event) could not be opened */
	uint64_t open;             /* calls never returned (counted, not timed) */
	uint64_t untimed;          /* calls counted without their time (results.h) */
	uint64_t noclock;          /* x86-64: calls counted without their time: the counter could
				    * not be read (seccomp, a counter's fd closed) */
	uint64_t lostfd;           /* x86-64: threads whose counter's fd the program closed */
	uint64_t seccomp;          /* x86-64: INJ_SECCOMP_* the run's processes went under */
	uint64_t sharedtp;         /* calls not measured: tasks sharing a thread pointer */
	uint64_t sandboxed;        /* calls not measured: new threads under seccomp */
	uint64_t noblock;          /* calls not measured: forked children beyond the blocks */
	uint64_t reused;           /* x86-64: threads whose block an ended thread gave back
				    * (their figures and the ended one's under one thread) */
	size_t n;                  /* the job's nstats */
	size_t nthreads;           /* threads that ran measured code */
	int64_t *tids;             /* nthreads */
	int64_t *pids;             /* nthreads, each thread's process (a forked child's); NULL
				    * or 0: pid */
	struct inject_stat *stats; /* nthreads * n: thread t's record k at t * n + k */
	struct inject_stat *stats2; /* a second counter's, as stats (calls the same); NULL: none
				     * (over GDB, --event A,B) */
	struct inject_edge *edges; /* none when more than INJ_EDGES_MAX records */
	size_t nedges;
	struct inject_context *contexts; /* where the architecture keeps them (not cyclic sets) */
	size_t ncontexts;
	uint64_t noctx;   /* calls with no context: a thread's table was full */
	uint64_t periods; /* cyclic: the periods this set was measured */
	size_t unloaded;  /* libraries of the job the program never loaded (dlopen) */
	int left_running; /* zond stopped waiting (^C) for processes the program left running */
	int stopped;      /* over GDB, a QEMU zond started: zond stopped and ended it (the
			   * signal zond took, -1: --duration passed), 0: it was not */
	char note[1400];  /* -p: what went wrong or happened at the end, one line ("": nothing);
			   * the run is kept */
	int note_failed;  /* the note is a failure: zond's status 1 */
};

/*
 * Runs argv with the job's patches; the processes it leaves running when it
 * ends (zond is their subreaper) are waited for before the results are
 * read: a forked child measures into them until it ends.
 */
int inject_run(const struct inject_job *job, char *const argv[], struct inject_result *out,
	       struct zerr *err);
/*
 * Attaches to the running process pid (every thread stopped), patches as
 * inject_run does, moving any thread stopped inside the overwritten bytes
 * into the relocated copy, lets it run for seconds (0: until SIGINT or
 * SIGTERM reach zond), stops it again, reads the results, writes the
 * original bytes back, gives every pending return its real address back
 * and detaches: the process runs on as before.  The trampolines and the
 * results stay mapped in it until the next attach unmaps them (a thread
 * may still return through a copy); a process another zond measures is
 * refused before anything is written.  The
 * plan must be of the process's executable (/proc/PID/exe).  out->status
 * is -1 (the process runs on).
 */
int inject_attach(const struct inject_job *job, int64_t pid, double seconds,
		  struct inject_result *out, struct zerr *err);
void inject_result_free(struct inject_result *r);

/*
 * The cyclic scenario, for a program that never ends: the job's patches
 * (record k = patch k, all INJECT_FUNCTION) form sets of per_set, measured
 * one set at a time.  Every period seconds zond sets the park flag in the
 * shared results; the first thread to reach the safe point (a function's
 * entry, patched with INJECT_SAFE: breakpoint-free, it waits in the
 * payload) is parked there, zond stops the process, writes the original
 * bytes at the current set's entries and the jumps at the next set's,
 * clears the flag and lets it run: round robin, every set's calls counted
 * in whole passes from safe point to safe point (calls still open across
 * a swap end in their own set's records).  While the safe point is not
 * reached the current set stays measured, and zond says so once on
 * stderr.  The run ends when the program does, after duration seconds
 * (0: none) or at ^C / SIGTERM to zond: then zond parks it once more
 * (waiting at most a period), reads the results and puts the code back;
 * a started program is then waited for (*status its wait status; -1 with
 * pid).  *sets gets one result per set (malloc'ed, *nsets of them, each
 * with the time it was measured as duration_ns and its periods), also
 * when -1 is returned after the target ran, so nothing measured is lost.
 */
struct inject_cyclic {
	const struct inject_job *job;
	struct inject_patch safe; /* site of the safe point (kind and id are set here) */
	size_t per_set;
	double period, duration;
	int64_t pid; /* attach to it; 0: start argv */
};
int inject_cyclic(const struct inject_cyclic *c, char *const argv[], struct inject_result **sets,
		  size_t *nsets, int *status, struct zerr *err);

/*
 * The cyclic scenario's sets out of all (every set's records, measured in
 * turn; set s is records [s * per_set, s * per_set + per_set)): per set
 * its records, the threads that ran them, the call edges within it (a
 * call across a swap has none), active_ns[s] as its duration and its
 * periods; *sets malloc'ed, nsets of them.
 */
void inject_result_sets(const struct inject_result *all, size_t per_set, size_t nsets,
			const int64_t *active_ns, const uint64_t *periods,
			struct inject_result **sets);

/*
 * ^C and SIGTERM to zond make inject_interrupted() 1 from
 * inject_catch_interrupts until inject_release_interrupts puts back what
 * they did before (old).
 */
void inject_catch_interrupts(struct sigaction old[2]);
void inject_release_interrupts(const struct sigaction old[2]);
int inject_interrupted(void);
/*
 * The same for every signal zond forwards to a program it runs
 * (util/forward.h, FORWARD_N of them: SIGHUP, SIGINT, SIGQUIT, SIGTERM,
 * SIGUSR1/2, SIGALRM), also one zond's parent made it ignore: over GDB they
 * stop the measuring of a QEMU zond started, which zond then ends.
 */
void inject_catch_forwarded(struct sigaction *old);
void inject_release_forwarded(const struct sigaction *old);

/*
 * The first signal that interrupted zond (0: none).  inject_attach holds
 * every signal that would end zond (SIGHUP, SIGQUIT, SIGUSR1/2, SIGALRM,
 * SIGPIPE besides ^C and SIGTERM) from the first patch to the release, so
 * that the code is put back first; the caller then dies of one that was not
 * ^C or SIGTERM, after storing the run.
 */
int inject_interrupt_signal(void);

#endif
