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
	fprintf(stderr, "zond %s: ", cmd);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (see 'zond %s --help')\n", cmd);
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

static struct zp_profile *load_campaign(struct store *s, const char *path, const char *name,
					struct zerr *err)
{
	int64_t *ids;
	size_t n;
	if (store_campaign_runs(s, name, &ids, &n, err) < 0)
		return NULL;
	if (n == 0) {
		free(ids);
		zerr_set(err, "%s: no campaign '%s' (see 'zond runs')", path, name);
		return NULL;
	}
	struct zp_profile *all = NULL;
	for (size_t i = n; i-- > 0;) {
		struct zp_profile *p = store_load_run(s, ids[i], err);
		if (!p) {
			profile_free(all);
			all = NULL;
			break;
		}
		if (!all) {
			all = p; /* the newest run gives the header */
			continue;
		}
		profile_merge(all, p);
		profile_free(p);
	}
	free(ids);
	if (all) {
		char count[32];
		snprintf(count, sizeof count, "%zu", n);
		profile_add_meta(all, "runs_combined", count);
	}
	return all;
}

struct zp_profile *run_choice_load(const struct run_choice *c, uint32_t *thread,
				   struct zerr *err)
{
	const char *path = c->store ? c->store : STORE_DEFAULT_PATH;
	if (c->campaign && c->run) {
		zerr_set(err, "choose a run or a campaign, not both");
		return NULL;
	}
	struct store *s = store_open(path, STORE_READ, err);
	if (!s)
		return NULL;
	int64_t id;
	struct zp_profile *p = NULL;
	if (c->campaign)
		p = load_campaign(s, path, c->campaign, err);
	else if (store_find_run(s, c->run, &id, err) == 0)
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
