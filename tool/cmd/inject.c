/*
 * inject.c - `zond inject`: counters and code injected into a program from
 * outside it (doc/inject.md).  This file parses the command line and prints;
 * the plan of patchable functions is tool/inject/engine.h, the instruction
 * sets tool/inject/arch/.
 */
#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <getopt.h>
#include <linux/perf_event.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cmd.h"
#include "inject/bare.h"
#include "inject/descend.h"
#include "inject/engine.h"
#include "inject/figures.h"
#include "inject/metrics.h"
#include "inject/scenario.h"
#include "inject/transport.h"
#include "bare.h"
#include "launch.h"
#include "output.h"
#include "store/store.h"
#include "symbols/symbols.h"
#include "util/clock.h"
#include "util/forward.h"

static const char usage_text[] =
	"usage: zond inject [-f GLOB]... [--per-run K] [-c NAME] [-o STORE] -- PROG [ARGS]\n"
	"       zond inject --region FROM,TO [-c NAME] [-o STORE] -- PROG [ARGS]\n"
	"       zond inject --descend [--from FUNC] [--threshold PCT] [-f GLOB]... -- PROG\n"
	"       zond inject --safe-point FUNC [--period S] [--per-run K] [-f GLOB]...\n"
	"                   [--duration S] (-- PROG [ARGS] | -p PID)\n"
	"       zond inject [-f GLOB]... [-c NAME] [-o STORE] -p PID [--duration S]\n"
	"       zond inject --metrics -c NAME [-o STORE]\n"
	"       zond inject --raw -c NAME [-o STORE]\n"
	"       zond inject --elf APP.ELF [-f GLOB]... [--per-run K | --duration S] -- "
	"qemu-system-riscv32 ...\n"
	"       zond inject --elf APP.ELF --gdb HOST:PORT [-f GLOB]... [--duration S]\n"
	"       zond inject --elf APP.ELF (--region FROM,TO | --descend ...) [--event CTR]\n"
	"                   -- qemu-system-riscv32 ...\n"
	"       zond inject --coverage PROG [--scratch ADDR,LEN] [--depth N]\n"
	"Counters and code injected at function entries from outside the program, with\n"
	"no recompilation (doc/inject.md); Linux x86-64, and bare-metal RISC-V over the\n"
	"GDB remote protocol (--elf).  The functions scenario: PROG\n"
	"runs under ptrace until its entries are patched, then at full speed; each\n"
	"measured function gets exact calls, inclusive and self time, min and max of\n"
	"one call (rdtsc, the payload's own cost measured each run and subtracted:\n"
	"zond report -e probe-cost shows it; a time that rests mostly on it is said).\n"
	"At most K functions are measured per run: PROG is run again until all are,\n"
	"and the runs form one campaign (zond report -C NAME).\n\n"
	"  -f, --function GLOB   measure the functions of PROG matching GLOB (fnmatch;\n"
	"                        C++ names also without their parameters: ns::f;\n"
	"                        repeatable; default: every one that can be injected);\n"
	"                        MODULE:GLOB the functions of a shared library PROG\n"
	"                        loads at start (MODULE as the loader lists it,\n"
	"                        libc.so.6, or a path), or later with dlopen (a\n"
	"                        path), by any of their names\n"
	"      --per-run K       at most K functions per run (default: all in one run),\n"
	"                        the program rerun until all are measured: it must do\n"
	"                        the same work each run; first a run of all of them\n"
	"                        gives the call graph (campaign NAME.graph), by which\n"
	"                        report -C takes callees measured in other runs out of\n"
	"                        a function's self; with --safe-point, K per set\n"
	"      --descend         the descend scenario instead: a first pass measuring every\n"
	"                        chosen function gives the call graph (campaign NAME.graph),\n"
	"                        then from the roots (or --from FUNC) breadth-first, K\n"
	"                        (--per-run, default 1) a run, each callee whose bound (the\n"
	"                        sum of its callers' times) is under --threshold PCT\n"
	"                        (default 1) of the whole is pruned; the roots: functions\n"
	"                        called by no measured one (main), or the callees of such\n"
	"                        a one that never returned (bare metal's _cstart, exit)\n"
	"      --region FROM,TO  the region scenario instead: counters on at FROM, off at\n"
	"                        TO, every pass counted with its time, min and max; FROM\n"
	"                        and TO are FUNC, FUNC+OFFSET, 0xADDR (link-time) or\n"
	"                        FILE:LINE (DWARF)\n"
	"      --safe-point FUNC the cyclic scenario instead, for a program that never\n"
	"                        ends: the chosen functions in sets of K, one set measured\n"
	"                        at a time; every --period S seconds (default 1) the next\n"
	"                        set replaces it when a thread reaches FUNC (where no\n"
	"                        measured function may be active); one run per set; until\n"
	"                        the program ends, --duration S, or ^C to zond\n"
	"  -p, --pid PID         attach to the running process PID instead (every thread),\n"
	"                        measure, then put its code back and detach: it runs on\n"
	"      --duration S      with -p, --safe-point, --gdb or --elf's QEMU command (one\n"
	"                        run; QEMU then ended): measure for S seconds (default:\n"
	"                        until the program's end, or ^C / SIGTERM to zond)\n"
	"      --event EVENT     the counter: tsc (default), or a perf_event counter each\n"
	"                        measured thread opens and read()s: task-clock (ns),\n"
	"                        page-faults, context-switches, cpu-migrations, and\n"
	"                        with a PMU cycles, instructions, cache-misses,\n"
	"                        branch-misses (without one: refused with the reason);\n"
	"                        with --elf: mcycle (default), minstret, mhpmcounterN\n"
	"                        [=EVENT] (EVENT written to mhpmeventN first), or two\n"
	"                        of them in one run, e.g. mcycle,minstret (IPC)\n"
	"      --fast-clock      with the TSC: unfenced clock reads, cheaper, but up to\n"
	"                        some tens of ns of a function's time may land in its\n"
	"                        caller (no --event, no --elf)\n"
	"      --metrics         print the metrics of the campaign's runs (each run one\n"
	"                        result set): share and self-share of the run's time,\n"
	"                        time per call, IPC and cache misses per 1000\n"
	"                        instructions where a run has their inputs; after a\n"
	"                        run, on stderr; with -c NAME alone, of a stored campaign\n"
	"      --raw             with -c NAME alone: one tab-separated line per\n"
	"                        measurement (run, thread, function) as stored\n"
	"      --elf APP.ELF     a bare-metal RISC-V program, driven over the GDB remote\n"
	"                        protocol: zond starts the QEMU command after -- with\n"
	"                        -gdb and -S added (a fresh one per run), or connects\n"
	"                        to --gdb HOST:PORT (QEMU -s, OpenOCD); cycles are\n"
	"                        mcycle, exact instructions under -icount shift=0;\n"
	"                        the functions, --region (breakpoints at FROM and TO),\n"
	"                        --descend (QEMU's command only) and --safe-point\n"
	"                        (sets swapped at a breakpoint there) scenarios\n"
	"      --gdb HOST:PORT   the stub to connect to (with --duration S: measure S\n"
	"                        seconds, then put the code back and let it run on)\n"
	"      --scratch ADDR,LEN  RAM no part of the program uses, for zond's code and\n"
	"                        results (default: the widest gap between APP.ELF's\n"
	"                        segments, RAM on QEMU's virt board); beyond 1 MiB of\n"
	"                        the code only functions that write t1 can be patched\n"
	"                        (the far jump), and those entered by breakpoints\n"
	"      --depth N         with --elf: measured calls nested at once the shadow\n"
	"                        stack holds (default 256; 32 bytes of scratch RAM a\n"
	"                        call on rv32, 64 on rv64); deeper calls are counted\n"
	"                        in their functions' calls, not timed (run meta\n"
	"                        lost_depth_calls)\n"
	"  -c, --campaign NAME   the campaign of the runs (default: one is made up and\n"
	"                        printed)\n"
	"  -o, --output STORE    the profile store (default ./zond.db)\n"
	"  -i, --input STORE     with --raw or --metrics -c NAME alone: the store read\n"
	"                        (default ./zond.db; -o is taken too)\n"
	"  -q, --quiet           no summary, no measuring line (--elf, doc/inject.md)\n"
	"      --coverage PROG   print \"N of M functions can be injected\" (with\n"
	"                        --scratch: trampolines there), then each\n"
	"                        function that cannot, with the reason, and each that\n"
	"                        needs a fallback or a hop (a short jump to the jump,\n"
	"                        in alignment fill nearby); PROG (a program or shared\n"
	"                        library) is read, never run\n"
	"  -h, --help            this help\n";

/* The name of the plan's last function that starts before addr. */
static const char *function_before(const struct inject_plan *p, uint64_t addr)
{
	const char *name = "?";
	for (size_t i = 0; i < p->nfuncs && p->funcs[i].addr < addr; i++)
		name = p->funcs[i].name;
	return name;
}

/*
 * Why f, whose site stands, is not measured: zond's own probe sits at its
 * entry (inject_own_probe; choice_add leaves it out), or NULL (QA s14 V3
 * F2: said nowhere, -f clone matched "none that can be injected").  event:
 * --event given, when close and close_range have zond's own probes too.
 */
static const char *reserved(const struct inject_func *f, int event)
{
	if (!f->ok && !f->reads_ret)
		return NULL;
	switch (inject_own_probe(f->name, event)) {
	case -1:
		return NULL;
	case INJECT_UNWIND:
		return "reserved: zond's own probe (za_unwind) sits there, giving the unwinder "
		       "the real return addresses (doc/inject.md, \"C++ exceptions\")";
	case INJECT_CATCH:
		return "reserved: zond's own probe (za_catch) sits there, dropping the frames a "
		       "caught exception left (doc/inject.md, \"C++ exceptions\")";
	case INJECT_CLONE:
		return "reserved: zond's own probe (za_clone) sits there, marking a thread pointer "
		       "a CLONE_VM child shares (doc/inject.md, \"Tasks sharing a thread "
		       "pointer\")";
	case INJECT_SWITCH:
		return "reserved: zond's own probe (za_switch) sits there, giving every frame back "
		       "before the thread leaves its stack (doc/inject.md, \"Context switches\")";
	case INJECT_CLOSE:
	case INJECT_CLOSE_RANGE:
		return "reserved with --event: zond's own probe sits there, keeping the counters' "
		       "fds open (doc/inject.md, \"The program's closes\")";
	default:
		return "reserved: zond's own probe sits there (doc/inject.md)";
	}
}

/* What --coverage and the -f lines say of a function not measured. */
static const char *refusal(const struct inject_func *f, int event)
{
	const char *why = reserved(f, event);
	return why ? why : f->why;
}

/* Whether the function is one to measure: its site stands and zond's own probes leave it. */
static int measurable(const struct inject_func *f, int event)
{
	return f->ok && !reserved(f, event);
}

/*
 * The plan's functions checked against the scratch RAM a run over GDB
 * takes: --scratch's (scratch_len), else the transport's default (the
 * widest gap between the ELF's segments), for a jump of limited reach.
 * How many were refused; *where what was checked (0,0: nothing).
 */
static size_t plan_scratch(struct symbols *s, struct inject_plan *p, uint64_t scratch,
			   uint64_t scratch_len, int two, uint32_t depth, uint64_t where[2])
{
	struct zerr err;
	where[0] = where[1] = 0;
	if (!p->arch->reach)
		return 0;
	if (!scratch_len && symbols_segment_gap(s, p->path, &scratch, &scratch_len, &err) < 0)
		return 0; /* the transport says why */
	if (!scratch_len)
		return 0;
	where[0] = scratch;
	where[1] = scratch_len;
	int xlen = strcmp(p->arch->name, "riscv64") == 0 ? 64 : 32;
	uint64_t span =
		inject_bare_scratch_span(p->arch, xlen, inject_plan_count_ok(p), two, depth);
	return inject_plan_scratch(s, p, scratch, scratch_len, span);
}

