/*
 * symbols.c - ELF symbols and DWARF lines through elfutils' libdwfl.
 *
 * Each ELF file gets one Dwfl session with the file reported at bias 0, so
 * libdwfl addresses are link-time addresses.  libdwfl picks the symbol table
 * (.symtab; else that of a separate debug file found by build-id or
 * .gnu_debuglink; else .dynsym) and finds the DWARF the same way.  Function
 * symbols are copied out once per file and sorted, so a lookup is a binary
 * search.
 *
 * Several names often share one address (aliases: malloc and __libc_malloc,
 * a weak and a strong name).  Lookups name the code by the preferred one:
 * global before weak before local, then the one with fewer leading
 * underscores (the name people call), then the smallest name, so the choice
 * does not depend on symbol table order.
 *
 * C++ names are demangled with __cxa_demangle from libstdc++: it is the
 * demangler of the C++ ABI GCC and clang follow, and libstdc++ is installed
 * wherever a C++ compiler is (libiberty's only ships as a static archive).
 * gfortran's module procedures ("__m_MOD_f"), which no library demangles,
 * are written "m::f" as gdb writes them.
 */
#include "symbols.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>

#include "../model/profile.h"
#include "../util/strtab.h"

/* libstdc++ (C++ ABI), declared here because this is C. */
extern char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

struct func_sym {
	uint64_t start;
	uint64_t size;        /* from the symbol table; 0 for sizeless symbols */
	uint64_t section_end; /* a sizeless symbol extends at most to here */
	const char *raw;      /* as in the symbol table (owned by libelf) */
	char *demangled;      /* NULL until asked for, then the C++ name or NULL */
	int demangle_tried;
	int rank; /* lower is preferred among aliases */
	int ifunc; /* STT_GNU_IFUNC: the symbol is its resolver */
};

/* A PLT stub named after the function it jumps to, "printf@plt" (read_plt). */
struct plt_stub {
	uint64_t start, size;
	char *name;
};

/*
 * One code range of a DWARF subprogram and where the subprogram is declared.
 * Ranges nest (a GNU C nested function's code inside its parent's, in odd
 * layouts) or are disjoint; outer links each to the nearest range enclosing
 * it, so the innermost subprogram holding an address is found by a binary
 * search and a short walk out.
 */
struct decl_range {
	uint64_t low, high; /* link-time [low, high) */
	const char *file;   /* NULL: the subprogram names no declaration */
	int line;
	ptrdiff_t outer; /* index of the nearest enclosing range, or -1 */
};

/* An unwind table's entry (an FDE): the code of one function, link-time. */
struct fde_range {
	uint64_t start, end;
};

struct elf_file {
	char *path;
	char *error; /* set when the file could not be used: every call repeats it */
	Dwfl *dwfl;
	Dwfl_Module *mod;
	struct func_sym *syms; /* every function symbol, by start then preference */
	size_t nsyms;
	size_t *primary;  /* index into syms of the preferred symbol of each start */
	uint64_t *extent; /* size to report for primary[i], sizeless ones extended */
	ptrdiff_t *outer; /* the nearest primary whose extent holds primary[i]'s start, or -1 */
	size_t nprimary;
	struct plt_stub *plt; /* PLT stubs, by start (read_plt) */
	size_t nplt;
	struct decl_range *decls; /* every subprogram's code ranges, by low */
	size_t ndecls;
	int decls_read;
	size_t dies_visited; /* DWARF entries read to index decls */
	struct strtab paths; /* source paths made absolute (source_path) */
	struct fde_range *fdes; /* the unwind tables' entries, by start (read_fdes) */
	size_t nfdes;
	int fdes_read;
};

struct symbols {
	struct elf_file **files;
	size_t nfiles;
	struct elf_file *last; /* lookups come in runs on one file */
};

/* NULL: let libdwfl use its default path, ":.debug:/usr/lib/debug". */
static char *debuginfo_path;

/* symbols_set_fd_hook: where the descriptors libdwfl keeps go (NULL: where open put them). */
static int (*fd_hook)(int fd);

void symbols_set_fd_hook(int (*move)(int fd))
{
	fd_hook = move;
}

static int hooked(int fd)
{
	return fd >= 0 && fd_hook ? fd_hook(fd) : fd;
}

/* libdwfl's own finders, whose descriptors it keeps (a separate debug file): moved too. */
static int find_elf(Dwfl_Module *mod, void **userdata, const char *name, Dwarf_Addr base,
		    char **file_name, Elf **elfp)
{
	return hooked(dwfl_build_id_find_elf(mod, userdata, name, base, file_name, elfp));
}

static int find_debuginfo(Dwfl_Module *mod, void **userdata, const char *name, Dwarf_Addr base,
			  const char *file_name, const char *debuglink_file,
			  GElf_Word debuglink_crc, char **debuginfo_file_name)
{
	return hooked(dwfl_standard_find_debuginfo(mod, userdata, name, base, file_name,
						   debuglink_file, debuglink_crc,
						   debuginfo_file_name));
}

static const Dwfl_Callbacks dwfl_callbacks = {
	.find_elf = find_elf,
	.find_debuginfo = find_debuginfo,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &debuginfo_path,
};

/* ---- reading the symbol table ------------------------------------------- */

static int leading_underscores(const char *name)
{
	int n = 0;
	while (name[n] == '_')
		n++;
	return n;
}

static int binding_rank(unsigned char bind)
{
	switch (bind) {
	case STB_GLOBAL:
	case STB_GNU_UNIQUE: return 0;
	case STB_WEAK: return 1;
	default: return 2;
	}
}

static int compare_syms(const void *a, const void *b)
{
	const struct func_sym *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank - y->rank;
	int ux = leading_underscores(x->raw), uy = leading_underscores(y->raw);
	if (ux != uy)
		return ux - uy;
	return strcmp(x->raw, y->raw);
}

/* End of the section holding a symbol: how far a sizeless one may reach. */
static uint64_t section_end(Elf *elf, GElf_Word shndx, uint64_t start)
{
	GElf_Shdr shdr;
	Elf_Scn *scn = elf ? elf_getscn(elf, shndx) : NULL;
	if (!scn || !gelf_getshdr(scn, &shdr) || !(shdr.sh_flags & SHF_ALLOC))
		return start;
	uint64_t end = shdr.sh_addr + shdr.sh_size;
	return end > start ? end : start;
}

/*
 * Entry i of the file's symbol table: its name, or NULL when it has none or
 * is not defined here; *start its link-time address.
 */
static const char *symtab_entry(struct elf_file *f, int i, GElf_Sym *sym, uint64_t *start,
				GElf_Word *shndx, Elf **elf)
{
	GElf_Addr addr, bias;
	const char *name = dwfl_module_getsym_info(f->mod, i, sym, &addr, shndx, elf, &bias);
	*start = addr - bias;
	return name && *name && *shndx != SHN_UNDEF ? name : NULL;
}

static void read_symbols(struct elf_file *f)
{
	int n = dwfl_module_getsymtab(f->mod);
	if (n <= 0)
		return;
	f->syms = zp_xcalloc((size_t)n, sizeof *f->syms);
	for (int i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Word shndx;
		Elf *elf;
		uint64_t start;
		const char *name = symtab_entry(f, i, &sym, &start, &shndx, &elf);
		int type = GELF_ST_TYPE(sym.st_info);
		if (!name || (type != STT_FUNC && type != STT_GNU_IFUNC))
			continue;
		struct func_sym *s = &f->syms[f->nsyms++];
		s->start = start;
		s->size = sym.st_size;
		s->section_end = section_end(elf, shndx, s->start);
		s->raw = name;
		s->rank = binding_rank(GELF_ST_BIND(sym.st_info));
		s->ifunc = type == STT_GNU_IFUNC;
	}
	zp_sort(f->syms, f->nsyms, sizeof *f->syms, compare_syms);
}

