/*
 * calls.c - the call-heavy workload of zond's benchmark.
 *
 * Four parts, each a kind of code profilers find hard: a tiny leaf called
 * ten million times, a leaf of a few dozen nanoseconds called a million
 * times, deep recursion (fib), and a hash-table and merge-sort mix with a
 * comparison function called through a pointer.  The result is printed so
 * that nothing is optimized away.
 *
 *   calls                run the workload
 *   calls leaf N         time N calls of the tiny leaf alone: ns per call
 *   calls mixer N        the same for the mid-sized leaf
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define LEAF_CALLS 10000000
#define MIXER_CALLS 1000000
#define KEYS 200000
#define BUCKETS 65536

__attribute__((noinline)) static unsigned leaf(unsigned x)
{
	return x * 2654435761u + 1;
}

static unsigned leaf_loop(unsigned n)
{
	unsigned acc = 0;
	for (unsigned i = 0; i < n; i++)
		acc += leaf(i ^ acc);
	return acc;
}

/* A leaf long enough that its time means something: a dependent chain of mixes. */
__attribute__((noinline)) static unsigned mixer(unsigned x)
{
	for (int i = 0; i < 24; i++)
		x = (x ^ (x >> 15)) * 0x2c1b3c6du;
	return x;
}

static unsigned mixer_loop(unsigned n)
{
	unsigned acc = 0;
	for (unsigned i = 0; i < n; i++)
		acc += mixer(i ^ acc);
	return acc;
}

static unsigned long fib(unsigned n)
{
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

struct entry {
	uint32_t key;
	uint32_t count;
	struct entry *next;
};

static struct entry entries[KEYS];
static struct entry *table[BUCKETS];

static uint32_t hash_key(uint32_t k)
{
	k ^= k >> 16;
	k *= 0x45d9f3bu;
	return k ^ (k >> 16);
}

static struct entry *lookup(uint32_t key)
{
	for (struct entry *e = table[hash_key(key) % BUCKETS]; e; e = e->next)
		if (e->key == key)
			return e;
	return NULL;
}

static void insert(struct entry *e)
{
	uint32_t b = hash_key(e->key) % BUCKETS;
	e->next = table[b];
	table[b] = e;
}

static int compare_entries(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;
	return (x->count > y->count) - (x->count < y->count);
}

static void merge(struct entry *v, struct entry *tmp, size_t mid, size_t n,
		  int (*cmp)(const void *, const void *))
{
	size_t i = 0, j = mid, o = 0;
	while (i < mid && j < n)
		tmp[o++] = cmp(&v[j], &v[i]) < 0 ? v[j++] : v[i++];
	while (i < mid)
		tmp[o++] = v[i++];
	while (j < n)
		tmp[o++] = v[j++];
	memcpy(v, tmp, n * sizeof *v);
}

static void merge_sort(struct entry *v, struct entry *tmp, size_t n,
		       int (*cmp)(const void *, const void *))
{
	if (n < 2)
		return;
	size_t mid = n / 2;
	merge_sort(v, tmp, mid, cmp);
	merge_sort(v + mid, tmp, n - mid, cmp);
	merge(v, tmp, mid, n, cmp);
}

static uint64_t hash_sort_mix(void)
{
	static struct entry tmp[KEYS];
	uint32_t seed = 12345;
	for (uint32_t i = 0; i < KEYS; i++) {
		seed = seed * 1103515245u + 12345u;
		entries[i].key = seed;
		entries[i].count = 0;
		insert(&entries[i]);
	}
	seed = 12345;
	for (uint32_t i = 0; i < KEYS; i++) {
		seed = seed * 1103515245u + 12345u;
		struct entry *e = lookup(seed);
		if (e)
			e->count += i % 7;
	}
	merge_sort(entries, tmp, KEYS, compare_entries);
	return entries[0].count + entries[KEYS - 1].count;
}

static double now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	if (argc == 3) {
		unsigned n = (unsigned)strtoul(argv[2], NULL, 10);
		int tiny = strcmp(argv[1], "leaf") == 0;
		double t0 = now_ns();
		unsigned r = tiny ? leaf_loop(n) : mixer_loop(n);
		double t1 = now_ns();
		printf("%.2f ns per %s call (%u)\n", (t1 - t0) / n, argv[1], r);
		return 0;
	}
	unsigned a = leaf_loop(LEAF_CALLS) + mixer_loop(MIXER_CALLS);
	unsigned long b = fib(27);
	uint64_t c = hash_sort_mix();
	printf("%u %lu %llu\n", a, b, (unsigned long long)c);
	return 0;
}
