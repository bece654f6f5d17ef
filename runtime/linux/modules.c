/*
 * modules.c - which loaded ELF object an address belongs to, and the
 * ZOND_TRIGGER and ZOND_FILTER settings that name code by module and
 * link-time address.  Cold paths only.
 */
#define _GNU_SOURCE
#include "instrument.h"

#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

int port_module_of(uint64_t addr, struct port_module *out)
{
	struct search s = {.addr = addr, .out = out};
	dl_iterate_phdr(visit_object, &s);
	return s.found ? 0 : -1;
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

/*
 * The filter file (doc/raw-format.md): one excluded range per line,
 * "<start hex> <end hex> <module path>", link-time, end exclusive; '#'
 * starts a comment.  Lines that do not parse are ignored: the program's own
 * output must stay its own, so the runtime has nowhere to complain.
 */
int zl_load_filters(const char *path)
{
	FILE *f = fopen(path, "re");
	if (!f)
		return -1;
	struct zrt_filter *list = NULL;
	size_t n = 0, cap = 0;
	char line[PATH_MAX + 64];
	while (fgets(line, sizeof line, f)) {
		line[strcspn(line, "\n")] = 0;
		unsigned long long start, end;
		int at = 0;
		if (line[0] == '#' || sscanf(line, "%llx %llx %n", &start, &end, &at) != 2 || !at ||
		    !line[at] || start >= end)
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 64;
			struct zrt_filter *grown = realloc(list, cap * sizeof *list);
			if (!grown)
				break;
			list = grown;
		}
		char resolved[PATH_MAX];
		char *module = strdup(module_path(line + at, resolved));
		if (!module)
			break;
		list[n++] = (struct zrt_filter){.module = module, .start = start, .end = end};
	}
	fclose(f);
	zrt.filters = list;
	zrt.n_filters = n;
	return 0;
}
