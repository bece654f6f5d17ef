/*
 * store_roundtrip.c - a run comes back from the store exactly as it went in,
 * the SQL tables say what doc/store-schema.md says (its example queries run
 * and give the results expected), large runs are quick,
 * and two processes writing one store both succeed.
 */
#define _GNU_SOURCE /* getline, open_memstream */

#include <sqlite3.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../check.h"
#include "sample.h"
#include "store/store.h"

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void test_round_trip(const char *dir)
{
	struct zerr err = {{0}};
	char *path = sample_path(dir, "rt.db");
	struct store *s = store_open(path, STORE_CREATE, &err);
	CHECK(s != NULL);
	struct zp_profile *a = sample_profile("nightly");
	struct zp_profile *b = sample_profile(NULL);
	CHECK(store_add_run(s, a, &err) == 0);
	CHECK(store_add_run(s, b, &err) == 0);
	CHECK_EQ_U64(a->run.id, 1);
	CHECK_EQ_U64(b->run.id, 2);
	store_close(s);

	/* Read back through a fresh handle, as another zond command would. */
	s = store_open(path, STORE_READ, &err);
	CHECK(s != NULL);
	struct zp_profile *a2 = store_load_run(s, 1, &err);
	struct zp_profile *b2 = store_load_run(s, 2, &err);
	CHECK(a2 && b2);
	if (a2 && b2) {
		CHECK_EQ_U64(sample_mismatches(a, a2), 0);
		CHECK_EQ_U64(sample_mismatches(b, b2), 0);
		CHECK_EQ_U64(a2->run.id, 1);
		CHECK_EQ_U64(b2->run.id, 2);
		/* The loaded profile's lookup tables work: no duplicate is made. */
		size_t n = a2->nnodes;
		CHECK_EQ_U64(profile_node(a2, ZP_FUNCTION, "main", "/usr/bin/shop", "", 0, 0x1139),
			     0);
		CHECK_EQ_U64(a2->nnodes, n);
		CHECK(profile_stat(a2, 0, 0) == &a2->stats[0]);
	}

	/* Headers: run fields, meta and events, but no nodes. */
	struct zp_profile **runs;
	size_t nruns;
	CHECK(store_list_runs(s, &runs, &nruns, &err) == 0);
	CHECK_EQ_U64(nruns, 2);
	if (nruns == 2) {
		CHECK_EQ_U64(runs[0]->run.id, 1);
		CHECK_EQ_STR(runs[0]->run.campaign, "nightly");
		CHECK(runs[1]->run.campaign == NULL);
		CHECK_EQ_STR(runs[1]->run.command, "./shop --orders 3 'a b'");
		CHECK_EQ_STR(profile_meta(runs[0], "lost_funcs"), "3");
		CHECK_EQ_U64(runs[0]->nevents, 2);
		CHECK_EQ_U64(runs[0]->nnodes, 0);
	}
	for (size_t i = 0; i < nruns; i++)
		profile_free(runs[i]);
	free(runs);
	store_close(s);

	/* What SQL users read (doc/store-schema.md): bit-cast uint64, NULL for ZP_NONE. */
	CHECK_EQ_U64(sample_sql_int(path, "SELECT min FROM stat_costs WHERE run = 1 AND stat = 0 "
					  "AND event = 1"),
		     (uint64_t)-1);
	CHECK_EQ_U64(
		sample_sql_int(path, "SELECT count(*) FROM edges WHERE run = 1 AND caller IS NULL"),
		2);
	CHECK_EQ_U64(
		sample_sql_int(path, "SELECT count(*) FROM nodes WHERE run = 1 AND parent = 0"), 2);
	CHECK_EQ_U64(sample_sql_int(path, "SELECT sum(c.self) FROM stat_costs c JOIN events e ON "
					  "e.run = c.run AND e.idx = c.event WHERE c.run = 1 AND "
					  "e.name = 'time'"),
		     1007);
	CHECK_EQ_U64(
		sample_sql_int(path, "SELECT value FROM zond_meta WHERE key = 'schema_version'"),
		STORE_SCHEMA_VERSION);
	CHECK_EQ_U64(
		sample_sql_int(path,
			       "SELECT count(*) FROM contexts WHERE run = 1 AND parent IS NULL"),
		2);
	CHECK_EQ_U64(sample_sql_int(path, "SELECT calls FROM contexts WHERE run = 1 AND id = 3"),
		     (uint64_t)-1);
	profile_free(a);
	profile_free(b);
	profile_free(a2);
	profile_free(b2);
	free(path);
}

static void test_big_run(const char *dir)
{
	struct zerr err = {{0}};
	char *path = sample_path(dir, "big.db");
	struct store *s = store_open(path, STORE_CREATE, &err);
	struct zp_profile *p = sample_big_profile(10, 10000);
	CHECK_EQ_U64(p->nstats, 100000);

	double t0 = now_s();
	CHECK(store_add_run(s, p, &err) == 0);
	double t1 = now_s();
	struct zp_profile *q = store_load_run(s, p->run.id, &err);
	double t2 = now_s();
	printf("100000 stats and edges: written in %.3f s, read in %.3f s\n", t1 - t0, t2 - t1);
	/* figures only: a timed check fails on a busy machine (speed is bench/'s) */
	CHECK(q != NULL);
	if (q)
		CHECK_EQ_U64(sample_mismatches(p, q), 0);
	profile_free(p);
	profile_free(q);
	store_close(s);
	free(path);
}

