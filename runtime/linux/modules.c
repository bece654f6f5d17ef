/*
 * modules.c - which loaded ELF object an address belongs to, and the
 * ZOND_TRIGGER and ZOND_FILTER settings that name code by module and
 * link-time address.  Cold paths only.
 */
#define _GNU_SOURCE
#include "instrument.h"

#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../core/port.h"

struct search {
	uint64_t addr;      /* find the object holding addr, or ... */
	const char *wanted; /* ... the object of this path */
	struct port_module *out;
	int found;
};

/*
 * Module paths as the reader needs them, and as filters and triggers are
 * compared: absolute, symbolic links resolved ("" is the main program).  A
 * bare base name stays as it is: it matches the module in any directory.
 */
static const char *module_path(const char *name, char *buf)
{
	if (!name || !*name)
		return zl_exe_path;
	if (!strchr(name, '/') && access(name, F_OK) != 0)
		return name;
	return realpath(name, buf) ? buf : name;
}

static int visit_object(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	static char resolved[PATH_MAX];
	struct search *s = arg;
	uint64_t lo = UINT64_MAX, hi = 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD)
			continue;
		uint64_t start = info->dlpi_addr + ph->p_vaddr;
		if (start < lo)
			lo = start;
		if (start + ph->p_memsz > hi)
			hi = start + ph->p_memsz;
	}
	if (lo >= hi)
		return 0;
	if (!s->wanted && (s->addr < lo || s->addr >= hi))
		return 0;
	const char *path = module_path(info->dlpi_name, resolved);
	if (s->wanted && !zrt_module_matches(s->wanted, path))
		return 0;
	*s->out =
		(struct port_module){.start = lo, .end = hi, .bias = info->dlpi_addr, .path = path};
	s->found = 1;
	return 1;
}

/*
 * The object holding addr in another link-map namespace than libzond's
 * (dlmopen, namespace.c), as visit_object sees one: dl_iterate_phdr walks
 * its caller's namespace only, dladdr looks in every one.  The program
 * headers are read where the loader mapped the ELF header, the start of the
 * object's first segment, which holds them (checked).
 */
static int other_namespace(struct search *s)
{
	Dl_info info;
	struct link_map *l = NULL;
	if (!dladdr1((void *)(uintptr_t)s->addr, &info, (void **)&l, RTLD_DL_LINKMAP) || !l ||
	    !info.dli_fbase)
		return 0;
	const ElfW(Ehdr) *eh = info.dli_fbase;
	if (memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 || eh->e_ident[EI_CLASS] != (__ELF_NATIVE_CLASS == 64 ? ELFCLASS64 : ELFCLASS32) ||
	    eh->e_phentsize != sizeof(ElfW(Phdr)) ||
	    eh->e_phoff + (uint64_t)eh->e_phnum * sizeof(ElfW(Phdr)) > 4096)
		return 0;
	struct dl_phdr_info obj = {
		.dlpi_addr = l->l_addr,
		.dlpi_name = l->l_name,
		.dlpi_phdr = (const ElfW(Phdr) *)((const char *)eh + eh->e_phoff),
		.dlpi_phnum = eh->e_phnum,
	};
	return visit_object(&obj, sizeof obj, s);
}

int port_module_of(uint64_t addr, struct port_module *out)
{
	struct search s = {.addr = addr, .out = out};
	dl_iterate_phdr(visit_object, &s);
	if (!s.found)
		other_namespace(&s);
	return s.found ? 0 : -1;
}

/* Sets *found when an object loaded now starts at (module) m's start with its bias. */
static int still_loaded(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	const struct zr_module *m = ((void **)arg)[0];
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type == PT_LOAD && info->dlpi_addr == m->bias &&
		    info->dlpi_addr + ph->p_vaddr == m->start) {
			*(int *)((void **)arg)[1] = 1;
			return 1;
		}
	}
	return 0;
}

void zl_note_unloaded(void)
{
	struct zr_header *h = zrt.hdr;
	if (!h)
		return;
	const struct zr_module *m = (const struct zr_module *)(zrt.base + h->modules_off);
	uint32_t n = __atomic_load_n(&h->n_modules, __ATOMIC_ACQUIRE);
	for (uint32_t i = 0; i < n; i++) {
		if (m[i].flags & ZR_MODULE_CLOSED)
			continue;
		int found = 0;
		void *arg[2] = {(void *)&m[i], &found};
		dl_iterate_phdr(still_loaded, arg);
		/* an object of another namespace (dlmopen) */
		struct port_module pm;
		struct search s = {.addr = m[i].start, .out = &pm};
		if (!found && other_namespace(&s) && pm.start == m[i].start && pm.bias == m[i].bias)
			found = 1;
		if (!found)
			zrt_module_closed(m[i].start, m[i].end);
	}
	zrt_unrecorded_closed();
}

