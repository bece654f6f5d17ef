/* main.c - the zond command: finds the subcommand and runs it. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "util/fds.h"

struct command {
	const char *name;
	cmd_fn run;
	const char *summary;
};

static const struct command commands[] = {
	{"record", cmd_record, "run a -finstrument-functions program and store its profile"},
	{"libcalls", cmd_libcalls, "time the calls of any dynamic program into shared libraries"},
	{"info", cmd_info, "what zond libcalls can and cannot see of a program"},
	{"report", cmd_report, "flat profile of a run: calls, total, self, min, max per function"},
	{"graph", cmd_graph, "callers and callees of functions, or the call tree (--tree)"},
	{"annotate", cmd_annotate, "a function's source with the cost of each line"},
	{"runs", cmd_runs, "list the runs in a profile store"},
	{"diff", cmd_diff, "what changed per function between two runs or campaigns (CI gate)"},
	{"export", cmd_export, "write a run as "},
	{"trace", cmd_trace, "profiles of AArch64, RISC-V, x86-64 programs from QEMU traces"},
	{"recover", cmd_recover, "store the raw data of an interrupted run (raw data kept in DIR)"},
	{"inject", cmd_inject, "functions of any x86-64 program measured by code injected from outside"},
	{"config", cmd_config, "compiler and linker flags for a zond runtime (--target rv32imac)"},
	{"dump", cmd_dump, "print a run as stable, sorted text (for tests and diffs)"},
};
#define NCOMMANDS (sizeof commands / sizeof commands[0])

static void usage(FILE *out)
{
	fputs("usage: zond [--version] [--help] COMMAND [ARGS]\n\n"
	      "zond profiles programs where the usual tools do not reach: exact calls and\n"
	      "times of -finstrument-functions builds (record), calls into shared libraries\n"
	      "of any program (libcalls), instruction counts of AArch64, RISC-V and x86-64\n"
	      "programs from QEMU traces (trace), functions of any x86-64 program through\n"
	      "code injected from outside it (inject); all kept in one profile store (./zond.db)\n"
	      "with the same reports and exports.\n\n"
	      "commands:\n",
	      out);
	for (size_t i = 0; i < NCOMMANDS; i++)
		fprintf(out, "  %-8s %s%s\n", commands[i].name, commands[i].summary,
			commands[i].run == cmd_export ? export_format_names() : "");
	fputs("  help     show the help of a command: zond help COMMAND\n\n"
	      "Start with: zond record -- ./app args; zond report\n",
	      out);
}

static const struct command *find_command(const char *name)
{
	for (size_t i = 0; i < NCOMMANDS; i++)
		if (strcmp(commands[i].name, name) == 0)
			return &commands[i];
	return NULL;
}

static int help(int argc, char **argv)
{
	if (argc > 2) {
		fprintf(stderr, "zond help: unexpected argument '%s'\n", argv[2]);
		return 2;
	}
	if (argc < 2) {
		usage(stdout);
		return 0;
	}
	if (strcmp(argv[1], "help") == 0 || strcmp(argv[1], "--help") == 0 ||
	    strcmp(argv[1], "-h") == 0) {
		fputs("usage: zond help [COMMAND]\n"
		      "Show the help of COMMAND (the same as 'zond COMMAND --help'), or\n"
		      "without COMMAND the list of commands (as 'zond --help').\n",
		      stdout);
		return 0;
	}
	const struct command *c = find_command(argv[1]);
	if (!c) {
		fprintf(stderr, "zond help: no command '%s'\n", argv[1]);
		return 2;
	}
	char *args[] = {argv[1], "--help", NULL};
	return c->run(2, args);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	fds_note_inherited(); /* the programs zond runs get these, not zond's own */
	opterr = 0; /* a bad option is one line of ours (cmd_bad_option), not getopt's too */
	const char *name = argv[1];
	int alone = strcmp(name, "--version") == 0 || strcmp(name, "version") == 0 ||
		    strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0;
	if (alone && argc > 2) {
		fprintf(stderr, "zond %s: unexpected argument '%s'\n", name, argv[2]);
		return 2;
	}
	if (strcmp(name, "--version") == 0 || strcmp(name, "version") == 0) {
		printf("zond %s\n", ZOND_VERSION);
		return 0;
	}
	if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0) {
		usage(stdout);
		return 0;
	}
	if (strcmp(name, "help") == 0)
		return help(argc - 1, argv + 1);
	const struct command *c = find_command(name);
	if (!c) {
		fprintf(stderr, "zond: '%s' is not a zond command; see 'zond --help'\n", name);
		return 2;
	}
	return c->run(argc - 1, argv + 1);
}
