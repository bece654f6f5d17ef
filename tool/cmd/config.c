/*
 * config.c - `zond config`: what a user adds to their build to link a
 * zond runtime, like pkg-config: --cflags and --libs, for the Linux runtime
 * (no --target: libzond.so, or libzond.a with --static) or a bare-metal one
 * (--target rv32imac|rv64imac, runtime/bare, doc/bare-metal.md).
 */
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "launch.h"

static const char usage_text[] =
	"usage: zond config [--target TARGET] [--static] [--cflags] [--libs]\n"
	"Print the compiler flags (--cflags) and linker flags (--libs) that build a\n"
	"program with a zond runtime, on one line.\n\n"
	"  -t, --target TARGET   rv32imac or rv64imac: the bare-metal RISC-V runtime\n"
	"                        (picolibc, semihosting); none: the Linux runtime\n"
	"      --cflags          -finstrument-functions and zond.h's directory\n"
	"      --libs            the runtime library: libzond.so, with an rpath to its\n"
	"                        directory (bare metal: the target's archive and\n"
	"                        -Wl,--wrap=_exit, which writes the data out at exit)\n"
	"      --static          --libs for a -static or -static-pie link: libzond.a by\n"
	"                        its path, no rpath (glibc's static-pie start-up dies of\n"
	"                        one, before main)\n"
	"  -h, --help            this help\n";

enum { OPT_CFLAGS = 256, OPT_LIBS, OPT_STATIC };

static const struct option options[] = {
	{"target", required_argument, NULL, 't'},
	{"cflags", no_argument, NULL, OPT_CFLAGS},
	{"libs", no_argument, NULL, OPT_LIBS},
	{"static", no_argument, NULL, OPT_STATIC},
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

static const char *const targets[] = {"rv32imac", "rv64imac"};

/* The directory holding file, found as launch_find_part finds a part; NULL when absent. */
static const char *part_dir(char out[PATH_MAX], const char *env_var, const char *build_path,
			    const char *beside_bin, const char *install_path)
{
	if (launch_find_part(out, env_var, build_path, beside_bin, install_path) < 0)
		return NULL;
	return dirname(out);
}

static int print_flags(const char *target, int cflags, int libs, int statically)
{
	char inc[PATH_MAX], lib[PATH_MAX], build[PATH_MAX], beside[PATH_MAX], install[PATH_MAX];
	const char *sep = "";
	if (cflags) {
		if (!part_dir(inc, "ZOND_INCLUDE", ZOND_INCLUDE_BUILD_DIR "/zond.h",
			      "../include/zond.h", ZOND_INCLUDE_INSTALL_DIR "/zond.h"))
			return cmd_error("config", "zond.h not found (%s)", ZOND_INCLUDE_INSTALL_DIR);
		printf("-finstrument-functions -I%s", inc);
		sep = " ";
	}
	if (libs && !target) {
		if (!part_dir(lib, "ZOND_RUNTIME", ZOND_RUNTIME_BUILD_PATH, "../lib/libzond.so",
			      ZOND_RUNTIME_INSTALL_PATH))
			return cmd_error("config", "libzond.so not found (%s)",
					 ZOND_RUNTIME_INSTALL_PATH);
		if (!statically) {
			printf("%s-L%s -Wl,-rpath,%s -lzond", sep, lib, lib);
		} else {
			/* installed beside libzond.so; by its path, so that no link picks the .so */
			char archive[PATH_MAX + 16];
			snprintf(archive, sizeof archive, "%s/libzond.a", lib);
			if (access(archive, R_OK) != 0)
				return cmd_error("config", "%s not found (zond's static runtime "
							   "is installed beside libzond.so)",
						 archive);
			printf("%s%s -lpthread -ldl%s%s", sep, archive,
			       *ZOND_STATIC_LINK_EXTRA ? " " : "", ZOND_STATIC_LINK_EXTRA);
		}
	} else if (libs) {
		snprintf(build, sizeof build, "%s/libzond-%s.a", ZOND_BARE_BUILD_DIR, target);
		snprintf(beside, sizeof beside, "../lib/zond/libzond-%s.a", target);
		snprintf(install, sizeof install, "%s/libzond-%s.a", ZOND_BARE_INSTALL_DIR, target);
		if (!part_dir(lib, "ZOND_BARE_RUNTIME", build, beside, install))
			return cmd_error("config",
					 "libzond-%s.a not found: zond was built without "
					 "riscv64-unknown-elf-gcc (scripts/install-deps)",
					 target);
		printf("%s-L%s -lzond-%s -Wl,--wrap=_exit", sep, lib, target);
	}
	putchar('\n');
	return 0;
}

int cmd_config(int argc, char **argv)
{
	const char *target = NULL;
	int cflags = 0, libs = 0, statically = 0, c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "t:h", options, NULL)) != -1) {
		switch (c) {
		case 't': target = optarg; break;
		case OPT_CFLAGS: cflags = 1; break;
		case OPT_LIBS: libs = 1; break;
		case OPT_STATIC: statically = 1; break;
		case 'h': fputs(usage_text, stdout); return 0;
		default: return cmd_bad_option("config", argv, "t:h");
		}
	}
	if (optind < argc)
		return cmd_usage_error("config", "unexpected argument '%s'", argv[optind]);
	if (target && strcmp(target, "none") == 0)
		target = NULL; /* the Linux runtime, as without --target */
	if (target && strcmp(target, targets[0]) != 0 && strcmp(target, targets[1]) != 0)
		return cmd_usage_error("config", "unknown target '%s' (rv32imac, rv64imac or none)",
				       target);
	if (target && statically)
		return cmd_usage_error("config", "--static is for the Linux runtime: a bare-metal "
						 "target's runtime is an archive already");
	if (!cflags && !libs)
		return cmd_usage_error("config", "nothing to print: give --cflags, --libs or both");
	return print_flags(target, cflags, libs, statically);
}
