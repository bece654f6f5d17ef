/*
 * store_versions.c - stores of other schema versions.
 *
 * A schema 1 store (made here with schema 1's own SQL, tests/store/v1.sql,
 * as zond wrote it then: no instrs, no contexts) opens and reads without a byte of the file
 * changing, its run loads without contexts, and writing a run upgrades it to
 * this schema in the run's transaction (a failed write leaves it at schema 1).
 * A schema 2 store (no timeline) likewise, its spans table made by a write.
 * A store of a newer schema is refused with one line naming the file, for
 * reading and for writing, and is left as it was.
 */
#define _GNU_SOURCE /* getdelim */
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "../check.h"
#include "sample.h"
#include "store/store.h"

static char *read_text(const char *path)
{
	FILE *f = fopen(path, "r");
	char *text = NULL;
	size_t len = 0;
	if (!f || getdelim(&text, &len, '\0', f) < 0) {
		perror(path);
		exit(2);
	}
	fclose(f);
	return text;
}

/* FNV-1a over the file's bytes: any change to the file changes it. */
static uint64_t checksum(const char *path)
{
	uint64_t h = 0xcbf29ce484222325ull;
	unsigned char buf[4096];
	ssize_t n;
	int fd = open(path, O_RDONLY);
	if (fd < 0) {
		perror(path);
		exit(2);
	}
	while ((n = read(fd, buf, sizeof buf)) > 0)
		for (ssize_t i = 0; i < n; i++)
			h = (h ^ buf[i]) * 0x100000001b3ull;
	close(fd);
	return h;
}

/* Everything a reading command does with a store: open, list, find, load every run. */
static void read_everything(const char *path, enum store_mode mode, size_t want_runs)
{
	struct zerr err = {{0}};
	struct store *s = store_open(path, mode, &err);
	CHECK(s != NULL);
	if (!s) {
		fprintf(stderr, "    %s\n", err.msg);
		return;
	}
	struct zp_profile **runs;
	size_t n = 0;
	CHECK(store_list_runs(s, &runs, &n, &err) == 0);
	CHECK_EQ_U64(n, want_runs);
	for (size_t i = 0; i < n; i++) {
		struct zp_profile *p = store_load_run(s, runs[i]->run.id, &err);
		CHECK(p != NULL);
		profile_free(p);
		profile_free(runs[i]);
	}
	free(runs);
	int64_t id;
	CHECK(store_find_run(s, "last", &id, &err) == 0);
	store_close(s);
}

static void check_v1_run(struct store *s)
{
	struct zerr err = {{0}};
	struct zp_profile *p = store_load_run(s, 1, &err);
	CHECK(p != NULL);
	if (!p)
		return;
	CHECK_EQ_U64(p->ncontexts, 0);
	CHECK_EQ_U64(p->ninstrs, 0);
	CHECK_EQ_U64(p->nnodes, 2);
	CHECK_EQ_U64(p->nstats, 2);
	CHECK_EQ_U64(p->nedges, 2);
	if (p->nstats == 2 && p->nedges == 2) {
		CHECK_EQ_STR(p->nodes[p->stats[1].node].name, "f");
		CHECK_EQ_U64(p->stats[1].calls, 3);
		CHECK_EQ_U64(p->stats[1].max[0], 11);
		CHECK_EQ_U64(p->edges[1].calls, 3);
		CHECK_EQ_U64(p->edges[1].site_line, 4);
	}
	profile_free(p);
}

static void test_v1_store(const char *dir, const char *v1_sql)
{
	char *path = sample_path(dir, "v1.db");
	char *sql = read_text(v1_sql);
	sample_run_sql(path, sql);
	free(sql);
	uint64_t before = checksum(path);

	/* Reading (also through a handle that could write) leaves the file as it was. */
	read_everything(path, STORE_READ, 1);
	read_everything(path, STORE_CREATE, 1);
	struct zerr err = {{0}};
	struct store *s = store_open(path, STORE_READ, &err);
	CHECK(s != NULL);
	if (s)
		check_v1_run(s);
	store_close(s);
	CHECK_EQ_U64(checksum(path), before);
	CHECK_EQ_U64(sample_sql_int(path, "SELECT count(*) FROM sqlite_master WHERE name LIKE "
					  "'context%' OR name LIKE 'instr%'"),
		     0);

	/* A write that fails takes the upgrade back with it. */
	sample_run_sql(path, "CREATE TRIGGER full BEFORE INSERT ON nodes BEGIN "
			     "SELECT RAISE(ABORT, 'disk full'); END");
	s = store_open(path, STORE_CREATE, &err);
	struct zp_profile *p = sample_profile(NULL);
	CHECK(s && store_add_run(s, p, &err) < 0);
	CHECK(strstr(err.msg, "disk full") != NULL);
	store_close(s);
	CHECK_EQ_U64(
		sample_sql_int(path, "SELECT value FROM zond_meta WHERE key = 'schema_version'"),
		1);
	CHECK_EQ_U64(
		sample_sql_int(path, "SELECT count(*) FROM sqlite_master WHERE name = 'contexts'"),
		0);
	sample_run_sql(path, "DROP TRIGGER full");

	/* Writing upgrades the store; the old run still loads, the new one exactly. */
	s = store_open(path, STORE_CREATE, &err);
	CHECK(s && store_add_run(s, p, &err) == 0);
	CHECK_EQ_U64(p->run.id, 2);
	store_close(s);
	CHECK_EQ_U64(
		sample_sql_int(path, "SELECT value FROM zond_meta WHERE key = 'schema_version'"),
		STORE_SCHEMA_VERSION);
	CHECK_EQ_U64(sample_sql_int(path, "SELECT count(*) FROM contexts WHERE run = 2"),
		     p->ncontexts);
	s = store_open(path, STORE_READ, &err);
	CHECK(s != NULL);
	if (s) {
		check_v1_run(s);
		struct zp_profile *q = store_load_run(s, 2, &err);
		CHECK(q != NULL);
		if (q)
			CHECK_EQ_U64(sample_mismatches(p, q), 0);
		profile_free(q);
		/* Deleting the old run works although it has no rows in the new tables. */
		CHECK(store_delete_run(s, 1, &err) == 0);
	}
	store_close(s);

	/* Reading a store of this schema does not change it either. */
	before = checksum(path);
	read_everything(path, STORE_READ, 1);
	CHECK_EQ_U64(checksum(path), before);
	profile_free(p);
	free(path);
}

