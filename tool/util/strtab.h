/*
 * strtab.h - a table of distinct strings, each with a stable index.
 *
 * strtab_intern() returns the index of a string equal to s, adding a copy
 * if the table has none; indexes count from 0 in the order strings were
 * first added, and t->s[i] is string i (the table owns the copies).  NULL
 * is taken as "".  Allocation failure aborts (the tool's rule).
 */
#ifndef ZOND_STRTAB_H
#define ZOND_STRTAB_H

#include <stddef.h>
#include <stdint.h>

struct strtab {
	char **s; /* n strings */
	size_t n, cap;
	uint32_t *slots; /* open addressing: index + 1, 0 = empty */
	size_t nslots;
};

size_t strtab_intern(struct strtab *t, const char *s);
void strtab_free(struct strtab *t);

#endif