/*
 * --coverage: the plan of every function of prog, trampolines in scratch
 * (when given) after a shadow stack of depth (0: the default), printed;
 * event: --event given with it.
 */
static int coverage(const char *prog, uint64_t scratch, uint64_t scratch_len, uint32_t depth,
		    int event)
{
	struct zerr err;
	const char *name = inject_elf_arch(prog, &err);
	if (!name)
		return cmd_error("inject", "%s", err.msg);
	const struct inject_arch *arch = inject_arch_find(name);
	if (!arch)
		return cmd_error("inject",
				 "%s: %s code, and zond was built without its relocator%s", prog,
				 name, strcmp(name, "x86_64") == 0 ? " (libzydis-dev)" : "");
	struct symbols *s = symbols_new();
	struct inject_plan p;
	if (inject_plan_file(s, prog, arch, &p, &err) < 0) {
		symbols_free(s);
		return cmd_error("inject", "%s", err.msg);
	}
	if (depth && !arch->reach) {
		symbols_free(s);
		return cmd_usage_error("inject",
				       "--depth sizes the shadow stack of a bare-metal "
				       "RISC-V program's runs (--elf): %s is %s code",
				       prog, name);
	}
	uint64_t where[2];
	plan_scratch(s, &p, scratch, scratch_len, 0, depth, where);
	size_t parts = 0, own = 0;
	for (size_t i = 0; i < p.nfuncs; i++) {
		parts += p.funcs[i].part;
		own += p.funcs[i].ok && reserved(&p.funcs[i], event);
	}
	printf("%zu of %zu functions can be injected%s\n", inject_plan_count_ok(&p) - own,
	       p.nfuncs - parts,
	       p.nfuncs ? "" : " (no function symbols: stripped? its debug symbols give them)");
	if (parts)
		printf("and %zu %s gcc split off functions (.cold), not functions: their time is "
		       "their function's\n",
		       parts, parts == 1 ? "part" : "parts");
	for (size_t i = 0; i < p.nfuncs; i++) {
		const struct inject_func *f = &p.funcs[i];
		if (f->part)
			printf("part %s (0x%llx): %s\n", f->name, (unsigned long long)f->addr,
			       f->why);
		else if (!measurable(f, event))
			printf("refused %s (0x%llx): %s\n", f->name, (unsigned long long)f->addr,
			       refusal(f, event));
		else if (f->site.by_break)
			printf("fallback %s (0x%llx): %s: entered through a breakpoint, one "
			       "debugger stop per call (over GDB only)\n",
			       f->name, (unsigned long long)f->addr, f->why);
		else if (f->site.hop)
			printf("hop %s (0x%llx): %s; a %u-byte jump to a %u-byte one in the fill "
			       "after %s (0x%llx)\n",
			       f->name, (unsigned long long)f->addr, f->why, arch->hop_len,
			       arch->jump_len, function_before(&p, f->site.slot),
			       (unsigned long long)f->site.slot);
		else if (f->site.padding)
			printf("fallback %s (0x%llx): %llu bytes; the jump also overwrites %llu "
			       "bytes of the alignment fill after it\n",
			       f->name, (unsigned long long)f->addr, (unsigned long long)f->size,
			       (unsigned long long)(f->site.keep + arch->jump_len - f->size));
	}
	inject_plan_free(&p);
	symbols_free(s);
	return 0;
}

/* The metrics of one run's functions (one result set), on f. */
static void print_run_metrics(FILE *f, const struct zp_profile *p)
{
	size_t nm;
	const struct metric *ms = metrics_all(&nm);
	double *value = zp_xcalloc(nm, sizeof *value);
	unsigned char *done = zp_xcalloc(nm, 1), *any = zp_xcalloc(nm, 1);
	const char *set = profile_meta(p, "inject_cyclic_set");
	fprintf(f, "run %lld%s%s%s: %.6f s\n", (long long)p->run.id, set ? " (set " : "",
		set ? set : "", set ? ")" : "", p->run.duration_ns / 1e9);
	for (uint32_t node = 0; node < p->nnodes; node++) {
		struct metric_inputs in;
		metrics_inputs(p, node, &in);
		if (!(in.have & (1u << MI_CALLS)) || !metrics_compute(&in, value, done))
			continue;
		fprintf(f, "  %s calls=%.0f", p->nodes[node].name, in.v[MI_CALLS]);
		for (size_t m = 0; m < nm; m++)
			if (done[m]) {
				any[m] = 1;
				fprintf(f, " %s=%.4g%s", ms[m].name, value[m], ms[m].unit);
			}
		fputc('\n', f);
	}
	for (size_t m = 0; m < nm; m++)
		if (!any[m])
			fprintf(f, "  %s (%s): not computed, its inputs are not all in this run\n",
				ms[m].name, ms[m].what);
	free(value);
	free(done);
	free(any);
}

/*
 * --raw: one line per measurement (a record of one thread in one run and
 * a counter) with its numbers as stored, tab-separated under a header
 * line; not the probe-cost zond derives from them.
 */
static void print_run_raw(FILE *f, const struct zp_profile *p)
{
	for (size_t e = 0; e < p->nevents; e++)
		for (size_t i = 0; i < p->nstats && strcmp(p->events[e].name, "probe-cost") != 0;
		     i++) {
			const struct zp_stat *st = &p->stats[i];
			const struct zp_node *n = &p->nodes[st->node];
			fprintf(f, "%lld\t%lld\t%s\t%s\t%s\t%llu\t%s\t%llu\t%llu\t%llu\t%llu\n",
				(long long)p->run.id, (long long)p->threads[st->thread].tid,
				n->kind == ZP_FUNCTION ? "function" : "block", n->name, n->module,
				(unsigned long long)st->calls, p->events[e].name,
				(unsigned long long)st->incl[e], (unsigned long long)st->self[e],
				(unsigned long long)(st->calls ? st->min[e] : 0),
				(unsigned long long)st->max[e]);
		}
}

/*
 * --metrics: every run of the campaign (each run one result set: metrics
 * never mix runs) with the metrics its functions have, on f; --raw: the
 * measurements themselves.
 */
static int print_metrics(FILE *f, const char *store_path, const char *campaign, int raw)
{
	struct zerr err;
	struct store *st = store_open(store_path, STORE_READ, &err);
	int64_t *ids = NULL;
	size_t n = 0;
	/* the campaign's runs listed and loaded in one snapshot (QA s13 S F1) */
	if (!st || store_read_begin(st, &err) < 0 ||
	    store_campaign_runs(st, campaign, &ids, &n, &err) < 0) {
		store_close(st);
		return cmd_error("inject", "%s", err.msg);
	}
	size_t nm;
	const struct metric *ms = metrics_all(&nm);
	if (raw) {
		fprintf(f, "run\ttid\tkind\tname\tmodule\tcalls\tevent\tincl\tself\tmin\tmax\n");
	} else {
		fprintf(f, "metrics of campaign %s (monotone, usable for pruning:", campaign);
		for (size_t m = 0; m < nm; m++)
			if (ms[m].monotone)
				fprintf(f, " %s", ms[m].name);
		fprintf(f, ")\n");
	}
	int rc = 0;
	/* all loaded before printing: a slow reader of f holds no lock on the store */
	struct zp_profile **runs = zp_xcalloc(n + 1, sizeof *runs);
	for (size_t i = 0; i < n && rc == 0; i++)
		if (!(runs[i] = store_load_run(st, ids[i], &err)))
			rc = cmd_error("inject", "%s", err.msg);
	store_close(st);
	for (size_t i = 0; i < n && rc == 0; i++) {
		if (raw)
			print_run_raw(f, runs[i]);
		else
			print_run_metrics(f, runs[i]);
	}
	for (size_t i = 0; i < n; i++)
		profile_free(runs[i]);
	free(runs);
	free(ids);
	return rc;
}

/* The events --event knows, as perf_event_open counts them. */
static const struct inject_event events[] = {
	{"task-clock", "ns", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, 0},
	{"page-faults", "events", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, 0},
	{"context-switches", "events", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, 0},
	{"cpu-migrations", "events", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS, 0},
	{"cycles", "events", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 0},
	{"instructions", "events", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, 0},
	{"cache-misses", "events", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES, 0},
	{"branch-misses", "events", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES, 0},
};

/* Whether perf_event_open counts ev for this thread here; errno set when not. */
static int event_opens(const struct inject_event *ev)
{
	struct perf_event_attr a;
	memset(&a, 0, sizeof a);
	a.size = sizeof a;
	a.type = ev->type;
	a.config = ev->config;
	a.exclude_kernel = ev->exclude_kernel != 0;
	a.exclude_hv = 1;
	a.disabled = 1;
	int fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return 0;
	close(fd);
	return 1;
}

/*
 * --event NAME into *ev: 0 for tsc (the payload's own counter, *ev
 * untouched), 1 for a perf_event counter; else one line saying why the
 * event cannot be counted here, and -1 (-2: unknown name).  Counted in
 * user and kernel mode where perf_event_paranoid allows, else in user mode.
 */
static int choose_event(const char *name, struct inject_event *ev)
{
	if (strcmp(name, "tsc") == 0)
		return 0;
	size_t i = 0, n = sizeof events / sizeof events[0];
	while (i < n && strcmp(events[i].name, name) != 0)
		i++;
	if (i == n)
		return -(cmd_usage_error("inject",
					 "--event wants tsc, task-clock, page-faults, "
					 "context-switches, cpu-migrations, cycles, instructions, "
					 "cache-misses or branch-misses"));
	if (events[i].type == PERF_TYPE_HARDWARE &&
	    access("/sys/bus/event_source/devices/cpu", F_OK) != 0)
		return -cmd_error("inject",
				  "--event %s: this machine has no PMU (no hardware events: "
				  "/sys/bus/event_source/devices/cpu is missing); --event tsc and "
				  "the software events (task-clock, page-faults, context-switches, "
				  "cpu-migrations) work",
				  name);
	*ev = events[i];
	if (event_opens(ev))
		return 1;
	ev->exclude_kernel = 1;
	if (event_opens(ev))
		return 1;
	return -cmd_error("inject", "--event %s: perf_event_open does not count it for zond (%s)",
			  name, strerror(errno));
}

/* What the functions scenario was asked. */
struct functions_job {
	struct name_filter filter;
	const char *libs[NAME_FILTER_MAX]; /* -f MODULE:GLOB */
	int nlibs;
	long per_run;       /* 0: all in one run */
	long pid;           /* -p: attach, 0: start argv */
	const char *region; /* --region FROM,TO */
	int descend;        /* --descend */
	const char *from;   /* --from FUNC */
	double threshold;   /* --threshold PCT */
	const char *safe;   /* --safe-point FUNC: the cyclic scenario */
	struct inject_event event; /* --event, when has_event */
	int has_event;
	int fast_clock;     /* --fast-clock: the TSC read unfenced */
	double period;      /* --period S */
	double duration;
	const char *store, *campaign;
	int quiet;
	int metrics;           /* --metrics */
	int raw;               /* --raw */
	const char *elf, *gdb; /* a bare-metal target over GDB */
	int host_clock; /* QEMU started without -icount, counter mcycle: cycles, not instructions */
	const char *event_name; /* --event as given (over GDB: the CSR) */
	struct inject_bare_counter counters[2]; /* over GDB: --event's counters */
	int ncounters;
	uint64_t scratch, scratch_len;
	uint32_t depth; /* --depth: over GDB, measured calls nested at once (0: INJ_DEPTH) */
	int graph_pass; /* the call graph's run of every function (NAME.graph) */
	char campaign_buf[128];
};

/* The payload's sums are signed (results.h): a compensation overshoot reads as 0. */
static uint64_t at_least_0(uint64_t sum)
{
	return (int64_t)sum < 0 ? 0 : sum;
}

/* The counter the payload reads for the job: NULL for the architecture's own. */
static const struct inject_event *job_event(const struct functions_job *job)
{
	return job->has_event ? &job->event : NULL;
}