/* Drops entries naming the same start twice (symbol tables may repeat one). */
static void drop_duplicates(struct elf_file *f)
{
	size_t out = 0;
	for (size_t i = 0; i < f->nsyms; i++) {
		struct func_sym *s = &f->syms[i];
		if (out && s->start == f->syms[out - 1].start &&
		    strcmp(s->raw, f->syms[out - 1].raw) == 0)
			continue;
		f->syms[out++] = *s;
	}
	f->nsyms = out;
}

static uint64_t primary_end(const struct elf_file *f, size_t i)
{
	return f->syms[f->primary[i]].start + f->extent[i];
}

/*
 * Links each primary to the one whose extent holds its start: function
 * symbols nest (libgcc's RISC-V __riscv_restore_N millicode, entry points
 * into one sequence), and an address past a nested symbol's end belongs to
 * the symbol holding it, not to no symbol.  outer doubles as the stack of
 * the primaries still open.
 */
static void link_primaries(struct elf_file *f)
{
	f->outer = zp_xcalloc(f->nprimary ? f->nprimary : 1, sizeof *f->outer);
	ptrdiff_t open = -1;
	for (size_t i = 0; i < f->nprimary; i++) {
		uint64_t start = f->syms[f->primary[i]].start;
		while (open >= 0 && start >= primary_end(f, (size_t)open))
			open = f->outer[open];
		f->outer[i] = open;
		open = (ptrdiff_t)i;
	}
}

/* Where the first symbol nested in primary i starts (primaries are sorted), else its end. */
static uint64_t first_nested(const struct elf_file *f, size_t i)
{
	uint64_t end = primary_end(f, i);
	return i + 1 < f->nprimary && f->syms[f->primary[i + 1]].start < end
		       ? f->syms[f->primary[i + 1]].start
		       : end;
}

/*
 * One primary symbol per start.  Its extent is the largest size among its
 * aliases or, when all are sizeless, the distance to the next start within
 * its section.
 */
static void index_primaries(struct elf_file *f)
{
	f->primary = zp_xcalloc(f->nsyms, sizeof *f->primary);
	f->extent = zp_xcalloc(f->nsyms, sizeof *f->extent);
	for (size_t i = 0; i < f->nsyms; i++) {
		struct func_sym *s = &f->syms[i];
		if (f->nprimary && f->syms[f->primary[f->nprimary - 1]].start == s->start) {
			uint64_t *e = &f->extent[f->nprimary - 1];
			if (s->size > *e)
				*e = s->size;
			continue;
		}
		f->primary[f->nprimary] = i;
		f->extent[f->nprimary++] = s->size;
	}
	for (size_t i = 0; i < f->nprimary; i++) {
		const struct func_sym *s = &f->syms[f->primary[i]];
		if (f->extent[i])
			continue;
		uint64_t end = s->section_end;
		if (i + 1 < f->nprimary && f->syms[f->primary[i + 1]].start < end)
			end = f->syms[f->primary[i + 1]].start;
		f->extent[i] = end - s->start;
	}
	link_primaries(f);
}

/* ---- the per-file cache -------------------------------------------------- */

static void close_file(struct elf_file *f)
{
	for (size_t i = 0; i < f->nsyms; i++)
		free(f->syms[i].demangled);
	free(f->syms);
	for (size_t i = 0; i < f->nplt; i++)
		free(f->plt[i].name);
	free(f->plt);
	free(f->primary);
	free(f->extent);
	free(f->outer);
	free(f->decls);
	free(f->fdes);
	strtab_free(&f->paths);
	if (f->dwfl)
		dwfl_end(f->dwfl);
	free(f->error);
	free(f->path);
	free(f);
}

static int open_dwfl(struct elf_file *f, struct zerr *err)
{
	f->dwfl = dwfl_begin(&dwfl_callbacks);
	if (!f->dwfl)
		return zerr_set(err, "%s: %s", f->path, dwfl_errmsg(-1));
	dwfl_report_begin(f->dwfl);
	/* Opened here with O_CLOEXEC (libdwfl's own open has none, and a program
	 * zond starts would inherit the descriptor); libdwfl keeps it on success.
	 * Bias 0: libdwfl's addresses are then the file's link-time addresses. */
	int fd = hooked(open(f->path, O_RDONLY | O_CLOEXEC));
	f->mod = fd >= 0 ? dwfl_report_elf(f->dwfl, f->path, f->path, fd, 0, true) : NULL;
	if (!f->mod && fd >= 0)
		close(fd);
	if (dwfl_report_end(f->dwfl, NULL, NULL) != 0 || !f->mod)
		return zerr_set(err, "%s: damaged ELF file (%s)", f->path, dwfl_errmsg(-1));
	return 0;
}

static void read_plt(struct elf_file *f);

static struct elf_file *load_file(const char *path)
{
	struct elf_file *f = zp_xcalloc(1, sizeof *f);
	struct zerr err;
	f->path = zp_xstrdup(path);
	if (!symbols_is_elf(path, &err) || open_dwfl(f, &err) < 0) {
		f->error = zp_xstrdup(err.msg);
		return f;
	}
	read_symbols(f);
	drop_duplicates(f);
	index_primaries(f);
	read_plt(f);
	return f;
}

static struct elf_file *get_file(struct symbols *s, const char *path, struct zerr *err)
{
	struct elf_file *f = s->last && strcmp(s->last->path, path) == 0 ? s->last : NULL;
	for (size_t i = 0; !f && i < s->nfiles; i++)
		if (strcmp(s->files[i]->path, path) == 0)
			f = s->files[i];
	if (!f) {
		f = load_file(path);
		s->files = zp_xrealloc(s->files, (s->nfiles + 1) * sizeof *s->files);
		s->files[s->nfiles++] = f;
	}
	s->last = f;
	if (f->error) {
		zerr_set(err, "%s", f->error);
		return NULL;
	}
	return f;
}

struct symbols *symbols_new(void)
{
	elf_version(EV_CURRENT);
	return zp_xcalloc(1, sizeof(struct symbols));
}

void symbols_free(struct symbols *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nfiles; i++)
		close_file(s->files[i]);
	free(s->files);
	free(s);
}

/* ---- lookups ------------------------------------------------------------- */

/*
 * gfortran's name of a module procedure, "__mathmod_MOD_fact": "mathmod::fact",
 * as gdb writes it.  The procedures the compiler makes for a module's types
 * ("__m_MOD___copy_m_T") keep their symbol.
 */
static char *fortran_name(const char *name)
{
	const char *mod = strstr(name + 2, "_MOD_");
	if (!mod || mod == name + 2 || !mod[5] || !strncmp(mod + 5, "__", 2))
		return NULL;
	size_t module_len = (size_t)(mod - (name + 2)), proc_len = strlen(mod + 5);
	char *out = malloc(module_len + 2 + proc_len + 1);
	if (!out)
		return NULL;
	memcpy(out, name + 2, module_len);
	memcpy(out + module_len, "::", 2);
	memcpy(out + module_len + 2, mod + 5, proc_len + 1);
	return out;
}

char *symbols_demangle(const char *name)
{
	if (strncmp(name, "__", 2) == 0)
		return fortran_name(name);
	if (strncmp(name, "_Z", 2) != 0)
		return NULL;
	int status = -1;
	char *cxx = __cxa_demangle(name, NULL, NULL, &status);
	if (status != 0) {
		free(cxx);
		return NULL;
	}
	return cxx;
}

static const char *sym_name(struct func_sym *s)
{
	if (!s->demangle_tried) {
		s->demangle_tried = 1;
		s->demangled = symbols_demangle(s->raw);
	}
	return s->demangled ? s->demangled : s->raw;
}

