/*
 * record.c - `zond record`: run a program under the runtime and store its run.
 *
 * The program runs as our child with libzond preloaded and ZOND_* variables
 * telling the runtime where to write (a fresh directory) and what to record.
 * Every process image it becomes (fork, exec) leaves one raw file there;
 * once the program has ended they are read into one profile, stored as one
 * run, and the directory is removed.  The program's stdin, stdout and stderr
 * are its own; our summary goes to stderr after it ended.
 */
#include <elf.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bare.h"
#include "cmd.h"
#include "launch.h"
#include "symbols/symbols.h"

static const char usage_text[] =
	"usage: zond record [options] -- PROG [ARGS]\n"
	"       zond record [options] --gdb HOST:PORT --elf FILE\n"
	"Run PROG (built with -finstrument-functions) and store its profile as a run:\n"
	"per calling context, function, call edge and thread the exact calls, and the\n"
	"total and self time.\n\n"
	"  -o, --output FILE     profile store (default ./zond.db)\n"
	"      --time sampled    (default) CPU time sampled per calling context by a\n"
	"                        per-thread perf_event task clock (a high fd of zond's),\n"
	"                        or a CPU-time timer where perf events are not allowed:\n"
	"                        the truest shares, about the cost of --no-time; a\n"
	"                        statistical estimate (the sample count says how good),\n"
	"                        plus per call what its empty hooks would cost without\n"
	"                        zond (run meta hook_pair_ns); no min or max of one call\n"
	"      --time exact      every call timed by the clock, the probes' cost measured\n"
	"                        on each call and kept out, a calibrated rest subtracted:\n"
	"                        min and max of single calls (the worst case), but tens\n"
	"                        of ns per call that skew short functions (event\n"
	"                        probe-cost: what was subtracted per function)\n"
	"      --sample-period NS  CPU time between samples (default 1000000: 1 ms); each\n"
	"                        sample costs the thread some us of its CPU time (more\n"
	"                        in a virtual machine): samples that zond's own work\n"
	"                        filled are zond's, and a period under some 10x that\n"
	"                        cost is warned of (shares less true)\n"
	"      --no-time         count calls, edges and contexts only (fastest)\n"
	"      --fast-clock      with --time exact: unfenced clock reads, cheaper, but up\n"
	"                        to some tens of ns of a function's time may land in its\n"
	"                        caller\n"
	"  -T, --trigger FUNC    record only while FUNC is running, on the thread that\n"
	"                        runs it (one function of the program, else of a\n"
	"                        library it loads at start-up; the work it hands to\n"
	"                        other threads is not recorded)\n"
	"      --manual          record only between zond_start() and zond_stop()\n"
	"  -F, --filter GLOB     record only functions matching GLOB (repeatable)\n"
	"  -N, --exclude GLOB    do not record functions matching GLOB (repeatable)\n"
	"      --elf FILE        PROG runs a bare-metal RISC-V program FILE (implied by a\n"
	"                        qemu-system-* PROG with -kernel FILE; exact time only;\n"
	"                        doc/bare-metal.md): PROG runs where zond does, every\n"
	"                        argument naming FILE replaced by a copy of it that\n"
	"                        writes the raw data to zond's directory\n"
	"      --gdb HOST:PORT   no PROG: a bare-metal target (--elf FILE) behind a GDB stub\n"
	"                        (QEMU's -gdb, OpenOCD; or /PATH, a Unix socket), on a board\n"
	"                        without semihosting: zond checks that it runs FILE, runs\n"
	"                        it to the runtime's end, reads the raw data from its RAM\n"
	"                        and lets it go on\n"
	"      --duration S      with --gdb: stop after S seconds (as Ctrl-C does) and store\n"
	"                        the pools as they are then (a partial run)\n"
	LAUNCH_OPTIONS_HELP
	"  -h, --help            this help\n\n"
	LAUNCH_EXIT_HELP;

enum { OPT_MANUAL = 256, OPT_ELF, OPT_GDB, OPT_DURATION };

