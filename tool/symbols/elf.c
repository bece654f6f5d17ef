/*
 * elf.c - what an ELF file says about itself, through libelf: its header
 * (machine, class, type, entry), its program interpreter, whether it is a
 * library, its static TLS, its code segments; for zond trace's rebuild its
 * loadable segments, executable sections and code labels.  No symbol
 * lookups and no DWARF: symbols.c.  Every command that has to know what
 * kind of file it was given asks here, so that each fact is read one way
 * and each bad file gets the same words (symbols.h, "Errors").
 */
#include "symbols.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../model/profile.h"

/* ---- checking a file ---------------------------------------------------- */

static int check_elf(int fd, const char *path, struct zerr *err)
{
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	GElf_Ehdr ehdr;
	int rc = 1;
	if (!elf || elf_kind(elf) != ELF_K_ELF)
		rc = zerr_set(err, "%s: not an ELF file", path);
	else if (!gelf_getehdr(elf, &ehdr))
		rc = zerr_set(err, "%s: damaged ELF file (%s)", path, elf_errmsg(-1));
	else if (ehdr.e_type != ET_EXEC && ehdr.e_type != ET_DYN)
		rc = zerr_set(err, "%s: an ELF file but not a program or shared library", path);
	elf_end(elf);
	return rc < 0 ? 0 : 1;
}

int symbols_is_elf(const char *path, struct zerr *err)
{
	elf_version(EV_CURRENT);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT)
			zerr_set(err, "%s: no such file", path);
		else
			zerr_set(err, "%s: not readable (%s)", path, strerror(errno));
		return 0;
	}
	struct stat st;
	int ok = 0;
	if (fstat(fd, &st) < 0)
		zerr_set(err, "%s: not readable (%s)", path, strerror(errno));
	else if (S_ISDIR(st.st_mode))
		zerr_set(err, "%s: is a directory, not an ELF file", path);
	else if (!S_ISREG(st.st_mode))
		zerr_set(err, "%s: not an ELF file (not a regular file)", path);
	else
		ok = check_elf(fd, path, err);
	close(fd);
	return ok;
}


/* ---- the dynamic part --------------------------------------------------- */

int symbols_interpreter(const char *path, char *buf, size_t len, struct zerr *err)
{
	if (!symbols_is_elf(path, err))
		return -1;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf *elf = fd < 0 ? NULL : elf_begin(fd, ELF_C_READ_MMAP, NULL);
	size_t nphdr = 0;
	int rc = 1;
	if (!elf || elf_getphdrnum(elf, &nphdr) != 0)
		rc = zerr_set(err, "%s: damaged ELF file (%s)", path, elf_errmsg(-1));
	for (size_t i = 0; rc == 1 && i < nphdr; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_INTERP)
			continue;
		size_t size;
		const char *raw = elf_rawfile(elf, &size);
		if (!raw || ph.p_offset >= size || ph.p_filesz > size - ph.p_offset ||
		    ph.p_filesz == 0 || ph.p_filesz > len || raw[ph.p_offset + ph.p_filesz - 1]) {
			rc = zerr_set(err, "%s: damaged program interpreter entry", path);
		} else {
			memcpy(buf, raw + ph.p_offset, ph.p_filesz);
			rc = 0;
		}
	}
	elf_end(elf);
	if (fd >= 0)
		close(fd);
	return rc;
}

/* 1 when elf's dynamic section has an entry tagged tag, its value in *value (may be NULL). */
static int dynamic_entry(Elf *elf, int64_t tag, uint64_t *value)
{
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn));) {
		GElf_Shdr sh;
		Elf_Data *data;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNAMIC ||
		    !(data = elf_getdata(scn, NULL)) || !sh.sh_entsize)
			continue;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Dyn dyn;
			if (gelf_getdyn(data, (int)i, &dyn) && dyn.d_tag == tag) {
				if (value)
					*value = dyn.d_un.d_val;
				return 1;
			}
		}
	}
	return 0;
}

