/* strtab.c - distinct strings with stable indexes (strtab.h). */
#include "strtab.h"

#include <stdlib.h>
#include <string.h>

#include "model/profile.h"

static uint64_t hash_string(const char *s)
{
	uint64_t h = 1469598103934665603ull; /* FNV-1a */
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

static void rehash(struct strtab *t)
{
	free(t->slots);
	t->nslots = t->nslots ? t->nslots * 2 : 256;
	t->slots = zp_xcalloc(t->nslots, sizeof *t->slots);
	for (size_t i = 0; i < t->n; i++) {
		size_t at = hash_string(t->s[i]) & (t->nslots - 1);
		while (t->slots[at])
			at = (at + 1) & (t->nslots - 1);
		t->slots[at] = (uint32_t)i + 1;
	}
}

size_t strtab_intern(struct strtab *t, const char *s)
{
	if (!s)
		s = "";
	if (2 * (t->n + 1) > t->nslots)
		rehash(t);
	size_t at = hash_string(s) & (t->nslots - 1);
	for (; t->slots[at]; at = (at + 1) & (t->nslots - 1))
		if (strcmp(t->s[t->slots[at] - 1], s) == 0)
			return t->slots[at] - 1;
	if (t->n == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 256;
		t->s = zp_xrealloc(t->s, t->cap * sizeof *t->s);
	}
	t->s[t->n] = zp_xstrdup(s);
	t->slots[at] = (uint32_t)++t->n;
	return t->n - 1;
}

void strtab_free(struct strtab *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->s[i]);
	free(t->s);
	free(t->slots);
	memset(t, 0, sizeof *t);
}
