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
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
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

/* What one module's ELF file says. */
struct module_info {
	size_t plt;           /* JUMP_SLOT relocations: calls the loader binds */
	size_t got;           /* function relocations outside the PLT */
	char **got_names;     /* their symbol names */
	size_t protected_fns; /* defined functions of protected visibility */
	int symbolic;         /* DT_SYMBOLIC or DF_SYMBOLIC */
};

static void module_info_free(struct module_info *m)
{
	for (size_t i = 0; i < m->got; i++)
		free(m->got_names[i]);
	free(m->got_names);
}

/* Relocation types by machine: the PLT's, the GOT's and absolute addresses. */
static int reloc_kind(unsigned machine, unsigned type)
{
	enum { OTHER, PLT, GOT };
	if (machine == EM_X86_64)
		return type == R_X86_64_JUMP_SLOT ? PLT
		       : type == R_X86_64_GLOB_DAT || type == R_X86_64_64 ? GOT
									   : OTHER;
	if (machine == EM_AARCH64)
		return type == R_AARCH64_JUMP_SLOT ? PLT
		       : type == R_AARCH64_GLOB_DAT || type == R_AARCH64_ABS64 ? GOT
										 : OTHER;
	return OTHER;
}

static int is_function(const GElf_Sym *sym)
{
	int type = GELF_ST_TYPE(sym->st_info);
	return type == STT_FUNC || type == STT_GNU_IFUNC;
}

static void note_got(struct module_info *m, const char *name)
{
	for (size_t i = 0; i < m->got; i++)
		if (!strcmp(m->got_names[i], name))
			return;
	m->got_names = zp_xrealloc(m->got_names, (m->got + 1) * sizeof *m->got_names);
	char *cxx = symbols_demangle(name);
	m->got_names[m->got++] = cxx ? cxx : strdup(name);
}

/* One relocation section against the dynamic symbols. */
static void scan_relocs(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh, unsigned machine,
			struct module_info *m)
{
	Elf_Scn *symscn = elf_getscn(elf, sh->sh_link);
	GElf_Shdr symsh;
	Elf_Data *rel = elf_getdata(scn, NULL), *syms = symscn ? elf_getdata(symscn, NULL) : NULL;
	if (!rel || !syms || !gelf_getshdr(symscn, &symsh) || symsh.sh_type != SHT_DYNSYM)
		return;
	size_t n = sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0;
	for (size_t i = 0; i < n; i++) {
		GElf_Rela r;
		GElf_Rel plain;
		if (sh->sh_type == SHT_RELA) {
			if (!gelf_getrela(rel, (int)i, &r))
				continue;
		} else {
			if (!gelf_getrel(rel, (int)i, &plain))
				continue;
			r.r_info = plain.r_info;
		}
		int kind = reloc_kind(machine, (unsigned)GELF_R_TYPE(r.r_info));
		GElf_Sym sym;
		size_t s = GELF_R_SYM(r.r_info);
		if (kind == 1) {
			m->plt++;
		} else if (kind == 2 && s && gelf_getsym(syms, (int)s, &sym) && is_function(&sym)) {
			const char *name = elf_strptr(elf, symsh.sh_link, sym.st_name);
			if (name && *name)
				note_got(m, name);
		}
	}
}

static void scan_dynamic(Elf_Scn *scn, const GElf_Shdr *sh, struct module_info *m)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	size_t n = sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0;
	for (size_t i = 0; d && i < n; i++) {
		GElf_Dyn dyn;
		if (!gelf_getdyn(d, (int)i, &dyn))
			continue;
		if (dyn.d_tag == DT_SYMBOLIC ||
		    (dyn.d_tag == DT_FLAGS && (dyn.d_un.d_val & DF_SYMBOLIC)))
			m->symbolic = 1;
	}
}

static void scan_dynsym(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh, struct module_info *m)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	size_t n = sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0;
	(void)elf;
	for (size_t i = 1; d && i < n; i++) {
		GElf_Sym sym;
		if (gelf_getsym(d, (int)i, &sym) && is_function(&sym) && sym.st_shndx != SHN_UNDEF &&
		    GELF_ST_VISIBILITY(sym.st_other) == STV_PROTECTED)
			m->protected_fns++;
	}
}

/* Reads path's dynamic relocations and symbols.  0, or -1 with err set. */
static int read_module(const char *path, struct module_info *m, struct zerr *err)
{
	memset(m, 0, sizeof *m);
	if (!symbols_is_elf(path, err))
		return -1;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return zerr_set(err, "%s: %s", path, strerror(errno));
	elf_version(EV_CURRENT);
	Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
	GElf_Ehdr eh;
	if (!elf || !gelf_getehdr(elf, &eh)) {
		if (elf)
			elf_end(elf);
		close(fd);
		return zerr_set(err, "%s: damaged ELF file (%s)", path, elf_errmsg(-1));
	}
	for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn; scn = elf_nextscn(elf, scn)) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_RELA || sh.sh_type == SHT_REL)
			scan_relocs(elf, scn, &sh, eh.e_machine, m);
		else if (sh.sh_type == SHT_DYNAMIC)
			scan_dynamic(scn, &sh, m);
		else if (sh.sh_type == SHT_DYNSYM)
			scan_dynsym(elf, scn, &sh, m);
	}
	elf_end(elf);
	close(fd);
	return 0;
}

static int compare_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void print_module(const char *path, const struct module_info *m)
{
	printf("%s\n  seen: calls through its %zu PLT slots\n", path, m->plt);
	if (m->got) {
		printf("  not seen: %zu functions called or taken through the GOT (-fno-plt, address "
		       "taken):\n   ",
		       m->got);
		zp_sort(m->got_names, m->got, sizeof *m->got_names, compare_names);
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
	struct module_info m;
	struct zerr err;
	if (realpath(path, real) && !strcmp(real, program_path))
		return;
	if (read_module(path, &m, &err) < 0) {
		printf("%s\n  %s\n", path, err.msg);
		return;
	}
	print_module(path, &m);
	module_info_free(&m);
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
		       "is its owner (%s)\n",
		       prog, getuid() == 0 ? "root is: seen here" : "not seen here");
	const char *program_path = realpath(prog, real) ? real : prog;
	struct module_info m;
	if (read_module(prog, &m, &err) < 0)
		return cmd_error("info", "%s", err.msg);
	print_module(prog, &m);
	module_info_free(&m);
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