/* Index into f->primary of the last symbol starting at or before addr, or -1. */
static ptrdiff_t find_primary(const struct elf_file *f, uint64_t addr)
{
	size_t lo = 0, hi = f->nprimary;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (f->syms[f->primary[mid]].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (ptrdiff_t)lo - 1;
}

/* ---- PLT stubs -----------------------------------------------------------
 *
 * A PLT stub has no symbol: objdump names it after the function its GOT
 * slot is relocated to, "printf@plt", so that calls into different library
 * functions are different functions.  Its place follows from the order of
 * the relocations in .rela.plt (stub i for the i-th JUMP_SLOT or IRELATIVE
 * one) and the PLT layout of the architecture, as GNU ld lays it out and
 * BFD's plt_sym_val gives it to objdump (bfd/elfnn-aarch64.c,
 * bfd/elfnn-riscv.c, bfd/elf64-x86-64.c):
 *
 *   aarch64  .plt: a 32-byte header (PLT0), 16-byte stubs (24 bytes when the
 *            file asks for BTI or PAC stubs: DT_AARCH64_BTI_PLT,
 *            DT_AARCH64_PAC_PLT), and a 32-byte lazy TLS descriptor
 *            trampoline last when DT_TLSDESC_PLT is set
 *   riscv    .plt: a 32-byte header, 16-byte stubs
 *   x86-64   .plt: a 16-byte header, 16-byte stubs, a 16-byte TLS descriptor
 *            entry last with DT_TLSDESC_PLT; with IBT stubs (.plt.sec) the
 *            stubs called are .plt.sec's, 16 bytes, no header; a static
 *            program's are 8 bytes (a jump through the GOT and a 2-byte nop)
 *
 * A program without a dynamic loader (static) has no header: what the
 * section holds besides the stubs tells, and anything but "no header" or
 * the architecture's header means another layout, which names nothing (the
 * code stays "[.plt]").
 * A relocation that names no symbol (IRELATIVE) is named after the
 * indirect function (STT_GNU_IFUNC) its resolver is, or as objdump does
 * ("*ABS*+0x41b0b0@plt").  tests/trace/plt.sh checks every stub
 * objdump names in the cross C libraries and in test programs.
 */

#ifndef DT_AARCH64_BTI_PLT
#define DT_AARCH64_BTI_PLT 0x70000001
#endif
#ifndef DT_TLSDESC_PLT
#define DT_TLSDESC_PLT 0x6ffffef6
#endif
#ifndef DT_AARCH64_PAC_PLT
#define DT_AARCH64_PAC_PLT 0x70000003
#endif

static Elf_Scn *section_named(Elf *elf, size_t shstrndx, const char *name, GElf_Shdr *sh)
{
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn));) {
		const char *n;
		if (gelf_getshdr(scn, sh) && (n = elf_strptr(elf, shstrndx, sh->sh_name)) &&
		    strcmp(n, name) == 0)
			return scn;
	}
	return NULL;
}

/* 1 if the file's dynamic section holds tag (with any value but 0). */
static int has_dynamic_flag(Elf *elf, size_t shstrndx, int64_t tag)
{
	GElf_Shdr sh;
	Elf_Scn *scn = section_named(elf, shstrndx, ".dynamic", &sh);
	Elf_Data *data = scn && sh.sh_entsize ? elf_getdata(scn, NULL) : NULL;
	for (size_t i = 0; data && i < sh.sh_size / sh.sh_entsize; i++) {
		GElf_Dyn dyn;
		if (gelf_getdyn(data, (int)i, &dyn) && dyn.d_tag == tag && dyn.d_un.d_val)
			return 1;
	}
	return 0;
}

/* The name of the indirect function whose resolver is at addr, or NULL. */
static const char *ifunc_at(struct elf_file *f, uint64_t addr)
{
	ptrdiff_t i = find_primary(f, addr);
	for (size_t k = i < 0 ? f->nsyms : f->primary[i];
	     k < f->nsyms && f->syms[k].start == addr; k++)
		if (f->syms[k].ifunc)
			return f->syms[k].raw;
	return NULL;
}

/*
 * x86-64 stubs are not in the order of their relocations (a shared library's
 * IRELATIVE ones come last in .rela.plt, between the others in .plt): as
 * BFD does, each stub is matched to its relocation through the GOT slot it
 * jumps through ("ff 25 disp32", jmp *disp(%rip), after an endbr64 or a bnd
 * prefix).  Returns the stubs' (slot, start) sorted by slot.
 */
struct stub_slot {
	uint64_t slot, start;
};

static int compare_slots(const void *a, const void *b)
{
	uint64_t x = ((const struct stub_slot *)a)->slot, y = ((const struct stub_slot *)b)->slot;
	return x < y ? -1 : x > y;
}

static struct stub_slot *x86_stub_slots(Elf_Data *code, const GElf_Shdr *plt, uint64_t header,
					uint64_t entry, size_t nstubs, size_t *n)
{
	const uint8_t *p = code ? code->d_buf : NULL;
	struct stub_slot *t = zp_xcalloc(nstubs ? nstubs : 1, sizeof *t);
	*n = 0;
	for (size_t i = 0; p && i < nstubs; i++) {
		uint64_t off = header + i * entry;
		for (uint64_t k = off; k + 6 <= off + entry && k + 6 <= code->d_size; k++) {
			if (p[k] != 0xff || p[k + 1] != 0x25)
				continue;
			int32_t disp = (int32_t)((uint32_t)p[k + 2] | (uint32_t)p[k + 3] << 8 |
						 (uint32_t)p[k + 4] << 16 | (uint32_t)p[k + 5] << 24);
			t[(*n)++] = (struct stub_slot){plt->sh_addr + k + 6 + (uint64_t)(int64_t)disp,
						       plt->sh_addr + off};
			break;
		}
	}
	zp_sort(t, *n, sizeof *t, compare_slots);
	return t;
}

static int compare_stubs(const void *a, const void *b)
{
	uint64_t x = ((const struct plt_stub *)a)->start, y = ((const struct plt_stub *)b)->start;
	return x < y ? -1 : x > y;
}

