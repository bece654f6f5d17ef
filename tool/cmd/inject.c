/*
 * inject.c - `zond inject`: counters and code injected into a program from
 * outside it (doc/inject.md).  This file parses the command line and prints;
 * the plan of patchable functions is tool/inject/engine.h, the instruction
 * sets tool/inject/arch/.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "inject/engine.h"
#include "symbols/symbols.h"

static const char usage_text[] =
	"usage: zond inject --coverage PROG\n"
	"Counters and code injected at function entries from outside the program\n"
	"(doc/inject.md).\n\n"
	"  --coverage PROG   print \"N of M functions can be injected\", then each\n"
	"                    function that cannot, with the reason, and each that needs\n"
	"                    a fallback; PROG (a program or shared library) is read,\n"
	"                    never run\n";

/* --coverage: the plan of every function of prog, printed. */
static int coverage(const char *prog)
{
	struct zerr err;
	const char *name = inject_elf_arch(prog, &err);
	if (!name)
		return cmd_error("inject", "%s", err.msg);
	const struct inject_arch *arch = inject_arch_find(name);
	if (!arch)
		return cmd_error("inject", "%s: %s code, and zond was built without its relocator%s",
				 prog, name,
				 strcmp(name, "x86_64") == 0 ? " (libzydis-dev)" : "");
	struct symbols *s = symbols_new();
	struct inject_plan p;
	if (inject_plan_file(s, prog, arch, &p, &err) < 0) {
		symbols_free(s);
		return cmd_error("inject", "%s", err.msg);
	}
	printf("%zu of %zu functions can be injected\n", inject_plan_count_ok(&p), p.nfuncs);
	for (size_t i = 0; i < p.nfuncs; i++) {
		const struct inject_func *f = &p.funcs[i];
		if (!f->ok)
			printf("refused %s (0x%llx): %s\n", f->name, (unsigned long long)f->addr,
			       f->why);
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

int cmd_inject(int argc, char **argv)
{
	static const struct option opts[] = {
		{"coverage", required_argument, NULL, 'C'},
		{"help", no_argument, NULL, 'h'},
		{0, 0, 0, 0},
	};
	const char *cov = NULL;
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
		switch (c) {
		case 'C': cov = optarg; break;
		case 'h': fputs(usage_text, stdout); return 0;
		default: return cmd_usage_error("inject", "unknown option");
		}
	}
	if (cov) {
		if (optind != argc)
			return cmd_usage_error("inject", "--coverage takes one PROG and no more");
		return coverage(cov);
	}
	return cmd_usage_error("inject", "say what to do: --coverage PROG");
}