/* What one statistics record of a run is, for the store. */
struct record_desc {
	enum zp_node_kind kind;
	const char *name;
	uint64_t addr;      /* link-time */
	const char *module; /* the ELF file; NULL: the program's */
};

/* The calls of record k summed over r's threads. */
static uint64_t calls_of(const struct inject_result *r, size_t k)
{
	uint64_t sum = 0;
	for (size_t t = 0; t < r->nthreads; t++)
		sum += r->stats[t * r->n + k].calls;
	return sum;
}

/*
 * A campaign that runs the program more than once: standard input, when it
 * is not a terminal, read once into a temporary file (TMPDIR, unlinked at
 * once: gone when zond ends), and each run gets that file from its start
 * as its stdin (rerun_stdin).  Before, the call graph's run read a pipe or
 * a file to its end and every later run read EOF (QA s13 U F6).  -1 when
 * stdin is a terminal or closed, or cannot be kept (one line says why).
 */
static int spool_stdin(void)
{
	if (isatty(0) || fcntl(0, F_GETFD) < 0)
		return -1;
	const char *dir = getenv("TMPDIR");
	char path[PATH_MAX];
	snprintf(path, sizeof path, "%s/zond-stdin-XXXXXX", dir && *dir ? dir : "/tmp");
	int fd = mkstemp(path);
	if (fd < 0 || fcntl(fd, F_SETFD, FD_CLOEXEC) < 0) {
		fprintf(stderr, "zond inject: warning: stdin not kept for the reruns (%s: %s): "
				"each run reads on where the last one stopped\n",
			path, strerror(errno));
		return -1;
	}
	unlink(path);
	char buf[65536];
	for (;;) {
		ssize_t got = read(0, buf, sizeof buf);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			fprintf(stderr, "zond inject: warning: stdin could not be read for the "
					"reruns (%s)\n", strerror(errno));
			break;
		}
		if (got == 0)
			break;
		for (ssize_t off = 0; off < got;) {
			ssize_t w = write(fd, buf + off, (size_t)(got - off));
			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0) {
				fprintf(stderr, "zond inject: warning: stdin not kept for the reruns "
						"(%s: %s)\n", path, strerror(errno));
				close(fd);
				return -1;
			}
			off += w;
		}
	}
	return fd;
}

/* The kept stdin (fd, -1: none) as stdin again, from its start, for the next run. */
static void rerun_stdin(int fd)
{
	if (fd < 0)
		return;
	lseek(fd, 0, SEEK_SET);
	dup2(fd, 0); /* no close-on-exec on 0: the program inherits it */
}

/*
 * One line, once a campaign (*said), when a measuring run's calls of a
 * function differ from the call graph's run's (graph_calls, by record):
 * the runs did different work (other input, time, randomness).
 */
static void compare_calls(const struct inject_result *r, const struct record_desc *recs,
			  const size_t *index, const uint64_t *graph_calls, int run, int *said)
{
	for (size_t k = 0; k < r->n && !*said; k++) {
		uint64_t c = calls_of(r, k), g = graph_calls[index[k]];
		if (c != g && ++*said)
			fprintf(stderr,
				"zond inject: warning: run %d called %s %llu times, the call graph's "
				"run %llu: the runs did different work, and the campaign merges "
				"their figures as if they had not\n",
				run, recs[k].name, (unsigned long long)c, (unsigned long long)g);
	}
}

/* The node of record k (recs[k]), with its source line. */
static uint32_t record_node(struct zp_profile *p, struct symbols *s, const struct inject_plan *plan,
			    const struct record_desc *rec)
{
	const char *file = "", *module = rec->module ? rec->module : plan->path;
	int line = 0;
	struct zerr ignored;
	if (rec->kind == ZP_FUNCTION)
		symbols_decl_line(s, module, rec->addr, &file, &line, &ignored);
	else
		symbols_line(s, module, rec->addr, &file, &line, &ignored);
	return profile_node(p, rec->kind, rec->name, module, file, line,
			    rec->kind == ZP_FUNCTION ? rec->addr : 0);
}

/* The nodes of the records some thread called (ZP_NONE: none did), into nodes. */
static void add_nodes(struct zp_profile *p, struct symbols *s, const struct inject_plan *plan,
		      const struct record_desc *recs, const struct inject_result *r, uint32_t *nodes)
{
	for (size_t k = 0; k < r->n; k++) {
		nodes[k] = ZP_NONE;
		for (size_t i = 0; i < r->nthreads && nodes[k] == ZP_NONE; i++)
			if (r->stats[i * r->n + k].calls)
				nodes[k] = record_node(p, s, plan, &recs[k]);
	}
}

/* One run's results as a profile of the store: one node per record, per thread. */
static struct zp_profile *run_profile(const struct functions_job *job, struct symbols *s,
				      const struct inject_plan *plan,
				      const struct record_desc *recs, const struct inject_result *r,
				      char *const argv[])
{
	struct zp_profile *p = profile_new();
	char *cmd = cmd_join_argv(argv);
	struct utsname u;
	profile_set_str(&p->run.command, cmd);
	free(cmd);
	profile_set_str(&p->run.collector, "inject");
	profile_set_str(&p->run.campaign, job->campaign);
	profile_set_str(&p->run.arch, plan->arch->name);
	const struct inject_event *event = job_event(job);
	const char *clock = event ? event->name : plan->arch->counter;
	if (job->elf && job->event_name)
		clock = job->event_name; /* a CSR over GDB */
	profile_set_str(&p->run.clock, clock);
	if (!event && !job->elf) /* the TSC, read after an lfence or not */
		profile_add_meta(p, "inject_clock", job->fast_clock ? "fast" : "fenced");
	if (uname(&u) == 0)
		profile_set_str(&p->run.host, u.nodename);
	p->run.pid = r->pid;
	p->run.start_ns = r->start_ns;
	p->run.duration_ns = r->duration_ns;
	p->run.exit_status = r->status >= 0 && WIFEXITED(r->status) ? WEXITSTATUS(r->status) : -1;
	p->run.term_signal = r->status >= 0 && WIFSIGNALED(r->status) ? WTERMSIG(r->status) : 0;
	/* QEMU without -icount: mcycle's cycles follow the host's clock, a count of cycles */
	int counted = event || job->host_clock;
	if (job->host_clock)
		profile_add_meta(p, "host_clock", "1");
	if (!counted || (event && strcmp(event->unit, "ns") == 0)) /* else in the meta below */
		p->run.overhead_ns = (double)inject_to_ns(r->cpair, r->hz);
	char buf[64];
	snprintf(buf, sizeof buf, "%zu", r->n);
	profile_add_meta(p, "inject_records", buf);
	snprintf(buf, sizeof buf, "%.1f", (double)inject_to_ns(r->c0 * 1000, r->hz) / 1000);
	profile_add_meta(p, counted ? "inject_payload_inside" : "inject_payload_inside_ns", buf);
	if (counted) {
		snprintf(buf, sizeof buf, "%.1f",
			 (double)inject_to_ns(r->cpair * 1000, r->hz) / 1000);
		profile_add_meta(p, "inject_payload_per_call", buf);
	}
	/* counts a run keeps when not 0; the lost_* ones make zond report's header and
	   zond dump say the run is incomplete */
	const struct {
		const char *key;
		uint64_t n;
	} counts[] = {
		{"inject_threads_without_counter", r->nocounter},
		/* over GDB a call deeper than the shadow stack is counted, not timed */
		{"inject_calls_not_measured", (job->elf ? 0 : r->deep) + r->noslot},
		{"lost_depth_calls", r->deep},
		{"lost_thread_calls", r->noslot},
		{"lost_shared_tls_calls", r->sharedtp},
		{"lost_seccomp_calls", r->sandboxed},
		{"lost_process_calls", r->noblock},
		{"inject_calls_untimed", r->untimed},
		{"inject_calls_untimed_no_clock", r->noclock},
		{"inject_counters_lost", r->lostfd},
		{"inject_calls_never_returned", r->open},
		{"inject_threads_in_reused_blocks", r->reused},
	};
	for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++)
		if (counts[k].n) {
			snprintf(buf, sizeof buf, "%llu", (unsigned long long)counts[k].n);
			profile_add_meta(p, counts[k].key, buf);
		}
	if (job->elf && (job->depth || r->deep)) { /* the bound lost_depth_calls went over */
		snprintf(buf, sizeof buf, "%u", job->depth ? job->depth : INJ_DEPTH);
		profile_add_meta(p, "inject_depth", buf);
	}
	if (r->left_running) /* ^C while zond waited: their later calls are not in the run */
		profile_add_meta(p, "inject_stopped_waiting", "1");
	if (r->seccomp) /* as zond record says it (doc/raw-format.md "Seccomp") */
		profile_add_meta(p, "seccomp", r->seccomp & INJ_SECCOMP_STRICT ? "strict" : "filter");
	unsigned ev, ev2 = 0;
	if (r->stats2) { /* two counters over GDB: each its own event, by its counter's name */
		ev = profile_event(p, job->counters[0].reg, "events");
		ev2 = profile_event(p, job->counters[1].reg, "events");
	} else {
		ev = event		? profile_event(p, event->name, event->unit)
		     : job->host_clock ? profile_event(p, "cycles", "cycles")
					: profile_event(p, "time", "ns");
	}
	uint32_t *nodes = zp_xcalloc(r->n + 1, sizeof *nodes);
	add_nodes(p, s, plan, recs, r, nodes);
	inject_put_figures(p, r, &(struct inject_figures){ev, ev2, nodes, !job->elf});
	free(nodes);
	return p;
}

/* the store of this zond's runs that their own store could not take ("" while none) */
static char kept_store[PATH_MAX];

/*
 * p as a run of job->store, or -1 with the error printed.  What was measured
 * lives in zond's memory only (results.h), which is gone when zond ends, so
 * a run the store cannot take is kept in a store of its own and one line
 * says where (record and libcalls keep their raw data instead).
 */
static int store_run(const struct functions_job *job, struct zp_profile *p)
{
	struct zerr err;
	if (store_save_run(job->store, p, &err) == 0)
		return 0;
	cmd_error("inject", "%s", err.msg);
	if (store_keep_run(p, kept_store, &err) < 0)
		cmd_error("inject", "the run is lost: %s", err.msg);
	else
		fprintf(stderr, "zond inject: run kept in %s, a store of its own (zond report -i %s)\n",
			kept_store, kept_store);
	return -1;
}

/* the signal that killed the program zond ran (its last run): zond dies of it at the end */
static int program_signal;

/* The program's status as zond's exit status (128 + signal when killed). */
static int program_status(int status)
{
	program_signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
	return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
}

/* The executable of process pid, into prog; -1 when there is none. */
/*
 * The executable of process pid in prog: 0, or -1 with err saying why not
 * in one line: no such process, one of another user's (permission), or one
 * whose main thread has exited (its other threads run on: a zombie leader,
 * whose /proc/PID/exe reads nothing).  Before, each was "no such process
 * (or not ours)" (QA s11 F6).
 */
static int process_program(long pid, char prog[PATH_MAX], struct zerr *err)
{
	char link[96];
	snprintf(link, sizeof link, "/proc/%ld/exe", pid);
	if (realpath(link, prog))
		return 0;
	int e = errno;
	char status[64], line[256];
	snprintf(status, sizeof status, "/proc/%ld/status", pid);
	FILE *f = fopen(status, "re");
	if (!f || pid <= 0) {
		if (f)
			fclose(f);
		return zerr_set(err, "process %ld: no such process", pid);
	}
	char state = 0;
	long threads = 0;
	while (fgets(line, sizeof line, f)) {
		if (strncmp(line, "State:", 6) == 0)
			sscanf(line + 6, " %c", &state);
		else if (strncmp(line, "Threads:", 8) == 0)
			threads = strtol(line + 8, NULL, 10);
	}
	fclose(f);
	if (e == EACCES || e == EPERM)
		return zerr_set(err,
				"process %ld: permission denied: it is another user's (run zond as "
				"that user, or as root / with CAP_SYS_PTRACE)",
				pid);
	if (state == 'Z' && threads > 1) {
		/* its main thread has exited, the others run on: the executable through one */
		char dir[64];
		snprintf(dir, sizeof dir, "/proc/%ld/task", pid);
		DIR *d = opendir(dir);
		struct dirent *t;
		int found = 0;
		while (d && !found && (t = readdir(d))) {
			if (atol(t->d_name) <= 0 || atol(t->d_name) == pid)
				continue;
			snprintf(link, sizeof link, "/proc/%ld/task/%.20s/exe", pid, t->d_name);
			found = realpath(link, prog) != NULL;
		}
		if (d)
			closedir(d);
		if (found)
			return 0;
		return zerr_set(err,
				"process %ld: its main thread has exited and the executable cannot be "
				"read through its %ld other threads (%s)",
				pid, threads - 1, strerror(errno));
	}
	if (state == 'Z' || state == 'X')
		return zerr_set(err, "process %ld: it has ended (a zombie)", pid);
	return zerr_set(err, "process %ld: its executable cannot be read (%s)", pid, strerror(e));
}