static void read_plt(struct elf_file *f)
{
	GElf_Addr bias;
	Elf *elf = dwfl_module_getelf(f->mod, &bias);
	GElf_Ehdr eh;
	size_t shstrndx;
	if (!elf || !gelf_getehdr(elf, &eh) || elf_getshdrstrndx(elf, &shstrndx) != 0)
		return;
	unsigned jump_slot, irelative;
	uint64_t header, entry, tlsdesc = 0;
	const char *stubs = ".plt";
	GElf_Shdr plt, rel;
	switch (eh.e_machine) {
	case EM_AARCH64:
		jump_slot = R_AARCH64_JUMP_SLOT, irelative = R_AARCH64_IRELATIVE;
		header = 32, entry = 16, tlsdesc = 32;
		if (has_dynamic_flag(elf, shstrndx, DT_AARCH64_BTI_PLT) ||
		    has_dynamic_flag(elf, shstrndx, DT_AARCH64_PAC_PLT))
			entry = 24;
		break;
	case EM_RISCV:
		jump_slot = R_RISCV_JUMP_SLOT, irelative = R_RISCV_IRELATIVE;
		header = 32, entry = 16;
		break;
	case EM_X86_64:
		jump_slot = R_X86_64_JUMP_SLOT, irelative = R_X86_64_IRELATIVE;
		header = 16, entry = 16, tlsdesc = 16;
		if (section_named(elf, shstrndx, ".plt.sec", &plt))
			stubs = ".plt.sec", header = 0, tlsdesc = 0;
		break;
	default: return;
	}
	Elf_Scn *rscn = section_named(elf, shstrndx, ".rela.plt", &rel);
	Elf_Data *rdata = rscn && rel.sh_type == SHT_RELA && rel.sh_entsize ? elf_getdata(rscn, NULL)
									    : NULL;
	if (!rdata || !section_named(elf, shstrndx, stubs, &plt))
		return;
	size_t nrel = rel.sh_size / rel.sh_entsize, nstubs = 0, n = 0;
	for (size_t i = 0; i < nrel; i++) {
		GElf_Rela r;
		if (gelf_getrela(rdata, (int)i, &r) && (GELF_R_TYPE(r.r_info) == jump_slot ||
							GELF_R_TYPE(r.r_info) == irelative))
			nstubs++;
	}
	if (!has_dynamic_flag(elf, shstrndx, DT_TLSDESC_PLT))
		tlsdesc = 0;
	if (eh.e_machine == EM_X86_64 && plt.sh_size == nstubs * 8)
		entry = 8;
	if (plt.sh_size < tlsdesc + nstubs * entry)
		return;
	uint64_t rest = plt.sh_size - tlsdesc - nstubs * entry;
	if (rest != header && rest != 0)
		return; /* not a layout above */
	header = rest;
	Elf_Scn *symscn = elf_getscn(elf, rel.sh_link);
	GElf_Shdr symsh;
	Elf_Data *syms = symscn && gelf_getshdr(symscn, &symsh) ? elf_getdata(symscn, NULL) : NULL;
	Elf_Scn *pscn = section_named(elf, shstrndx, stubs, &plt);
	Elf_Data *code = plt.sh_type == SHT_PROGBITS ? elf_getdata(pscn, NULL) : NULL;
	size_t nslots = 0;
	struct stub_slot *slots = eh.e_machine == EM_X86_64
					  ? x86_stub_slots(code, &plt, header, entry, nstubs, &nslots)
					  : NULL;
	f->plt = zp_xcalloc(nrel ? nrel : 1, sizeof *f->plt);
	for (size_t i = 0; i < nrel; i++) {
		GElf_Rela r;
		GElf_Sym sym;
		char buf[4096];
		const char *name = NULL;
		if (!gelf_getrela(rdata, (int)i, &r))
			break;
		unsigned type = GELF_R_TYPE(r.r_info);
		if (type != jump_slot && type != irelative)
			continue; /* TLS descriptors: a GOT slot without a stub */
		uint64_t start = plt.sh_addr + header + n++ * entry;
		if (slots) {
			struct stub_slot key = {r.r_offset, 0};
			const struct stub_slot *at = bsearch(&key, slots, nslots, sizeof *slots,
							     compare_slots);
			if (!at)
				continue;
			start = at->start;
		}
		if (type == jump_slot && syms && GELF_R_SYM(r.r_info) &&
		    gelf_getsym(syms, (int)GELF_R_SYM(r.r_info), &sym))
			name = elf_strptr(elf, symsh.sh_link, sym.st_name);
		else if (type == irelative)
			name = ifunc_at(f, (uint64_t)r.r_addend);
		if (name && *name) /* a versioned definition's "memcpy@@GLIBC_2.14": "memcpy" */
			snprintf(buf, sizeof buf, "%.*s@plt", (int)strcspn(name, "@"), name);
		else
			snprintf(buf, sizeof buf, "*ABS*+0x%" PRIx64 "@plt", (uint64_t)r.r_addend);
		f->plt[f->nplt++] = (struct plt_stub){start, entry, zp_xstrdup(buf)};
	}
	free(slots);
	if (f->nplt)
		zp_sort(f->plt, f->nplt, sizeof *f->plt, compare_stubs);
}

/* The PLT stub holding addr, or NULL. */
static const struct plt_stub *plt_at(const struct elf_file *f, uint64_t addr)
{
	size_t lo = zp_count_at_most(f->plt, f->nplt, sizeof *f->plt,
				     offsetof(struct plt_stub, start), addr);
	return lo && addr - f->plt[lo - 1].start < f->plt[lo - 1].size ? &f->plt[lo - 1] : NULL;
}

int symbols_lookup(struct symbols *s, const char *path, uint64_t addr, struct symbol *out,
		   struct zerr *err)
{
	struct elf_file *f = get_file(s, path, err);
	memset(out, 0, sizeof *out);
	if (!f)
		return -1;
	ptrdiff_t i = find_primary(f, addr);
	while (i >= 0 && addr - f->syms[f->primary[i]].start >= f->extent[i])
		i = f->outer[i]; /* past a nested symbol: the one holding it */
	if (i < 0) {
		const struct plt_stub *stub = plt_at(f, addr);
		if (stub)
			*out = (struct symbol){stub->name, stub->start, stub->size,
						 stub->start + stub->size};
		return 0;
	}
	struct func_sym *sym = &f->syms[f->primary[i]];
	out->name = sym_name(sym);
	out->start = sym->start;
	out->size = f->extent[i];
	out->nested = first_nested(f, (size_t)i);
	return 0;
}

/* Bytes of a value in DWARF pointer encoding enc (its low four bits); 0: not a fixed size. */
static unsigned enc_size(uint8_t enc, unsigned addr_size)
{
	switch (enc & 0x0f) {
	case DW_EH_PE_absptr: return addr_size;
	case DW_EH_PE_udata2: case DW_EH_PE_sdata2: return 2;
	case DW_EH_PE_udata4: case DW_EH_PE_sdata4: return 4;
	case DW_EH_PE_udata8: case DW_EH_PE_sdata8: return 8;
	default: return 0;
	}
}

/* A little-endian value of size bytes at p in encoding enc, sign-extended if signed. */
static uint64_t enc_value(const uint8_t *p, uint8_t enc, unsigned size)
{
	uint64_t v = 0;
	for (unsigned i = 0; i < size; i++)
		v |= (uint64_t)p[i] << (8 * i);
	if ((enc & 0x08) && size < 8 && (v >> (8 * size - 1) & 1))
		v |= ~0ull << (8 * size);
	return v;
}

/*
 * How a CIE's FDEs encode their addresses: its augmentation's 'R', else
 * plain addresses; DW_EH_PE_omit for an augmentation not understood.
 */
static uint8_t fde_encoding(const Dwarf_CIE *cie, unsigned addr_size)
{
	const uint8_t *p = cie->augmentation_data;
	/* the letters promise data the CIE's 'z' size may not hold (a damaged file) */
	const uint8_t *end = p + cie->augmentation_data_size;
	for (const char *a = cie->augmentation; *a; a++) {
		if ((*a == 'R' || *a == 'L' || *a == 'P') && p >= end)
			return DW_EH_PE_omit;
		if (*a == 'R')
			return *p;
		if (*a == 'L') {
			p++;
		} else if (*a == 'P') { /* the personality: an encoding, then a pointer */
			unsigned n = enc_size(*p, addr_size);
			if (!n)
				return DW_EH_PE_omit;
			p += 1 + n;
		} else if (*a != 'z' && *a != 'S' && *a != 'B') {
			return DW_EH_PE_omit;
		}
	}
	return DW_EH_PE_absptr;
}

/*
 * The FDEs of one CFI section (.eh_frame, or .debug_frame: eh 0) into
 * f->fdes.  libdw's dwarf_cfi_addrframe gives the range of one row of an
 * FDE (where the CFA rule holds), not the function's: every push in a
 * prologue would cut a function in pieces.
 */
static void read_fdes_of(struct elf_file *f, Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh, int eh)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	const unsigned char *ident = (const unsigned char *)elf_getident(elf, NULL);
	unsigned addr_size = ident && ident[EI_CLASS] == ELFCLASS32 ? 4 : 8;
	struct { Dwarf_Off off; uint8_t enc; } *cies = NULL;
	size_t ncies = 0;
	Dwarf_CFI_Entry e;
	for (Dwarf_Off off = 0, next; data && ident && off != (Dwarf_Off)-1; off = next) {
		int rc = dwarf_next_cfi(ident, data, eh, off, &next, &e);
		if (rc > 0 || (rc < 0 && next == off))
			break;
		if (rc < 0)
			continue;
		if (dwarf_cfi_cie_p(&e)) {
			cies = zp_xrealloc(cies, (ncies + 1) * sizeof *cies);
			cies[ncies].off = off;
			cies[ncies++].enc = fde_encoding(&e.cie, addr_size);
			continue;
		}
		uint8_t enc = DW_EH_PE_omit;
		for (size_t i = 0; i < ncies; i++)
			if (cies[i].off == e.fde.CIE_pointer)
				enc = cies[i].enc;
		unsigned n = enc == DW_EH_PE_omit ? 0 : enc_size(enc, addr_size);
		if (!n || e.fde.end - e.fde.start < 2 * n || (enc & 0x70 & ~DW_EH_PE_pcrel))
			continue;
		uint64_t start = enc_value(e.fde.start, enc, n);
		if ((enc & 0x70) == DW_EH_PE_pcrel)
			start += sh->sh_addr + (uint64_t)(e.fde.start - (const uint8_t *)data->d_buf);
		uint64_t len = enc_value(e.fde.start + n, enc & 0x0f, n);
		if (!len)
			continue;
		f->fdes = zp_xrealloc(f->fdes, (f->nfdes + 1) * sizeof *f->fdes);
		f->fdes[f->nfdes++] = (struct fde_range){start, start + len};
	}
	free(cies);
}

