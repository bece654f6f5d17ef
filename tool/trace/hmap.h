/*
 * hmap.h - an open-addressing hash map from a pair of 64-bit keys to a
 * 32-bit value, for the trace rebuild's tables (blocks, edges, functions).
 * Its size follows the program's code, never the trace's length.
 */
#ifndef ZOND_TRACE_HMAP_H
#define ZOND_TRACE_HMAP_H

#include <stdint.h>
#include <stdlib.h>

#include "model/profile.h"

struct hmap_slot {
	uint64_t a, b;
	uint32_t value; /* UINT32_MAX: empty */
};

struct hmap {
	struct hmap_slot *slots;
	size_t cap, n;
};

static inline uint64_t hmap_hash(uint64_t a, uint64_t b)
{
	uint64_t h = a * 0x9e3779b97f4a7c15ull ^ (b + 0x632be59bd9b4e019ull) * 0xc2b2ae3d27d4eb4full;
	return h ^ (h >> 29);
}

static inline void hmap_free(struct hmap *m)
{
	free(m->slots);
	m->slots = NULL;
	m->cap = m->n = 0;
}

static inline void hmap_grow(struct hmap *m)
{
	size_t cap = m->cap ? m->cap * 2 : 1024;
	struct hmap_slot *s = zp_xmalloc(cap * sizeof *s);
	for (size_t i = 0; i < cap; i++)
		s[i].value = UINT32_MAX;
	for (size_t i = 0; i < m->cap; i++) {
		struct hmap_slot *o = &m->slots[i];
		if (o->value == UINT32_MAX)
			continue;
		size_t j = hmap_hash(o->a, o->b) & (cap - 1);
		while (s[j].value != UINT32_MAX)
			j = (j + 1) & (cap - 1);
		s[j] = *o;
	}
	free(m->slots);
	m->slots = s;
	m->cap = cap;
}

/* The value stored for (a, b), or UINT32_MAX. */
static inline uint32_t hmap_get(const struct hmap *m, uint64_t a, uint64_t b)
{
	if (!m->cap)
		return UINT32_MAX;
	for (size_t j = hmap_hash(a, b) & (m->cap - 1);; j = (j + 1) & (m->cap - 1)) {
		const struct hmap_slot *s = &m->slots[j];
		if (s->value == UINT32_MAX || (s->a == a && s->b == b))
			return s->value;
	}
}

/* Stores value for (a, b), which must not be present yet. */
static inline void hmap_put(struct hmap *m, uint64_t a, uint64_t b, uint32_t value)
{
	if (2 * (m->n + 1) > m->cap)
		hmap_grow(m);
	size_t j = hmap_hash(a, b) & (m->cap - 1);
	while (m->slots[j].value != UINT32_MAX)
		j = (j + 1) & (m->cap - 1);
	m->slots[j] = (struct hmap_slot){a, b, value};
	m->n++;
}

#endif
