/*
 * symbols.h - names and source lines for addresses, through elfutils.
 *
 * A `struct symbols` caches every ELF file it opened.  Addresses given to it
 * are link-time addresses inside one file (run-time address minus the load
 * bias the runtime recorded).  Lookup order: the ELF symbol table, then the
 * dynamic symbol table (stripped files), then nothing (callers then name the
 * code by address).  C++ names come back demangled.  DWARF gives file:line
 * when the file has it.
 *
 * Errors: a file that cannot be opened or is not ELF makes the call fail with
 * a message naming it; a missing symbol is not an error.
 */
#ifndef ZOND_SYMBOLS_H
#define ZOND_SYMBOLS_H

#include <stdint.h>

#include "../util/error.h"

struct symbols;

struct symbol {
	const char *name; /* owned by the cache; NULL when no symbol covers addr */
	uint64_t start;   /* link-time address of the symbol's first byte */
	uint64_t size;
};

struct symbols *symbols_new(void);
void symbols_free(struct symbols *s);

/* The function symbol containing addr in the ELF file at path. */
int symbols_lookup(struct symbols *s, const char *path, uint64_t addr, struct symbol *out,
		   struct zerr *err);

/* Source file and line of addr (DWARF); *file = "" and *line = 0 when unknown. */
int symbols_line(struct symbols *s, const char *path, uint64_t addr, const char **file,
		 int *line, struct zerr *err);

/* Calls fn for every function symbol of the file (defined, size > 0). */
int symbols_each_function(struct symbols *s, const char *path,
			  void (*fn)(void *arg, const struct symbol *sym), void *arg,
			  struct zerr *err);

/* 1 if path is an ELF file zond can read, 0 if not (with the reason in err). */
int symbols_is_elf(const char *path, struct zerr *err);

#endif