static int compare_fdes(const void *a, const void *b)
{
	const struct fde_range *x = a, *y = b;
	return x->start < y->start ? -1 : x->start > y->start;
}

/* The file's unwind entries, sorted: .eh_frame's, else .debug_frame's. */
static void read_fdes(struct elf_file *f)
{
	GElf_Addr bias;
	Elf *elf = dwfl_module_getelf(f->mod, &bias);
	size_t shstrndx;
	GElf_Shdr sh;
	Elf_Scn *scn;
	f->fdes_read = 1;
	if (!elf || elf_getshdrstrndx(elf, &shstrndx) != 0)
		return;
	if ((scn = section_named(elf, shstrndx, ".eh_frame", &sh)) && sh.sh_type != SHT_NOBITS)
		read_fdes_of(f, elf, scn, &sh, 1);
	if (!f->nfdes && (scn = section_named(elf, shstrndx, ".debug_frame", &sh)) &&
	    sh.sh_type != SHT_NOBITS)
		read_fdes_of(f, elf, scn, &sh, 0);
	zp_sort(f->fdes, f->nfdes, sizeof *f->fdes, compare_fdes);
}

int symbols_unwind_range(struct symbols *s, const char *path, uint64_t addr, uint64_t *start,
			 uint64_t *end, struct zerr *err)
{
	struct elf_file *f = get_file(s, path, err);
	if (!f)
		return -1;
	if (!f->fdes_read)
		read_fdes(f);
	size_t i = zp_count_at_most(f->fdes, f->nfdes, sizeof *f->fdes,
				    offsetof(struct fde_range, start), addr);
	if (!i || addr >= f->fdes[i - 1].end)
		return 0;
	*start = f->fdes[i - 1].start;
	*end = f->fdes[i - 1].end;
	return 1;
}

/*
 * A source file's name as the DWARF gives it, joined to its unit's compile
 * directory when relative (DWARF 5 line tables name a subdirectory, "lib",
 * relative to it): the path valgrind and debuggers show, found from any
 * directory.  The string lives as long as f.
 */
static const char *source_path(struct elf_file *f, const char *name, const char *comp_dir)
{
	if (!name || name[0] == '/' || !comp_dir || !*comp_dir)
		return name;
	char buf[4096];
	if ((size_t)snprintf(buf, sizeof buf, "%s/%s", comp_dir, name) >= sizeof buf)
		return name;
	size_t i = strtab_intern(&f->paths, buf); /* before reading paths.s: it may move */
	return f->paths.s[i];
}

int symbols_line(struct symbols *s, const char *path, uint64_t addr, const char **file, int *line,
		 struct zerr *err)
{
	struct elf_file *f = get_file(s, path, err);
	*file = "";
	*line = 0;
	if (!f)
		return -1;
	Dwfl_Line *l = dwfl_module_getsrc(f->mod, addr);
	const char *name = l ? dwfl_lineinfo(l, NULL, line, NULL, NULL, NULL) : NULL;
	if (name)
		*file = source_path(f, name, dwfl_line_comp_dir(l));
	else
		*line = 0;
	return 0;
}

/* The DIE die stands for: its abstract origin's, followed to the end (at most a few steps). */
static Dwarf_Die *die_origin(Dwarf_Die *die, Dwarf_Die *buf)
{
	Dwarf_Attribute attr;
	for (int i = 0; i < 8 && dwarf_attr(die, DW_AT_abstract_origin, &attr) &&
			dwarf_formref_die(&attr, buf);
	     i++)
		die = buf;
	return die;
}

/*
 * The function (origin DIE) whose out-of-line code holds addr, its entry:
 * the outermost subprogram there (its ranges may be split, hot and cold),
 * into *out: 1, or 0.
 */
static int function_at(Dwarf_Die *cu, Dwarf_Addr addr, Dwarf_Die *out)
{
	Dwarf_Die *scopes = NULL;
	int n = dwarf_getscopes(cu, addr, &scopes), found = 0;
	for (int i = n - 1; i >= 0 && !found; i--)
		if (dwarf_tag(&scopes[i]) == DW_TAG_subprogram) {
			Dwarf_Die buf;
			*out = *die_origin(&scopes[i], &buf);
			found = 1;
		}
	free(scopes);
	return found;
}

int symbols_inline_call(struct symbols *s, const char *path, uint64_t addr, uint64_t callee,
			const char **file, int *line, struct zerr *err)
{
	struct elf_file *f = get_file(s, path, err);
	*file = "";
	*line = 0;
	if (!f)
		return -1;
	Dwarf_Addr bias = 0, cbias = 0;
	Dwarf_Die *cu = dwfl_module_addrdie(f->mod, addr, &bias);
	Dwarf_Die *ccu_p = dwfl_module_addrdie(f->mod, callee, &cbias);
	Dwarf_Die want, ccu;
	if (!cu || !ccu_p)
		return 0;
	ccu = *ccu_p;
	if (!function_at(&ccu, callee - cbias, &want))
		return 0;
	const char *want_name = dwarf_diename(&want);
	Dwarf_Die *scopes = NULL;
	int n = dwarf_getscopes(cu, addr - bias, &scopes), found = 0;
	for (int i = 0; i < n && !found; i++) {
		int tag = dwarf_tag(&scopes[i]);
		if (tag == DW_TAG_subprogram)
			break; /* the physical function: addr is in no inlined instance of callee */
		if (tag != DW_TAG_inlined_subroutine)
			continue;
		Dwarf_Die buf;
		Dwarf_Die *o = die_origin(&scopes[i], &buf);
		const char *name = dwarf_diename(o);
		if (dwarf_dieoffset(o) != dwarf_dieoffset(&want) &&
		    !(name && want_name && strcmp(name, want_name) == 0))
			continue;
		Dwarf_Attribute attr;
		Dwarf_Word at = 0, fi = 0;
		if (!dwarf_attr(&scopes[i], DW_AT_call_line, &attr) || dwarf_formudata(&attr, &at) ||
		    !at)
			break;
		*line = (int)at;
		found = 1;
		Dwarf_Files *files;
		size_t nfiles;
		if (dwarf_attr(&scopes[i], DW_AT_call_file, &attr) && !dwarf_formudata(&attr, &fi) &&
		    dwarf_getsrcfiles(cu, &files, &nfiles) == 0 && fi < nfiles) {
			const char *name = dwarf_filesrc(files, fi, NULL, NULL);
			Dwarf_Attribute dir;
			*file = source_path(f, name,
					    dwarf_formstring(dwarf_attr(cu, DW_AT_comp_dir, &dir)));
			if (!*file)
				*file = "";
		}
	}
	free(scopes);
	return found;
}

int symbols_line_addr(struct symbols *s, const char *path, const char *file, int line,
		      uint64_t *addr, struct zerr *err)
{
	struct elf_file *f = get_file(s, path, err);
	if (!f)
		return -1;
	Dwfl_Line **lines = NULL;
	size_t n = 0;
	uint64_t best = UINT64_MAX;
	if (dwfl_module_getsrc_file(f->mod, file, line, 0, &lines, &n) == 0)
		for (size_t i = 0; i < n; i++) {
			Dwarf_Addr a, bias;
			int at = 0;
			bool stmt = false;
			Dwarf_Line *dl = dwfl_dwarf_line(lines[i], &bias);
			if (dwfl_lineinfo(lines[i], &a, &at, NULL, NULL, NULL) && at == line &&
			    dl && dwarf_linebeginstatement(dl, &stmt) == 0 && stmt && a < best)
				best = a; /* the line's first instruction */
		}
	free(lines);
	if (best == UINT64_MAX)
		return 1;
	*addr = best;
	return 0;
}