static const struct option options[] = {
	LAUNCH_LONG_OPTIONS,
	{"trigger", required_argument, NULL, 'T'},
	{"manual", no_argument, NULL, OPT_MANUAL},
	{"filter", required_argument, NULL, 'F'},
	{"exclude", required_argument, NULL, 'N'},
	{"elf", required_argument, NULL, OPT_ELF},
	{"gdb", required_argument, NULL, OPT_GDB},
	{"duration", required_argument, NULL, OPT_DURATION},
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

struct record {
	const char *trigger;
	struct name_filter names;
	int manual;
	const char *elf; /* --elf: a bare-metal program (bare.h) */
	const char *gdb; /* --gdb HOST:PORT: its stub */
	int duration;    /* --duration S, with --gdb */

	struct launch l;
	/* what set_runtime_env passes on */
	const char *runtime, *trigger_env, *filter_file;
};

struct function_search {
	const char *name; /* a glob, as every option naming functions (symbols_name_matches) */
	struct symbols *syms;
	const char *module;  /* the object being searched */
	int found;           /* functions matched */
	uint64_t addr;       /* the first one's link-time address, */
	char where[PATH_MAX]; /* its object, */
	char what[256], other[256]; /* its name, and another's */
};

static void match_function(void *arg, const struct symbol *sym)
{
	struct function_search *f = arg;
	if (!symbols_name_matches(f->name, sym->name) || symbols_is_fragment(sym->name))
		return;
	if (f->found++ == 0) {
		f->addr = sym->start;
		snprintf(f->where, sizeof f->where, "%s", f->module);
		snprintf(f->what, sizeof f->what, "%s", sym->name);
	} else if (!f->other[0]) {
		snprintf(f->other, sizeof f->other, "%s", sym->name);
	}
}

/* The link-time address of prog's function name: 1 found, 0 not there, -1 error. */
static int find_function(struct symbols *syms, const char *prog, const char *name,
			 uint64_t *addr, struct zerr *err)
{
	struct function_search f = {.name = name, .module = prog};
	if (symbols_each_function(syms, prog, match_function, &f, err) < 0)
		return -1;
	*addr = f.addr;
	return f.found > 0;
}

static void match_in_library(void *arg, const char *path)
{
	struct function_search *f = arg;
	struct zerr ignored; /* a library we cannot read has no trigger */
	f->module = path;
	symbols_each_function(f->syms, path, match_function, f, &ignored);
}

/*
 * ZOND_TRIGGER=<hex link-time address>:<module path> for the runtime: the
 * one function named so in the program, else in the libraries it loads at
 * start-up.
 */
static int trigger_env(struct record *r, struct symbols *syms, char *out, size_t len,
		       struct zerr *err)
{
	struct function_search f = {.name = r->trigger, .syms = syms, .module = r->l.prog};
	if (symbols_each_function(syms, r->l.prog, match_function, &f, err) < 0 ||
	    (!f.found && launch_each_library(r->l.prog, match_in_library, &f, err) < 0))
		return -1;
	if (!f.found)
		return zerr_set(err,
				"%s: no function '%s' to trigger on, in it or the libraries it "
				"loads at start-up",
				r->l.prog, r->trigger);
	if (f.found > 1)
		return zerr_set(err, "%s: '%s' names %d functions (%s, %s...): name one to trigger on",
				r->l.prog, r->trigger, f.found, f.what, f.other);
	snprintf(out, len, "%llx:%s", (unsigned long long)f.addr, f.where);
	return 0;
}

/*
 * clang's landing pads call no exit hook: the frames an exception leaves are
 * closed at the catch by the preloaded runtime's __cxa_begin_catch, which a
 * program with a C++ runtime of its own (-static-libstdc++) never calls, so
 * its later calls would be filed under frames the exception left (QA s14 V1
 * F2).  gcc's landing pads call the exit hooks: nothing to say there.
 */
static void warn_own_cxx_runtime(const struct record *r, struct symbols *syms)
{
	uint64_t addr;
	struct zerr ignored;
	if (find_function(syms, r->l.prog, "__cxa_begin_catch", &addr, &ignored) == 1 &&
	    symbols_made_by(r->l.prog, "clang"))
		fprintf(stderr,
			"zond record: warning: %s was built by clang with a C++ runtime of its own "
			"(-static-libstdc++): after a caught exception its calls may be filed under "
			"the frames the exception left (doc/raw-format.md, \"C++ exceptions\")\n",
			r->l.prog);
}

/*
 * How the runtime gets into the program: preloaded (*runtime = its path), or
 * already linked in with -lzond (*runtime = NULL).  A script is preloaded too:
 * the programs it starts inherit LD_PRELOAD.  A static or setuid program
 * ignores LD_PRELOAD, which would silently record nothing: that is an error.
 */
static int choose_runtime(struct record *r, struct symbols *syms, const char **runtime,
			  struct zerr *err)
{
	struct zerr not_elf;
	char interp[PATH_MAX];
	uint64_t addr;
	static char found[PATH_MAX];
	launch_find_part(found, "ZOND_RUNTIME", ZOND_RUNTIME_BUILD_PATH, "../lib/libzond.so",
			 ZOND_RUNTIME_INSTALL_PATH);
	*runtime = found;
	if (!symbols_is_elf(r->l.prog, &not_elf))
		return 0;
	int linked = find_function(syms, r->l.prog, "zond_start", &addr, err);
	if (linked < 0)
		return -1;
	int dynamic = symbols_interpreter(r->l.prog, interp, sizeof interp, err);
	if (dynamic < 0)
		return -1;
	if (linked) {
		*runtime = NULL;
		if (dynamic == 1 && symbols_run_path(r->l.prog))
			r->l.early_death_hint = "glibc's start-up of a static-pie program stops at "
						"a run path (-Wl,-rpath): link it with $(zond "
						"config --static --libs), which has none";
		return 0;
	}
	if (dynamic == 1)
		return zerr_set(err, "%s is statically linked without zond's runtime: "
				     "link it with $(zond config --static --libs)",
				r->l.prog);
	if (launch_secure_exec(r->l.prog))
		return zerr_set(err, "%s is setuid or setgid to another user or group: the loader "
				     "ignores LD_PRELOAD for it",
				r->l.prog);
	warn_own_cxx_runtime(r, syms);
	return 0;
}

/* In the child: set what the runtime reads (launch_run then runs the program). */
static void set_runtime_env(void *arg)
{
	const struct record *r = arg;
	if (r->runtime) {
		launch_prepend_env("LD_PRELOAD", r->runtime);
		/*
		 * AddressSanitizer ends a program whose first library is not its
		 * runtime (status 1, before main): the program or any program it
		 * runs, built -fsanitize=address, would die of the preload.  Its
		 * check is off for them (the last setting of ASAN_OPTIONS wins).
		 */
		launch_append_env("ASAN_OPTIONS", "verify_asan_link_order=0");
	}
	launch_set_env("ZOND_MANUAL", r->manual ? "1" : NULL);
	launch_set_env("ZOND_TRIGGER", r->trigger_env);
	launch_set_env("ZOND_FILTER", r->filter_file);
}

/* The options of record alone (launch_parse). */
static int record_option(void *arg, int opt, const char *optarg)
{
	struct record *r = arg;
	switch (opt) {
	case 'T': r->trigger = optarg; return 0;
	case OPT_MANUAL: r->manual = 1; return 0;
	case OPT_ELF: r->elf = optarg; return 0;
	case OPT_GDB:
		r->gdb = optarg;
		r->l.program_optional = 1;
		return 0;
	case OPT_DURATION: {
		char *end;
		long s = strtol(optarg, &end, 10);
		if (end == optarg || *end || s <= 0 || s > 86400)
			return cmd_usage_error("record", "--duration wants whole seconds, not '%s'",
					       optarg);
		r->duration = (int)s;
		return 0;
	}
	case 'F':
	case 'N':
		if ((opt == 'F' ? r->names.ninclude : r->names.nexclude) == NAME_FILTER_MAX)
			return cmd_usage_error("record", "at most %d patterns", NAME_FILTER_MAX);
		if (opt == 'F')
			r->names.include[r->names.ninclude++] = optarg;
		else
			r->names.exclude[r->names.nexclude++] = optarg;
		return 0;
	default: return LAUNCH_NOT_MINE;
	}
}

/*
 * The first argument of the command that is a bare-metal RISC-V program
 * with zond's runtime (a wrapper script running QEMU on it), or NULL.
 */
static const char *bare_argument(char **argv)
{
	struct symbols *syms = symbols_new();
	const char *found = NULL;
	for (char **a = argv + 1; *a && !found; a++) {
		struct zerr ignored;
		struct symbol sym;
		if (symbols_is_elf(*a, &ignored) && symbols_machine(*a, &ignored) == EM_RISCV &&
		    symbols_named(syms, *a, "zond_raw_buffer", &sym, &ignored) == 1)
			found = *a;
	}
	symbols_free(syms);
	return found;
}

/* Why a run recorded no call, as far as we can tell. */
static const char *record_none(const struct record *r)
{
	static char bare[PATH_MAX + 200];
	const char *elf = bare_argument(r->l.argv);
	if (elf) {
		snprintf(bare, sizeof bare,
			 "no function was recorded: %s is a bare-metal program with zond's runtime: "
			 "give --elf %s (zond record --elf FILE -- PROG ...)",
			 elf, elf);
		return bare;
	}
	if (r->names.ninclude || r->names.nexclude)
		return "no function was recorded: did -F/-N leave any out?";
	if (r->trigger)
		return "no function was recorded: the --trigger function never ran";
	if (r->manual)
		return "no function was recorded: the program never called zond_start()";
	if (r->l.term_signal > 0) { /* its runtime started (else launch_collect says so) */
		snprintf(bare, sizeof bare,
			 "no function was recorded: the program was killed by signal %d (%s) "
			 "before it entered an instrumented function (if it got to main: was it "
			 "built with -finstrument-functions?)",
			 r->l.term_signal, strsignal(r->l.term_signal));
		return bare;
	}
	return "no function was recorded: was it built with -finstrument-functions?";
}

/*
 * A bare-metal target: its pools and clock were fixed when its runtime was
 * built, and it times every call by mcycle (sampling needs Linux's timers).
 */
static int record_bare(struct record *r)
{
	const struct launch_options *o = &r->l.opt;
	int pools = 0;
	for (size_t i = 0; i < sizeof o->pool / sizeof o->pool[0]; i++)
		pools |= o->pool[i] != NULL;
	/* the timeline too: the bare runtime keeps none (QA s15 W3 F2: stored without a word) */
	if (r->trigger || r->manual || r->names.ninclude || r->names.nexclude || o->no_time ||
	    o->fast_clock || pools || o->sample_period || (o->time && strcmp(o->time, "exact")) ||
	    o->timeline || o->timeline_keep)
		return cmd_usage_error("record", "a bare-metal target takes none of --trigger, "
						 "--manual, -F, -N, --no-time, --fast-clock, "
						 "--time sampled, --sample-period, --timeline and "
						 "the pool sizes (fixed when its runtime is built; "
						 "it times every call by mcycle and keeps no "
						 "timeline)");
	if (r->gdb) {
		if (r->l.argv && r->l.argv[0])
			return cmd_usage_error("record", "--gdb takes no program: the target runs "
							 "behind the stub");
		if (!r->elf)
			return cmd_usage_error("record", "--gdb needs the target's --elf FILE");
		return bare_record_gdb(&r->l, r->gdb, r->elf, r->duration);
	}
	if (r->duration)
		return cmd_usage_error("record", "--duration goes with --gdb");
	return bare_record(&r->l, r->elf);
}

int cmd_record(int argc, char **argv)
{
	struct record r = {0};
	launch_init(&r.l, "record");
	int status = launch_parse(&r.l, argc, argv, "+" LAUNCH_SHORT_OPTIONS "T:F:N:h", options,
				  usage_text, record_option, &r);
	if (status >= 0)
		return status;
	if (r.trigger && r.manual)
		return cmd_usage_error("record", "--trigger and --manual exclude each other");
	if (r.gdb)
		return record_bare(&r);
	if (r.duration)
		return cmd_usage_error("record", "--duration goes with --gdb");
	struct zerr err;
	if (launch_find_program(r.l.argv[0], r.l.prog, &err) < 0)
		return launch_program_error("record", r.l.argv[0], &err);
	if (bare_wanted(&r.l, r.elf))
		return record_bare(&r);
	/* the default, set once a bare-metal target (exact time only) is ruled out */
	if (!r.l.opt.time && r.l.opt.fast_clock)
		return cmd_usage_error("record", "--fast-clock goes with --time exact");
	if (!r.l.opt.time)
		r.l.opt.time = "sampled";

	char trigger[PATH_MAX + 32], filter_file[PATH_MAX];
	int filtered = r.names.ninclude || r.names.nexclude;
	if (launch_prepare(&r.l, "record", &err) < 0)
		return cmd_error("record", "%s", err.msg);
	struct symbols *syms = symbols_new();
	status = choose_runtime(&r, syms, &r.runtime, &err);
	if (status == 0 && r.trigger)
		status = trigger_env(&r, syms, trigger, sizeof trigger, &err);
	symbols_free(syms);
	if (status == 0 && filtered) {
		status = launch_join_path(filter_file, sizeof filter_file, r.l.dir, LAUNCH_FILTER_FILE) < 0
				 ? zerr_set(&err, "%s: path too long", r.l.dir)
				 : name_filter_write(&r.names, r.l.prog, filter_file, &err);
	}
	r.trigger_env = r.trigger ? trigger : NULL;
	r.filter_file = filtered ? filter_file : NULL;
	if (status == 0)
		status = launch_run(&r.l, set_runtime_env, &r, &err);
	if (status < 0) {
		launch_remove_dir(r.l.dir);
		return cmd_error("record", "%s", err.msg);
	}

	return launch_collect(&r.l, "record", record_none(&r));
}
