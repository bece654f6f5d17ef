/*
 * write_fixture.c - writes the fixture profile (fixture.h) in one export
 * format, for tests that hand the file to another program; or, with
 * "contexts-store", adds the contexts fixture (fixture_context_profile) as a
 * run to the profile store OUTFILE, for tests of the zond command.
 *
 * "contexts-FORMAT" writes the contexts fixture in FORMAT, "timeline-FORMAT"
 * the timeline fixture (fixture_timeline_profile), "unknown-FORMAT" the
 * fixture with what a store may not know of its run (doc/store-schema.md:
 * collector, command, host, arch, clock NULL) unknown.
 *
 * "huge-store" adds a run whose counts fill 64 bits (HUGE_* below): for the
 * column widths of the reports.
 *
 * Usage: write_fixture [contexts-|timeline-]FORMAT|contexts-store|huge-store NEVENTS OUTFILE
 */
#include <stdlib.h>
#include <string.h>

#include "export/export.h"
#include "fixture.h"
#include "store/store.h"

/* The huge run: "big" called HUGE_CALLS times, HUGE_NS of self time, from main. */
#define HUGE_CALLS 12345678901234567890u
#define HUGE_NS 9876543210987654321u
static struct zp_profile *huge_profile(void)
{
	struct zp_profile *p = profile_new();
	profile_event(p, "time", "ns");
	uint32_t t = profile_thread(p, 7, 7, "huge");
	uint32_t main_ = profile_node(p, ZP_FUNCTION, "main", "app", "main.c", 1, 0x10);
	uint32_t big = profile_node(p, ZP_FUNCTION, "big", "app", "main.c", 9, 0x20);
	struct zp_stat *s = profile_stat(p, t, main_);
	s->calls = 1;
	s->incl[0] = s->min[0] = s->max[0] = HUGE_NS + 5;
	s->self[0] = 5;
	s = profile_stat(p, t, big);
	s->calls = HUGE_CALLS;
	s->incl[0] = s->self[0] = HUGE_NS;
	s->min[0] = 0;
	s->max[0] = 1;
	struct zp_edge *e = profile_edge(p, t, ZP_CALL, main_, big);
	e->calls = HUGE_CALLS;
	e->incl[0] = HUGE_NS;
	return p;
}

/* What a store may not know of a run: NULL (doc/store-schema.md). */
static void forget_run(struct zp_run *r)
{
	char **fields[] = {&r->collector, &r->command, &r->host, &r->arch, &r->clock};
	for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
		free(*fields[i]);
		*fields[i] = NULL;
	}
}

static int write_store(unsigned nevents, const char *path, int huge)
{
	struct zerr err;
	struct zp_profile *p = huge ? huge_profile() : fixture_context_profile(nevents);
	struct store *s = store_open(path, STORE_CREATE, &err);
	int rc = s ? store_add_run(s, p, &err) : -1;
	store_close(s);
	profile_free(p);
	if (rc < 0)
		fprintf(stderr, "write_fixture: %s\n", err.msg);
	return rc < 0;
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		int (*write)(const struct zp_profile *, const struct export_options *, FILE *,
			     struct zerr *);
	} formats[] = {
		{"callgrind", export_callgrind},
		{"chrome", export_chrome},
		{"dot", export_dot},
		{"folded", export_folded},
		{"json", export_json},
		{"pprof", export_pprof},
		{"speedscope", export_speedscope},
	};
	if (argc != 4) {
		fputs("usage: write_fixture FORMAT NEVENTS OUTFILE\n", stderr);
		return 2;
	}
	if (strcmp(argv[1], "contexts-store") == 0 || strcmp(argv[1], "huge-store") == 0)
		return write_store((unsigned)atoi(argv[2]), argv[3], argv[1][0] == 'h');
	const char *format = argv[1];
	int contexts = strncmp(format, "contexts-", 9) == 0;
	int timeline = strncmp(format, "timeline-", 9) == 0;
	int unknown = strncmp(format, "unknown-", 8) == 0;
	if (contexts || timeline)
		format += 9;
	if (unknown)
		format += 8;
	for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++) {
		if (strcmp(formats[i].name, format) != 0)
			continue;
		unsigned nevents = (unsigned)atoi(argv[2]);
		struct zp_profile *p = timeline   ? fixture_timeline_profile()
				       : contexts ? fixture_context_profile(nevents)
						  : fixture_profile(nevents);
		if (unknown)
			forget_run(&p->run);
		struct export_options o = {.thread = ZP_NONE};
		struct zerr err;
		FILE *out = fopen(argv[3], "w");
		int rc = out ? formats[i].write(p, &o, out, &err) : -1;
		if (out && fclose(out) != 0)
			rc = -1;
		profile_free(p);
		if (rc < 0)
			fprintf(stderr, "write_fixture: %s\n", out ? err.msg : argv[3]);
		return rc < 0;
	}
	fprintf(stderr, "write_fixture: unknown format %s\n", argv[1]);
	return 2;
}