/* ---- declarations --------------------------------------------------------
 *
 * Declarations are indexed once per file: every subprogram's code ranges
 * with its DW_AT_decl_file and DW_AT_decl_line, sorted.  Asking libdw for
 * the scopes of each address instead (dwarf_getscopes) walks the CU's
 * entries each time, which is quadratic in the functions of a CU.
 */

/* Where die is declared; an out-of-line copy points at its declaration. */
static int die_decl(struct elf_file *f, Dwarf_Die *die, const char **file, int *line)
{
	Dwarf_Attribute attr;
	Dwarf_Die origin, cu;
	if (dwarf_attr(die, DW_AT_abstract_origin, &attr) && dwarf_formref_die(&attr, &origin))
		die = &origin;
	const char *name = dwarf_decl_file(die);
	if (!name || dwarf_decl_line(die, line) != 0)
		return 0;
	const char *comp_dir = dwarf_diecu(die, &cu, NULL, NULL) && dwarf_attr(&cu, DW_AT_comp_dir, &attr)
				       ? dwarf_formstring(&attr)
				       : NULL;
	*file = source_path(f, name, comp_dir);
	return 1;
}

/*
 * Entries that may own subprograms with code: the scopes dwarf_getscopes
 * descends into.  Imported (dwz partial) units are not followed: they hold
 * shared declarations, not code, and following them per import would read
 * them once per importing CU.
 */
static int may_own_code(int tag)
{
	switch (tag) {
	case DW_TAG_compile_unit:
	case DW_TAG_module:
	case DW_TAG_lexical_block:
	case DW_TAG_with_stmt:
	case DW_TAG_catch_block:
	case DW_TAG_try_block:
	case DW_TAG_entry_point:
	case DW_TAG_inlined_subroutine:
	case DW_TAG_subprogram:
	case DW_TAG_namespace:
	case DW_TAG_class_type:
	case DW_TAG_structure_type: return 1;
	default: return 0;
	}
}

static void add_decl_ranges(struct elf_file *f, Dwarf_Die *die, Dwarf_Addr bias, size_t *cap)
{
	const char *file = NULL;
	int line = 0;
	if (!die_decl(f, die, &file, &line))
		file = NULL;
	Dwarf_Addr base, low, high;
	ptrdiff_t off = 0;
	while ((off = dwarf_ranges(die, off, &base, &low, &high)) > 0) {
		if (high <= low)
			continue;
		if (f->ndecls == *cap) {
			*cap = *cap ? 2 * *cap : 256;
			f->decls = zp_xrealloc(f->decls, *cap * sizeof *f->decls);
		}
		f->decls[f->ndecls++] =
			(struct decl_range){low + bias, high + bias, file, line, -1};
	}
}

/* Deep enough for any real program; a damaged file's loop of entries ends here. */
#define DECL_MAX_DEPTH 256

static void index_children(struct elf_file *f, Dwarf_Die *parent, Dwarf_Addr bias, int depth,
			   size_t *cap)
{
	Dwarf_Die die;
	if (depth > DECL_MAX_DEPTH || dwarf_child(parent, &die) != 0)
		return;
	do {
		f->dies_visited++;
		int tag = dwarf_tag(&die);
		if (tag == DW_TAG_subprogram)
			add_decl_ranges(f, &die, bias, cap);
		if (may_own_code(tag))
			index_children(f, &die, bias, depth + 1, cap);
	} while (dwarf_siblingof(&die, &die) == 0);
}

static int compare_decls(const void *a, const void *b)
{
	const struct decl_range *x = a, *y = b;
	if (x->low != y->low)
		return x->low < y->low ? -1 : 1;
	if (x->high != y->high)
		return x->high > y->high ? -1 : 1; /* the enclosing one first */
	return 0;
}

/* Links each range to the nearest earlier range holding its start. */
static void link_outer(struct elf_file *f)
{
	ptrdiff_t *stack = zp_xcalloc(f->ndecls + 1, sizeof *stack);
	size_t top = 0;
	for (size_t i = 0; i < f->ndecls; i++) {
		while (top && f->decls[stack[top - 1]].high <= f->decls[i].low)
			top--;
		f->decls[i].outer = top ? stack[top - 1] : -1;
		stack[top++] = (ptrdiff_t)i;
	}
	free(stack);
}

static void index_decls(struct elf_file *f)
{
	Dwarf_Die *cu = NULL;
	Dwarf_Addr bias;
	size_t cap = 0;
	f->decls_read = 1;
	while ((cu = dwfl_module_nextcu(f->mod, cu, &bias))) {
		f->dies_visited++;
		index_children(f, cu, bias, 0, &cap);
	}
	zp_sort(f->decls, f->ndecls, sizeof *f->decls, compare_decls);
	link_outer(f);
}

/* The declaration of the innermost subprogram whose code holds addr, if any. */
static int decl_of(struct elf_file *f, uint64_t addr, const char **file, int *line)
{
	if (!f->decls_read)
		index_decls(f);
	size_t lo = zp_count_at_most(f->decls, f->ndecls, sizeof *f->decls,
				     offsetof(struct decl_range, low), addr);
	for (ptrdiff_t i = (ptrdiff_t)lo - 1; i >= 0; i = f->decls[i].outer) {
		const struct decl_range *d = &f->decls[i];
		if (addr < d->high && d->file) {
			*file = d->file;
			*line = d->line;
			return 1;
		}
	}
	return 0;
}

int symbols_decl_line(struct symbols *s, const char *path, uint64_t addr, const char **file,
		      int *line, struct zerr *err)
{
	struct elf_file *f = get_file(s, path, err);
	*file = "";
	*line = 0;
	if (!f)
		return -1;
	if (decl_of(f, addr, file, line))
		return 0;
	return symbols_line(s, path, addr, file, line, err);
}

size_t symbols_dwarf_visits(const struct symbols *s)
{
	size_t n = 0;
	for (size_t i = 0; i < s->nfiles; i++)
		n += s->files[i]->dies_visited;
	return n;
}

/*
 * The length of name's part before its parameter list: the '(' matching the
 * last ')' (what follows it, " const", " &", is qualifiers); len when name
 * does not end so.
 */
static size_t before_parameters(const char *name, size_t len)
{
	const char *close = NULL;
	for (const char *c = name; c < name + len; c++)
		if (*c == ')')
			close = c;
	if (!close || close == name)
		return len;
	int depth = 0;
	for (const char *c = close; c >= name; c--) {
		depth += *c == ')' ? 1 : *c == '(' ? -1 : 0;
		if (depth == 0)
			return (size_t)(c - name);
	}
	return len;
}

static int ident_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
	       c == '$';
}

/* 1 when name[i..len) starts the keyword "operator" as the start of a name's component. */
static int at_operator(const char *name, size_t i, size_t len)
{
	return len - i >= 8 && !strncmp(name + i, "operator", 8) &&
	       (i + 8 == len || !ident_char(name[i + 8])) &&
	       (i == 0 || name[i - 1] == ':' || name[i - 1] == ' ');
}

/*
 * The end of the operator's own name that starts at name[i] with "operator":
 * "operator[]", "operator<<=", "operator\"\" _km", "operator()".  A space
 * after the keyword ("operator new[]", "operator delete", a conversion,
 * "operator char const*") makes the rest of the name the operator's: *rest
 * is set.
 */
