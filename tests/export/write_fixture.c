/*
 * write_fixture.c - writes the fixture profile (fixture.h) in one export
 * format, for tests that hand the file to another program; or, with
 * "contexts-store", adds the contexts fixture (fixture_context_profile) as a
 * run to the profile store OUTFILE, for tests of the zond command.
 *
 * "contexts-FORMAT" writes the contexts fixture in FORMAT.
 *
 * Usage: write_fixture [contexts-]FORMAT|contexts-store NEVENTS OUTFILE
 */
#include <stdlib.h>
#include <string.h>

#include "export/export.h"
#include "fixture.h"
#include "store/store.h"

static int write_store(unsigned nevents, const char *path)
{
	struct zerr err;
	struct zp_profile *p = fixture_context_profile(nevents);
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
	if (strcmp(argv[1], "contexts-store") == 0)
		return write_store((unsigned)atoi(argv[2]), argv[3]);
	const char *format = argv[1];
	int contexts = strncmp(format, "contexts-", 9) == 0;
	if (contexts)
		format += 9;
	for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++) {
		if (strcmp(formats[i].name, format) != 0)
			continue;
		unsigned nevents = (unsigned)atoi(argv[2]);
		struct zp_profile *p =
			contexts ? fixture_context_profile(nevents) : fixture_profile(nevents);
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
