/*
 * reader_fuzz - the raw reader against damaged copies of a real raw file
 * (recorded from progs/fib.c): every truncation is refused with a message
 * naming the file, and thousands of deterministic bit flips give either a
 * profile or one error naming the file, never a crash (run it under ASan).
 * raw_peek (the progress line's reader) reads every one of them too: the
 * profile's total of calls when both read a file, nothing when it refuses one.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "check.h"
#include "ingest/raw_reader.h"
#include "raw.h"

enum { FLIPS = 4000 };

static int fd;
static char path[64];

static uint64_t next_random(uint64_t *state)
{
	*state ^= *state << 13;
	*state ^= *state >> 7;
	*state ^= *state << 17;
	return *state;
}

static void put_file(const uint8_t *data, size_t n)
{
	if (ftruncate(fd, 0) < 0 || pwrite(fd, data, n, 0) != (ssize_t)n) {
		perror("memfd");
		exit(1);
	}
}

/*
 * Reads the file back: 0 or -1; an error always names the file.  raw_peek
 * reads it too (never a crash, whatever the bytes); *peek_rc gets its result
 * and *peek_ok whether it agrees with the profile: the same total of calls
 * when both read it, nothing added when it refused.
 */
static int peek_rc, peek_ok;

static int read_back(struct symbols *syms, uint64_t *fib_calls, struct zerr *err)
{
	struct zp_profile *p = profile_new();
	struct raw_peek pk = {0};
	memset(err->msg, 0, sizeof err->msg);
	int rc = raw_read_into(p, path, syms, err);
	uint64_t total = 0;
	for (size_t i = 0; i < p->nstats; i++)
		total += p->stats[i].calls;
	peek_rc = raw_peek(path, &pk);
	peek_ok = peek_rc < 0 ? pk.calls == 0 && pk.lost == 0 && pk.bytes == 0
			      : rc < 0 || pk.calls == total;
	if (rc < 0 && strncmp(err->msg, path, strlen(path)) != 0)
		fprintf(stderr, "error does not name the file: %s\n", err->msg);
	struct zp_view *v = profile_view(p, ZP_NONE);
	for (size_t i = 0; fib_calls && i < p->nnodes; i++)
		if (!strcmp(p->nodes[i].name, "fib"))
			*fib_calls = v->nodes[i].calls;
	profile_view_free(v);
	profile_free(p);
	return rc < 0 && strncmp(err->msg, path, strlen(path)) != 0 ? -2 : rc;
}

/* The file's call edges' sites, summed (0 when it does not read). */
static uint64_t site_sum(struct symbols *syms)
{
	struct zp_profile *p = profile_new();
	struct zerr err;
	uint64_t sum = 0;
	if (raw_read_into(p, path, syms, &err) == 0)
		for (size_t i = 0; i < p->nedges; i++)
			sum += p->edges[i].site;
	profile_free(p);
	return sum;
}

static uint8_t *load(const char *file, size_t *n)
{
	FILE *f = fopen(file, "rb");
	if (!f) {
		perror(file);
		exit(1);
	}
	fseek(f, 0, SEEK_END);
	*n = (size_t)ftell(f);
	rewind(f);
	uint8_t *data = malloc(*n);
	if (!data || fread(data, 1, *n, f) != *n) {
		perror(file);
		exit(1);
	}
	fclose(f);
	return data;
}

/*
 * The edges of every used thread slot of a file as a writer without
 * zr_header.edge_bytes laid them out: ZR_EDGE_V4_BYTES each, no pc.
 */
static void old_edges(uint8_t *copy, const struct zr_header *h)
{
	for (uint32_t slot = 0; slot < h->n_threads; slot++) {
		uint8_t *s = copy + h->threads_off + (uint64_t)slot * h->thread_bytes;
		const struct zr_thread *ti = (const struct zr_thread *)s;
		uint8_t *e = s + h->edges_off;
		for (uint32_t i = 0; i < ti->n_edges; i++)
			memmove(e + (size_t)i * ZR_EDGE_V4_BYTES,
				e + (size_t)i * sizeof(struct zr_edge), ZR_EDGE_V4_BYTES);
		memset(e + (size_t)ti->n_edges * ZR_EDGE_V4_BYTES, 0,
		       (size_t)ti->n_edges * (sizeof(struct zr_edge) - ZR_EDGE_V4_BYTES));
	}
}

/* The bytes worth damaging: header, modules, used strings, the first thread's tables, its events.
 */