static size_t operator_end(const char *name, size_t i, size_t len, int *rest)
{
	static const char *const ops[] = {
		"<<=", ">>=", "<=>", "->*", "()", "[]", "<<", ">>", "<=", ">=", "->", "==", "!=",
		"&&",  "||",  "++",  "--",  "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "+",
		"-",   "*",   "/",   "%",   "^",  "&",  "|",  "~",  "!",  "=",  "<",  ">",  ",",
	};
	size_t j = i + 8;
	*rest = 0;
	if (j < len && name[j] == ' ') {
		*rest = 1;
		return len;
	}
	if (len - j >= 2 && name[j] == '"' && name[j + 1] == '"') { /* a literal operator */
		j += 2;
		if (j < len && name[j] == ' ')
			j++;
		while (j < len && ident_char(name[j]))
			j++;
		return j;
	}
	for (size_t k = 0; k < sizeof ops / sizeof *ops; k++) {
		size_t n = strlen(ops[k]);
		if (len - j >= n && !strncmp(name + j, ops[k], n))
			return j + n;
	}
	return j;
}

/* The end of the group opened at name[i] ('<', '(', '{', '['), or len. */
static size_t group_end(const char *name, size_t i, size_t len)
{
	char open = name[i];
	char close = open == '<' ? '>' : open == '(' ? ')' : open == '{' ? '}' : ']';
	int depth = 0;
	for (size_t j = i; j < len; j++) {
		char c = name[j];
		if (c != open && (c == '(' || c == '{') && open != '(' && open != '{') {
			j = group_end(name, j, len) - 1; /* "<int (int)>": no '>' of its own inside */
			continue;
		}
		depth += c == open ? 1 : c == close ? -1 : 0;
		if (depth == 0)
			return j + 1;
	}
	return len;
}

/*
 * Where name[0..len) starts past a return type: after its last space outside
 * <>, () and {} before the name's operator, if it has one ("bool operator<",
 * "unsigned long long operator\"\" _km").
 */
static size_t past_return_type(const char *name, size_t len)
{
	size_t start = 0;
	for (size_t i = 0; i < len;) {
		if (at_operator(name, i, len))
			break;
		if (name[i] == '<' || name[i] == '(' || name[i] == '{') {
			i = group_end(name, i, len);
			continue;
		}
		if (name[i] == ' ')
			start = i + 1;
		i++;
	}
	return start;
}

/*
 * name[0..len) (a qualified name, with no return type or parameter list) with
 * the template arguments and ABI tags ("[abi:cxx11]") of its qualifiers left
 * out when strip_qualifiers, those of its last component when strip_last:
 * "std::map<int, int>::operator[]" as "std::map::operator[]".  Operator names
 * are kept whole.  Returns the length written to out (size cap), or cap when
 * it does not fit.
 */
static size_t without_templates(const char *name, size_t len, int strip_qualifiers,
				int strip_last, char *out, size_t cap)
{
	/* where the last component starts: after the last "::" outside any group */
	size_t last = 0;
	for (size_t i = 0; i < len;) {
		int rest;
		if (at_operator(name, i, len)) {
			i = operator_end(name, i, len, &rest);
			if (rest)
				break;
		} else if (name[i] == '<' || name[i] == '(' || name[i] == '{' || name[i] == '[') {
			i = group_end(name, i, len);
		} else if (name[i] == ':' && i + 1 < len && name[i + 1] == ':') {
			i += 2;
			last = i;
		} else {
			i++;
		}
	}
	size_t n = 0;
	for (size_t i = 0; i < len;) {
		size_t from = i, to;
		int rest, drop = 0;
		if (at_operator(name, i, len)) {
			to = operator_end(name, i, len, &rest);
		} else if (name[i] == '<' || (name[i] == '[' && !strncmp(name + i, "[abi:", 5))) {
			to = group_end(name, i, len);
			drop = i < last ? strip_qualifiers : strip_last;
			if (drop && n > 0 && out[n - 1] == ' ') /* "operator< <int>" */
				n--;
		} else if (name[i] == '(' || name[i] == '{' || name[i] == '[') {
			to = group_end(name, i, len);
		} else {
			to = i + 1;
		}
		if (!drop) {
			if (n + (to - from) >= cap)
				return cap;
			memcpy(out + n, name + from, to - from);
			n += to - from;
		}
		i = to;
	}
	out[n] = 0;
	return n;
}

/*
 * The name a mangled glob stands for ("_Z4leafi": "leaf(int)", Fortran's
 * "__m_MOD_f": "m::f"), as perf and uftrace users paste them; NULL for any
 * other glob.  The last
 * one is kept: a glob is matched against every symbol of a file.
 */
static const char *demangled_glob(const char *glob)
{
	static char *last_glob, *last;
	if (glob[0] != '_' || (glob[1] != 'Z' && glob[1] != '_'))
		return NULL;
	if (!last_glob || strcmp(last_glob, glob) != 0) {
		free(last_glob);
		free(last);
		last_glob = strdup(glob);
		last = symbols_demangle(glob);
	}
	return last;
}

/*
 * The C++ ABI's standard abbreviations as c++filt and gdb spell them out
 * (libiberty's verbose form) and as __cxa_demangle, whose names zond shows,
 * keeps them: "f(std::basic_istream<char, std::char_traits<char> >&)" is
 * zond's "f(std::istream&)".
 */
static const struct {
	const char *verbose, *abbreviated;
} std_abbreviations[] = {
	{"std::basic_string<char, std::char_traits<char>, std::allocator<char> >", "std::string"},
	{"std::basic_istream<char, std::char_traits<char> >", "std::istream"},
	{"std::basic_ostream<char, std::char_traits<char> >", "std::ostream"},
	{"std::basic_iostream<char, std::char_traits<char> >", "std::iostream"},
};

/*
 * glob with c++filt's spelled-out standard names abbreviated as zond shows
 * them, or NULL when it has none.  The last one is kept, as demangled_glob's.
 */
static const char *abbreviated_glob(const char *glob)
{
	static char *last_glob, *last;
	/* (glob is last itself when symbols_name_matches tries it: nothing more to do) */
	if (glob == last || !strstr(glob, "std::basic_"))
		return NULL;
	if (last_glob && strcmp(last_glob, glob) == 0)
		return last;
	free(last_glob);
	free(last);
	last_glob = zp_xstrdup(glob);
	last = zp_xstrdup(glob);
	for (size_t i = 0; i < sizeof std_abbreviations / sizeof *std_abbreviations; i++) {
		const char *v = std_abbreviations[i].verbose, *a = std_abbreviations[i].abbreviated;
		size_t vlen = strlen(v), alen = strlen(a);
		for (char *at; (at = strstr(last, v));)
			memmove(at + alen, at + vlen, strlen(at + vlen) + 1), memcpy(at, a, alen);
	}
	if (strcmp(last, glob) == 0) {
		free(last);
		last = NULL;
	}
	return last;
}

/* 1 when glob names s itself or as a pattern. */
static int glob_matches(const char *glob, const char *s)
{
	return strcmp(glob, s) == 0 || fnmatch(glob, s, 0) == 0;
}

int symbols_name_matches(const char *glob, const char *name)
{
	/* a name names itself, whatever it holds ('[' of "f() [clone .cold]" is a glob's) */
	if (glob_matches(glob, name))
		return 1;
	const char *cxx = demangled_glob(glob);
	if (cxx && strcmp(cxx, name) == 0)
		return 1;
	const char *abbreviated = abbreviated_glob(glob);
	if (abbreviated && symbols_name_matches(abbreviated, name))
		return 1;
	size_t len = strlen(name);
	size_t end = before_parameters(name, len);
	if (end == len)
		return 0;
	size_t start = past_return_type(name, end);
	char base[1024];
	if (end - start >= sizeof base)
		return 0;
	memcpy(base, name + start, end - start);
	base[end - start] = 0;
	if (glob_matches(glob, base))
		return 1;
	/*
	 * a template's instances by the template's name, at every level of the
	 * name: "run" names "run<int>", "Box::sum" and "Box<long>::sum" name
	 * "Box<long>::sum", "Box::get<int>" names "Box<long>::get<int>"
	 */
	char shorter[sizeof base], previous[sizeof base] = "";
	for (int form = 1; form < 4; form++) {
		size_t n = without_templates(base, end - start, form & 2, form & 1, shorter,
					     sizeof shorter);
		if (n == sizeof shorter || n == 0 || !strcmp(shorter, base) || !strcmp(shorter, previous))
			continue;
		if (glob_matches(glob, shorter))
			return 1;
		memcpy(previous, shorter, n + 1);
	}
	return 0;
}