/* The bare-metal target of job: QEMU's command line (argv) or the stub at --gdb. */
static struct inject_bare_target bare_target(const struct functions_job *job, char **argv)
{
	return (struct inject_bare_target){
		job->gdb ? NULL : argv,
		job->gdb,
		{job->elf, job->scratch, job->scratch_len, 10000, 200, 0, NULL,
		 /* QEMU zond starts with -icount: one count an instruction */
		 job->elf && !job->gdb && argv && !bare_qemu_without_icount(argv) &&
			 (!job->event_name || strncmp(job->event_name, "mhpm", 4) != 0),
		 NULL, NULL, NULL},
		job->duration,
		job->event_name,
		!job->quiet,
		job->depth};
}

/* One line for n calls not measured (none: nothing), why, and the run meta that counts them. */
static void warn_not_measured(uint64_t n, const char *why, const char *key)
{
	if (n)
		fprintf(stderr,
			"zond inject: %llu calls were not measured (counted in no figure): %s (run "
			"meta %s)\n",
			(unsigned long long)n, why, key);
}

/*
 * Calls counted without their time because the counter could not be read
 * (payload.S NOTSC, za_read), and why: one line.
 */
static void warn_no_clock(const struct inject_result *r, const struct functions_job *job)
{
	if ((r->seccomp & INJ_SECCOMP_STRICT) && job->has_event && !r->noclock)
		fprintf(stderr,
			"zond inject: the program put itself under seccomp strict mode: its %s "
			"counter was read on (read() is allowed there) (run meta seccomp)\n",
			job->event.name);
	else if (r->seccomp & INJ_SECCOMP_STRICT)
		fprintf(stderr,
			"zond inject: the program put itself under seccomp strict mode%s: %llu "
			"calls were counted without their time (run meta seccomp, "
			"inject_calls_untimed_no_clock)\n",
			job->has_event ? ""
				       : ", where the time-stamp counter faults: zond read it no more",
			(unsigned long long)r->noclock);
	else if (r->noclock && r->seccomp && job->has_event)
		fprintf(stderr,
			"zond inject: the program put itself under a seccomp filter, which may "
			"forbid read() of its %s counter: %llu calls were counted without their "
			"time (run meta seccomp, inject_calls_untimed_no_clock)\n",
			job->event.name, (unsigned long long)r->noclock);
	else if (r->noclock)
		fprintf(stderr,
			"zond inject: %llu calls were counted without their time: their thread's "
			"counter could not be read (run meta inject_calls_untimed_no_clock)\n",
			(unsigned long long)r->noclock);
	if (r->lostfd)
		fprintf(stderr,
			"zond inject: the program closed the %s counter of %llu thread%s behind "
			"zond's back (a close system call of its own): later calls there were "
			"counted without their time (run meta inject_counters_lost)\n",
			job->has_event ? job->event.name : "", (unsigned long long)r->lostfd,
			r->lostfd == 1 ? "" : "s");
}

/*
 * One run (argv) or one attachment (job->pid) with ijob's patches, stored.
 * *stored is set when the run was stored; the program's status is zond's.
 */
static int measure(const struct functions_job *job, struct symbols *s, const struct inject_job *ij,
		   const struct record_desc *recs, char **argv, const char *prog, int *stored,
		   struct inject_result *keep)
{
	struct zerr err;
	struct inject_result r;
	char pidtext[32];
	char *pargv[] = {(char *)prog, pidtext, NULL};
	int rc;
	*stored = 0;
	if (keep)
		memset(keep, 0, sizeof *keep); /* the caller frees it whatever happened */
	char *gargv[] = {(char *)prog, (char *)job->gdb, NULL};
	int lost = 0, die_of = 0;
	if (job->elf) {
		struct inject_bare_target bt = bare_target(job, argv);
		rc = inject_bare_run(ij, &bt, &r, &err);
		if (job->gdb)
			argv = gargv;
		if (rc == 1) { /* the target went away while it ran: keep what was read */
			cmd_error("inject", "%s; stored as a partial run", err.msg);
			lost = 1;
			rc = 0;
		}
		if (rc == 0 && r.stopped > 0) /* QEMU zond started, stopped and ended */
			fprintf(stderr,
				"zond inject: %s: the measuring stopped after %.1f s, %s (pid %lld) "
				"ended by zond; what was measured is kept\n",
				strsignal(r.stopped), (clock_now_ns(CLOCK_REALTIME) - r.start_ns) / 1e9,
				argv[0], (long long)r.pid);
		else if (rc == 0 && r.stopped && !job->quiet)
			fprintf(stderr,
				"zond inject: --duration %g s passed: %s (pid %lld) ended by zond\n",
				job->duration, argv[0], (long long)r.pid);
	} else if (job->pid) {
		snprintf(pidtext, sizeof pidtext, "(pid %ld)", job->pid);
		rc = inject_attach(ij, job->pid, job->duration, &r, &err);
		argv = pargv;
		die_of = inject_interrupt_signal();
		if (die_of == SIGINT || die_of == SIGTERM) /* they ask to stop measuring */
			die_of = 0;
	} else {
		rc = inject_run(ij, argv, &r, &err);
	}
	if (rc < 0) {
		rc = !job->pid && r.status > 0 ? program_status(r.status)
					       : 1; /* -1: it never ran */
		cmd_error("inject", "%s", err.msg);
		inject_result_free(&r);
		return rc;
	}
	struct zp_profile *p = run_profile(job, s, ij->plan, recs, &r, argv);
	if (lost)
		profile_add_meta(p, "inject_connection_lost", "1");
	if (r.clock_moved)
		profile_add_meta(p, "inject_clock_moved", "1");
	rc = lost || r.note_failed ? 1 : job->pid || r.status < 0 ? 0 : program_status(r.status);
	if (r.note[0])
		fprintf(stderr, "zond inject: %s\n", r.note);
	if (store_run(job, p) < 0) {
		/* as record: the program's status stays zond's, a failure shows when it was 0 */
		rc = rc ? rc : 1;
	} else {
		*stored = 1;
		if (!job->quiet)
			fprintf(stderr,
				"zond inject: run %lld stored in %s: %zu %s, payload %.1f %s per "
				"measured call subtracted\n",
				(long long)p->run.id, job->store, r.n,
				job->region ? "region" : "functions",
				(double)inject_to_ns((job->region ? r.c0 : r.cpair) * 1000, r.hz) /
					1000,
				job->has_event	  ? job->event.unit
				: job->host_clock ? "cycles"
						  : "ns");
		if (r.noctx && r.n <= INJ_EDGES_MAX)
			fprintf(stderr,
				"zond inject: more than %d calling contexts on a thread: the run "
				"keeps call edges only\n",
				INJ_CTX_MAX - 1);
		else if (r.noctx)
			fprintf(stderr,
				"zond inject: more than %d calling contexts on a thread and more "
				"than %d functions in the run: it keeps neither stacks nor call "
				"edges, only each function's figures (fewer functions a run: -f, "
				"--per-run)\n",
				INJ_CTX_MAX - 1, INJ_EDGES_MAX);
		if (r.deep && job->elf)
			fprintf(stderr,
				"zond inject: %llu calls were deeper than the %u measured calls "
				"nested at once the shadow stack holds: counted in their "
				"functions' calls, not timed (their time is their measured "
				"caller's self; run meta lost_depth_calls; --depth N holds more)\n",
				(unsigned long long)r.deep, job->depth ? job->depth : INJ_DEPTH);
		else if (r.deep || r.noslot)
			fprintf(stderr,
				"zond inject: %llu calls were not measured (counted in no figure): "
				"%llu deeper than the %d frames a thread's shadow stack holds, %llu "
				"on threads that found none of the run's %d thread slots free "
				"(threads alive at once, or ended ones whose slots could not be "
				"given back) (run meta inject_calls_not_measured, lost_depth_calls, "
				"lost_thread_calls)\n",
				(unsigned long long)(r.deep + r.noslot), (unsigned long long)r.deep,
				INJ_DEPTH, (unsigned long long)r.noslot, INJ_THREADS);
		warn_not_measured(r.sharedtp,
				  "made by tasks sharing one thread pointer (clone with CLONE_VM and "
				  "without CLONE_SETTLS), whose calls one shadow stack cannot tell "
				  "apart",
				  "lost_shared_tls_calls");
		warn_not_measured(r.sandboxed,
				  "made by threads that started measured code after the program put "
				  "itself under seccomp, where zond makes no system call of its own",
				  "lost_seccomp_calls");
		char blocks[160];
		snprintf(blocks, sizeof blocks,
			 "made in forked children that found none of the run's %d blocks free "
			 "(threads and processes alive at once, or ended ones whose blocks "
			 "could not be given back)",
			 INJ_THREADS);
		warn_not_measured(r.noblock, blocks, "lost_process_calls");
		if (r.left_running)
			fprintf(stderr,
				"zond inject: stopped waiting for the processes %s left running: "
				"what they measure from now on is not in the run (run meta "
				"inject_stopped_waiting)\n",
				argv[0]);
		if (r.untimed)
			fprintf(stderr,
				"zond inject: %llu calls were counted without their time (left by "
				"longjmp, a context switch or an exception): their callers' times "
				"include theirs (run meta inject_calls_untimed)\n",
				(unsigned long long)r.untimed);
		warn_no_clock(&r, job);
		if (r.unloaded)
			fprintf(stderr,
				"zond inject: %zu %s never loaded by the program: %s functions were not "
				"measured\n",
				r.unloaded, r.unloaded == 1 ? "library was" : "libraries were",
				r.unloaded == 1 ? "its" : "their");
		const char *dominated = profile_meta(p, "inject_compensation_dominates");
		if (dominated && r.n == 1) /* one function: its callees are itself */
			fprintf(stderr,
				"zond inject: %s: its time rests on an estimate: up to %s%% of what "
				"was measured there was the payload of its own recursive calls, "
				"subtracted as calibrated\n",
				dominated, profile_meta(p, "inject_compensation_share"));
		else if (dominated && !job->graph_pass) /* the graph's times are not the results */
			fprintf(stderr,
				"zond inject: %s: %s on an estimate: up to %s%% of what was "
				"measured there was the payload of measured callees, subtracted as "
				"calibrated; measure with fewer functions per run (--per-run 1) for "
				"times that rest on the counter\n",
				dominated, strchr(dominated, ',') ? "their times rest" : "its time rests",
				profile_meta(p, "inject_compensation_share"));
		if (r.nocounter)
			fprintf(stderr,
				"zond inject: %llu threads could not open their %s counter "
				"(perf_event_open or fcntl failed in the program): not measured\n",
				(unsigned long long)r.nocounter, job->event.name);
	}
	profile_free(p);
	if (keep)
		*keep = r;
	else
		inject_result_free(&r);
	if (die_of) {
		/* the signal meant to end zond: the code is back, the run stored; now it does */
		fprintf(stderr, "zond inject: %s: ending as it asks, the process's code put back\n",
			strsignal(die_of));
		launch_die_as(die_of);
	}
	return rc;
}

