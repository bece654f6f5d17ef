/*
 * shop.c - the bundled example: a day of a small online shop, in one process.
 *
 * It makes a catalogue, reads a day of orders as text lines, prices them,
 * keeps stock in a hash table, ranks products with a quicksort, compresses
 * the day's log with run-length coding and checks it with a CRC, and reports.
 * About thirty functions with recursion, hot leaves and a few rare paths: a
 * workload whose profile has something to say.  Deterministic: the same
 * output every run.
 *
 *   gcc -O2 -g -finstrument-functions -o shop shop.c && zond record -- ./shop
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zond.h> /* a hand-marked block; runs unchanged without zond */

#define PRODUCTS 2000
#define ORDERS 60000
#define BUCKETS 4096

struct product {
	char sku[16];
	char name[32];
	unsigned price_cents;
	int stock;
	unsigned sold;
	struct product *next; /* hash chain */
};

struct order {
	char sku[16];
	int quantity;
	unsigned customer;
};

static struct product catalogue[PRODUCTS];
static struct product *buckets[BUCKETS];
static uint64_t rng_state = 0x2545f4914f6cdd1dull;

static uint32_t next_random(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (uint32_t)rng_state;
}

static unsigned random_below(unsigned n)
{
	return next_random() % n;
}

static uint32_t hash_sku(const char *sku)
{
	uint32_t h = 2166136261u;
	while (*sku)
		h = (h ^ (unsigned char)*sku++) * 16777619u;
	return h;
}

static void make_sku(unsigned i, char *out)
{
	snprintf(out, 16, "SKU-%05u", i);
}

static void make_name(unsigned i, char *out)
{
	static const char *const adjectives[] = {"red", "small", "fast", "quiet", "old", "bright"};
	static const char *const nouns[] = {"kettle", "lamp", "chair", "clock", "radio", "bike"};
	snprintf(out, 32, "%s %s %u", adjectives[i % 6], nouns[(i / 6) % 6], i);
}

static void insert_product(struct product *p)
{
	uint32_t b = hash_sku(p->sku) % BUCKETS;
	p->next = buckets[b];
	buckets[b] = p;
}

static struct product *find_product(const char *sku)
{
	for (struct product *p = buckets[hash_sku(sku) % BUCKETS]; p; p = p->next)
		if (strcmp(p->sku, sku) == 0)
			return p;
	return NULL;
}

static void build_catalogue(void)
{
	for (unsigned i = 0; i < PRODUCTS; i++) {
		struct product *p = &catalogue[i];
		make_sku(i, p->sku);
		make_name(i, p->name);
		p->price_cents = 199 + random_below(50000);
		p->stock = 20 + (int)random_below(200);
		insert_product(p);
	}
}

/* The day's orders arrive as text: "SKU-00042,3,1017". */
static void write_order_line(char *line, size_t len)
{
	char sku[16];
	make_sku(random_below(PRODUCTS + 20), sku); /* a few unknown products */
	snprintf(line, len, "%s,%u,%u", sku, 1 + random_below(5), random_below(900));
}

static int parse_number(const char **s)
{
	int v = 0;
	while (**s >= '0' && **s <= '9')
		v = v * 10 + (*(*s)++ - '0');
	return v;
}

static int parse_order(const char *line, struct order *o)
{
	const char *comma = strchr(line, ',');
	if (!comma || comma - line >= (long)sizeof o->sku)
		return -1;
	memcpy(o->sku, line, (size_t)(comma - line));
	o->sku[comma - line] = 0;
	const char *s = comma + 1;
	o->quantity = parse_number(&s);
	if (*s++ != ',')
		return -1;
	o->customer = (unsigned)parse_number(&s);
	return 0;
}

static unsigned discount_percent(unsigned customer, int quantity)
{
	unsigned d = customer % 97 == 0 ? 10 : 0; /* loyal customers */
	if (quantity >= 4)
		d += 5;
	return d;
}

static unsigned price_order(const struct product *p, const struct order *o)
{
	unsigned gross = p->price_cents * (unsigned)o->quantity;
	return gross - gross * discount_percent(o->customer, o->quantity) / 100;
}

