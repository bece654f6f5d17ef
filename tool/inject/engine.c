/* engine.c - which functions of an ELF file can be patched, and how (engine.h). */
#include "engine.h"

#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>

#include "model/profile.h"

#define FILL_MAX 64 /* alignment fill looked at after a function */

const char *inject_elf_arch(const char *path, struct zerr *err)
{
	int m = symbols_machine(path, err);
	if (m < 0)
		return NULL;
	if (m == EM_X86_64)
		return "x86_64";
	if (m == EM_RISCV) {
		int bits = symbols_class(path, err);
		return bits < 0 ? NULL : bits == 64 ? "riscv64" : "riscv32";
	}
	zerr_set(err, "%s: ELF machine %d; zond inject knows x86-64 and RISC-V", path, m);
	return NULL;
}

struct collect {
	struct inject_func *f;
	size_t n, cap;
};

static void collect_one(void *arg, const struct symbol *sym)
{
	struct collect *c = arg;
	if (c->n && c->f[c->n - 1].addr == sym->start)
		return; /* an alias: the preferred name is looked up later */
	if (c->n == c->cap) {
		c->cap = c->cap ? 2 * c->cap : 256;
		c->f = zp_xrealloc(c->f, c->cap * sizeof *c->f);
	}
	struct inject_func *f = &c->f[c->n++];
	memset(f, 0, sizeof *f);
	f->addr = sym->start;
	f->size = sym->size;
}

/* Bytes of alignment fill after f that no function claims. */
static size_t fill_after(const struct inject_plan *p, size_t i, const uint8_t *code, size_t got)
{
	const struct inject_func *f = &p->funcs[i];
	uint64_t end = f->addr + f->size, limit = end + FILL_MAX;
	if (i + 1 < p->nfuncs && p->funcs[i + 1].addr < limit)
		limit = p->funcs[i + 1].addr;
	if (limit <= end || got <= f->size)
		return 0;
	size_t room = (size_t)(limit - end);
	if (room > got - f->size)
		room = got - f->size;
	return p->arch->fill(code + f->size, room);
}

/* Every direct branch's target in the file, with the function it is in. */
struct branch {
	uint64_t target;
	size_t from; /* index of the function */
};

struct branches {
	struct branch *b;
	size_t n, cap, from;
};

static void add_branch(void *arg, uint64_t target)
{
	struct branches *bs = arg;
	if (bs->n == bs->cap) {
		bs->cap = bs->cap ? 2 * bs->cap : 4096;
		bs->b = zp_xrealloc(bs->b, bs->cap * sizeof *bs->b);
	}
	bs->b[bs->n++] = (struct branch){target, bs->from};
}

static int compare_branches(const void *a, const void *b)
{
	uint64_t x = ((const struct branch *)a)->target, y = ((const struct branch *)b)->target;
	return (x > y) - (x < y);
}

/* The index of the first branch (sorted) whose target is above `above`. */
static size_t first_target_above(const struct branches *bs, uint64_t above)
{
	return zp_count_at_most(bs->b, bs->n, sizeof *bs->b, offsetof(struct branch, target), above);
}

/*
 * Refuses the functions another function's direct branch jumps into,
 * inside the bytes their jump overwrites: that code would run half of
 * zond's jump.  When the branch lands past the first instruction (glibc's
 * __mempcpy_* jump to __memmove_*+3) the function gets a hop instead, if
 * the arch has one (its slot is found later).  Their own branches plan()
 * has checked.
 */