/*
 * The functions of the plan -f chooses that can be injected, as indexes
 * into plan->funcs (*which, malloc'ed); -1 with the error printed when
 * there is none (and none_ok is 0).
 */
/* Whether glob has none of fnmatch(3)'s special characters: it names one function. */
static int exact_name(const char *glob)
{
	return !strpbrk(glob, "*?[\\");
}

/*
 * Function name, which looks at its caller's address (inject_reads_caller),
 * asked for by an exact -f (pattern, of -f spec): said at once; taken in by
 * a glob or the default: counted in *callers, said once by choose_all.
 */
static void caller_left_out(const char *pattern, const char *spec, const char *name,
			    size_t *callers)
{
	if (pattern && exact_name(pattern))
		fprintf(stderr,
			"zond inject: -f %s: not measured: %.*s looks at its caller's address "
			"(its probe would make it the trampoline's: doc/inject.md, \"Functions "
			"that look at their caller\")\n",
			spec, (int)strcspn(name, "@"), name);
	else
		(*callers)++;
}

/*
 * No -f and not one function to measure: the most common reason, which
 * --coverage gives for each (QA s14 V3 F3: a Go program was told "no
 * function symbols: stripped?").
 */
static void none_injectable(const struct inject_plan *plan, const char *prog, int event)
{
	size_t total = 0, best = 0, best_n = 0;
	for (size_t i = 0; i < plan->nfuncs; i++) {
		const struct inject_func *f = &plan->funcs[i];
		if (f->part)
			continue;
		total++;
		size_t n = 0;
		for (size_t j = i; j < plan->nfuncs && !measurable(f, event); j++)
			n += !plan->funcs[j].part && !measurable(&plan->funcs[j], event) &&
			     strcmp(refusal(&plan->funcs[j], event), refusal(f, event)) == 0;
		if (n > best_n)
			best = i, best_n = n;
	}
	if (!total) {
		cmd_error("inject", "%s: no function to measure (no function symbols: stripped?)",
			  prog);
		return;
	}
	cmd_error("inject",
		  "%s: no function to measure (0 of %zu functions can be injected; %s%zu: %s; "
		  "--coverage %s gives each one's reason)",
		  prog, total, best_n == total ? "all " : "", best_n,
		  refusal(&plan->funcs[best], event),
		  prog);
}

struct plan_wants {
	const struct inject_plan *plan;
	unsigned char *wanted; /* by the plan's index */
};

static void plan_wanted(void *arg, uint64_t start, uint64_t end, int wanted)
{
	(void)end;
	struct plan_wants *w = arg;
	size_t lo = 0, hi = w->plan->nfuncs;
	while (lo < hi) { /* the plan's functions are in address order */
		size_t mid = lo + (hi - lo) / 2;
		if (w->plan->funcs[mid].addr < start)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < w->plan->nfuncs && w->plan->funcs[lo].addr == start)
		w->wanted[lo] = (unsigned char)wanted;
}

/*
 * Which of the plan's functions f wants, by any of their names (-f close
 * matched nothing in a static program, whose plan calls it __close: s15);
 * a calloc'ed flag per function, NULL with the error printed.
 */
static unsigned char *plan_filter(const struct name_filter *f, struct symbols *s,
				  const struct inject_plan *plan)
{
	struct zerr err;
	struct plan_wants w = {plan, zp_xcalloc(plan->nfuncs + 1, 1)};
	if (name_filter_each_function(f, s, plan->path, plan_wanted, &w, &err) < 0) {
		free(w.wanted);
		cmd_error("inject", "%s", err.msg);
		return NULL;
	}
	return w.wanted;
}

/*
 * Why -f matched nothing when the file has no function symbols at all (a
 * stripped program): "" when it has some.  Before, only "matched no
 * function", which reads like a typo (QA s16 X2 F9).
 */
static const char *stripped_note(const struct inject_plan *plan)
{
	for (size_t i = 0; i < plan->nfuncs; i++)
		if (!plan->funcs[i].part)
			return "";
	return ": it has no function symbols (stripped? its debug symbols give them; "
	       "-f MODULE:GLOB measures a library's)";
}

/* The end of "no function to measure" when -f was given. */
static const char *none_matched(const struct inject_plan *plan)
{
	return *stripped_note(plan) ? "no function symbols: stripped?"
				    : "-f matched none that can be injected";
}

static int choose(const struct functions_job *job, struct symbols *s,
		  const struct inject_plan *plan, const char *prog, size_t **which, size_t *n,
		  int none_ok, size_t *callers)
{
	unsigned char *wanted = plan_filter(&job->filter, s, plan);
	if (!wanted)
		return -1;
	*which = zp_xcalloc(plan->nfuncs + 1, sizeof **which);
	*n = 0;
	for (size_t i = 0; i < plan->nfuncs; i++) {
		const struct inject_func *f = &plan->funcs[i];
		if (!wanted[i])
			continue;
		if (measurable(f, job->has_event)) {
			(*which)[(*n)++] = i;
		} else if (f->caller) {
			const char *pattern = NULL;
			for (int k = 0; k < job->filter.ninclude && !pattern; k++)
				if (exact_name(job->filter.include[k]) &&
				    symbols_name_matches(job->filter.include[k], f->name))
					pattern = job->filter.include[k];
			caller_left_out(pattern, pattern, f->name, callers);
		}
	}
	free(wanted);
	/* each -f zond cannot honour said, also when another one matched (QA s13 U F4) */
	for (int k = 0; k < job->filter.ninclude; k++) {
		const char *glob = job->filter.include[k];
		struct name_filter one = {.include = {glob}, .ninclude = 1};
		size_t matched = 0, refused = 0;
		unsigned char *one_wants = plan_filter(&one, s, plan);
		for (size_t i = 0; one_wants && i < plan->nfuncs; i++) {
			const struct inject_func *f = &plan->funcs[i];
			if (f->part || !one_wants[i])
				continue;
			matched++;
			if (measurable(f, job->has_event) || f->caller) /* caller_left_out's */
				continue;
			if (++refused <= 3)
				fprintf(stderr, "zond inject: -f %s: %s (0x%llx) cannot be injected: %s\n",
					glob, f->name, (unsigned long long)f->addr,
					refusal(f, job->has_event));
		}
		free(one_wants);
		if (!matched)
			fprintf(stderr, "zond inject: -f %s matched no function of %s%s\n", glob,
				prog, stripped_note(plan));
		else if (refused > 3)
			fprintf(stderr,
				"zond inject: -f %s: %zu more of its functions cannot be injected "
				"(--coverage %s says why)\n",
				glob, refused - 3, prog);
	}
	if (*n || none_ok)
		return 0;
	free(*which);
	if (job->filter.ninclude)
		cmd_error("inject", "%s: no function to measure (%s)", prog, none_matched(plan));
	else
		none_injectable(plan, prog, job->has_event);
	return -1;
}

/* The length of the MODULE of a -f MODULE:GLOB, 0 for a GLOB of the program ("ns::f" is one). */
static size_t module_part(const char *spec)
{
	const char *colon = strchr(spec, ':');
	return colon && colon != spec && colon[1] != ':' && colon[1] ? (size_t)(colon - spec) : 0;
}

struct library_search {
	char name[PATH_MAX];
	char path[PATH_MAX]; /* found: non-empty */
};

static void library_seen(void *arg, const char *path)
{
	struct library_search *ls = arg;
	const char *base = strrchr(path, '/');
	if (!ls->path[0] &&
	    (strcmp(path, ls->name) == 0 || strcmp(base ? base + 1 : path, ls->name) == 0))
		snprintf(ls->path, sizeof ls->path, "%s", path);
}

/* The chosen functions and what they are: the program's, then the libraries'. */
struct choice {
	struct inject_patch *patches;
	struct record_desc *recs;
	size_t n;
	struct inject_plan *libs; /* the libraries' plans, nlibs */
	size_t nlibs;
	char **names; /* the libraries' function names, nnames */
	size_t nnames;
	size_t callers; /* left out by a glob: they look at their caller's address */
	int event;      /* --event: close and close_range have zond's probes */
};

/*
 * Adds the functions `which` (n) of plan to c (module: NULL for the
 * program), named names[k] (NULL: the plan's names).
 */
/* Whether c has the function at addr of module (NULL: the program) already. */
static int chosen_already(const struct choice *c, const char *module, uint64_t addr)
{
	for (size_t j = 0; j < c->n; j++)
		if (c->recs[j].addr == addr && (module && c->recs[j].module
						    ? strcmp(module, c->recs[j].module) == 0
						    : module == c->recs[j].module))
			return 1;
	return 0;
}

static void choice_add(struct choice *c, const struct inject_plan *plan, const size_t *which,
		       size_t n, const char *module, char **names)
{
	struct inject_patch *p = inject_function_patches(plan, which, n);
	c->patches = zp_xrealloc(c->patches, (c->n + n + 1) * sizeof *c->patches);
	c->recs = zp_xrealloc(c->recs, (c->n + n + 1) * sizeof *c->recs);
	for (size_t k = 0; k < n; k++) {
		const struct inject_func *f = &plan->funcs[which[k]];
		if (chosen_already(c, module, f->addr) || inject_own_probe(f->name, c->event) >= 0)
			continue; /* two -f of one library name it: patched once; an unwinder
				     or a context switch has zond's own probe (doc/inject.md,
				     "C++ exceptions", "Context switches") */
		c->patches[c->n] = p[k];
		c->patches[c->n].module = module;
		c->patches[c->n].id = (uint32_t)c->n;
		c->recs[c->n++] = (struct record_desc){ZP_FUNCTION, names ? names[k] : f->name,
						       f->addr, module};
	}
	free(p);
}

/* A library's functions a glob names, by any of their symbols (version suffix left out). */
struct library_match {
	const char *glob;
	const struct inject_plan *plan;
	int event; /* --event given (reserved) */
	size_t *which, n;
	char **names; /* the name matched, without "@VERSION" */
	size_t *left, nleft; /* matched, but they look at their caller's address */
	size_t *refused, nrefused; /* matched, but cannot be measured (refusal) */
};

/* Adds i to list (n) unless there: 0 when it was (an alias of one there). */
static int add_once(size_t **list, size_t *n, size_t i)
{
	for (size_t k = 0; k < *n; k++)
		if ((*list)[k] == i)
			return 0;
	*list = zp_xrealloc(*list, (*n + 1) * sizeof **list);
	(*list)[(*n)++] = i;
	return 1;
}

static void library_symbol(void *arg, const struct symbol *sym)
{
	struct library_match *m = arg;
	char name[512];
	snprintf(name, sizeof name, "%.*s", (int)strcspn(sym->name, "@"), sym->name);
	if (!symbols_name_matches(m->glob, name))
		return;
	for (size_t i = 0; i < m->plan->nfuncs; i++) {
		const struct inject_func *f = &m->plan->funcs[i];
		if (f->addr == sym->start && !f->ok && f->caller) {
			add_once(&m->left, &m->nleft, i);
			return;
		}
		if (f->addr == sym->start && !f->part && !measurable(f, m->event)) {
			add_once(&m->refused, &m->nrefused, i);
			return;
		}
		if (f->addr != sym->start || !f->ok)
			continue;
		for (size_t k = 0; k < m->n; k++)
			if (m->which[k] == i)
				return; /* an alias of one chosen already */
		m->which = zp_xrealloc(m->which, (m->n + 1) * sizeof *m->which);
		m->names = zp_xrealloc(m->names, (m->n + 1) * sizeof *m->names);
		m->which[m->n] = i;
		m->names[m->n++] = zp_xstrdup(name);
		return;
	}
}