int symbols_is_library(const char *path)
{
	char interp[8];
	struct zerr ignored;
	if (symbols_interpreter(path, interp, sizeof interp, &ignored) != 1)
		return 0; /* a loader named (or not ELF): a program */
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf *elf = fd < 0 ? NULL : elf_begin(fd, ELF_C_READ_MMAP, NULL);
	GElf_Ehdr eh;
	int library = 0;
	if (elf && gelf_getehdr(elf, &eh) && eh.e_type == ET_DYN)
		library = dynamic_entry(elf, DT_NEEDED, NULL) || dynamic_entry(elf, DT_SONAME, NULL);
	elf_end(elf);
	if (fd >= 0)
		close(fd);
	return library;
}

int symbols_run_path(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf *elf = fd < 0 ? NULL : elf_begin(fd, ELF_C_READ_MMAP, NULL);
	int found = elf && elf_kind(elf) == ELF_K_ELF &&
		    (dynamic_entry(elf, DT_RUNPATH, NULL) || dynamic_entry(elf, DT_RPATH, NULL));
	elf_end(elf);
	if (fd >= 0)
		close(fd);
	return found;
}

/* 1 when elf's dynamic section has DF_STATIC_TLS in DT_FLAGS. */
static int has_static_tls_flag(Elf *elf)
{
	uint64_t flags = 0;
	return dynamic_entry(elf, DT_FLAGS, &flags) && (flags & DF_STATIC_TLS);
}

uint64_t symbols_static_tls(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf *elf = fd < 0 ? NULL : elf_begin(fd, ELF_C_READ_MMAP, NULL);
	size_t nphdr = 0;
	uint64_t bytes = 0;
	if (elf && elf_kind(elf) == ELF_K_ELF && elf_getphdrnum(elf, &nphdr) == 0 &&
	    has_static_tls_flag(elf)) {
		for (size_t i = 0; i < nphdr; i++) {
			GElf_Phdr ph;
			if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_TLS)
				continue;
			uint64_t align = ph.p_align > 1 ? ph.p_align : 1;
			if (ph.p_memsz < UINT64_MAX - align)
				bytes = (ph.p_memsz + align - 1) / align * align;
		}
	}
	elf_end(elf);
	if (fd >= 0)
		close(fd);
	return bytes;
}

int symbols_made_by(const char *path, const char *word)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf *elf = fd < 0 ? NULL : elf_begin(fd, ELF_C_READ_MMAP, NULL);
	size_t shstrndx, len = strlen(word);
	int found = 0;
	if (elf && elf_kind(elf) == ELF_K_ELF && elf_getshdrstrndx(elf, &shstrndx) == 0) {
		for (Elf_Scn *scn = NULL; !found && (scn = elf_nextscn(elf, scn));) {
			GElf_Shdr sh;
			const char *name;
			Elf_Data *data;
			if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
			    !(name = elf_strptr(elf, shstrndx, sh.sh_name)) ||
			    strcmp(name, ".comment") != 0 || !(data = elf_getdata(scn, NULL)))
				continue;
			/* NUL-separated strings: searched as bytes, none read past the end */
			const char *bytes = data->d_buf;
			for (size_t i = 0; !found && data->d_size >= len && i <= data->d_size - len; i++)
				found = memcmp(bytes + i, word, len) == 0;
		}
	}
	elf_end(elf);
	if (fd >= 0)
		close(fd);
	return found;
}


/* ---- how its calls are bound ------------------------------------------- */

void symbols_linkage_free(struct symbols_linkage *m)
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

/* A function's symbol, as a relocation names it: once per relocation (made distinct later). */
static void note_got(struct symbols_linkage *m, const char *name, size_t *cap)
{
	if (m->got == *cap) {
		*cap = *cap ? 2 * *cap : 64;
		m->got_names = zp_xrealloc(m->got_names, *cap * sizeof *m->got_names);
	}
	m->got_names[m->got++] = zp_xstrdup(name);
}