static void refuse_jumped_into(struct inject_plan *p, struct branches *bs)
{
	if (!bs->n)
		return; /* no branch (or none known for the architecture) */
	qsort(bs->b, bs->n, sizeof *bs->b, compare_branches);
	for (size_t i = 0; i < p->nfuncs; i++) {
		struct inject_func *f = &p->funcs[i];
		if (!f->ok)
			continue;
		uint64_t lo = f->site.addr + f->site.keep, hi = lo + f->site.len;
		for (size_t a = first_target_above(bs, lo); a < bs->n && bs->b[a].target < hi;
		     a++) {
			if (bs->b[a].from == i)
				continue;
			const struct inject_func *g = &p->funcs[bs->b[a].from];
			/* the lowest target: the others lie past it, past the hop too */
			int past_first =
				f->site.ninsn > 1 && bs->b[a].target >= lo + f->site.map_from[1];
			snprintf(f->why, sizeof f->why,
				 "%.60s jumps to +%llu, inside the %u bytes the jump overwrites",
				 g->name ? g->name : "another function",
				 (unsigned long long)(bs->b[a].target - f->addr), f->site.len);
			if (f->site.hop || !past_first ||
			    inject_site_to_hop(&f->site, p->arch->hop_len) < 0)
				f->ok = f->far_ok = 0;
			break;
		}
	}
}

/* Whether a branch of the file targets a byte of [lo, hi). */
static int targeted(const struct branches *bs, uint64_t lo, uint64_t hi)
{
	size_t a = lo ? first_target_above(bs, lo - 1) : 0;
	return a < bs->n && bs->b[a].target < hi;
}

/*
 * A slot for the hop of function i: jump_len bytes of the fill after a
 * function j within the hop's reach, past the bytes used[j] of it other
 * patches took (its own fallback, other slots), which it then takes; the
 * nearest such.  The fill must lie between two functions, after a sealed
 * one, and no branch may target it: it never runs.  0 when there is none.
 */
static uint64_t take_slot(const struct inject_plan *p, const struct branches *bs, size_t i,
			  uint32_t *used)
{
	const struct inject_arch *a = p->arch;
	uint64_t from = p->funcs[i].site.addr + p->funcs[i].site.keep + a->hop_len;
	uint64_t wlo = from > a->hop_reach ? from - a->hop_reach : 0, whi = from + a->hop_reach;
	uint64_t best = 0, far = UINT64_MAX, best_start = 0;
	size_t best_j = 0;
	for (size_t j = 0; a->hop && j + 1 < p->nfuncs; j++) {
		const struct inject_func *g = &p->funcs[j];
		uint64_t start = g->addr + g->size, end = start + g->fill;
		if (end <= wlo || start >= whi || !g->sealed || end != p->funcs[j + 1].addr ||
		    targeted(bs, start, end))
			continue;
		uint64_t s = start + used[j] > wlo ? start + used[j] : wlo;
		uint8_t b[16];
		uint64_t d = s > from ? s - from : from - s;
		if (s + a->jump_len > end || !a->hop(from - a->hop_len, s, b) || d >= far)
			continue;
		best = s, far = d, best_j = j, best_start = start;
	}
	if (best)
		used[best_j] = (uint32_t)(best + a->jump_len - best_start);
	return best;
}

/* Slots for the hops the plan wants; a function with none is refused. */
static void place_hops(struct inject_plan *p, const struct branches *bs)
{
	uint32_t *used = zp_xcalloc(p->nfuncs + 1, sizeof *used);
	for (size_t j = 0; j < p->nfuncs; j++)
		if (p->funcs[j].ok && !p->funcs[j].site.hop)
			used[j] = p->funcs[j].site.padding;
	for (size_t i = 0; i < p->nfuncs; i++) {
		struct inject_func *f = &p->funcs[i];
		if (!f->ok || !f->site.hop)
			continue;
		f->site.slot = take_slot(p, bs, i, used);
		if (f->site.slot)
			continue;
		size_t n = strlen(f->why);
		snprintf(f->why + n, sizeof f->why - n,
			 ", and no free alignment fill within %u bytes for a hop",
			 p->arch->hop_reach);
		f->ok = f->far_ok = 0;
	}
	free(used);
}

/*
 * Functions whose entry cannot take a probe whatever their code: parts
 * gcc split off (name.cold, "[clone .cold]"), entered by a jump from their
 * function with its frame live, no return address on top of the stack; and
 * functions that return twice (vfork, the setjmp family, getcontext),
 * whose second return would find its frame gone; and those that look at
 * their caller's address (inject_reads_caller), which a probe makes
 * za_exit (never_probed).  The reason, or NULL.
 */
