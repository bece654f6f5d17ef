/*
 * store_errors.c - what users see when the store is not what zond expects,
 * run references, campaigns and deletion.
 */
#include <stdlib.h>
#include <unistd.h>

#include "../check.h"
#include "sample.h"
#include "store/store.h"

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	if (!f || fputs(text, f) < 0 || fclose(f) != 0) {
		perror(path);
		exit(2);
	}
}

/* Checks that opening path in mode fails with exactly "<path><suffix>". */
static void check_open_error(const char *path, enum store_mode mode, const char *suffix)
{
	struct zerr err = {{0}};
	char want[1100];
	snprintf(want, sizeof want, "%s%s", path, suffix);
	struct store *s = store_open(path, mode, &err);
	CHECK(s == NULL);
	CHECK_EQ_STR(err.msg, want);
	store_close(s);
}

/* A store at path holding n sample runs; their ids are 1..n. */
static struct store *store_with_runs(const char *path, int n, const char *campaign)
{
	struct zerr err;
	struct store *s = store_open(path, STORE_CREATE, &err);
	if (!s) {
		fprintf(stderr, "%s\n", err.msg);
		exit(2);
	}
	for (int i = 0; i < n; i++) {
		struct zp_profile *p = sample_profile(campaign);
		CHECK(store_add_run(s, p, &err) == 0);
		profile_free(p);
	}
	return s;
}

static void test_open_errors(const char *dir)
{
	char *missing = sample_path(dir, "missing.db");
	check_open_error(missing, STORE_READ,
			 ": no such file (record a run first: zond record -- PROG)");
	CHECK(access(missing, F_OK) != 0); /* reading never creates */

	char *text = sample_path(dir, "notes.txt");
	write_file(text, "these are my notes, not a profile store\n");
	check_open_error(text, STORE_READ, ": not a zond profile store (not an SQLite database)");
	check_open_error(text, STORE_CREATE, ": not a zond profile store (not an SQLite database)");

	char *empty = sample_path(dir, "empty.db");
	write_file(empty, "");
	check_open_error(empty, STORE_READ, ": not a zond profile store (an empty file)");

	char *other = sample_path(dir, "other.db");
	sample_run_sql(other, "CREATE TABLE recipes (name TEXT, minutes INTEGER)");
	check_open_error(other, STORE_READ,
			 ": not a zond profile store (an SQLite database of something else)");
	check_open_error(other, STORE_CREATE,
			 ": not a zond profile store (an SQLite database of something else)");

	char *alien = sample_path(dir, "alien.db");
	sample_run_sql(alien, "CREATE TABLE zond_meta (key TEXT, value TEXT);"
			      "INSERT INTO zond_meta VALUES ('format', 'other tool')");
	check_open_error(alien, STORE_READ, ": not a zond profile store (no zond format mark)");

	char *newer = sample_path(dir, "newer.db");
	store_close(store_with_runs(newer, 1, NULL));
	sample_run_sql(newer, "UPDATE zond_meta SET value = '4' WHERE key = 'schema_version'");
	check_open_error(newer, STORE_READ,
			 ": written by a newer zond (schema 4, this zond reads 3)");
	sample_run_sql(newer, "UPDATE zond_meta SET value = 'x' WHERE key = 'schema_version'");
	check_open_error(newer, STORE_READ, ": damaged zond profile store (bad schema_version)");

	check_open_error(dir, STORE_READ, ": is a directory, not a zond profile store");

	/* An empty file may become a store: mktemp makes those. */
	struct zerr err;
	struct store *s = store_open(empty, STORE_CREATE, &err);
	CHECK(s != NULL);
	store_close(s);
	s = store_open(empty, STORE_READ, &err);
	CHECK(s != NULL);
	int64_t id;
	CHECK(store_find_run(s, NULL, &id, &err) < 0);
	CHECK_EQ_STR(err.msg + strlen(empty), ": no runs yet");
	store_close(s);

	free(missing);
	free(text);
	free(empty);
	free(other);
	free(alien);
	free(newer);
}

static void check_ref(struct store *s, const char *ref, int64_t want)
{
	struct zerr err = {{0}};
	int64_t id = -99;
	CHECK(store_find_run(s, ref, &id, &err) == 0);
	if (id != want)
		fprintf(stderr, "    ref '%s': %s\n", ref ? ref : "(null)", err.msg);
	CHECK_EQ_U64(id, want);
}

static void check_ref_error(struct store *s, const char *path, const char *ref, const char *suffix)
{
	struct zerr err = {{0}};
	int64_t id;
	char want[1100];
	snprintf(want, sizeof want, "%s%s", path, suffix);
	CHECK(store_find_run(s, ref, &id, &err) < 0);
	CHECK_EQ_STR(err.msg, want);
}