/* "<hex link-time address>:<module path>" -> run-time address, 0 when not loaded. */
uint64_t zl_find_trigger(const char *spec)
{
	char *end;
	uint64_t link = strtoull(spec, &end, 16);
	if (*end != ':' || !end[1])
		return 0;
	char resolved[PATH_MAX];
	struct port_module m;
	struct search s = {.wanted = module_path(end + 1, resolved), .out = &m};
	dl_iterate_phdr(visit_object, &s);
	return s.found ? link + m.bias : 0;
}

/* Anonymous memory straight from the kernel: the program's malloc is not ours to call. */
static void *map_zeroed(size_t bytes)
{
	long m = zl_syscall6(SYS_mmap, 0, (long)bytes, PROT_READ | PROT_WRITE,
			     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return m < 0 && m > -4096 ? NULL : (void *)m;
}

/* The whole file at path, NUL-terminated, in fresh memory; NULL when unreadable. */
static char *read_whole_file(const char *path, size_t *len)
{
	int fd = (int)zl_syscall6(SYS_openat, AT_FDCWD, (long)path, O_RDONLY | O_CLOEXEC, 0, 0, 0);
	if (fd < 0)
		return NULL;
	struct stat st;
	char *text = NULL;
	if (zl_syscall6(SYS_fstat, fd, (long)&st, 0, 0, 0, 0) == 0 && st.st_size >= 0)
		text = map_zeroed((size_t)st.st_size + 1);
	size_t n = 0;
	while (text && n < (size_t)st.st_size) {
		long got = zl_syscall6(SYS_read, fd, (long)(text + n), (long)st.st_size - (long)n,
				       0, 0, 0);
		if (got <= 0)
			break;
		n += (size_t)got;
	}
	zl_syscall6(SYS_close, fd, 0, 0, 0, 0, 0);
	*len = n;
	return text;
}

/* Parses "<start hex> <end hex> <module path>" in line into *f, the path copied to *room. */
static int parse_filter(char *line, struct zrt_filter *f, char **room)
{
	char *end;
	if (line[0] == '#')
		return -1;
	unsigned long long start = strtoull(line, &end, 16);
	if (end == line || *end != ' ')
		return -1;
	char *p = end;
	unsigned long long stop = strtoull(p, &end, 16);
	if (end == p || *end != ' ' || start >= stop)
		return -1;
	while (*end == ' ')
		end++;
	if (!*end)
		return -1;
	char resolved[PATH_MAX];
	const char *path = module_path(end, resolved);
	size_t n = strlen(path) + 1;
	memcpy(*room, path, n);
	*f = (struct zrt_filter){.module = *room, .start = start, .end = stop};
	*room += n;
	return 0;
}

/*
 * The filter file (doc/raw-format.md): one excluded range per line,
 * "<start hex> <end hex> <module path>", link-time, end exclusive; '#'
 * starts a comment.  Lines that do not parse are ignored: the program's own
 * output must stay its own, so the runtime has nowhere to complain.  Read
 * with system calls into anonymous memory: a program with its own malloc
 * sees none of its calls made by zond.
 */
int zl_load_filters(const char *path)
{
	size_t len;
	char *text = read_whole_file(path, &len);
	if (!text)
		return -1;
	size_t lines = 1;
	for (size_t i = 0; i < len; i++)
		lines += text[i] == '\n';
	/* each line's resolved path fits in PATH_MAX; untouched pages cost nothing */
	struct zrt_filter *list = map_zeroed(lines * (sizeof *list + PATH_MAX));
	if (!list)
		return -1;
	char *room = (char *)(list + lines);
	size_t n = 0;
	for (char *line = text; line && *line;) {
		char *next = strchr(line, '\n');
		if (next)
			*next++ = 0;
		if (strlen(line) < PATH_MAX && parse_filter(line, &list[n], &room) == 0)
			n++;
		line = next;
	}
	zl_syscall6(SYS_munmap, (long)text, (long)len + 1, 0, 0, 0, 0);
	zrt.filters = list;
	zrt.n_filters = n;
	return 0;
}