int inject_is_unwinder(const char *name)
{
	static const char *const unwinders[] = {
		"_Unwind_RaiseException", "_Unwind_Resume",    "_Unwind_Resume_or_Rethrow",
		"_Unwind_ForcedUnwind",	  "_Unwind_Backtrace", NULL,
	};
	for (int i = 0; name && unwinders[i]; i++) {
		size_t n = strlen(unwinders[i]);
		if (strncmp(name, unwinders[i], n) == 0 && (name[n] == 0 || name[n] == '@'))
			return 1;
	}
	return 0;
}

int inject_reads_caller(const char *name)
{
	static const char *const callers[] = {
		"dlopen",	  "dlmopen",	      "dlsym", "dlvsym", "dl_iterate_phdr",
		"__dl_iterate_phdr", "__libc_dlopen_mode", NULL,
	};
	for (int i = 0; name && callers[i]; i++) {
		size_t n = strlen(callers[i]);
		if (strncmp(name, callers[i], n) == 0 && (name[n] == 0 || name[n] == '@'))
			return 1;
	}
	return 0;
}

static const char *never_probed(const char *name, int *part, int *caller)
{
	static const char *const twice[] = {"vfork",	   "__vfork",	  "setjmp",	"_setjmp",
					    "__setjmp",	   "sigsetjmp",	  "__sigsetjmp", "getcontext",
					    "__getcontext", "savectx",	  NULL};
	if (!name)
		return NULL;
	const char *cold = strstr(name, ".cold");
	*part = cold && (cold[5] == 0 || cold[5] == '.' || cold[5] == ']');
	*caller = inject_reads_caller(name);
	if (*caller)
		return "it looks at its caller's address, which a probe makes the trampoline's";
	if (*part)
		return "a part gcc split off its function (.cold): entered by a jump, not a call";
	for (int i = 0; twice[i]; i++)
		if (strcmp(name, twice[i]) == 0)
			return "it returns twice: its second return would find no frame";
	return NULL;
}

/*
 * Functions known to read their own return address whose code may hide it
 * from the arch's reads_return (another compiler's or flags' copy): libgcc's
 * unwinder takes the first frame from it and aborts when no FDE covers it
 * (QA s14 V3 F1: a static C++ program's throw).  A gcc clone's suffix
 * (.constprop.0) too.
 */
static int known_return_reader(const char *name)
{
	static const char *const readers[] = {"uw_init_context_1", NULL};
	for (int i = 0; name && readers[i]; i++) {
		size_t n = strlen(readers[i]);
		if (strncmp(name, readers[i], n) == 0 &&
		    (name[n] == 0 || name[n] == '@' || name[n] == '.'))
			return 1;
	}
	return 0;
}

/*
 * Whether f, of code, reads its own return address (why in f->why): kept
 * ok until the hops are placed, since zond's own probes may still use its
 * site (refuse_return_readers).
 */
static void note_return_reader(const struct inject_plan *p, struct inject_func *f,
			       const uint8_t *code)
{
	if (!f->ok || f->part)
		return;
	if (known_return_reader(f->name)) {
		f->reads_ret = 1;
		snprintf(f->why, sizeof f->why,
			 "it reads its own return address (libgcc's unwinder), which a probe "
			 "makes the trampoline's");
	} else if (p->arch->reads_return) {
		char why[INJECT_WHY];
		if ((f->reads_ret = p->arch->reads_return(code, (size_t)f->size, why)))
			snprintf(f->why, sizeof f->why, "%s", why);
	}
}

/* The return-address readers whose site stands: refused for measuring, site kept. */
static void refuse_return_readers(struct inject_plan *p)
{
	for (size_t i = 0; i < p->nfuncs; i++) {
		struct inject_func *f = &p->funcs[i];
		f->reads_ret = f->reads_ret && f->ok;
		if (f->reads_ret)
			f->ok = f->far_ok = 0;
	}
}