static void restock(struct product *p)
{
	p->stock += 100;
}

static int take_order(const struct order *o, uint64_t *revenue, char *log, size_t *log_len)
{
	struct product *p = find_product(o->sku);
	if (!p)
		return -1;
	if (p->stock < o->quantity)
		restock(p);
	ZOND_BEGIN("stock update");
	p->stock -= o->quantity;
	p->sold += (unsigned)o->quantity;
	ZOND_END("stock update");
	*revenue += price_order(p, o);
	log[(*log_len)++] = (char)('a' + o->quantity);
	return 0;
}

static void swap_products(struct product **a, struct product **b)
{
	struct product *t = *a;
	*a = *b;
	*b = t;
}

static int sells_better(const struct product *a, const struct product *b)
{
	if (a->sold != b->sold)
		return a->sold > b->sold;
	return strcmp(a->sku, b->sku) < 0;
}

static void sort_by_sales(struct product **v, int lo, int hi)
{
	if (lo >= hi)
		return;
	struct product *pivot = v[(lo + hi) / 2];
	int i = lo, j = hi;
	while (i <= j) {
		while (sells_better(v[i], pivot))
			i++;
		while (sells_better(pivot, v[j]))
			j--;
		if (i <= j)
			swap_products(&v[i++], &v[j--]);
	}
	sort_by_sales(v, lo, j);
	sort_by_sales(v, i, hi);
}

static size_t run_length_encode(const char *in, size_t n, unsigned char *out)
{
	size_t o = 0;
	for (size_t i = 0; i < n;) {
		size_t run = 1;
		while (i + run < n && in[i + run] == in[i] && run < 255)
			run++;
		out[o++] = (unsigned char)run;
		out[o++] = (unsigned char)in[i];
		i += run;
	}
	return o;
}

static uint32_t crc32_byte(uint32_t crc, unsigned char b)
{
	crc ^= b;
	for (int k = 0; k < 8; k++)
		crc = (crc >> 1) ^ (0xedb88320u & -(crc & 1));
	return crc;
}

static uint32_t crc32(const unsigned char *p, size_t n)
{
	uint32_t crc = 0xffffffffu;
	for (size_t i = 0; i < n; i++)
		crc = crc32_byte(crc, p[i]);
	return ~crc;
}

static unsigned long fibonacci(unsigned n)
{
	return n < 2 ? n : fibonacci(n - 1) + fibonacci(n - 2);
}

static unsigned loyalty_points(uint64_t revenue)
{
	/* A silly rule on purpose: a recursive function in the profile. */
	return (unsigned)(fibonacci(20) % 1000 + revenue % 1000);
}

static void print_top(struct product **ranked, int n)
{
	for (int i = 0; i < n; i++)
		printf("  %2d. %-24s %6u sold\n", i + 1, ranked[i]->name, ranked[i]->sold);
}

static void run_day(void)
{
	static char log[ORDERS];
	static unsigned char packed[2 * ORDERS];
	static struct product *ranked[PRODUCTS];
	uint64_t revenue = 0;
	size_t log_len = 0;
	unsigned rejected = 0;

	for (int i = 0; i < ORDERS; i++) {
		char line[64];
		struct order o;
		write_order_line(line, sizeof line);
		if (parse_order(line, &o) < 0 || take_order(&o, &revenue, log, &log_len) < 0)
			rejected++;
	}
	for (int i = 0; i < PRODUCTS; i++)
		ranked[i] = &catalogue[i];
	sort_by_sales(ranked, 0, PRODUCTS - 1);
	size_t packed_len = run_length_encode(log, log_len, packed);

	printf("orders: %d taken, %u rejected\n", ORDERS - (int)rejected, rejected);
	printf("revenue: %llu.%02llu\n", (unsigned long long)(revenue / 100),
	       (unsigned long long)(revenue % 100));
	printf("log: %zu bytes, %zu packed, crc %08x\n", log_len, packed_len,
	       crc32(packed, packed_len));
	printf("loyalty points: %u\n", loyalty_points(revenue));
	printf("best sellers:\n");
	print_top(ranked, 5);
}

int main(void)
{
	build_catalogue();
	run_day();
	return 0;
}
