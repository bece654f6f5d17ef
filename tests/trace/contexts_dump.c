/*
 * contexts_dump.c - prints the calling contexts a trace gives, for
 * contexts.sh to compare with the program's known structure (the store
 * keeps no contexts yet, so the test reads the trace itself).
 *
 * One line per context, sorted, its fields separated by tabs (C++ names
 * have spaces):
 *   THREAD PATH CALLS SELF INCL MIN MAX
 * PATH is the function names from the thread's root joined by ';'.  Then
 * one line per function and thread, from the flat stats, which rebuild.c
 * computes apart (self from the per-instruction counts):
 *   =func THREAD NAME CALLS SELF MIN MAX
 *
 * Usage: contexts_dump ztrace FILE
 *        contexts_dump qemu-log|pcs ARCH ELF FILE
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/trace.h"

static void path_of(const struct zp_profile *p, uint32_t c, char *buf, size_t size)
{
	const struct zp_context *x = &p->contexts[c];
	buf[0] = 0;
	if (x->parent != ZP_NONE)
		path_of(p, x->parent, buf, size);
	size_t len = strlen(buf);
	snprintf(buf + len, size - len, "%s%s", len ? ";" : "", p->nodes[x->node].name);
}

int main(int argc, char **argv)
{
	if (argc < 3)
		return 2;
	struct symbols *syms = symbols_new();
	struct zp_profile *p = profile_new();
	struct trace_info info;
	struct zerr err = {{0}};
	int rc;
	if (strcmp(argv[1], "ztrace") == 0) {
		rc = trace_read_ztrace(argv[2], syms, p, &info, &err);
	} else {
		if (argc < 5)
			return 2;
		struct trace_import o = {.arch = argv[2], .elf = argv[3]};
		rc = strcmp(argv[1], "pcs") == 0 ? trace_read_pcs(argv[4], &o, syms, p, &info, &err)
						 : trace_read_qemu_log(argv[4], &o, syms, p, &info, &err);
	}
	if (rc < 0) {
		fprintf(stderr, "contexts_dump: %s\n", err.msg);
		return 1;
	}
	static char path[1 << 16];
	for (size_t i = 0; i < p->ncontexts; i++) {
		const struct zp_context *c = &p->contexts[i];
		path_of(p, (uint32_t)i, path, sizeof path);
		printf("%" PRId64 "\t%s\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\n",
		       p->threads[c->thread].tid, path, c->calls, c->self[0], c->incl[0], c->min[0],
		       c->max[0]);
	}
	for (size_t i = 0; i < p->nstats; i++) {
		const struct zp_stat *s = &p->stats[i];
		if (p->nodes[s->node].kind == ZP_FUNCTION)
			printf("=func\t%" PRId64 "\t%s\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\n",
			       p->threads[s->thread].tid, p->nodes[s->node].name, s->calls,
			       s->self[0], s->min[0], s->max[0]);
	}
	printf("=insns\t%" PRIu64 "\n", info.insns);
	profile_free(p);
	symbols_free(syms);
	return 0;
}