/* -f MODULE:GLOB: the library's functions matching GLOB, added to c; -1 printed. */
static int choose_library(const char *spec, struct symbols *s, const struct inject_plan *plan,
			  const char *prog, struct choice *c)
{
	struct library_search ls = {"", ""};
	size_t len = module_part(spec);
	struct zerr err;
	snprintf(ls.name, sizeof ls.name, "%.*s", (int)len, spec);
	if (strchr(ls.name, '/'))
		snprintf(ls.path, sizeof ls.path, "%s", ls.name);
	else if (launch_each_library(prog, library_seen, &ls, &err) < 0)
		return cmd_error("inject", "%s", err.msg);
	if (!ls.path[0])
		return cmd_error("inject",
				 "-f %s: %s loads no library %s at start (one it loads with dlopen: "
				 "give its path)",
				 spec, prog, ls.name);
	c->libs = zp_xrealloc(c->libs, (c->nlibs + 1) * sizeof *c->libs);
	struct inject_plan *lp = &c->libs[c->nlibs];
	if (inject_plan_file(s, ls.path, plan->arch, lp, &err) < 0)
		return cmd_error("inject", "%s", err.msg);
	c->nlibs++;
	struct library_match m = {spec + len + 1, lp, c->event, NULL, 0, NULL, NULL, 0, NULL, 0};
	if (symbols_each_function(s, lp->path, library_symbol, &m, &err) < 0)
		return cmd_error("inject", "%s", err.msg);
	for (size_t k = 0; k < m.nleft; k++)
		caller_left_out(m.glob, spec, lp->funcs[m.left[k]].name, &c->callers);
	/* each said with its reason, as the program's (QA s14 V3 F2: clone dropped unsaid) */
	for (size_t k = 0; k < m.nrefused && k < 3; k++) {
		const struct inject_func *f = &lp->funcs[m.refused[k]];
		fprintf(stderr, "zond inject: -f %s: %s (0x%llx) of %s cannot be injected: %s\n",
			spec, f->name, (unsigned long long)f->addr, lp->path, refusal(f, c->event));
	}
	if (m.nrefused > 3)
		fprintf(stderr,
			"zond inject: -f %s: %zu more of its functions cannot be injected "
			"(--coverage %s says why)\n",
			spec, m.nrefused - 3, lp->path);
	int said = (m.nleft && exact_name(m.glob)) || m.nrefused;
	free(m.left);
	free(m.refused);
	if (m.n)
		choice_add(c, lp, m.which, m.n, lp->path, m.names);
	c->names = zp_xrealloc(c->names, (c->nnames + m.n + 1) * sizeof *c->names);
	if (m.n) /* m.names is NULL when nothing matched */
		memcpy(c->names + c->nnames, m.names, m.n * sizeof *m.names);
	c->nnames += m.n;
	free(m.which);
	free(m.names);
	return m.n || said ? 0
			   : cmd_error("inject",
				       "-f %s: no function of %s matches that can be injected%s",
				       spec, lp->path,
				       *stripped_note(lp) ? " (it has no function symbols)" : "");
}

static void choice_free(struct choice *c)
{
	for (size_t i = 0; i < c->nlibs; i++)
		inject_plan_free(&c->libs[i]);
	free(c->libs);
	for (size_t i = 0; i < c->nnames; i++)
		free(c->names[i]);
	free(c->names);
	free(c->patches);
	free(c->recs);
}

/*
 * A program (or a measured library) built with -pg: glibc's mcount (or
 * __fentry__) takes an arc's caller from the measured function's return
 * address, the trampoline's, and drops the arc: gmon.out loses the measured
 * functions' arcs (QA s14 V3 F4).  Said in one line; refusing the functions
 * that call mcount would refuse every function of such a program.
 */
static void warn_profiled(struct symbols *s, const struct inject_plan *plan,
			  const struct choice *c)
{
	static const char *const counters[] = {"mcount", "_mcount", "__fentry__", NULL};
	for (size_t l = 0; l <= c->nlibs; l++) {
		const char *path = l ? c->libs[l - 1].path : plan->path;
		for (int k = 0; counters[k]; k++) {
			struct symbol sym;
			struct zerr err;
			if (!symbols_imports(path, counters[k]) &&
			    (l || symbols_named(s, path, counters[k], &sym, &err) != 1))
				continue;
			fprintf(stderr,
				"zond inject: %s calls %s (built with -pg): its gmon.out will lack the "
				"call arcs of the measured functions (%s reads their return address, "
				"which is the trampoline's: doc/inject.md, \"Functions that look at "
				"their caller\")\n",
				path, counters[k], counters[k]);
			return;
		}
	}
}

/*
 * The functions -f chooses, of the program (plan) and of its libraries
 * (-f MODULE:GLOB); -1 with the error printed when there is none.
 */
static int choose_all(const struct functions_job *job, struct symbols *s,
		      const struct inject_plan *plan, const char *prog, struct choice *c)
{
	memset(c, 0, sizeof *c);
	c->event = job->has_event;
	size_t *which, n;
	int only_libs = job->nlibs && !job->filter.ninclude;
	if (choose(job, s, plan, prog, &which, &n, job->nlibs, &c->callers) < 0)
		return -1;
	if (!only_libs)
		choice_add(c, plan, which, n, NULL, NULL);
	free(which);
	for (int i = 0; i < job->nlibs; i++)
		if (choose_library(job->libs[i], s, plan, prog, c) != 0) {
			choice_free(c);
			return -1;
		}
	if (c->callers)
		fprintf(stderr,
			"zond inject: %zu %s that %s at %s caller's address left out (dlsym and "
			"kin: a probe would make that address the trampoline's; doc/inject.md, \"Functions "
			"that look at their caller\")\n",
			c->callers, c->callers == 1 ? "function" : "functions",
			c->callers == 1 ? "looks" : "look", c->callers == 1 ? "its" : "their");
	if (c->n) {
		warn_profiled(s, plan, c);
		return 0;
	}
	choice_free(c);
	if (job->nlibs) /* the reasons are said above, each -f's with its library */
		cmd_error("inject", "no function to measure (no -f matched one that can be injected)");
	else
		cmd_error("inject", "%s: no function to measure (%s)", prog, none_matched(plan));
	return -1;
}

/* The functions scenario: the chosen functions, per_run of them a run. */
static int functions(struct functions_job *job, struct symbols *s, const struct inject_plan *plan,
		     char **argv, const char *prog, int *runs)
{
	struct choice c;
	if (choose_all(job, s, plan, prog, &c) < 0)
		return 1;
	struct inject_patch *patches = c.patches;
	struct record_desc *recs = c.recs;
	size_t n = c.n;
	if (!job->quiet)
		fprintf(stderr, "zond inject: %zu function%s of %s%s, campaign %s\n", n,
			n == 1 ? "" : "s", prog,
			c.nlibs ? " and its libraries" : "", job->campaign);
	size_t per = job->per_run > 0 && !job->pid ? (size_t)job->per_run : n;
	int rc = 0, first = 0, said = 0, said_calls = 0, graph_rc = -1;
	size_t edges_max = job->elf ? INJECT_BARE_EDGES_MAX : INJ_EDGES_MAX;
	/* more than one run: each gets the same stdin */
	int in = per < n && !job->pid && !job->gdb ? spool_stdin() : -1;
	uint64_t *graph_calls = NULL;
	size_t *index = zp_xcalloc(n + 1, sizeof *index);
	if (per < n && n <= edges_max) {
		/* the call graph, every function in one run (campaign NAME.graph, as the descent's
		   first pass): zond report -C NAME takes each function's callees measured in other
		   runs out of its self by it (doc/inject.md) */
		char graph[sizeof job->campaign_buf + 8];
		snprintf(graph, sizeof graph, "%s.graph", job->campaign);
		struct functions_job all = *job;
		all.campaign = graph;
		all.graph_pass = 1;
		for (size_t j = 0; j < n; j++)
			patches[j].id = (uint32_t)j;
		struct inject_job gj = {plan, patches, n, n, job_event(job), job->fast_clock};
		int stored;
		struct inject_result gr;
		rerun_stdin(in);
		rc = measure(&all, s, &gj, recs, argv, prog, &stored, &gr);
		if (!stored) {
			inject_result_free(&gr);
			choice_free(&c);
			free(index);
			if (in >= 0)
				close(in);
			return rc;
		}
		graph_calls = zp_xcalloc(n + 1, sizeof *graph_calls);
		for (size_t k = 0; k < n; k++)
			graph_calls[k] = calls_of(&gr, k);
		inject_result_free(&gr);
		graph_rc = rc;
		if (!job->quiet)
			fprintf(stderr, "zond inject: the call graph of the %zu functions: campaign %s\n",
				n, graph);
	} else if (per < n && !job->quiet) {
		fprintf(stderr,
			"zond inject: %zu functions, more than %zu: no call graph pass, so zond report "
			"-C %s cannot take callees measured in other runs out of a function's self\n",
			n, edges_max, job->campaign);
	}
	for (size_t from = 0; from < n; from += per) {
		size_t k = n - from < per ? n - from : per;
		for (size_t j = 0; j < k; j++)
			patches[from + j].id = (uint32_t)j;
		struct inject_job ij = {plan, patches + from, k, k, job_event(job),
					job->fast_clock};
		int stored;
		struct inject_result r;
		rerun_stdin(in);
		rc = measure(job, s, &ij, recs + from, argv, prog, &stored, &r);
		*runs += stored;
		if (!stored) {
			inject_result_free(&r);
			break;
		}
		for (size_t j = 0; j < k; j++)
			index[j] = from + j;
		if (graph_calls)
			compare_calls(&r, recs + from, index, graph_calls, (int)(from / per + 1),
				      &said_calls);
		inject_result_free(&r);
		if (from == 0 && graph_rc >= 0 && rc != graph_rc && !said++)
			fprintf(stderr,
				"zond inject: warning: run 1 ended with status %d, the call graph's run "
				"with %d: the runs did different work, and the campaign merges their "
				"figures as if they had not\n",
				rc, graph_rc);
		if (from == 0)
			first = rc;
		else if (rc != first && !said++)
			/* the merge assumes the same work in every run (doc/inject.md) */
			fprintf(stderr,
				"zond inject: warning: run %zu ended with status %d, the first with "
				"%d: the runs did different work, and the campaign merges their "
				"figures as if they had not\n",
				from / per + 1, rc, first);
	}
	free(graph_calls);
	free(index);
	if (in >= 0)
		close(in);
	choice_free(&c);
	return rc;
}

/* The region scenario: passes from FROM to TO, one record. */
static int region(struct functions_job *job, struct symbols *s, const struct inject_plan *plan,
		  char **argv, const char *prog, int *runs)
{
	char from[256];
	const char *comma = strchr(job->region, ',');
	if (!comma || (size_t)(comma - job->region) >= sizeof from)
		return cmd_usage_error("inject", "--region wants FROM,TO");
	memcpy(from, job->region, (size_t)(comma - job->region));
	from[comma - job->region] = 0;
	struct inject_patch pt[2] = {{from, NULL, {0}, INJECT_REGION_FROM, 0},
				     {comma + 1, NULL, {0}, INJECT_REGION_TO, 0}};
	struct zerr err;
	for (int i = 0; i < 2; i++)
		if ((job->elf ? inject_bare_point : inject_plan_point)(s, plan, pt[i].name,
								       &pt[i].site, &err) < 0)
			return cmd_error("inject", "%s", err.msg);
	uint64_t a0 = pt[0].site.addr + pt[0].site.keep, a1 = pt[1].site.addr + pt[1].site.keep;
	uint32_t len = job->elf ? 1 : plan->arch->jump_len; /* over GDB: breakpoints */
	if (a0 < a1 + len && a1 < a0 + len)
		return cmd_error("inject", "--region %s: FROM and TO are too close (%u bytes each)",
				 job->region, len);
	char name[600];
	snprintf(name, sizeof name, "region %s", job->region);
	struct record_desc rec = {ZP_BLOCK, name, pt[0].site.addr, NULL};
	struct inject_job ij = {plan, pt, 2, 1, job_event(job), job->fast_clock};
	if (!job->quiet)
		fprintf(stderr, "zond inject: %s of %s, campaign %s\n", name, prog, job->campaign);
	int stored;
	int rc = measure(job, s, &ij, &rec, argv, prog, &stored, NULL);
	*runs += stored;
	return rc;
}