static int compare_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* names[0..n) sorted, each once (the repeats freed); their number. */
static size_t sort_distinct(char **names, size_t n)
{
	zp_sort(names, n, sizeof *names, compare_names);
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		if (k && !strcmp(names[k - 1], names[i]))
			free(names[i]);
		else
			names[k++] = names[i];
	}
	return k;
}

/*
 * The functions of m's GOT relocations, each once, by the names zond shows
 * (demangled: two symbols may demangle alike): a function in several
 * vtables or GOT slots has a relocation for each.
 */
static void distinct_got(struct symbols_linkage *m)
{
	m->got = sort_distinct(m->got_names, m->got);
	for (size_t i = 0; i < m->got; i++) {
		char *cxx = symbols_demangle(m->got_names[i]);
		if (cxx) {
			free(m->got_names[i]);
			m->got_names[i] = cxx;
		}
	}
	m->got = sort_distinct(m->got_names, m->got);
}

/* One relocation section against the dynamic symbols. */
static void scan_relocs(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh, unsigned machine,
			struct symbols_linkage *m, size_t *cap)
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
				note_got(m, name, cap);
		}
	}
}

static void scan_dynamic(Elf_Scn *scn, const GElf_Shdr *sh, struct symbols_linkage *m)
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

static void scan_dynsym(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh, struct symbols_linkage *m)
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

/* Whether the dynamic symbol table scn has an undefined symbol called name. */
static int dynsym_undefined(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh, const char *name)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	size_t n = sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0;
	for (size_t i = 1; d && i < n; i++) {
		GElf_Sym sym;
		const char *s;
		if (gelf_getsym(d, (int)i, &sym) && sym.st_shndx == SHN_UNDEF &&
		    (s = elf_strptr(elf, sh->sh_link, sym.st_name)) && strcmp(s, name) == 0)
			return 1;
	}
	return 0;
}

int symbols_imports(const char *path, const char *name)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	elf_version(EV_CURRENT);
	Elf *elf = fd < 0 ? NULL : elf_begin(fd, ELF_C_READ_MMAP, NULL);
	int found = 0;
	for (Elf_Scn *scn = elf && elf_kind(elf) == ELF_K_ELF ? elf_nextscn(elf, NULL) : NULL;
	     scn && !found; scn = elf_nextscn(elf, scn)) {
		GElf_Shdr sh;
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_DYNSYM)
			found = dynsym_undefined(elf, scn, &sh, name);
	}
	elf_end(elf);
	if (fd >= 0)
		close(fd);
	return found;
}

int symbols_linkage(const char *path, struct symbols_linkage *m, struct zerr *err)
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
	size_t cap = 0;
	for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn; scn = elf_nextscn(elf, scn)) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_RELA || sh.sh_type == SHT_REL)
			scan_relocs(elf, scn, &sh, eh.e_machine, m, &cap);
		else if (sh.sh_type == SHT_DYNAMIC)
			scan_dynamic(scn, &sh, m);
		else if (sh.sh_type == SHT_DYNSYM)
			scan_dynsym(elf, scn, &sh, m);
	}
	distinct_got(m);
	elf_end(elf);
	close(fd);
	return 0;
}

/* ---- the header ------------------------------------------------------------ */

/* The ELF header of path into eh; -1 with err set. */
static int read_ehdr(const char *path, GElf_Ehdr *eh, struct zerr *err)
{
	if (!symbols_is_elf(path, err))
		return -1;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf *elf = fd < 0 ? NULL : elf_begin(fd, ELF_C_READ_MMAP, NULL);
	int rc = elf && gelf_getehdr(elf, eh)
			 ? 0
			 : zerr_set(err, "%s: damaged ELF file (%s)", path, elf_errmsg(-1));
	elf_end(elf);
	if (fd >= 0)
		close(fd);
	return rc;
}