/*
 * A schema 2 store (this schema without its spans table, as schema 2 made
 * it): read as it is, without a table made by the reading; a write of a run
 * with a timeline upgrades it and the spans come back exactly.
 */
static void test_v2_store(const char *dir)
{
	char *path = sample_path(dir, "v2.db");
	struct zerr err = {{0}};
	struct store *s = store_open(path, STORE_CREATE, &err);
	struct zp_profile *p = sample_profile(NULL);
	CHECK(s && store_add_run(s, p, &err) == 0);
	store_close(s);
	sample_run_sql(path, "DROP TABLE spans; "
			     "UPDATE zond_meta SET value = '2' WHERE key = 'schema_version'");
	uint64_t before = checksum(path);
	read_everything(path, STORE_READ, 1);
	read_everything(path, STORE_CREATE, 1);
	CHECK_EQ_U64(checksum(path), before);
	CHECK_EQ_U64(
		sample_sql_int(path, "SELECT count(*) FROM sqlite_master WHERE name = 'spans'"), 0);

	s = store_open(path, STORE_CREATE, &err);
	CHECK(s && store_add_run(s, p, &err) == 0);
	store_close(s);
	CHECK_EQ_U64(
		sample_sql_int(path, "SELECT value FROM zond_meta WHERE key = 'schema_version'"),
		STORE_SCHEMA_VERSION);
	s = store_open(path, STORE_READ, &err);
	struct zp_profile *old = s ? store_load_run(s, 1, &err) : NULL;
	struct zp_profile *q = s ? store_load_run(s, 2, &err) : NULL;
	CHECK(old && old->nspans == 0);
	CHECK(p->nspans > 0 && q && q->nspans == p->nspans);
	if (q)
		CHECK_EQ_U64(sample_mismatches(p, q), 0);
	profile_free(old);
	profile_free(q);
	store_close(s);
	profile_free(p);
	free(path);
}

static void test_newer_store(const char *dir)
{
	char *path = sample_path(dir, "v3.db");
	struct zerr err = {{0}};
	struct store *s = store_open(path, STORE_CREATE, &err);
	struct zp_profile *p = sample_profile(NULL);
	CHECK(s && store_add_run(s, p, &err) == 0);
	store_close(s);
	sample_run_sql(path, "UPDATE zond_meta SET value = '4' WHERE key = 'schema_version'");
	uint64_t before = checksum(path);
	char want[1100];
	snprintf(want, sizeof want, "%s: written by a newer zond (schema 4, this zond reads 3)",
		 path);
	enum store_mode modes[] = {STORE_READ, STORE_CREATE};
	for (size_t i = 0; i < 2; i++) {
		memset(&err, 0, sizeof err);
		s = store_open(path, modes[i], &err);
		CHECK(s == NULL);
		CHECK_EQ_STR(err.msg, want);
		CHECK(strchr(err.msg, '\n') == NULL);
		store_close(s);
	}
	CHECK_EQ_U64(checksum(path), before);
	profile_free(p);
	free(path);
}

/*
 * A table of this schema dropped (context_costs, contexts, spans, nodes):
 * the store is damaged, said in one line, never read as a run without
 * calling contexts or without a timeline.
 */
static void test_missing_table(const char *dir)
{
	static const char *const tables[] = {"context_costs", "contexts", "spans", "nodes"};
	for (size_t i = 0; i < sizeof tables / sizeof tables[0]; i++) {
		char name[64], sql[128], want[1200];
		snprintf(name, sizeof name, "no_%s.db", tables[i]);
		char *path = sample_path(dir, name);
		struct zerr err = {{0}};
		struct store *s = store_open(path, STORE_CREATE, &err);
		struct zp_profile *p = sample_profile(NULL);
		CHECK(s && store_add_run(s, p, &err) == 0);
		store_close(s);
		snprintf(sql, sizeof sql, "DROP TABLE %s", tables[i]);
		sample_run_sql(path, sql);
		s = store_open(path, STORE_READ, &err);
		CHECK(s != NULL);
		struct zp_profile *q = s ? store_load_run(s, 1, &err) : NULL;
		CHECK(q == NULL);
		snprintf(want, sizeof want, "%s: damaged zond profile store (", path);
		CHECK(strncmp(err.msg, want, strlen(want)) == 0);
		CHECK(strstr(err.msg, tables[i]) != NULL);
		profile_free(q);
		store_close(s);
		profile_free(p);
		free(path);
	}
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: store_versions tests/store/v1.sql\n");
		return 2;
	}
	char *dir = sample_tmpdir();
	test_v1_store(dir, argv[1]);
	test_v2_store(dir);
	test_newer_store(dir);
	test_missing_table(dir);
	sample_rmdir(dir);
	return check_done();
}