static int plan_one(struct symbols *s, struct inject_plan *p, size_t i, struct branches *bs,
		    struct zerr *err)
{
	struct inject_func *f = &p->funcs[i];
	struct symbol sym;
	if (symbols_lookup(s, p->path, f->addr, &sym, err) < 0)
		return -1;
	f->name = sym.name;
	size_t want = (size_t)f->size + FILL_MAX;
	uint8_t *code = zp_xmalloc(want);
	long got = symbols_read(s, p->path, f->addr, code, want, err);
	int rc = 0;
	if (got < 0) {
		rc = -1;
	} else if ((size_t)got < f->size) {
		snprintf(f->why, sizeof f->why, "no code in the file (%ld of %llu bytes)", got,
			 (unsigned long long)f->size);
	} else {
		size_t pad = fill_after(p, i, code, (size_t)got);
		f->fill = (uint32_t)pad;
		f->sealed = p->arch->ends_flow && p->arch->ends_flow(code, (size_t)f->size);
		f->ok = p->arch->plan(code, (size_t)f->size, pad, f->addr, 0, &f->site, f->why) ==
			0;
		uint8_t copy[512];
		/* a jump of limited reach: where the copy goes is the scratch RAM's
		 * (inject_plan_scratch); here only what fails wherever it goes */
		uint64_t to = p->arch->reach ? f->addr : p->image_end;
		if (f->ok && p->arch->relocate(&f->site, code, to, copy, sizeof copy, f->why) < 0)
			f->ok = 0;
		f->far_ok = f->ok && p->arch->plan_far &&
			    p->arch->plan_far(code, (size_t)f->size, pad, f->addr, &f->far,
					      f->far_why) == 0;
		if (p->arch->branches) {
			bs->from = i;
			p->arch->branches(code, (size_t)f->size, f->addr, add_branch, bs);
		}
		const char *never = never_probed(f->name, &f->part, &f->caller);
		if (never) {
			snprintf(f->why, sizeof f->why, "%s", never);
			f->ok = f->far_ok = 0;
		}
		note_return_reader(p, f, code);
	}
	free(code);
	return rc;
}

/*
 * A Go program's own code, [*lo, *hi) (both 0 in other programs): the Go
 * linker puts it between runtime.text and runtime.etext, the C code of cgo
 * outside.  Go's runtime walks and copies goroutine stacks, reading every
 * return address on them (a probe's would be no Go function: "fatal error"),
 * and switches stacks in hand-written code (runtime.mcall): none of it can
 * take a probe; cgo's C functions can.
 */
static int go_code(struct symbols *s, const char *path, uint64_t *lo, uint64_t *hi,
		   struct zerr *err)
{
	struct symbol text, etext;
	int found = symbols_named(s, path, "runtime.text", &text, err);
	if (found == 1)
		found = symbols_named(s, path, "runtime.etext", &etext, err);
	if (found < 0)
		return -1;
	if (found == 1 && etext.start > text.start) {
		*lo = text.start;
		*hi = etext.start;
	}
	return 0;
}

int inject_plan_file(struct symbols *s, const char *path, const struct inject_arch *arch,
		     struct inject_plan *out, struct zerr *err)
{
	memset(out, 0, sizeof *out);
	struct collect c = {0};
	if (symbols_each_function(s, path, collect_one, &c, err) < 0)
		return -1;
	out->path = zp_xstrdup(path);
	out->arch = arch;
	out->funcs = c.f;
	out->nfuncs = c.n;
	for (size_t i = 0; i < c.n; i++)
		if (c.f[i].addr + c.f[i].size > out->image_end)
			out->image_end = c.f[i].addr + c.f[i].size;
	out->image_end = (out->image_end + 4095) & ~(uint64_t)4095;
	uint64_t entry = 0;
	if (symbols_entry(path, &entry, err) < 0) {
		inject_plan_free(out);
		return -1;
	}
	uint64_t go_lo = 0, go_hi = 0;
	if (go_code(s, path, &go_lo, &go_hi, err) < 0) {
		inject_plan_free(out);
		return -1;
	}
	struct branches bs = {0};
	for (size_t i = 0; i < c.n; i++) {
		if (plan_one(s, out, i, &bs, err) < 0) {
			free(bs.b);
			inject_plan_free(out);
			return -1;
		}
		if (c.f[i].addr - go_lo < go_hi - go_lo) {
			c.f[i].ok = c.f[i].far_ok = 0;
			snprintf(c.f[i].why, sizeof c.f[i].why,
				 "Go code: its runtime moves goroutine stacks and reads their "
				 "return addresses");
		}
		/* the kernel jumps there: no return address to replace */
		if (c.f[i].addr == entry && entry) {
			c.f[i].ok = c.f[i].far_ok = 0;
			snprintf(c.f[i].why, sizeof c.f[i].why,
				 "the program's entry point: entered with no return address");
		}
	}
	refuse_jumped_into(out, &bs);
	place_hops(out, &bs);
	refuse_return_readers(out);
	free(bs.b);
	return 0;
}