int symbols_machine(const char *path, struct zerr *err)
{
	GElf_Ehdr eh;
	return read_ehdr(path, &eh, err) < 0 ? -1 : eh.e_machine;
}

int symbols_class(const char *path, struct zerr *err)
{
	GElf_Ehdr eh;
	if (read_ehdr(path, &eh, err) < 0)
		return -1;
	return eh.e_ident[EI_CLASS] == ELFCLASS64 ? 64 : 32;
}

int symbols_entry(const char *path, uint64_t *entry, struct zerr *err)
{
	GElf_Ehdr eh;
	if (read_ehdr(path, &eh, err) < 0)
		return -1;
	*entry = eh.e_entry;
	return 0;
}


/*
 * Whether the dynamic segment's DT_FLAGS_1 has DF_1_PIE: a static-pie
 * program is ET_DYN without an interpreter, as a library is; the linker's
 * flag tells them apart.
 */
static int dyn_pie(Elf *elf, const GElf_Phdr *ph)
{
	Elf_Data *d = elf_getdata_rawchunk(elf, (int64_t)ph->p_offset, ph->p_filesz, ELF_T_DYN);
	GElf_Dyn dyn;
	for (int i = 0; d && gelf_getdyn(d, i, &dyn) && dyn.d_tag != DT_NULL; i++)
		if (dyn.d_tag == DT_FLAGS_1)
			return (dyn.d_un.d_val & DF_1_PIE) != 0;
	return 0;
}

int symbols_elf_header(const char *path, struct symbols_elf *out, struct zerr *err)
{
	elf_version(EV_CURRENT);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return zerr_set(err, "%s: cannot read: %s", path, strerror(errno));
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	GElf_Ehdr eh;
	size_t nphdr = 0;
	int rc = 0;
	if (elf && elf_kind(elf) == ELF_K_ELF && gelf_getehdr(elf, &eh)) {
		*out = (struct symbols_elf){.machine = eh.e_machine,
					    .bits = eh.e_ident[EI_CLASS] == ELFCLASS64 ? 64 : 32,
					    .type = eh.e_type,
					    .entry = eh.e_entry};
		if (elf_getphdrnum(elf, &nphdr) == 0)
			for (size_t i = 0; i < nphdr; i++) {
				GElf_Phdr ph;
				if (!gelf_getphdr(elf, (int)i, &ph))
					continue;
				if (ph.p_type == PT_INTERP)
					out->interp = 1;
				if (ph.p_type == PT_DYNAMIC)
					out->pie = dyn_pie(elf, &ph);
			}
		rc = 1;
	}
	elf_end(elf);
	close(fd);
	return rc;
}

const char *symbols_machine_name(unsigned machine)
{
	switch (machine) {
	case EM_386: return "i386";
	case EM_X86_64: return "x86_64";
	case EM_ARM: return "arm";
	case EM_AARCH64: return "aarch64";
	case EM_RISCV: return "riscv";
	case EM_PPC64: return "ppc64";
	case EM_S390: return "s390x";
	case EM_MIPS: return "mips";
	default: return NULL;
	}
}

/* ---- the code -------------------------------------------------------------- */