static size_t interesting_offset(const struct zr_header *h, uint64_t r)
{
	const uint64_t slot = h->threads_off;
	const uint64_t ranges[][2] = {
		{0, sizeof *h},
		{h->modules_off, h->modules_off + h->n_modules * sizeof(struct zr_module)},
		{h->strings_off, h->strings_off + h->string_used},
		{slot, slot + sizeof(struct zr_thread)},
		{slot + h->funcs_off, slot + h->funcs_off + 8 * sizeof(struct zr_func)},
		{slot + h->edges_off, slot + h->edges_off + 8 * sizeof(struct zr_edge)},
		{slot + h->stack_off, slot + h->stack_off + 4 * sizeof(struct zr_frame)},
		{slot + h->events_off, slot + h->events_off + 16 * sizeof(struct zr_event)},
	};
	const uint64_t *range = ranges[r % 8];
	uint64_t len = range[1] > range[0] ? range[1] - range[0] : 1;
	return (size_t)(range[0] + (r >> 8) % len);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fputs("usage: reader_fuzz FILE.zraw\n", stderr);
		return 2;
	}
	size_t n;
	uint8_t *orig = load(argv[1], &n);
	uint8_t *copy = malloc(n);
	struct zr_header h;
	memcpy(&h, orig, sizeof h);
	fd = memfd_create("zraw", 0);
	snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	struct symbols *syms = symbols_new();
	struct zerr err;

	/* the undamaged file reads, with its exact count */
	uint64_t calls = 0;
	put_file(orig, n);
	CHECK_EQ_U64(read_back(syms, &calls, &err), 0);
	CHECK_EQ_U64(calls, 21891);
	CHECK_EQ_U64(peek_rc, 0);
	CHECK(peek_ok);
	uint64_t sites = site_sum(syms);
	CHECK(sites != 0);

	/* truncations */
	const size_t cuts[] = {0,
			       1,
			       7,
			       8,
			       sizeof h - 1,
			       sizeof h,
			       h.modules_off + 5,
			       h.threads_off,
			       h.threads_off + 100,
			       n / 2,
			       n - 1};
	for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++) {
		put_file(orig, cuts[i]);
		CHECK_EQ_U64(read_back(syms, NULL, &err), (uint64_t)-1);
		CHECK(strstr(err.msg, "truncated") != NULL);
		CHECK_EQ_U64(peek_rc, (uint64_t)-1);
		CHECK(peek_ok);
	}

	/* damage the reader must name */
	memcpy(copy, orig, n);
	copy[0] = 'X';
	put_file(copy, n);
	CHECK_EQ_U64(read_back(syms, NULL, &err), (uint64_t)-1);
	CHECK(strstr(err.msg, "not a zond raw file") != NULL);

	memcpy(copy, orig, n);
	struct zr_edge *edge = (struct zr_edge *)(copy + h.threads_off + h.edges_off);
	edge->callee = 1000;
	put_file(copy, n);
	CHECK_EQ_U64(read_back(syms, NULL, &err), (uint64_t)-1);
	char where[64];
	snprintf(where, sizeof where, "offset %llu: edge",
		 (unsigned long long)(h.threads_off + h.edges_off));
	CHECK(strstr(err.msg, where) != NULL);

	/* a ring of no events that says it kept the newest of some (fuzz.raw found
	   a division by zero there): read, none of them */
	memcpy(copy, orig, n);
	struct zr_header *ch = (struct zr_header *)copy;
	ch->max_events = 0;
	ch->timeline_flags |= ZR_TIMELINE_KEEP_NEWEST;
	((struct zr_thread *)(copy + h.threads_off))->events_written = 5;
	put_file(copy, n);
	CHECK_EQ_U64(read_back(syms, NULL, &err), 0);

	/* a file of version 4's first writers (a header of 312 bytes, no lost_threads_access
	   or lost_processes_room) still reads, those counts 0 whatever lies after the header;
	   a shorter header is refused */
	memcpy(copy, orig, n);
	ch = (struct zr_header *)copy;
	ch->header_bytes = ZR_HEADER_V4_BYTES;
	ch->lost_threads_access = 7;
	ch->lost_processes_room = 9;
	old_edges(copy, &h);
	put_file(copy, n);
	calls = 0;
	{
		struct zp_profile *p = profile_new();
		CHECK_EQ_U64(raw_read_into(p, path, syms, &err), 0);
		CHECK(profile_meta(p, "lost_threads_access") == NULL);
		CHECK(profile_meta(p, "lost_processes_room") == NULL);
		profile_free(p);
	}
	CHECK_EQ_U64(read_back(syms, &calls, &err), 0);
	CHECK_EQ_U64(calls, 21891);
	/* its edges of 32 bytes (no pc) read with the same call sites */
	CHECK_EQ_U64(site_sum(syms), sites);
	ch->header_bytes = ZR_HEADER_V4_BYTES - 8;
	put_file(copy, n);
	CHECK_EQ_U64(read_back(syms, NULL, &err), (uint64_t)-1);
	CHECK(strstr(err.msg, "bad header size") != NULL);

	/* bit flips: a profile or an error naming the file, never a crash */
	uint64_t state = 0x2545f4914f6cdd1dull;
	int named = 1, agreed = 0;
	for (int i = 0; i < FLIPS; i++) {
		memcpy(copy, orig, n);
		int bytes = 1 + (int)(next_random(&state) % 3);
		for (int b = 0; b < bytes; b++) {
			size_t off = interesting_offset(&h, next_random(&state));
			copy[off] ^= (uint8_t)(1u << (next_random(&state) % 8));
		}
		put_file(copy, n);
		if (read_back(syms, NULL, &err) == -2)
			named = 0;
		agreed += peek_ok;
	}
	CHECK(named);
	CHECK_EQ_U64(agreed, FLIPS);

	symbols_free(syms);
	free(copy);
	free(orig);
	close(fd);
	return check_done();
}