static void test_find_run(const char *dir)
{
	char *path = sample_path(dir, "refs.db");
	struct store *s = store_with_runs(path, 5, NULL);
	check_ref(s, NULL, 5);
	check_ref(s, "last", 5);
	check_ref(s, "-1", 5);
	check_ref(s, "-5", 1);
	check_ref(s, "3", 3);
	check_ref_error(s, path, "7", ": no run 7 (runs are 1..5)");
	check_ref_error(s, path, "0", ": no run 0 (runs are 1..5)");
	check_ref_error(s, path, "-6", ": no run -6 (the store holds 5 runs)");
	check_ref_error(s, path, "-9223372036854775808",
			": no run -9223372036854775808 (the store holds 5 runs)");
	const char *bad = ": bad run reference '%s' (use last, an id N or -N for the Nth newest)";
	/* "": an unset variable's; `runs -d ''` deleted the newest run (QA s15 W2 F2) */
	const char *refs[] = {"", "x", "-0", "3x", "--1", "-", "99999999999999999999"};
	for (size_t i = 0; i < sizeof refs / sizeof refs[0]; i++) {
		char suffix[200];
		snprintf(suffix, sizeof suffix, bad, refs[i]);
		check_ref_error(s, path, refs[i], suffix);
	}

	struct zerr err;
	CHECK(store_delete_run(s, 2, &err) == 0);
	check_ref(s, "-4", 1);
	check_ref_error(s, path, "2", ": no run 2 (4 runs with ids from 1 to 5)");
	for (int64_t id = 1; id <= 5; id++)
		if (id != 2 && id != 3)
			CHECK(store_delete_run(s, id, &err) == 0);
	check_ref_error(s, path, "1", ": no run 1 (the only run is 3)");
	CHECK(store_delete_run(s, 3, &err) == 0);
	check_ref_error(s, path, "last", ": no runs yet");
	store_close(s);
	free(path);
}

static int64_t count_rows(const char *path, const char *table, int64_t run)
{
	char sql[128];
	snprintf(sql, sizeof sql, "SELECT count(*) FROM %s WHERE run = %lld", table,
		 (long long)run);
	return sample_sql_int(path, sql);
}

static void test_delete(const char *dir)
{
	static const char *const tables[] = {"run_meta", "events",       "threads", "nodes",
					     "stats",    "stat_costs",   "edges",   "edge_costs",
					     "contexts", "context_costs"};
	char *path = sample_path(dir, "delete.db");
	struct store *s = store_with_runs(path, 3, NULL);
	struct zerr err = {{0}};
	for (size_t i = 0; i < sizeof tables / sizeof tables[0]; i++)
		CHECK(count_rows(path, tables[i], 2) > 0);
	CHECK(store_delete_run(s, 2, &err) == 0);
	for (size_t i = 0; i < sizeof tables / sizeof tables[0]; i++) {
		CHECK_EQ_U64(count_rows(path, tables[i], 2), 0);
		CHECK(count_rows(path, tables[i], 3) > 0);
	}
	CHECK(store_delete_run(s, 2, &err) < 0);
	CHECK(strstr(err.msg, ": no run 2") != NULL);
	CHECK(store_load_run(s, 2, &err) == NULL);
	CHECK(strstr(err.msg, ": no run 2") != NULL);

	struct zp_profile **runs;
	size_t n;
	CHECK(store_list_runs(s, &runs, &n, &err) == 0);
	CHECK_EQ_U64(n, 2);
	if (n == 2) {
		CHECK_EQ_U64(runs[0]->run.id, 1);
		CHECK_EQ_U64(runs[1]->run.id, 3);
	}
	for (size_t i = 0; i < n; i++)
		profile_free(runs[i]);
	free(runs);

	/* Ids are never reused, so "run 3" always means the same run. */
	CHECK(store_delete_run(s, 3, &err) == 0);
	struct zp_profile *p = sample_profile(NULL);
	CHECK(store_add_run(s, p, &err) == 0);
	CHECK_EQ_U64(p->run.id, 4);
	profile_free(p);
	store_close(s);
	free(path);
}

static void check_campaign(struct store *s, const char *name, size_t n, const int64_t *want)
{
	struct zerr err;
	int64_t *ids;
	size_t got;
	CHECK(store_campaign_runs(s, name, &ids, &got, &err) == 0);
	CHECK_EQ_U64(got, n);
	for (size_t i = 0; i < n && i < got; i++)
		CHECK_EQ_U64(ids[i], want[i]);
	free(ids);
}