/* The first row of a query as "a|b|c", and the number of rows. */
static char *first_row(sqlite3 *db, const char *sql, int *rows)
{
	sqlite3_stmt *st;
	char *row = NULL;
	size_t len;
	*rows = -1;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		fprintf(stderr, "    %s\n    %s\n", sql, sqlite3_errmsg(db));
		return NULL;
	}
	*rows = 0;
	while (sqlite3_step(st) == SQLITE_ROW) {
		if ((*rows)++)
			continue;
		FILE *f = open_memstream(&row, &len);
		for (int i = 0; i < sqlite3_column_count(st); i++) {
			const unsigned char *v = sqlite3_column_text(st, i);
			fprintf(f, "%s%s", i ? "|" : "", v ? (const char *)v : "NULL");
		}
		fclose(f);
	}
	sqlite3_finalize(st);
	return row;
}

/* The example queries of doc/store-schema.md work on a real store, with the results shown. */
static void test_documented_queries(const char *dir, const char *doc_path)
{
	static const char *const want[] = {"main|1000|1", "main|ns::f(int)|3", NULL, "checkout|2",
					   "main|1.0"};
	static const int want_rows[] = {-1, -1, 2, 4, 3};
	char *path = sample_path(dir, "rt.db"); /* from test_round_trip: newest run is 2 */
	FILE *doc = fopen(doc_path, "r");
	CHECK(doc != NULL);
	sqlite3 *db;
	CHECK(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK);
	char *line = NULL, *sql = NULL;
	size_t cap = 0, len, nqueries = 0;
	FILE *q = NULL;
	while (doc && getline(&line, &cap, doc) > 0) {
		if (strcmp(line, "```sql\n") == 0) {
			q = open_memstream(&sql, &len);
		} else if (q && strcmp(line, "```\n") == 0) {
			fclose(q);
			q = NULL;
			int rows;
			char *row = first_row(db, sql, &rows);
			CHECK(rows > 0);
			if (nqueries < 5 && want[nqueries])
				CHECK_EQ_STR(row, want[nqueries]);
			if (nqueries < 5 && want_rows[nqueries] >= 0)
				CHECK_EQ_U64(rows, want_rows[nqueries]);
			nqueries++;
			free(row);
			free(sql);
		} else if (q) {
			fputs(line, q);
		}
	}
	CHECK_EQ_U64(nqueries, 5);
	free(line);
	if (doc)
		fclose(doc);
	sqlite3_close(db);
	free(path);
}

/* Writers in two processes at once: the busy timeout makes both succeed. */
static void test_concurrent_writers(const char *dir)
{
	enum { RUNS_EACH = 5 };
	char *path = sample_path(dir, "shared.db");
	pid_t kids[2];
	for (int k = 0; k < 2; k++) {
		kids[k] = fork();
		if (kids[k] == 0) {
			struct zerr err;
			int failed = 0;
			for (int i = 0; i < RUNS_EACH; i++) {
				struct store *s = store_open(path, STORE_CREATE, &err);
				struct zp_profile *p = sample_big_profile(2, 2000);
				if (!s || store_add_run(s, p, &err) < 0) {
					fprintf(stderr, "writer %d: %s\n", k, err.msg);
					failed = 1;
				}
				profile_free(p);
				store_close(s);
			}
			_exit(failed);
		}
	}
	for (int k = 0; k < 2; k++) {
		int status;
		CHECK(waitpid(kids[k], &status, 0) == kids[k]);
		CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	}
	CHECK_EQ_U64(sample_sql_int(path, "SELECT count(*) FROM runs"), 2 * RUNS_EACH);
	CHECK_EQ_U64(sample_sql_int(path, "SELECT count(*) FROM stats"), 2 * RUNS_EACH * 4000);
	free(path);
}

/* A run whose token (run meta run_token) the store holds already is not added again. */
static void test_run_token(const char *dir)
{
	struct zerr err = {{0}};
	char *path = sample_path(dir, "token.db");
	struct store *s = store_open(path, STORE_CREATE, &err);
	CHECK(s != NULL);
	struct zp_profile *a = sample_profile(NULL), *b = sample_profile(NULL),
			  *c = sample_profile(NULL);
	profile_add_meta(a, STORE_RUN_TOKEN, "0123abcd");
	profile_add_meta(b, STORE_RUN_TOKEN, "0123abcd");
	profile_add_meta(c, STORE_RUN_TOKEN, "4567ef01");
	CHECK(store_add_run(s, a, &err) == 0);
	CHECK(store_add_run(s, b, &err) == 1);
	CHECK_EQ_U64(b->run.id, a->run.id);
	CHECK(store_add_run(s, c, &err) == 0);
	int64_t run = 0;
	CHECK(store_run_with_meta(s, STORE_RUN_TOKEN, "4567ef01", &run, &err) == 1);
	CHECK_EQ_U64(run, c->run.id);
	CHECK(store_run_with_meta(s, STORE_RUN_TOKEN, "nope", &run, &err) == 0);
	store_close(s);
	CHECK_EQ_U64(sample_sql_int(path, "SELECT count(*) FROM runs"), 2);
	profile_free(a);
	profile_free(b);
	profile_free(c);
	free(path);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: store_roundtrip doc/store-schema.md\n");
		return 2;
	}
	char *dir = sample_tmpdir();
	test_round_trip(dir);
	test_run_token(dir);
	test_documented_queries(dir, argv[1]);
	test_big_run(dir);
	test_concurrent_writers(dir);
	sample_rmdir(dir);
	return check_done();
}