/* The plan's function called name that can be patched, or -1. */
static ptrdiff_t plan_function(const struct inject_plan *plan, const char *name)
{
	for (size_t i = 0; i < plan->nfuncs; i++)
		if (plan->funcs[i].ok && strcmp(plan->funcs[i].name, name) == 0)
			return (ptrdiff_t)i;
	return -1;
}

/* Set r (number i of n) of a cyclic run as a run of the campaign. */
static int store_set(const struct functions_job *job, struct symbols *s,
		     const struct inject_plan *plan, const struct record_desc *recs,
		     const struct inject_result *r, size_t i, size_t n, char **argv)
{
	struct zp_profile *p = run_profile(job, s, plan, recs, r, argv);
	char buf[64];
	snprintf(buf, sizeof buf, "%zu of %zu", i + 1, n);
	profile_add_meta(p, "inject_cyclic_set", buf);
	snprintf(buf, sizeof buf, "%llu", (unsigned long long)r->periods);
	profile_add_meta(p, "inject_cyclic_periods", buf);
	profile_add_meta(p, "inject_safe_point", job->safe);
	int rc = store_run(job, p);
	if (rc == 0 && !job->quiet)
		fprintf(stderr,
			"zond inject: set %zu of %zu: run %lld stored in %s: %zu function%s, "
			"measured %.3f s in %llu period%s\n",
			i + 1, n, (long long)p->run.id, job->store, r->n, r->n == 1 ? "" : "s",
			r->duration_ns / 1e9,
			(unsigned long long)r->periods, r->periods == 1 ? "" : "s");
	profile_free(p);
	return rc;
}

/*
 * The cyclic scenario: the chosen functions (but the safe point), per_run
 * of them a set, swapped round robin at the safe point every period; one
 * run per set that was measured.
 */
static int cyclic(struct functions_job *job, struct symbols *s, const struct inject_plan *plan,
		  char **argv, const char *prog, int *runs)
{
	ptrdiff_t safe = plan_function(plan, job->safe);
	if (safe < 0)
		return cmd_error("inject", "--safe-point %s: no function of %s that can be patched",
				 job->safe, prog);
	struct choice ch;
	size_t m = 0;
	if (choose_all(job, s, plan, prog, &ch) < 0)
		return 1;
	for (size_t k = 0; k < ch.n; k++)
		if (ch.recs[k].module || ch.recs[k].addr != plan->funcs[safe].addr) {
			ch.recs[m] = ch.recs[k]; /* the safe point is not measured */
			ch.patches[m] = ch.patches[k];
			ch.patches[m].id = (uint32_t)m;
			m++;
		}
	if (!m) {
		choice_free(&ch);
		return cmd_error("inject", "%s: no function to measure but the safe point", prog);
	}
	struct inject_patch *patches = ch.patches;
	struct record_desc *recs = ch.recs;
	size_t per = job->per_run > 0 ? (size_t)job->per_run : m;
	struct inject_job ij = {plan, patches, m, m, job_event(job), job->fast_clock};
	struct inject_cyclic c = {
		&ij,
		{plan->funcs[safe].name, NULL, plan->funcs[safe].site, INJECT_SAFE, 0},
		per,
		job->period,
		job->duration,
		job->pid};
	size_t nsets = (m + per - 1) / per;
	if (!job->quiet)
		fprintf(stderr,
			"zond inject: %zu functions of %s in %zu set%s, swapped at %s every %g s, "
			"campaign %s\n",
			m, prog, nsets, nsets == 1 ? "" : "s", job->safe, job->period,
			job->campaign);
	struct inject_result *sets;
	struct zerr err;
	int status, rc = 0;
	char pidtext[32];
	char *pargv[] = {(char *)prog, pidtext, NULL};
	snprintf(pidtext, sizeof pidtext, "(pid %ld)", job->pid);
	struct inject_bare_target bt = bare_target(job, argv);
	char *gargv[] = {(char *)prog, (char *)job->gdb, NULL};
	if ((job->elf ? inject_bare_cyclic(&c, &bt, &sets, &nsets, &status, &err)
		      : inject_cyclic(&c, argv, &sets, &nsets, &status, &err)) < 0)
		rc = cmd_error("inject", "%s", err.msg);
	if (job->gdb)
		argv = gargv;
	for (size_t i = 0; i < nsets; i++) {
		if (!sets[i].periods) {
			if (!job->quiet)
				fprintf(stderr, "zond inject: set %zu of %zu was never measured\n",
					i + 1, nsets);
		} else if (store_set(job, s, plan, recs + i * per, &sets[i], i, nsets,
				     job->pid ? pargv : argv) == 0) {
			*runs += 1;
		} else {
			rc = 1;
		}
		inject_result_free(&sets[i]);
	}
	free(sets);
	choice_free(&ch);
	return rc == 0 && !job->pid && status >= 0 ? program_status(status) : rc;
}

/* Inclusive time (ns) of record k summed over r's threads. */
static uint64_t incl_of(const struct inject_result *r, size_t k)
{
	int64_t sum = 0;
	for (size_t t = 0; t < r->nthreads; t++)
		sum += (int64_t)r->stats[t * r->n + k].incl;
	return inject_to_ns(at_least_0((uint64_t)sum), r->hz);
}

/*
 * The descend scenario: a first pass over every chosen function gives the
 * call graph (stored as campaign NAME.graph), then the descent measures
 * per_run functions a run (campaign NAME), pruning by bound (descend.h).
 */
static int descend(struct functions_job *job, struct symbols *s, const struct inject_plan *plan,
		   char **argv, const char *prog, int *runs)
{
	struct choice ch;
	ptrdiff_t from = -1;
	if (choose_all(job, s, plan, prog, &ch) < 0)
		return 1;
	size_t n = ch.n;
	for (size_t k = 0; job->from && k < n; k++)
		if (strcmp(ch.recs[k].name, job->from) == 0)
			from = (ptrdiff_t)k;
	size_t edges_max = job->elf ? INJECT_BARE_EDGES_MAX : INJ_EDGES_MAX;
	if (n > edges_max || (job->from && from < 0)) {
		choice_free(&ch);
		return job->from && from < 0
			       ? cmd_error("inject", "--from %s: no such function to measure",
					   job->from)
			       : cmd_error("inject",
					   "--descend: %zu functions; its first pass keeps call "
					   "edges for at most %d (choose some with -f)",
					   n, (int)edges_max);
	}
	struct inject_patch *patches = ch.patches;
	struct record_desc *recs = ch.recs;
	char graph[sizeof job->campaign_buf + 8];
	snprintf(graph, sizeof graph, "%s.graph", job->campaign);
	struct functions_job first = *job;
	first.campaign = graph;
	first.graph_pass = 1;
	struct inject_job ij = {plan, patches, n, n, job_event(job), job->fast_clock};
	struct inject_result r;
	/* every run gets the same stdin */
	int in = job->gdb ? -1 : spool_stdin(), said_calls = 0;
	rerun_stdin(in);
	int stored, rc = measure(&first, s, &ij, recs, argv, prog, &stored, &r);
	if (!stored) {
		inject_result_free(&r);
		choice_free(&ch);
		if (in >= 0)
			close(in);
		return rc;
	}
	uint64_t *est = zp_xcalloc(n + 1, sizeof *est),
		 *graph_calls = zp_xcalloc(n + 1, sizeof *graph_calls);
	for (size_t k = 0; k < n; k++) {
		est[k] = incl_of(&r, k);
		graph_calls[k] = calls_of(&r, k);
	}
	/* the edges' costs in the estimates' unit (ns), not the payload's */
	for (size_t i = 0; i < r.nedges; i++)
		r.edges[i].incl = inject_to_ns(at_least_0(r.edges[i].incl), r.hz);
	struct descent *d = descent_new(n, r.edges, r.nedges, est, job->threshold, from);
	inject_result_free(&r);
	size_t per = job->per_run > 0 ? (size_t)job->per_run : 1,
	       *batch = zp_xcalloc(per, sizeof *batch);
	struct inject_patch *bp = zp_xcalloc(per, sizeof *bp);
	struct record_desc *br = zp_xcalloc(per, sizeof *br);
	size_t k, measured = 0;
	while ((k = descent_next(d, batch, per)) > 0) {
		for (size_t j = 0; j < k; j++) {
			bp[j] = patches[batch[j]];
			bp[j].id = (uint32_t)j;
			br[j] = recs[batch[j]];
		}
		struct inject_job bj = {plan, bp, k, k, job_event(job), job->fast_clock};
		rerun_stdin(in);
		rc = measure(job, s, &bj, br, argv, prog, &stored, &r);
		if (!stored) {
			inject_result_free(&r);
			break;
		}
		*runs += 1;
		compare_calls(&r, br, batch, graph_calls, *runs, &said_calls);
		for (size_t j = 0; j < k; j++)
			descent_measured(d, batch[j], incl_of(&r, j));
		measured += k;
		inject_result_free(&r);
	}
	size_t pruned = 0;
	for (size_t c = 0; c < n; c++) {
		uint64_t b, whole;
		if (!descent_pruned(d, c, &b, &whole))
			continue;
		pruned++;
		/* in the counter's unit: page faults are not ns (QA s13 U F9) */
		const char *unit = job->has_event ? job->event.unit : "ns";
		if (!job->quiet)
			fprintf(stderr,
				"zond inject: pruned %s: bound %llu %s, under %g%% of %llu %s\n",
				recs[c].name, (unsigned long long)b, unit, job->threshold,
				(unsigned long long)whole, unit);
	}
	if (!job->quiet)
		fprintf(stderr,
			"zond inject: descent: %zu functions measured, %zu pruned, %zu never "
			"reached (the call graph: campaign %s)\n",
			measured, pruned, n - measured - pruned, graph);
	descent_free(d);
	if (in >= 0)
		close(in);
	free(graph_calls);
	free(est);
	free(batch);
	free(bp);
	free(br);
	choice_free(&ch);
	return rc;
}

