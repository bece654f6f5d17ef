/*
 * bare.h - runs of zond inject on a bare-metal target over the GDB remote
 * protocol (transport/gdb.c): one job's functions (trampolines) or region
 * (breakpoints at FROM and TO, the counter read while the hart is
 * stopped), or the cyclic scenario's sets; the results in the same struct
 * inject_result as a Linux run.
 *
 * A target zond starts (argv: qemu-system-*, which gets -gdb and -S) is
 * run to its ELF's entry point first (nothing of the program ran); a
 * target it connects to (gdb: HOST:PORT, QEMU -s or OpenOCD) is patched
 * where it stopped (its pc moved into the copy when it stopped inside the
 * overwritten bytes).  Trampolines, the shadow stack and the results go to
 * scratch RAM; the payload's cost is counted in instructions, not
 * measured (exact under QEMU's -icount shift=0: mcycle counts retired
 * instructions; on real hardware cycles differ, see doc/inject.md).  Then
 * the target runs until it ends (semihosting exit: QEMU's status is the
 * run's), or for `seconds` when connected (0: until it ends), after which
 * it is stopped, its entries restored and let run on.  The results are
 * read at the end and every poll_ms while it runs.
 *
 * Returns 0; 1 when the connection was lost while it ran (err says so and
 * out has what was read last: a partial run, stored as such); -1 with err
 * when nothing was measured.
 */
#ifndef ZOND_INJECT_BARE_H
#define ZOND_INJECT_BARE_H

#include "scenario.h"
#include "transport.h"

/* More functions in one run: no call edges (their table, n^2, in scratch RAM). */
#define INJECT_BARE_EDGES_MAX 128

/*
 * The counter of an --event over GDB: mcycle (the default), minstret, or
 * mhpmcounterN (3..31), then optionally =EVENT, written to mhpmeventN
 * before the run (the target's event number, e.g. QEMU: 1 cycles, 2
 * instructions).  reg is its register's name in the target description,
 * csr the number the payload reads it by.
 */
struct inject_bare_counter {
	char reg[16], event_reg[16]; /* event_reg "": nothing to program */
	uint32_t csr;
	uint64_t event;
};
/* Parses spec (NULL: mcycle) into *c; -1 with err (one line) when it is none. */
int inject_bare_counter(const char *spec, struct inject_bare_counter *c, struct zerr *err);
/*
 * spec as one counter or two, comma-separated (both read by the payload in
 * one run: mcycle,minstret gives IPC), into c[0] and c[1]; returns how many,
 * -1 with err (one line): a bad counter, the same one twice, more than two.
 */
int inject_bare_counters(const char *spec, struct inject_bare_counter c[2], struct zerr *err);

/*
 * At most how much scratch RAM a run of n functions takes (xlen 32 or 64,
 * two: two counters, depth: the shadow stack's as struct
 * inject_bare_target's): the results, the shadow stack, the payload and a
 * slot per function, in that order from the start; the window the plan's
 * trampolines are checked in (inject_plan_scratch).
 */
uint64_t inject_bare_scratch_span(const struct inject_arch *a, int xlen, size_t n, int two,
				  uint32_t depth);

struct inject_bare_target {
	char *const *argv; /* QEMU's command line, or NULL */
	const char *gdb;   /* HOST:PORT (or /PATH), when argv is NULL */
	struct inject_rsp_options rsp;
	double seconds;
	const char *event; /* inject_bare_counters' spec, NULL: mcycle (two: function runs only) */
	int say_measuring; /* one line on stderr at the first read while the target runs that
			    * finds calls (a region: when its first pass ends) */
	uint32_t depth;    /* --depth: measured calls nested at once (0: INJ_DEPTH, 256) */
};

/*
 * A region point (inject_plan_point's spec) where a breakpoint can stand:
 * the first byte of an instruction of a function of the plan (none of the
 * rules of a patched jump apply).  site->addr only; -1 with err.
 */
int inject_bare_point(struct symbols *s, const struct inject_plan *plan, const char *spec,
		      struct inject_site *site, struct zerr *err);

int inject_bare_run(const struct inject_job *job, const struct inject_bare_target *bt,
		    struct inject_result *out, struct zerr *err);

/*
 * The cyclic scenario over GDB (scenario.h's struct inject_cyclic; c->pid
 * unused): every set's trampolines written at the start, set 0's jumps at
 * its entries.  Every c->period seconds zond stops the hart, puts a
 * breakpoint at the safe point and lets it run; when the hart reaches it,
 * the current set's entries get their bytes back and the next set's their
 * jumps, the breakpoint goes, and it runs on: round robin, whole passes
 * from safe point to safe point.  A period with the breakpoint in and no
 * arrival is said once on stderr (the set stays measured).  The end (the
 * program's, c->duration, ^C or SIGTERM to zond): once more to the safe
 * point (at most a period), the code put back, a target zond connected to
 * let run on (one it started goes with it).  *sets as inject_cyclic gives
 * them, also when -1 is returned after the target ran (a lost connection:
 * what was read last); *status QEMU's when it ended, else -1.
 */
int inject_bare_cyclic(const struct inject_cyclic *c, const struct inject_bare_target *bt,
		       struct inject_result **sets, size_t *nsets, int *status, struct zerr *err);

#endif