void inject_plan_free(struct inject_plan *p)
{
	free(p->funcs);
	free(p->path);
	memset(p, 0, sizeof *p);
}

/*
 * Whether site's trampolines anywhere in [lo, hi] work: the entry's jump
 * (a breakpoint entry has none) reaches both ends, and the copy relocates
 * at both; else 0 with why.
 */
static int site_fits(const struct inject_plan *p, const struct inject_site *site,
		     const uint8_t *code, uint64_t lo, uint64_t hi, char *why)
{
	uint64_t at = site->addr + site->keep, reach = p->arch->reach;
	uint64_t ends[2] = {lo, hi};
	for (int e = 0; e < 2; e++) {
		struct inject_site copy_site = *site; /* relocate() fills its map */
		uint8_t copy[512];
		int64_t d = (int64_t)(ends[e] - at);
		if (!site->far && !site->by_break && (d >= (int64_t)reach || d < -(int64_t)reach)) {
			snprintf(why, INJECT_WHY,
				 "its trampoline (0x%llx-0x%llx) is out of a jal's reach (%llu "
				 "MiB) from 0x%llx",
				 (unsigned long long)lo, (unsigned long long)hi,
				 (unsigned long long)(reach >> 20), (unsigned long long)at);
			return 0;
		}
		if (p->arch->relocate(&copy_site, code, ends[e], copy, sizeof copy, why) < 0)
			return 0;
	}
	return 1;
}

size_t inject_plan_scratch(struct symbols *s, struct inject_plan *p, uint64_t scratch,
			   uint64_t len, uint64_t span)
{
	size_t n = 0;
	if (!p->arch->reach)
		return 0;
	/* the trampolines come after the results and the shadow stack: somewhere in
	 * the first span bytes; a slot's length from the end is the last a copy starts */
	uint64_t used = span && span < len ? span : len;
	uint64_t lo = scratch, hi = scratch + (used > 256 ? used - 256 : 0);
	for (size_t i = 0; i < p->nfuncs; i++) {
		struct inject_func *f = &p->funcs[i];
		if (!f->ok)
			continue;
		size_t want = (size_t)f->size + FILL_MAX;
		uint8_t *code = zp_xcalloc(1, want);
		struct zerr err = {0};
		char why[INJECT_WHY] = "", far_why[INJECT_WHY] = "";
		long got = symbols_read(s, p->path, f->addr, code, want, &err);
		int near = got >= (long)f->size && site_fits(p, &f->site, code, lo, hi, why);
		int far = !near && got >= (long)f->size && f->far_ok &&
			  site_fits(p, &f->far, code, lo, hi, far_why);
		free(code);
		f->far_needed = far;
		if (near || far)
			continue;
		char full[3 * INJECT_WHY]; /* cut to f->why's length, the far reason last */
		snprintf(full, sizeof full, "%.159s, and %.159s", why[0] ? why : err.msg,
			 f->far_ok ? far_why : f->far_why);
		memcpy(f->why, full, sizeof f->why - 1);
		f->why[sizeof f->why - 1] = 0;
		f->ok = 0;
		n++;
	}
	return n;
}

size_t inject_plan_count_ok(const struct inject_plan *p)
{
	size_t n = 0;
	for (size_t i = 0; i < p->nfuncs; i++)
		n += p->funcs[i].ok;
	return n;
}