int symbols_is_fragment(const char *name)
{
	size_t n = strlen(name);
	static const char cold[] = ".cold", cxx_cold[] = " [clone .cold]";
	return (n >= sizeof cold - 1 && strcmp(name + n - (sizeof cold - 1), cold) == 0) ||
	       (n >= sizeof cxx_cold - 1 && strcmp(name + n - (sizeof cxx_cold - 1), cxx_cold) == 0);
}

int symbols_build_id(const char *path, char *buf, size_t len)
{
	if (!symbols_is_elf(path, NULL))
		return 1;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf *elf = fd < 0 ? NULL : elf_begin(fd, ELF_C_READ_MMAP, NULL);
	const void *id = NULL;
	ssize_t n = elf ? dwelf_elf_gnu_build_id(elf, &id) : -1;
	int rc = 1;
	if (n > 0 && (size_t)n * 2 < len) {
		for (ssize_t i = 0; i < n; i++)
			snprintf(buf + 2 * i, 3, "%02x", ((const unsigned char *)id)[i]);
		rc = 0;
	}
	elf_end(elf);
	if (fd >= 0)
		close(fd);
	return rc;
}

int symbols_each_function(struct symbols *s, const char *path,
			  void (*fn)(void *arg, const struct symbol *sym), void *arg,
			  struct zerr *err)
{
	struct elf_file *f = get_file(s, path, err);
	if (!f)
		return -1;
	size_t p = 0;
	for (size_t i = 0; i < f->nsyms; i++) {
		struct func_sym *sym = &f->syms[i];
		while (p + 1 < f->nprimary && f->syms[f->primary[p + 1]].start <= sym->start)
			p++;
		uint64_t size = sym->size ? sym->size : f->extent[p];
		struct symbol out = {sym_name(sym), sym->start, size, sym->start + size};
		if (out.size)
			fn(arg, &out);
	}
	return 0;
}

int symbols_named(struct symbols *s, const char *path, const char *name, struct symbol *out,
		  struct zerr *err)
{
	struct elf_file *f = get_file(s, path, err);
	if (!f)
		return -1;
	int n = dwfl_module_getsymtab(f->mod);
	for (int i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Word shndx;
		Elf *elf;
		uint64_t start;
		const char *sname = symtab_entry(f, i, &sym, &start, &shndx, &elf);
		if (!sname || strcmp(sname, name) != 0)
			continue;
		*out = (struct symbol){.name = sname, .start = start, .size = sym.st_size,
				       .nested = start + sym.st_size};
		return 1;
	}
	return 0;
}

/*
 * Where link-time address addr lies in the file: a PT_LOAD segment's file
 * bytes (*off, and *n bytes of them from there), 1; 0 when it is in none;
 * -1 with err set.  The raw file in *raw.
 */
static int file_bytes_at(struct symbols *s, const char *path, uint64_t addr, const char **raw,
			 uint64_t *off, uint64_t *n, struct zerr *err)
{
	struct elf_file *f = get_file(s, path, err);
	if (!f)
		return -1;
	GElf_Addr bias;
	Elf *elf = dwfl_module_getelf(f->mod, &bias);
	size_t nphdr = 0, size = 0;
	*raw = elf ? elf_rawfile(elf, &size) : NULL;
	if (!*raw || elf_getphdrnum(elf, &nphdr) != 0)
		return zerr_set(err, "%s: damaged ELF file (%s)", path, elf_errmsg(-1));
	for (size_t i = 0; i < nphdr; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD || addr < ph.p_vaddr ||
		    addr - ph.p_vaddr >= ph.p_filesz)
			continue;
		*off = ph.p_offset + (addr - ph.p_vaddr);
		*n = ph.p_filesz - (addr - ph.p_vaddr);
		if (*off > size)
			return zerr_set(err, "%s: damaged ELF file (segment past the end)", path);
		if (*n > size - *off)
			*n = size - *off;
		return 1;
	}
	return 0;
}

long symbols_read(struct symbols *s, const char *path, uint64_t addr, uint8_t *buf, size_t len,
		  struct zerr *err)
{
	const char *raw;
	uint64_t off, n;
	int found = file_bytes_at(s, path, addr, &raw, &off, &n, err);
	if (found <= 0)
		return found;
	if (n > len)
		n = len;
	memcpy(buf, raw + off, n);
	return (long)n;
}

int symbols_same_bytes(struct symbols *s, const char *path, uint64_t addr, const uint8_t *bytes,
		       size_t len, struct zerr *err)
{
	uint8_t *file = zp_xmalloc(len ? len : 1);
	long got = symbols_read(s, path, addr, file, len, err);
	int same = got < 0 ? -1 : (size_t)got == len && memcmp(file, bytes, len) == 0;
	free(file);
	return same;
}

int symbols_file_offset(struct symbols *s, const char *path, uint64_t addr, uint64_t len,
			uint64_t *off, struct zerr *err)
{
	const char *raw;
	uint64_t n;
	int found = file_bytes_at(s, path, addr, &raw, off, &n, err);
	return found <= 0 ? found : n >= len;
}

/* The file's ELF handle and its number of program headers; NULL with err set. */
static Elf *program_headers(struct symbols *s, const char *path, size_t *nphdr, struct zerr *err)
{
	struct elf_file *f = get_file(s, path, err);
	if (!f)
		return NULL;
	GElf_Addr bias;
	Elf *elf = dwfl_module_getelf(f->mod, &bias);
	*nphdr = 0;
	if (!elf || elf_getphdrnum(elf, nphdr) != 0) {
		zerr_set(err, "%s: damaged ELF file (%s)", path, elf_errmsg(-1));
		return NULL;
	}
	return elf;
}

int symbols_load_start(struct symbols *s, const char *path, uint64_t *start, struct zerr *err)
{
	size_t nphdr;
	Elf *elf = program_headers(s, path, &nphdr, err);
	if (!elf)
		return -1;
	*start = UINT64_MAX;
	for (size_t i = 0; i < nphdr; i++) {
		GElf_Phdr ph;
		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD && ph.p_vaddr < *start)
			*start = ph.p_vaddr & ~(uint64_t)0xfff;
	}
	if (*start == UINT64_MAX)
		return zerr_set(err, "%s: no loadable segment", path);
	return 0;
}

struct seg_range {
	uint64_t start, end;
};

static int range_cmp(const void *a, const void *b)
{
	const struct seg_range *x = a, *y = b;
	return x->start < y->start ? -1 : x->start > y->start;
}

int symbols_segment_gap(struct symbols *s, const char *path, uint64_t *addr, uint64_t *len,
			struct zerr *err)
{
	size_t nphdr;
	Elf *elf = program_headers(s, path, &nphdr, err);
	if (!elf)
		return -1;
	struct seg_range *r = zp_xmalloc((2 * nphdr + 1) * sizeof *r);
	size_t n = 0;
	for (size_t i = 0; i < nphdr; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (ph.p_memsz)
			r[n++] = (struct seg_range){ph.p_vaddr, ph.p_vaddr + ph.p_memsz};
		if (ph.p_filesz)
			r[n++] = (struct seg_range){ph.p_paddr, ph.p_paddr + ph.p_filesz};
	}
	zp_sort(r, n, sizeof *r, range_cmp);
	uint64_t best = 0, best_len = 0, end = n ? r[0].end : 0;
	for (size_t i = 1; i < n; i++) {
		uint64_t start = (end + 15) & ~(uint64_t)15;
		if (r[i].start > start && r[i].start - start > best_len) {
			best = start;
			best_len = r[i].start - start;
		}
		if (r[i].end > end)
			end = r[i].end;
	}
	free(r);
	*addr = best;
	*len = best_len;
	return 0;
}
