/*
 * execcheck - the times of progs/execs.c's first image, which spins 20 ms
 * after its last instrumented call and then execs: its file says EXECED
 * with an end time, and the frames it left open (main, spin_then_exec) are
 * closed at the exec, so their inclusive times hold the 20 ms.  The upper
 * bound is loose: a loaded machine may stretch the spin.
 */
#include <dirent.h>
#include <fnmatch.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "ingest/raw_reader.h"
#include "raw.h"

static const struct zp_stat *stat_of(const struct zp_view *v, const char *name)
{
	for (size_t i = 0; i < v->p->nnodes; i++)
		if (strcmp(v->p->nodes[i].name, name) == 0)
			return &v->nodes[i];
	return NULL;
}

static int between_ms(uint64_t ns, double lo, double hi)
{
	double got = (double)ns / 1e6;
	if (got >= lo && got <= hi)
		return 1;
	fprintf(stderr, "    %.3f ms, expected %.0f to %.0f ms\n", got, lo, hi);
	return 0;
}

static void check_file(const char *path, int *found)
{
	struct zr_header h;
	FILE *f = fopen(path, "rb");
	int ok = f && fread(&h, sizeof h, 1, f) == 1;
	if (f)
		fclose(f);
	CHECK(ok);
	if (!ok)
		return;
	struct zp_profile *p = profile_new();
	struct symbols *syms = symbols_new();
	struct zerr err;
	if (raw_read_into(p, path, syms, &err) < 0) {
		fprintf(stderr, "%s\n", err.msg);
		CHECK(0);
	} else {
		struct zp_view *v = profile_view(p, ZP_NONE);
		const struct zp_stat *spin = stat_of(v, "spin_then_exec"), *main_ = stat_of(v, "main");
		if (spin) {
			(*found)++;
			CHECK_EQ_U64(h.state, ZR_EXECED);
			CHECK(h.end_ticks > h.start_ticks);
			CHECK(h.end_realtime_ns > h.start_realtime_ns);
			CHECK(between_ms(spin->incl[0], 19.99, 1000));
			CHECK(main_ && between_ms(main_->incl[0], 19.99, 1000));
			/* the spin is spin_then_exec's own time */
			CHECK(between_ms(spin->self[0], 19.99, 1000));
		} else {
			/* the later images: execed but the last, which exits */
			CHECK(h.state == ZR_EXECED || h.state == ZR_EXITED);
			CHECK(h.end_ticks != 0);
		}
		profile_view_free(v);
	}
	profile_free(p);
	symbols_free(syms);
}

int main(int argc, char **argv)
{
	if (argc != 2)
		return 2;
	DIR *d = opendir(argv[1]);
	struct dirent *e;
	int files = 0, found = 0;
	while (d && (e = readdir(d))) {
		if (fnmatch("*.zraw", e->d_name, 0))
			continue;
		char path[4096];
		snprintf(path, sizeof path, "%s/%s", argv[1], e->d_name);
		check_file(path, &found);
		files++;
	}
	if (d)
		closedir(d);
	CHECK_EQ_U64(files, 5);
	CHECK_EQ_U64(found, 1);
	return check_done();
}
