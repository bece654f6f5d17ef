/* common.c - what the subcommands share: error lines and choosing a run. */
#include "cmd.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "store/store.h"

static void vprint_error(const char *cmd, const char *fmt, va_list ap)
{
	fprintf(stderr, "zond %s: ", cmd);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

int cmd_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vprint_error(cmd, fmt, ap);
	va_end(ap);
	return 1;
}

int cmd_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vprint_error(cmd, fmt, ap);
	va_end(ap);
	fprintf(stderr, "Try 'zond %s --help'.\n", cmd);
	return 2;
}

long parse_count(const char *s)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < 0)
		return -1;
	return v;
}

static int find_thread(const struct zp_profile *p, const char *tid, uint32_t *thread,
		       struct zerr *err)
{
	long want = parse_count(tid);
	if (want < 0)
		return zerr_set(err, "--tid wants a thread id, not '%s'", tid);
	for (size_t i = 0; i < p->nthreads; i++) {
		if (p->threads[i].tid == want) {
			*thread = (uint32_t)i;
			return 0;
		}
	}
	return zerr_set(err, "run %lld has no thread %ld (see 'zond report --per-thread')",
			(long long)p->run.id, want);
}

struct zp_profile *run_choice_load(const struct run_choice *c, uint32_t *thread,
				   struct zerr *err)
{
	const char *path = c->store ? c->store : STORE_DEFAULT_PATH;
	struct store *s = store_open(path, STORE_READ, err);
	if (!s)
		return NULL;
	int64_t id;
	struct zp_profile *p = NULL;
	if (store_find_run(s, c->run, &id, err) == 0)
		p = store_load_run(s, id, err);
	store_close(s);
	if (!p)
		return NULL;
	*thread = ZP_NONE;
	if (c->tid && find_thread(p, c->tid, thread, err) < 0) {
		profile_free(p);
		return NULL;
	}
	return p;
}
