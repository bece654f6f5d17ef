/*
 * rebuild.c - one pass over executed blocks: shadow call stack, counters,
 * and at the end the profile (see rebuild.h for the rules).
 *
 * The per-block work is a few loads and increments: the block's exec count,
 * the transition from the previous block (a one-entry cache per block finds
 * the edge without hashing in loops) and, only when control left the
 * function, the call stack.  Everything derived per instruction (basic
 * blocks, lines, per-instruction costs) is computed once at the end from
 * these counters, so its cost follows the code size, not the trace length.
 */
#include "rebuild.h"

#include <elf.h> /* constants only: ELFCLASS64 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>
#include <unistd.h>

#include "hmap.h"
#include "../util/path.h"

#define NONE UINT32_MAX

struct module {
	char *path;
	uint64_t start, end; /* run-time range of its executable segments */
	uint64_t bias;
	struct symbols_range *secs; /* executable sections, link-time (symbols_code_sections) */
	size_t nsecs;
	struct symbols_range *labels; /* typeless code symbols (symbols_code_labels) */
	size_t nlabels;
	struct symbols_load *loads; /* its PT_LOAD segments: the file's bytes, for check_code */
	size_t nloads;
};

struct func {
	char *name;
	uint32_t module;    /* NONE for code outside every known file */
	uint64_t start;     /* run-time entry */
	uint64_t end;
	uint64_t solo_end;  /* [start, solo_end) holds no other function's code (nested symbols) */
	uint64_t calls, incl, self;
	uint32_t active;    /* frames of it on the stack */
	int anonymous;      /* no symbol: all code of a section or page, many real functions */
	int plt_header;     /* anonymous code of a .plt section: the header lazy binding runs */
	uint32_t node;
	uint32_t last_caller, last_edge; /* the call edge it was last entered by, without hashing */
};

struct insn {
	uint64_t addr, target;
	uint64_t word; /* its first (up to 8) bytes, little-endian, for the tap */
	uint32_t func;
	uint8_t size, cls, direct;
};

struct seg {
	uint32_t first, n, func;
};

/* Control went from (block, instructions run) to block. */
struct transition {
	uint32_t from, n, to;
	int quiet; /* stays in one function, no call or return: the stack does not move */
	uint64_t count;
};

struct call_edge {
	uint32_t caller, callee; /* funcs; caller NONE for a root */
	uint64_t site, calls, incl;
};

/*
 * A calling context: func entered along one path from the thread's root
 * (parent: the caller's context).  Frames count into their context at pop,
 * so that the flat sums (struct func, struct call_edge) and the contexts
 * come from the same frames.
 */
struct context {
	uint32_t parent, func;
	uint64_t site;      /* run-time address of the first call along this path */
	uint64_t calls, self, incl, min, max;
	uint32_t last_func, last_child; /* the child context last entered, without hashing */
};

struct frame {
	uint32_t func, edge, ctx;
	uint64_t ret;      /* return address it expects */
	uint64_t start;    /* instructions executed when it was entered */
	uint64_t children; /* instructions of the frames it called, done */
	int tail;          /* ends together with the frame below */
	int uncounted;     /* no call of its own: a forked child's (its parent made it), a nested */
	int nested;        /* entered by falling or jumping into a nested function's code */
};

/*
 * A signal's delivery: the stack's depth before its handler's frame, the
 * instruction it interrupted after (an index into insns) and where the
 * program was to go on, where its return from the handler (sigreturn)
 * lands: after that instruction, or at it again (resume[2]: a fault the
 * handler fixed, a restarted system call, a rep instruction between two
 * iterations).
 */
struct delivery {
	size_t depth;
	uint32_t src;
	uint64_t resume[3];
};

struct host_map {
	uint64_t start, end, offset;
	char *path;
};

struct rebuild {
	struct rebuild_hot h; /* first: rebuild_exec_fast (rebuild.h) reads it through the pointer */
	const struct isa *isa;
	int chained;     /* rebuild_chained */
	int rep_pending; /* a run of a repeating block began counted: its next run is not */
	uint64_t extra_insns; /* the instructions of the runs not counted */
	struct symbols *syms;
	char *program;
	uint64_t entry;
	int have_entry;

	struct module *mods;
	size_t nmods;
	struct host_map *hmaps;
	size_t nhmaps, hmaps_done;
	char **ignored; /* files seen in maps that are not guest ELF files */
	size_t nignored;
	char **unreadable; /* "PATH: why" of mapped files that could not be opened (rebuild_unreadable) */
	size_t nunreadable;
	int patches; /* rebuild_allow_patches: 0 refused, 1 a trace's, 2 live code */
	size_t code_checked, code_bad; /* blocks compared with their file, and those that differ */
	uint64_t bad_first; /* the first that differs */
	uint32_t bad_mod;

	struct func *funcs;
	size_t nfuncs;
	struct hmap func_index; /* (module, link start) -> func */

	size_t nblocks; /* of h.blocks */
	struct insn *insns;
	size_t ninsns, insns_cap;
	struct seg *segs;
	size_t nsegs, segs_cap;

	struct transition *trans;
	size_t ntrans, trans_cap;
	struct hmap trans_index; /* (from | n << 32, to) */
	struct hmap partial;     /* (block, n) -> index in partial_counts */
	uint64_t *partial_counts;
	size_t npartial;

	struct call_edge *calls;
	size_t ncalls, calls_cap;
	struct hmap call_index; /* (caller, callee) */

	struct context *ctxs;
	size_t nctxs, ctxs_cap;
	struct hmap ctx_index; /* (parent, func) */

	struct frame *stack;
	size_t depth, stack_cap;
	struct delivery *deliveries; /* open signal handlers, innermost last */
	size_t ndeliveries, deliveries_cap;

	void *tap_ctx; /* tap: h.tap */
	uint32_t first_block;
	struct rebuild_frame *seed; /* rebuild_inherit: the stack the first block starts in */
	size_t nseed;

	/*
	 * The timeline (rebuild_set_timeline): every enter and exit as an
	 * event, node holding the func until the end names it; a ring of at
	 * most tl_max that keeps the first tl_max events offered, or the last.
	 */
	struct zp_tl_event *tl;
	size_t tl_cap;
	uint64_t tl_max, tl_offered;
	int tl_newest;
};

struct rebuild *rebuild_new(const struct isa *isa, struct symbols *syms)
{
	struct rebuild *r = zp_xcalloc(1, sizeof *r);
	r->isa = isa;
	r->syms = syms;
	r->h.prev = NONE;
	r->first_block = NONE;
	return r;
}

void rebuild_free(struct rebuild *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->nmods; i++) {
		free(r->mods[i].path);
		symbols_free_ranges(r->mods[i].secs, r->mods[i].nsecs);
		symbols_free_ranges(r->mods[i].labels, r->mods[i].nlabels);
		free(r->mods[i].loads);
	}
	for (size_t i = 0; i < r->nhmaps; i++)
		free(r->hmaps[i].path);
	for (size_t i = 0; i < r->nignored; i++)
		free(r->ignored[i]);
	for (size_t i = 0; i < r->nunreadable; i++)
		free(r->unreadable[i]);
	free(r->unreadable);
	for (size_t i = 0; i < r->nfuncs; i++)
		free(r->funcs[i].name);
	free(r->program);
	free(r->mods);
	free(r->hmaps);
	free(r->ignored);
	free(r->funcs);
	free(r->h.blocks);
	free(r->insns);
	free(r->segs);
	free(r->trans);
	free(r->partial_counts);
	free(r->calls);
	free(r->stack);
	free(r->seed);
	free(r->deliveries);
	free(r->ctxs);
	free(r->tl);
	hmap_free(&r->ctx_index);
	hmap_free(&r->func_index);
	hmap_free(&r->trans_index);
	hmap_free(&r->partial);
	hmap_free(&r->call_index);
	free(r);
}

uint64_t rebuild_insns(const struct rebuild *r)
{
	return r->h.icount;
}

uint64_t rebuild_insns_run(const struct rebuild *r)
{
	return r->h.icount + r->extra_insns;
}

uint32_t rebuild_block_length(const struct rebuild *r, uint32_t id)
{
	return id < r->nblocks && r->h.blocks[id].defined ? r->h.blocks[id].ninsns : 0;
}