/* Finds the program, plans its functions and runs the scenario asked. */
static int scenario(struct functions_job *job, char **argv)
{
	struct zerr err;
	char prog[PATH_MAX];
	/* from before zond's first line, a closed stderr costs zond's lines, not the program's
	   status (a program or QEMU run) nor the measuring of an attached process (-p: while
	   it patches, a SIGPIPE someone sends still stops it, scenario.c) */
	forward_own_pipe();
	if (job->elf) {
		snprintf(prog, sizeof prog, "%s", job->elf);
		if (!symbols_is_elf(prog, &err))
			return cmd_error("inject", "%s", err.msg);
	} else if (job->pid) {
		if (process_program(job->pid, prog, &err) < 0 ||
		    inject_ptrace_sandboxed(job->pid, &err) < 0)
			return cmd_error("inject", "%s", err.msg);
	} else if (launch_find_program(argv[0], prog, &err) < 0) {
		return launch_program_error("inject", argv[0], &err);
	}
	/* a store zond could not write is found before the program runs */
	const char *inputs[] = {prog, NULL};
	if (output_check(job->store, OUTPUT_STORE, inputs, &err) < 0)
		return cmd_error("inject", "%s", err.msg);
	const char *name = inject_elf_arch(prog, &err);
	const struct inject_arch *arch = name ? inject_arch_find(name) : NULL;
	if (!arch)
		return cmd_error("inject", "%s", name ? "no relocator for this program" : err.msg);
	struct symbols *s = symbols_new();
	struct inject_plan plan;
	if (inject_plan_file(s, prog, arch, &plan, &err) < 0) {
		symbols_free(s);
		return cmd_error("inject", "%s", err.msg);
	}
	uint64_t where[2] = {0, 0};
	size_t out = job->elf ? plan_scratch(s, &plan, job->scratch, job->scratch_len,
					     job->event_name && strchr(job->event_name, ','),
					     job->depth, where)
			      : 0;
	if (out && !job->quiet)
		fprintf(stderr,
			"zond inject: %zu functions left out: scratch RAM 0x%llx,0x%llx (%s) is "
			"out of the jump's reach and the far jump cannot take them (--coverage %s%s "
			"says why)\n",
			out, (unsigned long long)where[0], (unsigned long long)where[1],
			job->scratch_len ? "--scratch" : "the default: give --scratch", prog,
			job->scratch_len ? " --scratch" : "");
	if (!job->campaign) {
		char base[PATH_MAX];
		snprintf(base, sizeof base, "%s", prog);
		/* the second and zond's pid: two invocations in one second stay two campaigns */
		snprintf(job->campaign_buf, sizeof job->campaign_buf, "inject-%.60s-%lld-%d",
			 basename(base), (long long)time(NULL), (int)getpid());
		job->campaign = job->campaign_buf;
	}
	const char *counter = job->event_name ? job->event_name : plan.arch->counter;
	job->host_clock = job->elf && !job->gdb && strcmp(counter, "mcycle") == 0 &&
			  bare_qemu_without_icount(argv);
	if (job->host_clock) /* even with -q: the figures are estimates */
		fprintf(stderr, "zond inject: warning: counter mcycle over GDB: %s\n",
			bare_host_clock_note);
	else if (!job->quiet && job->elf)
		fprintf(stderr,
			"zond inject: counter %s over GDB, the payload's cost counted in "
			"instructions\n",
			counter);
	else if (!job->quiet && job->has_event)
		fprintf(stderr, "zond inject: counter %s (perf_event, read() by each thread)\n",
			job->event.name);
	else if (!job->quiet)
		fprintf(stderr, "zond inject: counter %s%s; %s\n", plan.arch->counter,
			job->fast_clock ? ", unfenced (--fast-clock)" : "",
			access("/sys/bus/event_source/devices/cpu", F_OK) == 0
				? "hardware and software events with --event"
				: "this machine has no PMU (no hardware events; software events "
				  "with --event)");
	int runs = 0;
	int rc = job->region    ? region(job, s, &plan, argv, prog, &runs)
		 : job->descend ? descend(job, s, &plan, argv, prog, &runs)
		 : job->safe    ? cyclic(job, s, &plan, argv, prog, &runs)
				: functions(job, s, &plan, argv, prog, &runs);
	if (!job->quiet && runs)
		fprintf(stderr, "zond inject: campaign %s: %d run%s (zond report -C %s)\n",
			job->campaign, runs, runs == 1 ? "" : "s", job->campaign);
	if (job->metrics && runs && print_metrics(stderr, job->store, job->campaign, 0) != 0)
		rc = rc ? rc : 1;
	inject_plan_free(&plan);
	symbols_free(s);
	return rc;
}

/* A number of seconds > 0 into *out; -1 when text is not one. */
/*
 * The largest --depth: zond record's; a shadow stack of it takes 32 MiB of
 * scratch RAM on rv32 (64 on rv64), beyond any board's spare RAM.
 */
#define INJECT_DEPTH_MAX (1L << 20)

/* --depth N: 1 to INJECT_DEPTH_MAX measured calls nested at once; -1 when not. */
static int parse_depth(const char *text, uint32_t *out)
{
	long v = parse_count(text);
	if (v < 1 || v > INJECT_DEPTH_MAX)
		return -1;
	*out = (uint32_t)v;
	return 0;
}

static int parse_seconds(const char *text, double *out)
{
	return cmd_decimal(text, out) < 0 || !(*out > 0) ? -1 : 0;
}

int cmd_inject(int argc, char **argv)
{
	static const struct option opts[] = {
		{"coverage", required_argument, NULL, 'C'},
		{"function", required_argument, NULL, 'f'},
		{"per-run", required_argument, NULL, 'K'},
		{"pid", required_argument, NULL, 'p'},
		{"duration", required_argument, NULL, 'D'},
		{"region", required_argument, NULL, 'R'},
		{"descend", no_argument, NULL, 'S'},
		{"from", required_argument, NULL, 'F'},
		{"threshold", required_argument, NULL, 'T'},
		{"safe-point", required_argument, NULL, 'P'},
		{"period", required_argument, NULL, 'I'},
		{"campaign", required_argument, NULL, 'c'},
		{"output", required_argument, NULL, 'o'},
		{"input", required_argument, NULL, 'i'},
		{"quiet", no_argument, NULL, 'q'},
		{"metrics", no_argument, NULL, 'M'},
		{"raw", no_argument, NULL, 'W'},
		{"event", required_argument, NULL, 'E'},
		{"fast-clock", no_argument, NULL, 'A'},
		{"elf", required_argument, NULL, 'L'},
		{"gdb", required_argument, NULL, 'G'},
		{"scratch", required_argument, NULL, 'X'},
		{"depth", required_argument, NULL, 'H'},
		{"help", no_argument, NULL, 'h'},
		{0, 0, 0, 0},
	};
	struct functions_job job = {.store = STORE_DEFAULT_PATH, .threshold = 1};
	const char *cov = NULL, *input = NULL;
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+hf:c:o:i:qp:", opts, NULL)) != -1) {
		switch (c) {
		case 'C': cov = optarg; break;
		case 'f':
			if (job.filter.ninclude == NAME_FILTER_MAX || job.nlibs == NAME_FILTER_MAX)
				return cmd_usage_error("inject", "at most %d patterns",
						       NAME_FILTER_MAX);
			if (module_part(optarg))
				job.libs[job.nlibs++] = optarg;
			else
				job.filter.include[job.filter.ninclude++] = optarg;
			break;
		case 'K':
			job.per_run = parse_count(optarg);
			if (job.per_run <= 0)
				return cmd_usage_error("inject",
						       "--per-run wants a positive number");
			break;
		case 'p':
			job.pid = parse_count(optarg);
			if (job.pid <= 0)
				return cmd_usage_error("inject", "-p wants a process id");
			break;
		case 'D':
			if (parse_seconds(optarg, &job.duration) < 0)
				return cmd_usage_error("inject", "--duration wants seconds > 0");
			break;
		case 'R': job.region = optarg; break;
		case 'S': job.descend = 1; break;
		case 'F': job.from = optarg; break;
		case 'T': {
			if (cmd_decimal(optarg, &job.threshold) < 0 || job.threshold > 100)
				return cmd_usage_error("inject", "--threshold wants a percentage");
			break;
		}
		case 'P': job.safe = optarg; break;
		case 'I':
			if (parse_seconds(optarg, &job.period) < 0)
				return cmd_usage_error("inject", "--period wants seconds > 0");
			break;
		case 'c':
			if (!*optarg)
				return cmd_usage_error("inject", "-c wants a campaign name, not ''");
			job.campaign = optarg;
			break;
		case 'o': job.store = optarg; break;
		case 'i': input = optarg; break;
		case 'q': job.quiet = 1; break;
		case 'M': job.metrics = 1; break;
		case 'W': job.raw = 1; break;
		case 'E': job.event_name = optarg; break;
		case 'A': job.fast_clock = 1; break;
		case 'L': job.elf = optarg; break;
		case 'G': job.gdb = optarg; break;
		case 'X': {
			char *end, *comma;
			job.scratch = strtoull(optarg, &comma, 0);
			job.scratch_len = *comma == ',' ? strtoull(comma + 1, &end, 0) : 0;
			if (*comma != ',' || *end || !job.scratch_len)
				return cmd_usage_error("inject", "--scratch wants ADDR,LEN");
			break;
		}
		case 'H':
			if (parse_depth(optarg, &job.depth) < 0)
				return cmd_usage_error(
					"inject", "--depth wants a number from 1 to %ld, not '%s'",
					INJECT_DEPTH_MAX, optarg);
			break;
		case 'h': fputs(usage_text, stdout); return 0;
		default: return cmd_bad_option("inject", argv, "+hf:c:o:i:qp:");
		}
	}
	if (cov) {
		if (optind != argc)
			return cmd_usage_error("inject", "--coverage takes one PROG and no more");
		return coverage(cov, job.scratch, job.scratch_len, job.depth,
				job.event_name != NULL);
	}
	if (job.depth && !job.elf)
		return cmd_usage_error("inject",
				       "--depth goes with --elf: on Linux the shadow stack "
				       "holds %d frames a thread, fixed",
				       INJ_DEPTH);
	if (job.depth && job.region)
		return cmd_usage_error("inject", "--depth sizes the shadow stack of measured "
						 "functions: --region has none (breakpoints)");
	if ((job.from || job.threshold != 1) && !job.descend)
		return cmd_usage_error("inject", "--from and --threshold go with --descend");
	/* reading a stored campaign, the store is -i as for every reading command */
	int reading = job.raw || (job.metrics && optind == argc && !job.pid);
	if (input && !reading)
		return cmd_usage_error("inject", "-i is the store --raw or --metrics -c NAME "
						 "read; a run is stored with -o");
	if (input)
		job.store = input;
	if (job.raw) {
		if (!job.campaign || optind != argc || job.pid || job.metrics)
			return cmd_usage_error("inject", "--raw wants -c NAME and nothing to run");
		return print_metrics(stdout, job.store, job.campaign, 1);
	}
	if (job.metrics && optind == argc && !job.pid) {
		if (!job.campaign)
			return cmd_usage_error("inject", "--metrics wants -c NAME (or a program)");
		return print_metrics(stdout, job.store, job.campaign, 0);
	}
	if (job.period && !job.safe)
		return cmd_usage_error("inject", "--period goes with --safe-point");
	if (job.safe && (job.region || job.descend))
		return cmd_usage_error("inject", "--safe-point: no --region, no --descend");
	if (job.safe && !job.period)
		job.period = 1;
	if (job.descend && (job.region || job.pid))
		return cmd_usage_error("inject",
				       "--descend starts the program: no -p, no --region");
	if (job.fast_clock && (job.elf || (job.event_name && strcmp(job.event_name, "tsc") != 0)))
		return cmd_usage_error("inject",
				       "--fast-clock goes with the TSC: no --event, no --elf");
	if (job.event_name && !job.elf) {
		int rc = choose_event(job.event_name, &job.event);
		if (rc < 0)
			return -rc;
		job.has_event = rc;
	}
	struct zerr err;
	if (job.elf) {
		job.ncounters = inject_bare_counters(job.event_name, job.counters, &err);
		if (job.ncounters < 0)
			return cmd_usage_error("inject", "%s", err.msg);
		if (job.ncounters == 2 && (job.region || job.descend || job.safe))
			return cmd_usage_error("inject",
					       "--event %s: two counters in one run go with "
					       "functions (-f), not --region, --descend or "
					       "--safe-point",
					       job.event_name);
	}
	if ((job.gdb || job.scratch_len) && !job.elf)
		return cmd_usage_error("inject", "--gdb and --scratch go with --elf");
	if (job.elf && job.pid)
		return cmd_usage_error("inject",
				       "--elf: no -p (--gdb HOST:PORT reaches a running target)");
	if (job.elf && job.gdb && job.descend)
		return cmd_usage_error("inject", "--descend reruns the program: give QEMU's "
						 "command after --, not --gdb");
	if (job.gdb) {
		if (optind != argc || (job.per_run && !job.safe))
			return cmd_usage_error("inject", "--gdb takes no command and no --per-run "
							 "(but with --safe-point: K per set)");
		return scenario(&job, NULL);
	}
	if (job.pid) {
		if (optind != argc || (job.per_run && !job.safe))
			return cmd_usage_error("inject", "-p takes no program and no --per-run "
							 "(but with --safe-point)");
		return scenario(&job, NULL);
	}
	if (job.duration && !job.safe && (!job.elf || job.descend || job.per_run))
		return cmd_usage_error("inject", "--duration goes with -p, --safe-point, --gdb or "
						 "--elf with QEMU's command (one run)");
	if (optind >= argc)
		return cmd_usage_error("inject", "no program to run (zond inject -- PROG ARGS)");
	int rc = scenario(&job, argv + optind);
	/* shells, parents and wait(2) see what they would have seen without zond */
	if (program_signal && rc == 128 + program_signal)
		launch_die_as(program_signal);
	return rc;
}