static void test_campaigns(const char *dir)
{
	char *path = sample_path(dir, "campaigns.db");
	struct store *s = store_with_runs(path, 2, "before");
	const char *names[] = {"after", NULL, "before", "after"};
	struct zerr err = {{0}};
	for (size_t i = 0; i < 4; i++) {
		struct zp_profile *p = sample_profile(names[i]);
		CHECK(store_add_run(s, p, &err) == 0);
		profile_free(p);
	}
	check_campaign(s, "before", 3, (int64_t[]){1, 2, 5});
	check_campaign(s, "after", 2, (int64_t[]){3, 6});

	int64_t *ids = NULL;
	size_t n = 7;
	CHECK(store_campaign_runs(s, "never", &ids, &n, &err) < 0);
	CHECK(strstr(err.msg, ": no campaign 'never' (see 'zond runs')") != NULL);
	CHECK_EQ_U64(n, 0);

	/* A campaign lives as long as one of its runs does. */
	CHECK(store_delete_run(s, 3, &err) == 0);
	check_campaign(s, "after", 1, (int64_t[]){6});
	CHECK(store_delete_run(s, 6, &err) == 0);
	CHECK(store_campaign_runs(s, "after", &ids, &n, &err) < 0);
	struct zp_profile *p = sample_profile("after");
	CHECK(store_add_run(s, p, &err) == 0);
	check_campaign(s, "after", 1, (int64_t[]){p->run.id});
	profile_free(p);
	store_close(s);
	free(path);
}

/* Rows that SQLite accepts but that do not make a profile: an error, not a crash. */
static void test_damaged_rows(const char *dir)
{
	static const char *const damage[] = {
		"UPDATE stats SET node = 99 WHERE idx = 1",
		"UPDATE stats SET thread = -1 WHERE idx = 0",
		"UPDATE stats SET node = 0 WHERE idx = 1",
		"UPDATE stat_costs SET event = 5 WHERE stat = 0 AND event = 1",
		"UPDATE edges SET kind = 7 WHERE idx = 0",
		"UPDATE edges SET caller = 12 WHERE idx = 0",
		"UPDATE edges SET callee = 0, caller = NULL, thread = 0 WHERE idx = 3",
		"UPDATE edge_costs SET edge = 40 WHERE edge = 1 AND event = 0",
		"UPDATE nodes SET parent = 5 WHERE id = 3",
		"UPDATE nodes SET kind = 3 WHERE id = 0",
		"UPDATE nodes SET id = 9 WHERE id = 4",
		"UPDATE threads SET tid = 4242, pid = 4242 WHERE idx = 1",
		"UPDATE events SET name = 'time' WHERE idx = 1",
		"INSERT INTO events VALUES (1, 2, 'a', 'u'), (1, 3, 'b', 'u'), (1, 4, 'c', 'u'), "
		"(1, 5, 'd', 'u'), (1, 6, 'e', 'u'), (1, 7, 'f', 'u'), (1, 8, 'g', 'u')",
		"UPDATE run_meta SET key = 'note' WHERE idx = 0",
		/* contexts 0 main (t0), 1 checkout (t1), 2 main->f (t0), 3 main->f->f (t0) */
		"UPDATE contexts SET parent = 3 WHERE id = 2",
		"UPDATE contexts SET parent = 1 WHERE id = 2",
		"UPDATE contexts SET parent = -1 WHERE id = 2",
		"UPDATE contexts SET node = 5 WHERE id = 3",
		"UPDATE contexts SET thread = 2 WHERE id = 1",
		"UPDATE contexts SET parent = NULL, node = 0 WHERE id = 2",
		"UPDATE contexts SET id = 7 WHERE id = 3",
		"UPDATE context_costs SET event = 2 WHERE context = 0 AND event = 1",
		"UPDATE context_costs SET context = 4 WHERE context = 3 AND event = 1",
	};
	for (size_t i = 0; i < sizeof damage / sizeof damage[0]; i++) {
		char name[32];
		snprintf(name, sizeof name, "damaged%zu.db", i);
		char *path = sample_path(dir, name);
		store_close(store_with_runs(path, 1, NULL));
		sample_run_sql(path, damage[i]);
		struct zerr err = {{0}};
		struct store *s = store_open(path, STORE_READ, &err);
		struct zp_profile *p = s ? store_load_run(s, 1, &err) : NULL;
		CHECK(s != NULL);
		CHECK(p == NULL);
		if (p)
			fprintf(stderr, "    not refused: %s\n", damage[i]);
		CHECK(strncmp(err.msg, path, strlen(path)) == 0);
		CHECK(strstr(err.msg, ": damaged zond profile store (run 1: ") != NULL);
		profile_free(p);
		store_close(s);
		free(path);
	}
}

int main(void)
{
	char *dir = sample_tmpdir();
	test_open_errors(dir);
	test_find_run(dir);
	test_delete(dir);
	test_campaigns(dir);
	test_damaged_rows(dir);
	sample_rmdir(dir);
	return check_done();
}