static void *grow(void *arr, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return arr;
	size_t c = *cap ? *cap : 64;
	while (c < need)
		c *= 2;
	*cap = c;
	return zp_xrealloc(arr, c * elem);
}

/* ---- modules ------------------------------------------------------------ */

/*
 * 1 if the file is an ELF file for the guest's machine.  ELF files are read
 * in tool/symbols (elf.c); rebuild.c only gets their facts.
 */
static int is_guest_elf(const struct rebuild *r, const char *path)
{
	struct symbols_elf h;
	return symbols_elf_header(path, &h, NULL) == 1 &&
	       h.machine == (unsigned)r->isa->elf_machine &&
	       h.bits == (r->isa->elf_class == ELFCLASS64 ? 64 : 32);
}

/* Link-time address of file offset off, through the PT_LOAD that holds it; -1 if none. */
static int offset_to_vaddr(const struct symbols_load *loads, size_t n, uint64_t off,
			   uint64_t *vaddr)
{
	for (size_t i = 0; i < n; i++) {
		const struct symbols_load *ph = &loads[i];
		uint64_t page = ph->align > 1 ? ph->align : 4096;
		uint64_t first = ph->offset & ~(page - 1);
		if (off >= first && off < ph->offset + ph->filesz) {
			*vaddr = ph->vaddr - ph->offset + off;
			return 0;
		}
	}
	return -1;
}

/* The label whose range holds link-time address link, or NULL. */
static const struct symbols_range *label_at(const struct module *m, uint64_t link)
{
	size_t lo = zp_count_at_most(m->labels, m->nlabels, sizeof *m->labels,
				     offsetof(struct symbols_range, start), link);
	return lo && link < m->labels[lo - 1].end ? &m->labels[lo - 1] : NULL;
}

/* The first label in (start, end), as the end of a function symbol that holds it. */
static uint64_t label_cut(const struct module *m, uint64_t start, uint64_t end)
{
	for (size_t i = 0; i < m->nlabels; i++)
		if (m->labels[i].start > start && m->labels[i].start < end)
			return m->labels[i].start;
	return end;
}

/*
 * A guest ELF file at bias, with its PT_LOAD segments (loads, n: the module
 * keeps a copy).  Its typeless code symbols are functions of their own:
 * glibc's aarch64 _start holds __wrap_main, through which main is called;
 * RISC-V's load_gp follows _start.  Each ends at the next label, function
 * symbol or section end (symbols_code_labels), so that a call to it is not
 * taken for a second entry into _start.
 */
static void add_module(struct rebuild *r, const char *path, uint64_t bias,
		       const struct symbols_load *loads, size_t n)
{
	for (size_t i = 0; i < r->nmods; i++)
		if (r->mods[i].bias == bias && strcmp(r->mods[i].path, path) == 0)
			return;
	struct module m = {.path = zp_xstrdup(path), .bias = bias, .start = UINT64_MAX};
	for (size_t i = 0; i < n; i++) {
		if (!loads[i].exec)
			continue;
		if (loads[i].vaddr + bias < m.start)
			m.start = loads[i].vaddr + bias;
		if (loads[i].vaddr + loads[i].memsz + bias > m.end)
			m.end = loads[i].vaddr + loads[i].memsz + bias;
	}
	if (n) {
		m.loads = zp_xmalloc(n * sizeof *m.loads);
		memcpy(m.loads, loads, n * sizeof *m.loads);
		m.nloads = n;
	}
	/* the file was read a moment ago: an error now leaves the module without names */
	symbols_code_sections(path, &m.secs, &m.nsecs, NULL);
	symbols_code_labels(path, &m.labels, &m.nlabels, NULL);
	r->mods = zp_xrealloc(r->mods, (r->nmods + 1) * sizeof *r->mods);
	r->mods[r->nmods++] = m;
}

int rebuild_add_module(struct rebuild *r, const char *path, uint64_t bias, struct zerr *err)
{
	struct symbols_load *loads;
	size_t n;
	if (symbols_loads(path, &loads, &n, err) < 0)
		return -1;
	int ok = is_guest_elf(r, path);
	if (ok)
		add_module(r, path, bias, loads, n);
	free(loads);
	return ok ? 0 : zerr_set(err, "%s: not an ELF file for %s", path, r->isa->name);
}

void rebuild_set_program(struct rebuild *r, const char *path, uint64_t entry)
{
	free(r->program);
	r->program = zp_xstrdup(path);
	r->entry = entry;
	r->have_entry = 1;
}

void rebuild_host_map(struct rebuild *r, uint64_t start, uint64_t end, uint64_t offset,
		      const char *path)
{
	r->hmaps = zp_xrealloc(r->hmaps, (r->nhmaps + 1) * sizeof *r->hmaps);
	r->hmaps[r->nhmaps++] = (struct host_map){start, end, offset, zp_xstrdup(path)};
}

static int is_ignored(struct rebuild *r, const char *path)
{
	for (size_t i = 0; i < r->nignored; i++)
		if (strcmp(r->ignored[i], path) == 0)
			return 1;
	return 0;
}

/*
 * The guest base from the file holding the entry point (path): its host
 * mapping minus its guest address, which the entry point gives.  0 if the
 * file is not mapped.
 */
static uint64_t base_from(struct rebuild *r, const char *path)
{
	struct symbols_elf eh;
	struct symbols_load *loads;
	size_t n;
	uint64_t base = 0, vaddr;
	if (symbols_loads(path, &loads, &n, NULL) < 0)
		return 0;
	if (symbols_elf_header(path, &eh, NULL) == 1) {
		uint64_t bias = r->entry - eh.entry;
		for (size_t i = 0; i < r->nhmaps; i++) {
			if (strcmp(r->hmaps[i].path, path) == 0 &&
			    offset_to_vaddr(loads, n, r->hmaps[i].offset, &vaddr) == 0) {
				base = r->hmaps[i].start - (vaddr + bias);
				break;
			}
		}
	}
	free(loads);
	return base;
}

/*
 * QEMU's guest base.  QEMU's entry point is the program's, or for a
 * dynamic program its interpreter's (ld.so, found among the mappings by
 * its name): that file's mapping gives the base.
 */
static uint64_t guest_base(struct rebuild *r)
{
	char real[PATH_MAX], interp[PATH_MAX];
	struct zerr ignored;
	if (!r->program || !realpath(r->program, real))
		return 0;
	int rc = symbols_interpreter(real, interp, sizeof interp, &ignored);
	if (rc < 0) /* unusable (or a damaged PT_INTERP: no loader would run it either) */
		return 0;
	if (rc == 1)
		return base_from(r, real);
	const char *name = path_base(interp);
	for (size_t i = 0; i < r->nhmaps; i++) {
		const char *slash = strrchr(r->hmaps[i].path, '/');
		if (slash && strcmp(slash + 1, name) == 0)
			return base_from(r, r->hmaps[i].path);
	}
	return 0;
}

/*
 * A mapped file that cannot be opened (deleted since, no permission): a
 * guest library among them loses its names, which the reader says.
 */
static void note_unreadable(struct rebuild *r, const char *path, int err)
{
	/* mappings that are no files to read: QEMU's memory files (zond's tail.h), shared memory */
	static const char *const no_file[] = {"/memfd:", "/SYSV", "/dev/"};
	for (size_t i = 0; i < sizeof no_file / sizeof *no_file; i++)
		if (strncmp(path, no_file[i], strlen(no_file[i])) == 0)
			return;
	char line[4200];
	snprintf(line, sizeof line, "%s: %s", path, strerror(err));
	r->unreadable = zp_xrealloc(r->unreadable, (r->nunreadable + 1) * sizeof *r->unreadable);
	r->unreadable[r->nunreadable++] = zp_xstrdup(line);
}

size_t rebuild_unreadable(const struct rebuild *r, const char *const **files)
{
	*files = (const char *const *)r->unreadable;
	return r->nunreadable;
}

