/*
 * info.c - `zond info PROG`: what `zond libcalls` can and cannot see of a
 * program and the libraries it loads, read from their ELF files without
 * running the program.
 *
 * The collector sees a call when the loader binds a PLT slot for it
 * (la_symbind64, doc/libcalls.md).  Verified on glibc 2.36: la_symbind64 is
 * called for JUMP_SLOT relocations only (lazily, or at load time under
 * BIND_NOW), never for GLOB_DAT or absolute relocations.  So a module's
 * calls fall in these groups:
 *   - through its PLT (JUMP_SLOT relocations): seen;
 *   - through its GOT (GLOB_DAT or absolute relocations of functions:
 *     -fno-plt calls, `.plt.got` calls of functions whose address is also
 *     taken, function pointers): not seen;
 *   - to its own functions when it is linked -Bsymbolic, or they are
 *     protected or hidden: direct calls, not seen.
 * Static programs have no loader, and the loader ignores LD_AUDIT for
 * setuid/setgid programs run by another user.
 *
 * The libraries are the loader's own list (`LOADER --list PROG`, what ldd
 * does: the program is mapped, never run).
 */
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd.h"
#include "launch.h"
#include "symbols/symbols.h"

static const char usage_text[] =
	"usage: zond info PROG\n"
	"What `zond libcalls` can and cannot see of PROG and of the libraries it\n"
	"loads: static and setuid programs, calls through the PLT (seen), calls\n"
	"through the GOT (-fno-plt, functions whose address is taken) and calls a\n"
	"library makes to its own functions (-Bsymbolic, protected) that are not.\n"
	"PROG is read, never run.\n";

static void print_module(const char *path, const struct symbols_linkage *m)
{
	printf("%s\n  seen: calls through its %zu PLT slots\n", path, m->plt);
	if (m->got) {
		printf("  not seen: %zu functions called or taken through the GOT (-fno-plt, address "
		       "taken):\n   ",
		       m->got);
		for (size_t i = 0; i < m->got; i++)
			printf(" %s", m->got_names[i]);
		printf("\n");
	}
	if (m->symbolic)
		printf("  not seen: calls to its own functions (linked -Bsymbolic)\n");
	if (m->protected_fns)
		printf("  not seen: calls from inside it to its %zu protected functions\n",
		       m->protected_fns);
}

static void show_library(void *program_path, const char *path)
{
	char real[PATH_MAX];
	struct symbols_linkage m;
	struct zerr err;
	if (realpath(path, real) && !strcmp(real, program_path))
		return;
	if (symbols_linkage(path, &m, &err) < 0) {
		printf("%s\n  %s\n", path, err.msg);
		return;
	}
	print_module(path, &m);
	symbols_linkage_free(&m);
}

static int info(const char *arg)
{
	char prog[PATH_MAX], interp[PATH_MAX], real[PATH_MAX];
	struct zerr err;
	if (launch_find_program(arg, prog, &err) < 0)
		return cmd_error("info", "%s", err.msg);
	if (!symbols_is_elf(prog, &err))
		return cmd_error("info", "%s", err.msg);
	int dynamic = symbols_interpreter(prog, interp, sizeof interp, &err);
	if (dynamic < 0)
		return cmd_error("info", "%s", err.msg);
	if (dynamic == 1 && symbols_is_library(prog)) {
		printf("%s: a shared library, not a program: zond libcalls profiles a program "
		       "that loads it\n",
		       prog);
		return 0;
	}
	if (dynamic == 1) {
		printf("%s: statically linked (no loader): LD_AUDIT does nothing, zond libcalls "
		       "sees no call\n",
		       prog);
		return 0;
	}
	printf("%s: dynamically linked, loader %s\n", prog, interp);
	struct stat st;
	if (stat(prog, &st) == 0 && (st.st_mode & (S_ISUID | S_ISGID)))
		printf("%s: setuid or setgid: the loader ignores LD_AUDIT unless the user running it "
		       "is its owner and in its group (%s)\n",
		       prog, launch_secure_exec(prog) ? "not seen here" : "seen here");
	const char *program_path = realpath(prog, real) ? real : prog;
	struct symbols_linkage m;
	if (symbols_linkage(prog, &m, &err) < 0)
		return cmd_error("info", "%s", err.msg);
	print_module(prog, &m);
	symbols_linkage_free(&m);
	if (launch_each_library(prog, show_library, (void *)program_path, &err) < 0)
		printf("(%s)\n", err.msg);
	printf("never seen: calls through pointers from dlsym() (unless --dlsym), the loader's "
	       "own functions, calls inside a library to its hidden functions\n");
	return 0;
}

int cmd_info(int argc, char **argv)
{
	static const struct option options[] = {{"help", no_argument, NULL, 'h'},
						{NULL, 0, NULL, 0}};
	int o;
	optind = 1;
	while ((o = getopt_long(argc, argv, "+h", options, NULL)) != -1) {
		if (o == 'h') {
			fputs(usage_text, stdout);
			return 0;
		}
		return cmd_bad_option("info", argv, "+h");
	}
	if (optind != argc - 1)
		return cmd_usage_error("info", "wants one program (zond info PROG)");
	return info(argv[optind]);
}