int symbols_code_segments(const char *path, struct symbols_segment **segs, size_t *n,
			  struct zerr *err)
{
	elf_version(EV_CURRENT);
	*segs = NULL;
	*n = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf *elf = fd >= 0 ? elf_begin(fd, ELF_C_READ, NULL) : NULL;
	size_t nphdr = 0;
	if (!elf || elf_kind(elf) != ELF_K_ELF || elf_getphdrnum(elf, &nphdr) != 0) {
		elf_end(elf);
		if (fd >= 0)
			close(fd);
		return zerr_set(err, "%s: cannot read as an ELF file", path);
	}
	int rc = 0;
	struct stat st;
	uint64_t size = fstat(fd, &st) == 0 ? (uint64_t)st.st_size : 0;
	for (size_t i = 0; i < nphdr && rc == 0; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD || !(ph.p_flags & PF_X))
			continue;
		if (ph.p_offset > size || ph.p_filesz > size - ph.p_offset) {
			/* checked before the buffer: a header's size is no reason to allocate it */
			rc = zerr_set(err, "%s: truncated ELF file", path);
			break;
		}
		uint8_t *bytes = zp_xmalloc(ph.p_filesz ? ph.p_filesz : 1);
		if (pread(fd, bytes, ph.p_filesz, (off_t)ph.p_offset) != (ssize_t)ph.p_filesz) {
			free(bytes);
			rc = zerr_set(err, "%s: truncated ELF file", path);
			break;
		}
		*segs = zp_xrealloc(*segs, (*n + 1) * sizeof **segs);
		(*segs)[(*n)++] = (struct symbols_segment){ph.p_vaddr, ph.p_filesz, bytes};
	}
	elf_end(elf);
	close(fd);
	if (rc < 0)
		symbols_free_segments(*segs, *n), *segs = NULL, *n = 0;
	return rc;
}

void symbols_free_segments(struct symbols_segment *segs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(segs[i].bytes);
	free(segs);
}

/* ---- the code a trace ran (zond trace's rebuild) ------------------------- */

/*
 * path opened for libelf, or NULL with err set.  Read (ELF_C_READ), not
 * mapped, as the trace rebuild has always read them: it runs inside QEMU's
 * plugin too.
 */
static Elf *begin_read(const char *path, int *fd, struct zerr *err)
{
	elf_version(EV_CURRENT);
	*fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf *elf = *fd >= 0 ? elf_begin(*fd, ELF_C_READ, NULL) : NULL;
	if (!elf) {
		if (*fd >= 0)
			close(*fd);
		zerr_set(err, "%s: cannot read as an ELF file", path);
	}
	return elf;
}

static void end_read(Elf *elf, int fd)
{
	elf_end(elf);
	close(fd);
}

int symbols_loads(const char *path, struct symbols_load **loads, size_t *n, struct zerr *err)
{
	*loads = NULL;
	*n = 0;
	int fd;
	Elf *elf = begin_read(path, &fd, err);
	if (!elf)
		return -1;
	size_t nphdr = 0;
	if (elf_getphdrnum(elf, &nphdr) != 0)
		nphdr = 0; /* no ELF file, or damaged headers: no segments */
	for (size_t i = 0; i < nphdr; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		*loads = zp_xrealloc(*loads, (*n + 1) * sizeof **loads);
		(*loads)[(*n)++] = (struct symbols_load){.vaddr = ph.p_vaddr,
							 .memsz = ph.p_memsz,
							 .offset = ph.p_offset,
							 .filesz = ph.p_filesz,
							 .align = ph.p_align,
							 .exec = (ph.p_flags & PF_X) != 0};
	}
	end_read(elf, fd);
	return 0;
}

void symbols_free_ranges(struct symbols_range *ranges, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(ranges[i].name);
	free(ranges);
}

/* elf's executable sections (symbols_code_sections). */
static void code_sections(Elf *elf, struct symbols_range **secs, size_t *n)
{
	size_t shstrndx;
	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return;
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn));) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_EXECINSTR) || !sh.sh_size)
			continue;
		const char *name = elf_strptr(elf, shstrndx, sh.sh_name);
		*secs = zp_xrealloc(*secs, (*n + 1) * sizeof **secs);
		(*secs)[(*n)++] = (struct symbols_range){sh.sh_addr, sh.sh_addr + sh.sh_size,
							 zp_xstrdup(name ? name : "?")};
	}
}