/* Turns the host mappings read since the last call into modules. */
static void resolve_maps(struct rebuild *r)
{
	if (r->hmaps_done == r->nhmaps)
		return;
	uint64_t base = guest_base(r);
	for (size_t i = r->hmaps_done; i < r->nhmaps; i++) {
		struct host_map *h = &r->hmaps[i];
		uint64_t vaddr;
		if (is_ignored(r, h->path))
			continue;
		/* opened only to tell a file we cannot open (note_unreadable) from no ELF */
		int fd = open(h->path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			note_unreadable(r, h->path, errno);
		else
			close(fd);
		struct symbols_load *loads = NULL;
		size_t n = 0;
		if (fd < 0 || !is_guest_elf(r, h->path) ||
		    symbols_loads(h->path, &loads, &n, NULL) < 0) {
			r->ignored = zp_xrealloc(r->ignored, (r->nignored + 1) * sizeof *r->ignored);
			r->ignored[r->nignored++] = zp_xstrdup(h->path);
		} else if (offset_to_vaddr(loads, n, h->offset, &vaddr) == 0) {
			add_module(r, h->path, h->start - base - vaddr, loads, n);
		}
		free(loads);
	}
	r->hmaps_done = r->nhmaps;
}

static uint32_t module_of(const struct rebuild *r, uint64_t addr)
{
	for (size_t i = 0; i < r->nmods; i++)
		if (addr >= r->mods[i].start && addr < r->mods[i].end)
			return (uint32_t)i;
	return NONE;
}

/* ---- functions ---------------------------------------------------------- */

/*
 * Keys of func_index: a symbol's function, an unwind entry's and the
 * lump of a section's (or a page's) other code apart, as each may start
 * where another does: a section may start where a symbol does, and in a
 * stripped program the first unwind entry often starts its section (gcc
 * -O2's main), whose lump then took that function's code and calls.
 */
enum { KEY_SYMBOL, KEY_UNWIND, KEY_LUMP };
#define FUNC_KEY(mod, kind) ((uint64_t)(mod) | (uint64_t)(kind) << 40)

static uint32_t new_func(struct rebuild *r, const char *name, uint32_t mod, uint64_t start,
			 uint64_t end, int kind)
{
	int anonymous = kind != KEY_SYMBOL;
	r->funcs = zp_xrealloc(r->funcs, (r->nfuncs + 1) * sizeof *r->funcs);
	r->funcs[r->nfuncs] = (struct func){.name = zp_xstrdup(name), .module = mod,
					    .start = start, .end = end, .solo_end = end,
					    .node = NONE,
					    .last_caller = NONE - 1,
					    .anonymous = anonymous};
	hmap_put(&r->func_index, FUNC_KEY(mod, kind), start, (uint32_t)r->nfuncs);
	return (uint32_t)r->nfuncs++;
}

/* Names code at link in no function after the ELF section holding it ("[.plt]"). */
static void section_of(const struct module *m, uint64_t link, uint64_t *start, uint64_t *end,
		       char *name, size_t size)
{
	for (size_t i = 0; i < m->nsecs; i++) {
		if (link >= m->secs[i].start && link < m->secs[i].end) {
			*start = m->secs[i].start;
			*end = m->secs[i].end;
			snprintf(name, size, "[%s]", m->secs[i].name);
			return;
		}
	}
}

/* Whether link-time address link is in the module's .plt (its stubs have names). */
static int in_plt(const struct module *m, uint64_t link)
{
	for (size_t i = 0; i < m->nsecs; i++)
		if (link >= m->secs[i].start && link < m->secs[i].end)
			return strcmp(m->secs[i].name, ".plt") == 0;
	return 0;
}

/*
 * The function holding addr.  Code without a symbol is a function of its
 * own where the unwind tables have an entry for it (a stripped library's
 * local function), named after its file and first address
 * ("[libc.so.6+0x2777c]"), else named
 * after its ELF section ("[.plt]"); code outside every file after its page
 * ("[0x4000]"): names that stay the same from run to run.  Without the
 * unwind entries, a section's functions were one, and one of them active for
 * the whole run (a stripped libc's __libc_start_call_main, which calls main)
 * made every later call into the section a recursive one, costing 0 on its
 * call edge.
 */
static uint32_t func_of(struct rebuild *r, uint64_t addr)
{
	uint32_t mod = module_of(r, addr);
	char name[256];
	uint64_t start, end;
	int kind = KEY_LUMP;
	if (mod == NONE) {
		start = addr & ~(uint64_t)0xfff;
		end = start + 0x1000;
		snprintf(name, sizeof name, "[0x%" PRIx64 "]", start);
	} else {
		struct module *m = &r->mods[mod];
		struct symbol sym;
		struct zerr err;
		uint64_t link = addr - m->bias;
		const struct symbols_range *l = label_at(m, link);
		int named = symbols_lookup(r->syms, m->path, link, &sym, &err) == 0 && sym.name;
		if (l && (!named || l->start > sym.start)) {
			uint32_t f = hmap_get(&r->func_index, FUNC_KEY(mod, KEY_SYMBOL),
					      l->start + m->bias);
			uint64_t end = named && sym.start + sym.size < l->end ? sym.start + sym.size
									     : l->end;
			return f != NONE ? f : new_func(r, l->name, mod, l->start + m->bias,
							end + m->bias, KEY_SYMBOL);
		}
		if (named) {
			uint32_t f = hmap_get(&r->func_index, FUNC_KEY(mod, KEY_SYMBOL),
					      sym.start + m->bias);
			if (f != NONE)
				return f;
			uint64_t size = sym.size ? sym.size : 1;
			uint64_t end = label_cut(m, sym.start, sym.start + size);
			f = new_func(r, sym.name, mod, sym.start + m->bias, end + m->bias, KEY_SYMBOL);
			if (sym.nested < end)
				r->funcs[f].solo_end = sym.nested + m->bias;
			return f;
		}
		start = link & ~(uint64_t)0xf;
		end = start + 0x10;
		snprintf(name, sizeof name, "[0x%" PRIx64 "]", start);
		if (symbols_unwind_range(r->syms, m->path, link, &start, &end, &err) == 1) {
			snprintf(name, sizeof name, "[%s+0x%" PRIx64 "]", path_base(m->path), start);
			kind = KEY_UNWIND;
		} else {
			section_of(m, link, &start, &end, name, sizeof name);
		}
		start += m->bias;
		end += m->bias;
	}
	uint32_t f = hmap_get(&r->func_index, FUNC_KEY(mod, kind), start);
	if (f != NONE)
		return f;
	f = new_func(r, name, mod, start, end, kind);
	r->funcs[f].plt_header = mod != NONE && in_plt(&r->mods[mod], start - r->mods[mod].bias);
	return f;
}

/* ---- blocks ------------------------------------------------------------- */

/* Checks code against the file mapped there: a trace of another build must not pass. */
static int check_code(struct rebuild *r, uint64_t vaddr, const uint8_t *bytes, size_t n,
		      struct zerr *err)
{
	uint32_t mod = module_of(r, vaddr);
	if (mod == NONE)
		return 0;
	struct module *m = &r->mods[mod];
	uint64_t link = vaddr - m->bias;
	int bad = 0;
	for (size_t i = 0; i < m->nloads; i++) {
		const struct symbols_load *ph = &m->loads[i];
		if (link < ph->vaddr || link + n > ph->vaddr + ph->filesz)
			continue;
		int fd = open(m->path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return 0; /* gone since: nothing to check against */
		uint8_t buf[256];
		size_t len = n < sizeof buf ? n : sizeof buf;
		bad = pread(fd, buf, len, (off_t)(ph->offset + link - ph->vaddr)) != (ssize_t)len ||
		      memcmp(buf, bytes, len) != 0;
		close(fd);
		break;
	}
	r->code_checked++;
	if (!bad)
		return 0;
	if (!r->code_bad++) {
		r->bad_first = vaddr;
		r->bad_mod = mod;
	}
	if (!r->patches)
		return zerr_set(err, "code at 0x%" PRIx64 " does not match %s (a trace of another "
				     "build?)", vaddr, m->path);
	return 0;
}

void rebuild_allow_patches(struct rebuild *r, int live)
{
	r->patches = live ? 2 : 1;
}

/*
 * Code patched at run time differs from its file in a few blocks; a trace
 * read against another build of the program in most of them: refused.
 */
static int check_patches(const struct rebuild *r, struct zerr *err)
{
	if (r->patches == 2 || r->code_bad * 2 <= r->code_checked)
		return 0;
	return zerr_set(err, "code at 0x%" PRIx64 " does not match %s (%zu of %zu blocks differ: a "
			     "trace of another build?)", r->bad_first, r->mods[r->bad_mod].path,
			r->code_bad, r->code_checked);
}

int rebuild_patched(const struct rebuild *r, char *line, size_t size)
{
	if (!r->code_bad)
		return 0;
	snprintf(line, size, "code at 0x%" PRIx64 " in %s ran unlike the file (%zu of %zu blocks "
			     "differ: patched at run time, e.g. text relocations or self-modifying "
			     "code): counted as it ran, named and lined after the file",
		 r->bad_first, r->mods[r->bad_mod].path, r->code_bad, r->code_checked);
	return 1;
}

int rebuild_define(struct rebuild *r, uint32_t id, uint64_t vaddr, uint32_t ninsns,
		   const uint8_t *sizes, const uint8_t *bytes, struct zerr *err)
{
	if (id >= (1u << 28))
		return zerr_set(err, "block id %" PRIu32 " is too large", id);
	if (ninsns == 0)
		return zerr_set(err, "block %" PRIu32 " has no instructions", id);
	if (id >= r->nblocks) {
		size_t n = r->nblocks ? r->nblocks : 256;
		while (n <= id)
			n *= 2;
		r->h.blocks = zp_xrealloc(r->h.blocks, n * sizeof *r->h.blocks);
		memset(r->h.blocks + r->nblocks, 0, (n - r->nblocks) * sizeof *r->h.blocks);
		r->nblocks = n;
	}
	struct rebuild_block *b = &r->h.blocks[id];
	if (b->defined)
		return zerr_set(err, "block %" PRIu32 " is defined twice", id);
	resolve_maps(r);
	size_t total = 0;
	for (uint32_t i = 0; i < ninsns; i++)
		total += sizes[i];
	if (check_code(r, vaddr, bytes, total, err) < 0)
		return -1;

	r->insns = grow(r->insns, &r->insns_cap, r->ninsns + ninsns, sizeof *r->insns);
	*b = (struct rebuild_block){.vaddr = vaddr, .ninsns = ninsns, .first = (uint32_t)r->ninsns,
			    .seg = (uint32_t)r->nsegs, .cache_next = {NONE, NONE}, .defined = 1};
	uint64_t addr = vaddr;
	const uint8_t *p = bytes;
	for (uint32_t i = 0; i < ninsns; i++) {
		size_t len = r->isa->length(p, sizes[i]);
		if (len != sizes[i])
			return zerr_set(err, "block %" PRIu32 ": instruction %" PRIu32 " at 0x%" PRIx64
					     " is %u bytes, its encoding says %zu", id, i, addr,
					sizes[i], len);
		struct zi_insn zi;
		r->isa->classify(p, len, addr, &zi);
		int rep = r->isa->repeats && r->isa->repeats(p, len);
		if (ninsns == 1 && r->chained && rep)
			b->repeats = 1;
		else if (ninsns == 1 && zi.cls == ZI_OTHER && !rep)
			b->lone = 1;
		struct insn *in = &r->insns[r->ninsns++];
		*in = (struct insn){.addr = addr, .target = zi.target, .size = sizes[i],
				    .cls = (uint8_t)zi.cls, .direct = (uint8_t)zi.direct};
		for (size_t k = 0; k < len && k < 8; k++)
			in->word |= (uint64_t)p[k] << (8 * k);
		struct func *f = r->nsegs > b->seg ? &r->funcs[r->segs[r->nsegs - 1].func] : NULL;
		/* past solo_end the code may be a nested function's: looked up */
		if (!f || addr < f->start || addr >= f->solo_end) {
			uint32_t fn = func_of(r, addr);
			if (!f || fn != r->segs[r->nsegs - 1].func) {
				r->segs = grow(r->segs, &r->segs_cap, r->nsegs + 1, sizeof *r->segs);
				r->segs[r->nsegs++] = (struct seg){i, 0, fn};
				b->nsegs++;
			}
		}
		in->func = r->segs[r->nsegs - 1].func;
		r->segs[r->nsegs - 1].n++;
		addr += len;
		p += len;
	}
	return 0;
}

/* ---- the call stack ----------------------------------------------------- */

static uint32_t new_call_edge(struct rebuild *r, uint32_t caller, uint32_t callee,
			      uint64_t site);

static uint32_t call_edge(struct rebuild *r, uint32_t caller, uint32_t callee, uint64_t site)
{
	struct func *f = &r->funcs[callee];
	if (f->last_caller == caller)
		return f->last_edge;
	uint32_t e = hmap_get(&r->call_index, caller, callee);
	if (e == NONE)
		e = new_call_edge(r, caller, callee, site);
	f->last_caller = caller;
	f->last_edge = e;
	return e;
}

static uint32_t new_call_edge(struct rebuild *r, uint32_t caller, uint32_t callee, uint64_t site)
{
	r->calls = grow(r->calls, &r->calls_cap, r->ncalls + 1, sizeof *r->calls);
	r->calls[r->ncalls] = (struct call_edge){caller, callee, site, 0, 0};
	hmap_put(&r->call_index, caller, callee, (uint32_t)r->ncalls);
	return (uint32_t)r->ncalls++;
}

/* The context of func called from context parent (NONE: a root), added if new. */
static uint32_t context(struct rebuild *r, uint32_t parent, uint32_t func, uint64_t site)
{
	if (parent != NONE && r->ctxs[parent].last_func == func)
		return r->ctxs[parent].last_child;
	uint32_t c = hmap_get(&r->ctx_index, parent, func);
	if (c == NONE) {
		r->ctxs = grow(r->ctxs, &r->ctxs_cap, r->nctxs + 1, sizeof *r->ctxs);
		r->ctxs[r->nctxs] = (struct context){.parent = parent, .func = func, .site = site,
						     .min = UINT64_MAX, .last_func = NONE};
		hmap_put(&r->ctx_index, parent, func, (uint32_t)r->nctxs);
		c = (uint32_t)r->nctxs++;
	}
	if (parent != NONE) {
		r->ctxs[parent].last_func = func;
		r->ctxs[parent].last_child = c;
	}
	return c;
}

/* One enter or exit of the timeline, if it keeps one (see struct rebuild). */
static void timeline_event(struct rebuild *r, uint32_t func, int exit)
{
	if (!r->tl_max)
		return;
	uint64_t n = r->tl_offered++;
	if (n >= r->tl_max && !r->tl_newest)
		return;
	size_t at = (size_t)(n % r->tl_max);
	if (at >= r->tl_cap) {
		r->tl_cap = r->tl_cap ? 2 * r->tl_cap : 1024;
		if (r->tl_cap > r->tl_max)
			r->tl_cap = (size_t)r->tl_max;
		r->tl = zp_xrealloc(r->tl, r->tl_cap * sizeof *r->tl);
	}
	r->tl[at] = (struct zp_tl_event){(int64_t)r->h.icount, func, (uint32_t)r->depth, exit,
					 ZP_TL_CALL, 0, 0};
}

static void push(struct rebuild *r, uint32_t func, uint64_t ret, int tail, uint64_t site)
{
	timeline_event(r, func, 0);
	const struct frame *top = r->depth ? &r->stack[r->depth - 1] : NULL;
	uint32_t e = call_edge(r, top ? top->func : NONE, func, site);
	uint32_t c = context(r, top ? top->ctx : NONE, func, site);
	r->stack = grow(r->stack, &r->stack_cap, r->depth + 1, sizeof *r->stack);
	r->stack[r->depth++] = (struct frame){func, e, c, ret, r->h.icount, 0, tail, 0, 0};
	r->calls[e].calls++;
	r->ctxs[c].calls++;
	r->funcs[func].calls++;
	r->funcs[func].active++;
}

static void pop(struct rebuild *r)
{
	struct frame *f = &r->stack[--r->depth];
	timeline_event(r, f->func, 1);
	uint64_t incl = r->h.icount - f->start;
	struct context *c = &r->ctxs[f->ctx];
	r->calls[f->edge].incl += incl;
	if (--r->funcs[f->func].active == 0)
		r->funcs[f->func].incl += incl;
	c->incl += incl;
	c->self += incl - f->children;
	if (!f->uncounted && incl < c->min) /* an uncounted frame is part of a call, not one */
		c->min = incl;
	if (!f->uncounted && incl > c->max)
		c->max = incl;
	if (r->depth)
		r->stack[r->depth - 1].children += incl;
}

/*
 * A frame entered by no call of its own: it shapes the stacks and takes
 * its instructions like any other, but counts no call.
 */
static void push_uncounted(struct rebuild *r, uint32_t func, uint64_t ret, int tail,
			   uint64_t site)
{
	push(r, func, ret, tail, site);
	struct frame *top = &r->stack[r->depth - 1];
	top->uncounted = 1;
	r->calls[top->edge].calls--;
	r->ctxs[top->ctx].calls--;
	r->funcs[func].calls--;
}

/*
 * Whether one of two functions' symbols holds the other's start: nested
 * entry points into one code sequence (libgcc's RISC-V __riscv_save_N and
 * __riscv_restore_N millicode).
 */
static int nested_funcs(const struct rebuild *r, uint32_t a, uint32_t b)
{
	const struct func *x = &r->funcs[a], *y = &r->funcs[b];
	if (x->anonymous || y->anonymous || x->module != y->module || x->module == NONE)
		return 0;
	return (x->start < y->start && y->start < x->end) ||
	       (y->start < x->start && x->start < y->end);
}

/*
 * Control moved without a call from the top frame's code into the code of
 * a function nested with it (not by a jump to its entry): one code
 * sequence, so no call.  Back out into the code of a frame entered so, the
 * frames above it end; else a frame that counts no call, ending with the
 * one below, takes the instructions (doc/trace.md, "nested functions").
 */
static void move_nested(struct rebuild *r, uint32_t func, uint64_t site)
{
	for (size_t i = r->depth - 1; i > 0 && r->stack[i].nested; i--) {
		if (r->stack[i - 1].func == func) {
			while (r->depth > i)
				pop(r);
			return;
		}
	}
	push_uncounted(r, func, r->stack[r->depth - 1].ret, 1, site);
	r->stack[r->depth - 1].nested = 1;
}

/* Index of the innermost frame of func, or -1. */
static long live_frame(const struct rebuild *r, uint32_t func)
{
	if (!r->funcs[func].active)
		return -1;
	for (size_t i = r->depth; i-- > 0;)
		if (r->stack[i].func == func)
			return (long)i;
	return -1;
}

/* The innermost frame that owns return address ret (not a tail frame), or -1. */
static long return_frame(const struct rebuild *r, uint64_t ret)
{
	for (size_t i = r->depth; i-- > 0;)
		if (r->stack[i].ret == ret && !r->stack[i].tail)
			return (long)i;
	return -1;
}

/*
 * Whether control leaving src for target is a signal's delivery: a place
 * src cannot go (a fault, or a signal taken between two blocks); a system
 * call may be interrupted too.  Its handler is then called from src, and
 * where the program was to go on is kept (*resume) for its sigreturn.
 */
static int delivered(const struct insn *src, uint64_t target, uint64_t resume[3])
{
	uint64_t fall = src->addr + src->size;
	resume[0] = resume[1] = fall;
	resume[2] = src->addr; /* run again: a fault fixed, a restart, a rep going on */
	switch (src->cls) {
	case ZI_OTHER: return target != fall;
	case ZI_CALL:
	case ZI_JUMP: resume[0] = resume[1] = src->target; return src->direct && target != src->target;
	case ZI_COND: resume[0] = src->target; return src->direct && target != src->target && target != fall;
	case ZI_SYSCALL: return target != fall;
	default: return 0; /* a return or an indirect jump may go anywhere */
	}
}

static void transfer(struct rebuild *r, const struct insn *src, uint64_t target, uint32_t func);

/*
 * A system call that does not fall through, to where a handler's signal
 * interrupted the program: the handler's sigreturn.  Its frames are
 * closed and the interrupted transfer is made as it would have been.  1
 * when it was one (frames of handlers left by longjmp are dropped on the
 * way).
 */
static int sigreturn(struct rebuild *r, const struct insn *src, uint64_t target, uint32_t func)
{
	if (src->cls != ZI_SYSCALL)
		return 0;
	for (size_t k = r->ndeliveries; k-- > 0;) {
		struct delivery d = r->deliveries[k];
		if (d.depth > r->depth ||
		    (target != d.resume[0] && target != d.resume[1] && target != d.resume[2]))
			continue;
		r->ndeliveries = k;
		while (r->depth > d.depth)
			pop(r);
		if (!r->depth)
			push(r, func, 0, 0, 0);
		else if (target != d.resume[2])
			transfer(r, &r->insns[d.src], target, func);
		/* else the interrupted instruction runs again, in the frame it ran in
		   (QA s16 X3 F3: taken for a call from the handler's trampoline) */
		return 1;
	}
	return 0;
}

/*
 * A lazy binding in progress: the stack's top frames are the PLT header's
 * and the resolver's (ld.so's _dl_runtime_resolve, and what it jumped to),
 * entered by jumps from a PLT stub's frame, whose index this is (-1: not
 * so).  The resolver's jump to the function it bound then ends them: a
 * jump, not a call, so the real stack is the stub's caller, the stub and
 * that function, as on every later call through the stub.  Kept as tail
 * calls from the resolver, they stayed on the stack (the first call,
 * `_start` -> `__libc_start_main@plt`, never returns): every later lazy
 * call into the header was taken for a recursive one.
 */
static long lazy_binding(const struct rebuild *r)
{
	for (size_t i = r->depth; i-- > 1 && r->stack[i].tail;)
		if (r->funcs[r->stack[i].func].plt_header)
			return i + 1 < r->depth ? (long)i - 1 : -1;
	return -1;
}

/*
 * Control left instruction src (NULL at the start) for target, in function
 * func: moves the call stack (rules in rebuild.h).
 */
static void transfer(struct rebuild *r, const struct insn *src, uint64_t target, uint32_t func)
{
	if (!r->depth) {
		push(r, func, 0, 0, 0);
		return;
	}
	uint64_t fall = src->addr + src->size;
	if (r->ndeliveries && target != fall && sigreturn(r, src, target, func))
		return;
	uint64_t resume[3];
	int delivery = delivered(src, target, resume);
	if (src->cls == ZI_RET && target == r->funcs[func].start && !r->funcs[func].anonymous &&
	    return_frame(r, target) < 0) {
		/* a return to no frame's address but into a function's entry: a signal
		   taken after the return, which was to go where the top frame returns */
		resume[0] = resume[1] = r->stack[r->depth - 1].ret;
		delivery = 1;
	}
	if (delivery) {
		r->deliveries = grow(r->deliveries, &r->deliveries_cap, r->ndeliveries + 1,
				     sizeof *r->deliveries);
		r->deliveries[r->ndeliveries++] = (struct delivery){
			r->depth, (uint32_t)(src - r->insns), {resume[0], resume[1], resume[2]}};
		push(r, func, fall, 0, src->addr); /* the handler: a call from here */
		return;
	}
	if (src->cls == ZI_CALL) {
		push(r, func, fall, 0, src->addr);
		return;
	}
	if (src->cls == ZI_RET) {
		long i = return_frame(r, target);
		if (i >= 0) {
			while (r->depth > (size_t)i)
				pop(r);
			if (!r->depth)
				push(r, func, 0, 0, 0);
			if (r->stack[r->depth - 1].func == func)
				return;
		}
	}
	struct frame *top = &r->stack[r->depth - 1];
	if (top->func == func)
		return;
	/*
	 * Code without a symbol stands for many functions: a jump into it is
	 * taken for a tail call wherever it lands (a PLT stub's jump to a
	 * library's local function), never for an unwinding to some other
	 * function's live frame there.
	 */
	int entry = target == r->funcs[func].start || r->funcs[func].anonymous;
	int jump = src->cls != ZI_OTHER && src->cls != ZI_SYSCALL;
	if (src->cls != ZI_RET && !(jump && entry) && nested_funcs(r, top->func, func)) {
		move_nested(r, func, src->addr);
		return;
	}
	long stub = jump && src->cls != ZI_RET && target == r->funcs[func].start ? lazy_binding(r)
										 : -1;
	if (stub >= 0) { /* the resolver jumps to the function it bound: the stub's tail call */
		while (r->depth > (size_t)stub + 1)
			pop(r);
		push(r, func, r->stack[stub].ret, 1, src->addr);
		return;
	}
	if (entry && (jump || target == fall) && src->cls != ZI_RET) {
		push(r, func, top->ret, 1, src->addr); /* tail call or fall-through into it */
		return;
	}
	long live = live_frame(r, func);
	if (live >= 0) {
		while (r->depth > (size_t)live + 1)
			pop(r);
		return;
	}
	if (!jump && target != fall)
		push(r, func, fall, 0, src->addr); /* signal delivery: a call from here */
	else
		push(r, func, top->ret, 1, src->addr);
}

/* ---- executions --------------------------------------------------------- */

static uint32_t new_transition(struct rebuild *r, uint32_t from, uint32_t n, uint32_t to)
{
	r->trans = grow(r->trans, &r->trans_cap, r->ntrans + 1, sizeof *r->trans);
	const struct insn *src = &r->insns[r->h.blocks[from].first + n - 1];
	int quiet = src->func == r->segs[r->h.blocks[to].seg].func && src->cls != ZI_CALL &&
		    src->cls != ZI_RET;
	r->trans[r->ntrans] = (struct transition){from, n, to, quiet, 0};
	hmap_put(&r->trans_index, from | (uint64_t)n << 32, to, (uint32_t)r->ntrans);
	return (uint32_t)r->ntrans++;
}

/* Adds the counts kept in a block's successor cache to their transitions. */
static void flush_cache(struct rebuild *r, struct rebuild_block *b, int k)
{
	/* blocks[] has zeroed slots for ids no trace defined: no cache there */
	if (b->defined && b->cache_next[k] != NONE)
		r->trans[b->cache_edge[k]].count += b->cache_count[k];
	b->cache_count[k] = 0;
}

/* Counts the transition from the previous execution to block to; whether it is quiet. */
static int count_transition(struct rebuild *r, uint32_t to)
{
	struct rebuild_block *p = &r->h.blocks[r->h.prev];
	int full = r->h.prev_n == p->ninsns;
	for (int k = 0; full && k < 2; k++) {
		if (p->cache_next[k] == to) {
			p->cache_count[k]++;
			return p->cache_quiet[k];
		}
	}
	uint32_t t = hmap_get(&r->trans_index, r->h.prev | (uint64_t)r->h.prev_n << 32, to);
	if (t == NONE)
		t = new_transition(r, r->h.prev, r->h.prev_n, to);
	p = &r->h.blocks[r->h.prev];
	if (!full) {
		r->trans[t].count++;
		return r->trans[t].quiet;
	}
	flush_cache(r, p, 1);
	p->cache_next[1] = p->cache_next[0];
	p->cache_edge[1] = p->cache_edge[0];
	p->cache_count[1] = p->cache_count[0];
	p->cache_quiet[1] = p->cache_quiet[0];
	p->cache_next[0] = to;
	p->cache_edge[0] = t;
	p->cache_count[0] = 1;
	p->cache_quiet[0] = (uint8_t)r->trans[t].quiet;
	return r->trans[t].quiet;
}

static void count_partial(struct rebuild *r, uint32_t id, uint32_t n)
{
	uint32_t i = hmap_get(&r->partial, id, n);
	if (i == NONE) {
		r->partial_counts = zp_xrealloc(r->partial_counts,
						(r->npartial + 1) * sizeof *r->partial_counts);
		r->partial_counts[r->npartial] = 0;
		hmap_put(&r->partial, id, n, (uint32_t)r->npartial);
		i = (uint32_t)r->npartial++;
	}
	r->partial_counts[i]++;
}

void rebuild_chained(struct rebuild *r)
{
	r->chained = 1;
}

/*
 * A block of one repeating instruction runs once per iteration and once
 * more, with its count at 0, to leave (QEMU without -d nochain), so one run
 * of each unbroken run of it is no execution: its first when the block
 * before ended with that instruction (which ran the first iteration), else
 * its second.  1 for that run: nothing counted, it only becomes the
 * previous execution.
 */
static int extra_run(struct rebuild *r, uint32_t id, uint32_t n)
{
	uint32_t prev = r->h.prev;
	int extra;
	if (prev == id) {
		extra = r->rep_pending;
		r->rep_pending = 0;
	} else {
		const struct rebuild_block *p = prev != NONE ? &r->h.blocks[prev] : NULL;
		extra = p && r->h.prev_n &&
			r->insns[p->first + r->h.prev_n - 1].addr == r->h.blocks[id].vaddr;
		r->rep_pending = !extra;
	}
	if (extra) {
		r->h.prev = id;
		r->h.prev_n = n;
		r->extra_insns += n;
	}
	return extra;
}

/*
 * QEMU abandons a block at an instruction it must run again alone: a store
 * into a page holding the running block's code (user mode write-protects
 * such pages; the store invalidates their blocks, the running one too: a
 * JIT's counter beside its code, self-modifying code), an atomic operation
 * it cannot run in parallel.  The callback before that instruction has
 * counted it; the block of that one instruction then runs it again at the
 * same address, with nothing in between.  1 for that run: not counted, it
 * only becomes the previous execution.  A plain instruction never goes to
 * its own address otherwise (a restarted system call or a rep is no plain
 * one; a fault or signal runs the handler in between).
 */
static int restarted(struct rebuild *r, uint32_t id, uint32_t n)
{
	uint32_t prev = r->h.prev;
	if (prev == NONE || !r->h.prev_n)
		return 0;
	const struct rebuild_block *p = &r->h.blocks[prev];
	if (r->insns[p->first + r->h.prev_n - 1].addr != r->h.blocks[id].vaddr)
		return 0;
	r->h.prev = id;
	r->h.prev_n = n;
	r->extra_insns += n;
	return 1;
}

/*
 * A frame a forked child inherits: the same path of contexts as in its
 * parent, but no call counted (the parent made it, and counts it).
 */
static void push_inherited(struct rebuild *r, const struct rebuild_frame *f)
{
	push_uncounted(r, func_of(r, f->func), f->ret, f->tail, f->site);
}

/*
 * The stack at the first block: the one a forked child inherits, else a
 * root frame.  A child goes on in the function that made the fork system
 * call; code elsewhere (the parent's stack not reached) is called from it.
 */
static void start_stack(struct rebuild *r, uint32_t func)
{
	resolve_maps(r);
	for (size_t i = 0; i < r->nseed; i++)
		push_inherited(r, &r->seed[i]);
	if (!r->depth || r->stack[r->depth - 1].func != func)
		push(r, func, 0, 0, 0);
}

size_t rebuild_stack(struct rebuild *r, struct rebuild_frame **frames)
{
	*frames = zp_xcalloc(r->depth ? r->depth : 1, sizeof **frames);
	for (size_t i = 0; i < r->depth; i++) {
		const struct frame *f = &r->stack[i];
		(*frames)[i] = (struct rebuild_frame){r->funcs[f->func].start, f->ret,
						      r->ctxs[f->ctx].site, f->tail};
	}
	return r->depth;
}

void rebuild_inherit(struct rebuild *r, const struct rebuild_frame *frames, size_t n)
{
	free(r->seed);
	r->seed = zp_xcalloc(n ? n : 1, sizeof *frames);
	memcpy(r->seed, frames, n * sizeof *frames);
	r->nseed = n;
}

/* Every execution that rebuild_exec_fast (rebuild.h) does not take. */
int rebuild_exec_slow(struct rebuild *r, uint32_t id, uint32_t n, struct zerr *err)
{
	if (id >= r->nblocks || !r->h.blocks[id].defined)
		return zerr_set(err, "block %" PRIu32 " executed before it was defined", id);
	struct rebuild_block *b = &r->h.blocks[id];
	if (n > b->ninsns || n == 0)
		return zerr_set(err, "block %" PRIu32 " ran %" PRIu32 " instructions of its %" PRIu32,
				id, n, b->ninsns);
	if (b->repeats && extra_run(r, id, n))
		return 0;
	if (b->lone && restarted(r, id, n))
		return 0;
	const struct seg *s = &r->segs[b->seg];
	if (r->h.prev != NONE) {
		/*
		 * Staying inside one function is the common case: no stack work.
		 * The top frame is always the running function's, so only calls,
		 * returns and changes of function can move the stack.
		 */
		if (!count_transition(r, id)) {
			const struct rebuild_block *p = &r->h.blocks[r->h.prev];
			transfer(r, &r->insns[p->first + r->h.prev_n - 1], b->vaddr, s->func);
		}
	} else {
		r->first_block = id;
		start_stack(r, s->func);
	}
	if (n == b->ninsns)
		b->full++;
	else
		count_partial(r, id, n);
	if (b->nsegs == 1) {
		r->h.icount += n;
	} else {
		for (uint32_t k = 0; k < b->nsegs && s[k].first < n; k++) {
			if (k)
				transfer(r, &r->insns[b->first + s[k].first - 1],
					 r->insns[b->first + s[k].first].addr, s[k].func);
			r->h.icount += n - s[k].first < s[k].n ? n - s[k].first : s[k].n;
		}
	}
	r->h.prev = id;
	r->h.prev_n = n;
	if (r->h.tap)
		for (uint32_t i = 0; i < n; i++)
			r->h.tap(r->tap_ctx, r->insns[b->first + i].addr, r->insns[b->first + i].word,
			       r->insns[b->first + i].size);
	return 0;
}

void rebuild_set_timeline(struct rebuild *r, uint64_t events, int keep_newest)
{
	r->tl_max = events;
	r->tl_newest = keep_newest;
}

void rebuild_set_tap(struct rebuild *r, rebuild_tap tap, void *ctx)
{
	r->h.tap = tap;
	r->tap_ctx = ctx;
}

/* ---- the profile -------------------------------------------------------- */

/* What the end knows of one executed address. */
struct site {
	uint64_t addr, count, target;
	uint32_t func, bb;
	uint8_t size, cls, leader;
};

static int compare_sites(const void *a, const void *b)
{
	const struct site *x = a, *y = b;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

struct finish {
	struct site *sites;
	size_t nsites;
	struct hmap index; /* addr -> site, after sorting */
	uint64_t *extra;   /* per instruction: partial runs that ran it */
	uint32_t *bb_node; /* per basic block: its node */
	uint64_t *bb_start;
	size_t nbbs;
};

static struct site *site_at(struct finish *fs, uint64_t addr)
{
	uint32_t i = hmap_get(&fs->index, addr, 0);
	return i == NONE ? NULL : &fs->sites[i];
}

/* Executions of block id that ran its instruction i. */
static uint64_t runs_through(const struct rebuild *r, const uint64_t *extra, uint32_t id, uint32_t i)
{
	return r->h.blocks[id].full + extra[r->h.blocks[id].first + i];
}

/* Per instruction, the partial executions that ran it. */
static uint64_t *partial_extra(const struct rebuild *r)
{
	uint64_t *extra = zp_xcalloc(r->ninsns ? r->ninsns : 1, sizeof *extra);
	for (size_t k = 0; k < r->partial.cap; k++) {
		const struct hmap_slot *s = &r->partial.slots[k];
		if (s->value == NONE)
			continue;
		const struct rebuild_block *b = &r->h.blocks[s->a];
		for (uint64_t i = 0; i < s->b; i++)
			extra[b->first + i] += r->partial_counts[s->value];
	}
	return extra;
}

static void collect_sites(struct rebuild *r, struct finish *fs)
{
	struct hmap seen = {0};
	for (uint32_t id = 0; id < r->nblocks; id++) {
		struct rebuild_block *b = &r->h.blocks[id];
		if (!b->defined)
			continue;
		for (uint32_t i = 0; i < b->ninsns; i++) {
			uint64_t c = runs_through(r, fs->extra, id, i);
			if (!c)
				continue;
			struct insn *in = &r->insns[b->first + i];
			uint32_t k = hmap_get(&seen, in->addr, 0);
			if (k == NONE) {
				fs->sites = zp_xrealloc(fs->sites, (fs->nsites + 1) * sizeof *fs->sites);
				fs->sites[fs->nsites] = (struct site){in->addr, 0, in->target, in->func,
								      0, in->size, in->cls, 0};
				hmap_put(&seen, in->addr, 0, (uint32_t)fs->nsites);
				k = (uint32_t)fs->nsites++;
			}
			fs->sites[k].count += c;
			if (i == 0 && id == r->first_block)
				fs->sites[k].leader = 1;
		}
	}
	hmap_free(&seen);
	if (fs->nsites)
		zp_sort(fs->sites, fs->nsites, sizeof *fs->sites, compare_sites);
	for (size_t i = 0; i < fs->nsites; i++)
		hmap_put(&fs->index, fs->sites[i].addr, 0, (uint32_t)i);
}

/* Where control arrived other than by falling through from the instruction before. */
static void mark_leaders(struct rebuild *r, struct finish *fs)
{
	for (size_t t = 0; t < r->ntrans; t++) {
		struct transition *tr = &r->trans[t];
		struct rebuild_block *from = &r->h.blocks[tr->from];
		const struct insn *src = &r->insns[from->first + tr->n - 1];
		uint64_t to = r->h.blocks[tr->to].vaddr;
		struct site *s = site_at(fs, to);
		if (s && (src->cls != ZI_OTHER || to != src->addr + src->size))
			s->leader = 1;
	}
	for (size_t i = 0; i < fs->nsites; i++)
		if (fs->sites[i].addr == r->funcs[fs->sites[i].func].start)
			fs->sites[i].leader = 1;
}

static const char *module_path(const struct rebuild *r, uint32_t mod)
{
	return mod == NONE ? "" : r->mods[mod].path;
}

static uint64_t link_addr(const struct rebuild *r, uint32_t func, uint64_t addr)
{
	uint32_t mod = r->funcs[func].module;
	return mod == NONE ? addr : addr - r->mods[mod].bias;
}

static int line_of(struct rebuild *r, uint32_t func, uint64_t addr, const char **file)
{
	uint32_t mod = r->funcs[func].module;
	int line = 0;
	struct zerr err;
	*file = "";
	if (mod != NONE && symbols_line(r->syms, r->mods[mod].path, addr - r->mods[mod].bias, file,
					&line, &err) < 0) {
		*file = "";
		line = 0;
	}
	return line;
}

static void make_function_nodes(struct rebuild *r, struct zp_profile *p, uint32_t thread)
{
	for (size_t i = 0; i < r->nfuncs; i++) {
		struct func *f = &r->funcs[i];
		if (!f->calls && !f->self && !f->incl) /* a forked child's inherited frames: incl */
			continue;
		const char *file;
		int line = line_of(r, (uint32_t)i, f->start, &file);
		f->node = profile_node(p, ZP_FUNCTION, f->name, module_path(r, f->module), file, line,
				       link_addr(r, (uint32_t)i, f->start));
		/*
		 * Added, not set: a library loaded again after dlclose is a module
		 * of its own at each load, its functions funcs of their own with
		 * the same node, and the flat profile is the sum over every load
		 * as the edges and contexts are.
		 */
		struct zp_stat *s = profile_stat(p, thread, f->node);
		s->calls += f->calls;
		s->self[0] += f->self;
		s->incl[0] += f->incl;
	}
}

/* Cuts the executed instructions into basic blocks and gives each a node. */
static void make_blocks(struct rebuild *r, struct zp_profile *p,
			struct finish *fs)
{
	for (size_t i = 0; i < fs->nsites; i++) {
		struct site *s = &fs->sites[i], *prev = i ? &fs->sites[i - 1] : NULL;
		if (!prev || s->leader || prev->addr + prev->size != s->addr ||
		    prev->func != s->func || prev->cls != ZI_OTHER) {
			fs->bb_node = zp_xrealloc(fs->bb_node, (fs->nbbs + 1) * sizeof *fs->bb_node);
			fs->bb_start = zp_xrealloc(fs->bb_start, (fs->nbbs + 1) * sizeof *fs->bb_start);
			fs->bb_start[fs->nbbs] = s->addr;
			struct func *f = &r->funcs[s->func];
			/*
			 * The entry block carries the function's own name: KCachegrind
			 * opens a file on the function called "main", and finds it so
			 * in the callgrind-bb export too.
			 */
			char name[512];
			if (s->addr == f->start)
				snprintf(name, sizeof name, "%s", f->name);
			else
				snprintf(name, sizeof name, "%s+0x%" PRIx64, f->name, s->addr - f->start);
			const char *file;
			int line = line_of(r, s->func, s->addr, &file);
			fs->bb_node[fs->nbbs++] = profile_node(p, ZP_BASIC_BLOCK, name,
							       module_path(r, f->module), file, line,
							       link_addr(r, s->func, s->addr));
		}
		s->bb = (uint32_t)fs->nbbs - 1;
	}
}

static void add_jump(struct zp_profile *p, uint32_t thread, struct rebuild *r, struct finish *fs,
		     const struct site *src, uint64_t to, uint64_t count)
{
	struct site *dst = site_at(fs, to);
	if (!dst || !count)
		return;
	int jump = (src->cls != ZI_CALL && src->cls != ZI_RET) && src->func == dst->func;
	struct zp_edge *e = profile_edge(p, thread, jump ? ZP_JUMP : ZP_TRANSFER,
					 fs->bb_node[src->bb], fs->bb_node[dst->bb]);
	e->calls += count;
	if (src->cls == ZI_COND && to == src->target)
		e->taken += count;
	if (!e->site) {
		const char *file;
		e->site = link_addr(r, src->func, src->addr);
		e->site_line = line_of(r, src->func, src->addr, &file);
	}
}

static void make_jumps(struct rebuild *r, struct zp_profile *p, uint32_t thread,
		       struct finish *fs)
{
	for (size_t t = 0; t < r->ntrans; t++) {
		struct transition *tr = &r->trans[t];
		struct rebuild_block *from = &r->h.blocks[tr->from];
		const struct site *src = site_at(fs, r->insns[from->first + tr->n - 1].addr);
		const struct site *dst = site_at(fs, r->h.blocks[tr->to].vaddr);
		/*
		 * QEMU also ends blocks where control just falls through (page
		 * ends, size limits, some system instructions): not an edge.
		 */
		if (src && dst && fs->bb_start[dst->bb] == dst->addr)
			add_jump(p, thread, r, fs, src, r->h.blocks[tr->to].vaddr, tr->count);
	}
	/* Fall-through into a basic block that starts inside a translated block. */
	for (uint32_t id = 0; id < r->nblocks; id++) {
		struct rebuild_block *b = &r->h.blocks[id];
		for (uint32_t i = 1; b->defined && i < b->ninsns; i++) {
			const struct insn *in = &r->insns[b->first + i];
			struct site *s = site_at(fs, in->addr);
			if (!s || fs->bb_start[s->bb] != in->addr)
				continue;
			uint64_t c = runs_through(r, fs->extra, id, i);
			const struct site *src = site_at(fs, in[-1].addr);
			if (src && c)
				add_jump(p, thread, r, fs, src, in->addr, c);
		}
	}
}

static void make_instrs(struct rebuild *r, struct zp_profile *p, uint32_t thread,
			struct finish *fs)
{
	for (size_t i = 0; i < fs->nsites; i++) {
		struct site *s = &fs->sites[i];
		const char *file;
		uint32_t node = fs->bb_node[s->bb];
		struct zp_instr *in = profile_add_instr(p, thread, node, link_addr(r, s->func, s->addr),
							line_of(r, s->func, s->addr, &file));
		in->cost[0] = s->count;
		p->nodes[node].parent = r->funcs[s->func].node;
	}
}

static void make_calls(struct rebuild *r, struct zp_profile *p, uint32_t thread)
{
	for (size_t i = 0; i < r->ncalls; i++) {
		struct call_edge *c = &r->calls[i];
		uint32_t caller = c->caller == NONE ? ZP_NONE : r->funcs[c->caller].node;
		struct zp_edge *e = profile_edge(p, thread, ZP_CALL, caller, r->funcs[c->callee].node);
		e->calls += c->calls;
		e->incl[0] += c->incl;
		if (c->caller != NONE && c->site) {
			const char *file;
			e->site = link_addr(r, c->caller, c->site);
			e->site_line = line_of(r, c->caller, c->site, &file);
		}
	}
}

/* The contexts, parents first (a context is added after its parent). */
static void make_contexts(struct rebuild *r, struct zp_profile *p, uint32_t thread)
{
	uint32_t *id = zp_xcalloc(r->nctxs ? r->nctxs : 1, sizeof *id);
	for (size_t i = 0; i < r->nctxs; i++) {
		const struct context *c = &r->ctxs[i];
		uint32_t parent = c->parent == NONE ? ZP_NONE : id[c->parent];
		id[i] = profile_context(p, thread, parent, r->funcs[c->func].node);
		struct zp_context *z = &p->contexts[id[i]];
		z->calls += c->calls;
		z->self[0] += c->self;
		z->incl[0] += c->incl;
		if (c->min < z->min[0])
			z->min[0] = c->min;
		if (c->max > z->max[0])
			z->max[0] = c->max;
		/* A function's cheapest and dearest call, over every path it was called on. */
		struct zp_stat *st = profile_stat(p, thread, r->funcs[c->func].node);
		if (c->min < st->min[0])
			st->min[0] = c->min;
		if (c->max > st->max[0])
			st->max[0] = c->max;
		if (c->parent != NONE && c->site && !z->site) {
			const char *file;
			uint32_t caller = r->ctxs[c->parent].func;
			z->site = link_addr(r, caller, c->site);
			z->site_line = line_of(r, caller, c->site, &file);
		}
	}
	free(id);
}

/*
 * The timeline's events into spans of thread, in instructions of this
 * thread (doc/trace.md, "Timeline"), and the run's timeline facts.  Every
 * frame was closed: nothing is open at the end but what a full ring keeping
 * its oldest events did not see end.
 */
static void make_timeline(struct rebuild *r, struct zp_profile *p, uint32_t thread)
{
	if (!r->tl_max)
		return;
	int full = r->tl_offered > r->tl_max;
	uint64_t kept = full ? r->tl_max : r->tl_offered;
	size_t first = full && r->tl_newest ? (size_t)(r->tl_offered % r->tl_max) : 0;
	/* oldest first: a wrapped ring's oldest event is the one written next */
	struct zp_tl_event *ev = r->tl;
	if (first) {
		ev = zp_xmalloc(kept * sizeof *ev);
		memcpy(ev, r->tl + first, (kept - first) * sizeof *ev);
		memcpy(ev + (kept - first), r->tl, first * sizeof *ev);
	}
	for (uint64_t i = 0; i < kept; i++)
		ev[i].node = r->funcs[ev[i].node].node;
	int64_t end = full && !r->tl_newest && kept ? ev[kept - 1].time : (int64_t)r->h.icount;
	profile_add_timeline(p, thread, ev, (size_t)kept, full && r->tl_newest, end);
	if (ev != r->tl)
		free(ev);
	/* its nodes are the profile's now: the timeline is done */
	free(r->tl);
	r->tl = NULL;
	r->tl_cap = 0;
	r->tl_max = 0;
	profile_add_meta(p, "timeline_unit", "instructions");
	profile_add_meta(p, "timeline_keep", r->tl_newest ? "newest" : "oldest");
	profile_add_count(p, "timeline_events", kept);
	profile_add_count(p, "timeline_dropped", r->tl_offered - kept);
}

int rebuild_finish(struct rebuild *r, struct zp_profile *p, struct zerr *err)
{
	return rebuild_finish_thread(r, p, 0, err);
}

int rebuild_finish_thread(struct rebuild *r, struct zp_profile *p, int64_t tid,
			  struct zerr *err)
{
	if (check_patches(r, err) < 0)
		return -1;
	while (r->depth)
		pop(r);
	for (size_t id = 0; id < r->nblocks; id++) {
		if (!r->h.blocks[id].defined)
			continue; /* zeroed: its cache does not say NONE */
		flush_cache(r, &r->h.blocks[id], 0);
		flush_cache(r, &r->h.blocks[id], 1);
	}
	profile_event(p, "Ir", "instructions");
	uint32_t thread = profile_thread(p, 0, tid, "");
	struct finish fs = {0};
	fs.extra = partial_extra(r);
	collect_sites(r, &fs);
	mark_leaders(r, &fs);
	/* Function nodes first, so that blocks can name them as parents. */
	for (size_t i = 0; i < fs.nsites; i++)
		r->funcs[fs.sites[i].func].self += fs.sites[i].count;
	make_function_nodes(r, p, thread);
	make_blocks(r, p, &fs);
	make_jumps(r, p, thread, &fs);
	make_instrs(r, p, thread, &fs);
	make_calls(r, p, thread);
	make_contexts(r, p, thread);
	make_timeline(r, p, thread);
	free(fs.sites);
	free(fs.bb_node);
	free(fs.bb_start);
	free(fs.extra);
	hmap_free(&fs.index);
	return 0;
}
