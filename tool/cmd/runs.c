/* runs.c - `zond runs`: the runs in a profile store. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cmd.h"
#include "report/rows.h"
#include "store/store.h"

static const char usage_text[] =
	"usage: zond runs [options]\n"
	"List the runs in a profile store, oldest first.\n\n"
	"  -d, --delete RUN      remove a run (id, -N or 'last') from the store\n";

static const struct option options[] = {
	{"delete", required_argument, NULL, 'd'},
	{NULL, 0, NULL, 0},
};

static int own_option(void *arg, int c, const char *value)
{
	if (c != 'd')
		return cmd_usage_error("runs", "bad option");
	/* the same run twice is one run (doc/reports.md: no conflict; QA s15 W2) */
	if (*(const char **)arg && strcmp(*(const char **)arg, value) != 0)
		return cmd_usage_error("runs", "one run at a time: -d %s, then -d %s",
				       *(const char **)arg, value);
	*(const char **)arg = value;
	return 0;
}

static void print_status(const struct zp_run *r, FILE *out)
{
	if (r->term_signal)
		fprintf(out, "signal %-3d", r->term_signal);
	else if (r->exit_status >= 0)
		fprintf(out, "exit %-5d", r->exit_status);
	else
		fprintf(out, "%-10s", "?");
}

static void print_run(const struct zp_run *r, FILE *out)
{
	char date[32] = "?";
	time_t t = (time_t)(r->start_ns / 1000000000);
	struct tm tm;
	if (r->start_ns && localtime_r(&t, &tm))
		strftime(date, sizeof date, "%Y-%m-%d %H:%M:%S", &tm);
	fprintf(out, "%5lld  %-19s  %-9s %10.3f  ", (long long)r->id, date,
		r->collector ? r->collector : "?", (double)r->duration_ns / 1e9);
	print_status(r, out);
	/* names are bytes: a control character (a newline) as '?' (QA s15 W2 F3) */
	fputs("  ", out);
	if (r->campaign) {
		putc('[', out);
		report_put_text(out, r->campaign, 0);
		fputs("] ", out);
	}
	fputs("\n       ", out);
	report_put_text(out, r->command ? r->command : "", 0);
	putc('\n', out);
}

static int delete_run(const char *path, const char *ref)
{
	struct zerr err;
	struct store *s = store_open(path, STORE_READ, &err);
	int64_t id;
	if (!s)
		return cmd_error("runs", "%s", err.msg);
	int rc = store_find_run(s, ref, &id, &err);
	if (rc == 0)
		rc = store_delete_run(s, id, &err);
	store_close(s);
	if (rc < 0)
		return cmd_error("runs", "%s", err.msg);
	printf("deleted run %lld\n", (long long)id);
	return 0;
}

static int list_runs(const char *path, FILE *out)
{
	struct zerr err;
	struct store *s = store_open(path, STORE_READ, &err);
	struct zp_profile **runs = NULL;
	size_t n = 0;
	if (!s || store_list_runs(s, &runs, &n, &err) < 0) {
		store_close(s);
		return cmd_error("runs", "%s", err.msg);
	}
	store_close(s);
	fprintf(out, "%5s  %-19s  %-9s %10s  %-10s  %s\n", "run", "date", "collector", "seconds",
		"status", "[campaign]");
	for (size_t i = 0; i < n; i++) {
		print_run(&runs[i]->run, out);
		profile_free(runs[i]);
	}
	free(runs);
	return 0;
}

int cmd_runs(int argc, char **argv)
{
	const char *del = NULL;
	const struct read_cmd cmd = {"runs", usage_text, NULL, READ_INPUT | READ_OUTPUT, "d:",
				     options, own_option, &del, NULL};
	struct read_options ro;
	int status = read_parse(&cmd, argc, argv, &ro);
	if (status >= 0)
		return status;
	if (optind < argc)
		return cmd_usage_error("runs", "unexpected argument '%s'", argv[optind]);
	const char *path = ro.rc.store ? ro.rc.store : STORE_DEFAULT_PATH;
	if (del)
		return delete_run(path, del);
	FILE *out = read_output_open("runs", &ro);
	if (!out)
		return 1;
	status = list_runs(path, out);
	int closed = read_output_close("runs", &ro, out);
	return status ? status : closed;
}
