/*
 * elf.c - what an ELF file says about itself, through libelf: its header
 * (machine, class, type, entry), its program interpreter, whether it is a
 * library, its static TLS, its code segments.  No symbols and no DWARF:
 * symbols.c.  Every command that has to know what kind of file it was
 * given asks here, so that each fact is read one way and each bad file
 * gets the same words (symbols.h, "Errors").
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
				if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_INTERP)
					out->interp = 1;
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
	for (size_t i = 0; i < nphdr && rc == 0; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD || !(ph.p_flags & PF_X))
			continue;
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
