/*
 * engine.h - zond inject's plan of which functions of an ELF file can be
 * patched, and how.  Transport- and architecture-neutral: the functions
 * come from tool/symbols, the decisions from a struct inject_arch.
 *
 * inject_plan_file() takes every function symbol of the file (one entry per
 * start address; of aliases, the name symbols_lookup prefers), reads its
 * bytes and the alignment fill after it, and asks the architecture for a
 * site; a site is also relocated once to the first page after the image,
 * where the trampolines will be (within reach of a rel32 jump on x86-64),
 * so a refusal for reach shows here too.
 *
 * A function a branch enters past its first instruction, inside the bytes
 * the jump would overwrite, gets a hop (arch.h) when a slot for the jump is
 * free within the hop's reach: jump_len bytes of the alignment fill between
 * two functions, after one whose last instruction never falls through
 * (sealed), that no branch of the file targets and no other patch uses
 * (another hop's slot, a short function's fallback).  Else it is refused
 * ("..., and no free alignment fill within N bytes for a hop").
 */
#ifndef ZOND_INJECT_ENGINE_H
#define ZOND_INJECT_ENGINE_H

#include <stddef.h>
#include <stdint.h>

#include "arch.h"
#include "symbols/symbols.h"
#include "util/error.h"

struct inject_func {
	const char *name; /* owned by the struct symbols */
	uint64_t addr;    /* link-time address */
	uint64_t size;
	int ok; /* 1: site is valid */
	int part; /* a part gcc split off a function (.cold): not a function, never probed */
	int caller; /* it reads its caller's address (dlsym...): never probed (inject_reads_caller) */
	int reads_ret; /* it reads its own return address (the arch's reads_return, or known
			* by name: libgcc's uw_init_context_1): never measured (!ok, why
			* says so), but its site is valid: zond's own probes (an
			* unwinder's, swapcontext's), which leave that address, go there */
	struct inject_site site;
	char why[INJECT_WHY]; /* when !ok: the reason */
	uint32_t fill;        /* bytes of alignment fill after it, up to the next function */
	int sealed;           /* its last instruction never falls through into the fill */
	int far_ok;           /* the arch's far jump: 1 when far is valid, else far_why */
	int far_needed;       /* the scratch RAM is out of site's reach: far it is */
	struct inject_site far;
	char far_why[INJECT_WHY];
};

/*
 * 1 when name (a symbol's, "@VERSION" or not) is an unwinder's entry
 * (_Unwind_RaiseException, _Unwind_Resume, ...), where a thrown exception
 * starts walking the stack: zond's own probe stands there, which gives
 * the unwinder the real return addresses; never a measured function's.
 */
int inject_is_unwinder(const char *name);

/*
 * 1 when name ("@VERSION" or not) is one of the functions that look at
 * their caller's address (glibc's dlopen, dlmopen, dlsym, dlvsym,
 * dl_iterate_phdr, __libc_dlopen_mode: the caller's object decides what
 * RTLD_NEXT, $ORIGIN and the namespace are).  A probe makes that address
 * the trampoline's, so they are never probed (doc/inject.md, "Functions
 * that look at their caller").
 */
int inject_reads_caller(const char *name);

struct inject_plan {
	char *path;
	const struct inject_arch *arch;
	struct inject_func *funcs; /* by address */
	size_t nfuncs;
	uint64_t image_end; /* first address after every function, page-aligned */
};

/* Plans every function of the ELF file at path; -1 with err set. */
int inject_plan_file(struct symbols *s, const char *path, const struct inject_arch *arch,
		     struct inject_plan *out, struct zerr *err);
void inject_plan_free(struct inject_plan *p);

/*
 * A point of the plan's file for a region probe: "FUNC", "FUNC+OFFSET"
 * (decimal or 0x hex), "0xADDR" (link-time) or "FILE:LINE" (the line's
 * lowest statement address, DWARF); its site into *site (at
 * least the arch's jump of the function's instructions from there, no
 * jump of the function into them).  -1 with err set: "SPEC: no function
 * FUNC", "SPEC: no code at that line in PATH (DWARF)", "SPEC: WHY".
 */
int inject_plan_point(struct symbols *s, const struct inject_plan *p, const char *spec,
		      struct inject_site *site, struct zerr *err);
/*
 * The same spec as the function of the plan it lies in (an index into
 * p->funcs) and the offset into it, unchecked; -1 with err as above.
 */
int inject_plan_locate(struct symbols *s, const struct inject_plan *p, const char *spec,
		       size_t *func, uint64_t *offset, struct zerr *err);

/*
 * Trampolines in [scratch, scratch + len), within its first span bytes
 * (0: all; zond's results and shadow stack come first, so the caller's
 * bound on what a run uses): every function is checked against both ends
 * of that window, its entry's jump and its relocated copy.  One that works
 * only with the arch's far jump gets far_needed; one neither works for is
 * refused ("its trampoline (LO-HI) is out of a jal's reach (1
 * MiB) from ENTRY, and WHY").  For an architecture whose jump's reach is
 * not limited, none.  Returns how many were refused.
 */
size_t inject_plan_scratch(struct symbols *s, struct inject_plan *p, uint64_t scratch,
			   uint64_t len, uint64_t span);

/* Functions the plan can patch. */
size_t inject_plan_count_ok(const struct inject_plan *p);

/* The ELF machine of path as an architecture name ("x86_64"), or NULL with err set. */
const char *inject_elf_arch(const char *path, struct zerr *err);

#endif