int symbols_code_sections(const char *path, struct symbols_range **secs, size_t *n,
			  struct zerr *err)
{
	*secs = NULL;
	*n = 0;
	int fd;
	Elf *elf = begin_read(path, &fd, err);
	if (!elf)
		return -1;
	code_sections(elf, secs, n);
	end_read(elf, fd);
	return 0;
}

static int compare_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static int compare_ranges(const void *a, const void *b)
{
	return compare_u64(&((const struct symbols_range *)a)->start,
			   &((const struct symbols_range *)b)->start);
}

/* The name of a typeless code symbol worth a function of its own, or NULL. */
static const char *label_name(Elf *elf, const GElf_Shdr *symtab, const GElf_Sym *sym)
{
	if (GELF_ST_TYPE(sym->st_info) != STT_NOTYPE || sym->st_shndx == SHN_UNDEF ||
	    sym->st_shndx >= SHN_LORESERVE)
		return NULL;
	Elf_Scn *scn = elf_getscn(elf, sym->st_shndx);
	GElf_Shdr sh;
	if (!scn || !gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_EXECINSTR))
		return NULL;
	const char *name = elf_strptr(elf, symtab->sh_link, sym->st_name);
	/* Mapping symbols ($x, $d) and assembler locals mark data and code, not entries. */
	if (!name || !*name || name[0] == '$' || strncmp(name, ".L", 2) == 0)
		return NULL;
	return name;
}

/* uint64_t array *a of *n, one more value v. */
static void push_u64(uint64_t **a, size_t *n, uint64_t v)
{
	*a = zp_xrealloc(*a, (*n + 1) * sizeof **a);
	(*a)[(*n)++] = v;
}

int symbols_code_labels(const char *path, struct symbols_range **labels, size_t *n,
			struct zerr *err)
{
	*labels = NULL;
	*n = 0;
	int fd;
	Elf *elf = begin_read(path, &fd, err);
	if (!elf)
		return -1;
	/* every place a label may end: function symbols' starts and ends, labels, section ends */
	uint64_t *bounds = NULL;
	size_t nbounds = 0;
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn));) {
		GElf_Shdr sh;
		Elf_Data *data;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !sh.sh_entsize ||
		    !(data = elf_getdata(scn, NULL)))
			continue;
		size_t nsyms = sh.sh_size / sh.sh_entsize;
		for (size_t i = 0; i < nsyms; i++) {
			GElf_Sym sym;
			if (!gelf_getsym(data, (int)i, &sym))
				continue;
			if (is_function(&sym)) {
				push_u64(&bounds, &nbounds, sym.st_value);
				push_u64(&bounds, &nbounds, sym.st_value + sym.st_size);
				continue;
			}
			const char *name = label_name(elf, &sh, &sym);
			if (!name)
				continue;
			*labels = zp_xrealloc(*labels, (*n + 1) * sizeof **labels);
			(*labels)[(*n)++] = (struct symbols_range){sym.st_value, UINT64_MAX,
								   zp_xstrdup(name)};
		}
	}
	for (size_t i = 0; i < *n; i++)
		push_u64(&bounds, &nbounds, (*labels)[i].start);
	struct symbols_range *secs = NULL;
	size_t nsecs = 0;
	code_sections(elf, &secs, &nsecs);
	for (size_t j = 0; j < nsecs; j++)
		push_u64(&bounds, &nbounds, secs[j].end);
	symbols_free_ranges(secs, nsecs);
	end_read(elf, fd);
	zp_sort(bounds, nbounds, sizeof *bounds, compare_u64);
	for (size_t i = 0; i < *n; i++) {
		struct symbols_range *l = &(*labels)[i];
		for (size_t k = 0; k < nbounds && l->end == UINT64_MAX; k++)
			if (bounds[k] > l->start)
				l->end = bounds[k];
		if (l->end == UINT64_MAX)
			l->end = l->start + 1;
	}
	zp_sort(*labels, *n, sizeof **labels, compare_ranges);
	free(bounds);
	return 0;
}