/* The index of the function named name or containing addr, or -1. */
static ptrdiff_t find_func(const struct inject_plan *p, const char *name, uint64_t addr)
{
	for (size_t i = 0; i < p->nfuncs; i++) {
		const struct inject_func *f = &p->funcs[i];
		if (name ? f->name && strcmp(f->name, name) == 0
			 : addr >= f->addr && addr < f->addr + f->size)
			return (ptrdiff_t)i;
	}
	return -1;
}

int inject_plan_locate(struct symbols *s, const struct inject_plan *p, const char *spec,
		       size_t *func, uint64_t *offset, struct zerr *err)
{
	char name[256];
	uint64_t off = 0, addr = 0;
	char *end;
	ptrdiff_t i;
	const char *colon = strrchr(spec, ':');
	if (colon && colon[1] >= '0' && colon[1] <= '9' && colon != spec) {
		long line = strtol(colon + 1, &end, 10);
		int rc;
		if (*end || line <= 0 || (size_t)(colon - spec) >= sizeof name)
			return zerr_set(err, "%s: not FILE:LINE", spec);
		snprintf(name, sizeof name, "%.*s", (int)(colon - spec), spec);
		if ((rc = symbols_line_addr(s, p->path, name, (int)line, &addr, err)) != 0)
			return rc < 0 ? -1
				      : zerr_set(err, "%s: no code at that line in %s (DWARF)",
						 spec, p->path);
		if ((i = find_func(p, NULL, addr)) < 0)
			return zerr_set(err, "%s: in no function of %s", spec, p->path);
		off = addr - p->funcs[i].addr;
	} else if (strncmp(spec, "0x", 2) == 0) {
		addr = strtoull(spec, &end, 16);
		if (*end)
			return zerr_set(err, "%s: not an address", spec);
		if ((i = find_func(p, NULL, addr)) < 0)
			return zerr_set(err, "%s: in no function of %s", spec, p->path);
		off = addr - p->funcs[i].addr;
	} else {
		size_t len = strcspn(spec, "+");
		if (len >= sizeof name)
			return zerr_set(err, "%s: name too long", spec);
		memcpy(name, spec, len);
		name[len] = 0;
		if (spec[len]) {
			off = strtoull(spec + len + 1, &end, 0);
			if (*end || end == spec + len + 1)
				return zerr_set(err, "%s: not FUNC+OFFSET", spec);
		}
		if ((i = find_func(p, name, 0)) < 0)
			return zerr_set(err, "%s: no function %s in %s", spec, name, p->path);
		if (off >= p->funcs[i].size)
			return zerr_set(err, "%s: past the end of %s (%llu bytes)", spec, name,
					(unsigned long long)p->funcs[i].size);
	}
	*func = (size_t)i;
	*offset = off;
	return 0;
}

int inject_plan_point(struct symbols *s, const struct inject_plan *p, const char *spec,
		      struct inject_site *site, struct zerr *err)
{
	size_t i;
	uint64_t off;
	if (inject_plan_locate(s, p, spec, &i, &off, err) < 0)
		return -1;
	const struct inject_func *f = &p->funcs[i];
	size_t want = (size_t)f->size + FILL_MAX;
	uint8_t *code = zp_xmalloc(want);
	long got = symbols_read(s, p->path, f->addr, code, want, err);
	char why[INJECT_WHY];
	int rc = got < (long)f->size ? -1 : 0;
	if (got >= 0 && rc < 0)
		zerr_set(err, "%s: no code in %s", spec, p->path);
	if (rc == 0 && p->arch->plan(code, (size_t)f->size, fill_after(p, i, code, (size_t)got),
				     f->addr, (size_t)off, site, why) != 0)
		rc = zerr_set(err, "%s: %s", spec, why);
	free(code);
	if (rc == 0 && site->hop) { /* a function's entry: its slot is the plan's */
		if (!f->ok && !f->reads_ret) /* a region's probe leaves the return address */
			return zerr_set(err, "%s: %s", spec, f->why);
		*site = f->site;
	}
	return rc;
}
