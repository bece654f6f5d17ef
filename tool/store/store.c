/*
 * store.c - the profile store on SQLite.
 *
 * Every table but zond_meta and campaigns is keyed by (run, index), the
 * index being the element's position in the profile's array, so a run is
 * written in array order (appends to each b-tree: fast) and read back by one
 * range scan per table in the same order.  Per-event costs live in their own
 * tables (stat_costs, edge_costs, context_costs), one row per event: the schema does not
 * depend on ZP_MAX_EVENTS and SQL can select one event by name.
 *
 * uint64 values (costs, counts, addresses) are stored bit-cast to SQLite's
 * signed 64-bit integers: UINT64_MAX comes back as -1 in SQL and as
 * UINT64_MAX here.  ZP_NONE (no caller, no parent) is stored as NULL.
 *
 * Reading trusts nothing: every index is checked against the run's arrays,
 * and a damaged file gives an error naming it, never a crash.
 */
#include "store.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "util/path.h"

/* Long enough for another zond to write a large run into the same store. */
#define STORE_BUSY_TIMEOUT_MS 30000

/* After a failed write: how long its clean-up waits for another's lock. */
#define STORE_SETTLE_TIMEOUT_MS 2000
/* store_check: a writer's commit takes less; a lock held longer is not waited for */
#define STORE_CHECK_TIMEOUT_MS 1000

/* Symbolic links followed before a store path is taken for a loop (the kernel's limit). */
#define STORE_MAX_LINKS 40

#define STORE_FORMAT "zond profile store"

static const char schema_sql[] = "CREATE TABLE zond_meta (\n"
				 "  key TEXT PRIMARY KEY,\n"
				 "  value TEXT NOT NULL\n"
				 ") STRICT;\n"
				 "CREATE TABLE campaigns (\n"
				 "  id INTEGER PRIMARY KEY,\n"
				 "  name TEXT NOT NULL UNIQUE\n"
				 ") STRICT;\n"
				 "CREATE TABLE runs (\n"
				 "  id INTEGER PRIMARY KEY AUTOINCREMENT,\n"
				 "  campaign INTEGER REFERENCES campaigns(id),\n"
				 "  collector TEXT,\n"
				 "  command TEXT,\n"
				 "  host TEXT,\n"
				 "  arch TEXT,\n"
				 "  clock TEXT,\n"
				 "  start_ns INTEGER NOT NULL,\n"
				 "  duration_ns INTEGER NOT NULL,\n"
				 "  pid INTEGER NOT NULL,\n"
				 "  exit_status INTEGER NOT NULL,\n"
				 "  term_signal INTEGER NOT NULL,\n"
				 "  overhead_ns REAL NOT NULL\n"
				 ") STRICT;\n"
				 "CREATE INDEX runs_by_campaign ON runs(campaign);\n"
				 "CREATE TABLE run_meta (\n"
				 "  run INTEGER NOT NULL REFERENCES runs(id),\n"
				 "  idx INTEGER NOT NULL,\n"
				 "  key TEXT NOT NULL,\n"
				 "  value TEXT NOT NULL,\n"
				 "  PRIMARY KEY (run, idx)\n"
				 ") WITHOUT ROWID, STRICT;\n"
				 "CREATE TABLE events (\n"
				 "  run INTEGER NOT NULL REFERENCES runs(id),\n"
				 "  idx INTEGER NOT NULL,\n"
				 "  name TEXT NOT NULL,\n"
				 "  unit TEXT NOT NULL,\n"
				 "  PRIMARY KEY (run, idx)\n"
				 ") WITHOUT ROWID, STRICT;\n"
				 "CREATE TABLE threads (\n"
				 "  run INTEGER NOT NULL REFERENCES runs(id),\n"
				 "  idx INTEGER NOT NULL,\n"
				 "  pid INTEGER NOT NULL,\n"
				 "  tid INTEGER NOT NULL,\n"
				 "  name TEXT NOT NULL,\n"
				 "  PRIMARY KEY (run, idx)\n"
				 ") WITHOUT ROWID, STRICT;\n"
				 "CREATE TABLE nodes (\n"
				 "  run INTEGER NOT NULL REFERENCES runs(id),\n"
				 "  id INTEGER NOT NULL,\n"
				 "  kind INTEGER NOT NULL,\n"
				 "  name TEXT NOT NULL,\n"
				 "  module TEXT NOT NULL,\n"
				 "  file TEXT NOT NULL,\n"
				 "  line INTEGER NOT NULL,\n"
				 "  addr INTEGER NOT NULL,\n"
				 "  parent INTEGER,\n"
				 "  PRIMARY KEY (run, id)\n"
				 ") WITHOUT ROWID, STRICT;\n"
				 "CREATE TABLE stats (\n"
				 "  run INTEGER NOT NULL REFERENCES runs(id),\n"
				 "  idx INTEGER NOT NULL,\n"
				 "  thread INTEGER NOT NULL,\n"
				 "  node INTEGER NOT NULL,\n"
				 "  calls INTEGER NOT NULL,\n"
				 "  PRIMARY KEY (run, idx)\n"
				 ") WITHOUT ROWID, STRICT;\n"
				 "CREATE TABLE stat_costs (\n"
				 "  run INTEGER NOT NULL REFERENCES runs(id),\n"
				 "  stat INTEGER NOT NULL,\n"
				 "  event INTEGER NOT NULL,\n"
				 "  self INTEGER NOT NULL,\n"
				 "  incl INTEGER NOT NULL,\n"
				 "  min INTEGER NOT NULL,\n"
				 "  max INTEGER NOT NULL,\n"
				 "  PRIMARY KEY (run, stat, event)\n"
				 ") WITHOUT ROWID, STRICT;\n"
				 "CREATE TABLE edges (\n"
				 "  run INTEGER NOT NULL REFERENCES runs(id),\n"
				 "  idx INTEGER NOT NULL,\n"
				 "  thread INTEGER NOT NULL,\n"
				 "  kind INTEGER NOT NULL,\n"
				 "  caller INTEGER,\n"
				 "  callee INTEGER NOT NULL,\n"
				 "  calls INTEGER NOT NULL,\n"
				 "  taken INTEGER NOT NULL,\n"
				 "  site INTEGER NOT NULL,\n"
				 "  site_line INTEGER NOT NULL,\n"
				 "  PRIMARY KEY (run, idx)\n"
				 ") WITHOUT ROWID, STRICT;\n"
				 "CREATE TABLE edge_costs (\n"
				 "  run INTEGER NOT NULL REFERENCES runs(id),\n"
				 "  edge INTEGER NOT NULL,\n"
				 "  event INTEGER NOT NULL,\n"
				 "  incl INTEGER NOT NULL,\n"
				 "  PRIMARY KEY (run, edge, event)\n"
				 ") WITHOUT ROWID, STRICT;\n";

/*
 * Per-instruction costs (trace runs).  Added to schema 1 without a version
 * change: a schema 1 store may lack them (it then has no instruction costs);
 * writing a run into such a store adds them (upgrade_schema).
 */
static const char instr_sql[] = "CREATE TABLE IF NOT EXISTS instrs (\n"
				"  run INTEGER NOT NULL REFERENCES runs(id),\n"
				"  idx INTEGER NOT NULL,\n"
				"  thread INTEGER NOT NULL,\n"
				"  node INTEGER NOT NULL,\n"
				"  addr INTEGER NOT NULL,\n"
				"  line INTEGER NOT NULL,\n"
				"  PRIMARY KEY (run, idx)\n"
				") WITHOUT ROWID, STRICT;\n"
				"CREATE TABLE IF NOT EXISTS instr_costs (\n"
				"  run INTEGER NOT NULL REFERENCES runs(id),\n"
				"  instr INTEGER NOT NULL,\n"
				"  event INTEGER NOT NULL,\n"
				"  cost INTEGER NOT NULL,\n"
				"  PRIMARY KEY (run, instr, event)\n"
				") WITHOUT ROWID, STRICT;\n";

/*
 * Calling contexts: schema 2.  A schema 1 store has none; writing a run into
 * it adds these tables and raises its version in the run's transaction.
 */
static const char contexts_sql[] = "CREATE TABLE IF NOT EXISTS contexts (\n"
				   "  run INTEGER NOT NULL REFERENCES runs(id),\n"
				   "  id INTEGER NOT NULL,\n"
				   "  thread INTEGER NOT NULL,\n"
				   "  parent INTEGER,\n"
				   "  node INTEGER NOT NULL,\n"
				   "  site INTEGER NOT NULL,\n"
				   "  site_line INTEGER NOT NULL,\n"
				   "  calls INTEGER NOT NULL,\n"
				   "  PRIMARY KEY (run, id)\n"
				   ") WITHOUT ROWID, STRICT;\n"
				   "CREATE TABLE IF NOT EXISTS context_costs (\n"
				   "  run INTEGER NOT NULL REFERENCES runs(id),\n"
				   "  context INTEGER NOT NULL,\n"
				   "  event INTEGER NOT NULL,\n"
				   "  self INTEGER NOT NULL,\n"
				   "  incl INTEGER NOT NULL,\n"
				   "  min INTEGER NOT NULL,\n"
				   "  max INTEGER NOT NULL,\n"
				   "  PRIMARY KEY (run, context, event)\n"
				   ") WITHOUT ROWID, STRICT;\n";

/*
 * The timeline's spans: schema 3.  An older store has none; writing a run
 * into it adds the table and raises its version in the run's transaction.
 */
static const char spans_sql[] = "CREATE TABLE IF NOT EXISTS spans (\n"
				"  run INTEGER NOT NULL REFERENCES runs(id),\n"
				"  id INTEGER NOT NULL,\n"
				"  thread INTEGER NOT NULL,\n"
				"  node INTEGER NOT NULL,\n"
				"  depth INTEGER NOT NULL,\n"
				"  flags INTEGER NOT NULL,\n"
				"  start INTEGER NOT NULL,\n"
				"  end INTEGER NOT NULL,\n"
				"  PRIMARY KEY (run, id)\n"
				") WITHOUT ROWID, STRICT;\n";

/* Tables holding a run's parts, deleted children first; older stores may lack some. */
static const char *const run_tables[] = {
	"spans",      "context_costs", "contexts", "instr_costs", "instrs", "edge_costs", "edges",
	"stat_costs", "stats",         "nodes",    "threads",     "events", "run_meta",
};

struct store {
	sqlite3 *db;
	char *path;   /* as the user gave it: every message names it */
	char *file;   /* the file opened: path with its symbolic links followed */
	long version; /* schema_version when opened (check_format), 0 before */
	int created;  /* this open made the file */
	int snapshot; /* in store_read_begin's read transaction: reads begin none of their own */
};

/* ---- errors and small helpers ------------------------------------------ */

/* Whether the file has a rollback journal beside it (a write under way, or one that failed). */
static int journal_exists(const struct store *s)
{
	char journal[PATH_MAX];
	if (snprintf(journal, sizeof journal, "%s-journal", s->file) >= (int)sizeof journal)
		return 0;
	return access(journal, F_OK) == 0;
}

/*
 * The errno of the system call that failed, 0 if unknown: the store file's
 * last failed call (a write past the limit), else what SQLite noted, which
 * the calls of its rollback may have overwritten.
 */
static int system_errno(struct store *s)
{
	int e = 0;
	if (sqlite3_file_control(s->db, "main", SQLITE_FCNTL_LAST_ERRNO, &e) == SQLITE_OK && e)
		return e;
	return sqlite3_system_errno(s->db);
}

static int db_error(struct store *s, struct zerr *err)
{
	int code = sqlite3_errcode(s->db) & 0xff;
	int extended = sqlite3_extended_errcode(s->db);
	const char *msg = sqlite3_errmsg(s->db);
	/*
	 * A reader finding a journal it may not play back (the file or the
	 * journal read-only to it) or remove (the directory): SQLite's "attempt
	 * to write a readonly database", "unable to open database file" or "disk
	 * I/O error" is not the cause.
	 */
	if (extended == SQLITE_READONLY_ROLLBACK || extended == SQLITE_IOERR_DELETE ||
	    (code == SQLITE_CANTOPEN && journal_exists(s)))
		return zerr_set(err,
				"%s: an interrupted write left %s-journal, which a user who may "
				"write the store and its directory must roll back first: any zond "
				"command of theirs on it does",
				s->path, s->file);
	/*
	 * A write past `ulimit -f` (zond ignores SIGXFSZ while it writes) is
	 * SQLite's "disk I/O error": the limit is the cause, said as such.
	 */
	int sys = code == SQLITE_IOERR ? system_errno(s) : 0;
	if (sys == EFBIG)
		return zerr_set(err, "%s: cannot write: the file size limit was reached (ulimit -f: %s)",
				s->path, strerror(EFBIG));
	if (extended == SQLITE_READONLY_DBMOVED)
		return zerr_set(err, "%s: the store was removed or replaced while zond had it open",
				s->path);
	if (code == SQLITE_CORRUPT || code == SQLITE_NOTADB)
		return zerr_set(err, "%s: damaged zond profile store (%s)", s->path, msg);
	if (code == SQLITE_BUSY || code == SQLITE_LOCKED)
		return zerr_set(err, "%s: locked by another process for too long (%s)", s->path,
				msg);
	/* a table or column of the schema gone: not a bare SQLite message */
	if (code == SQLITE_ERROR &&
	    (strncmp(msg, "no such table", 13) == 0 || strncmp(msg, "no such column", 14) == 0))
		return zerr_set(err, "%s: damaged zond profile store (%s)", s->path, msg);
	if (sys) /* the system's cause too */
		return zerr_set(err, "%s: %s (%s)", s->path, msg, strerror(sys));
	return zerr_set(err, "%s: %s", s->path, msg);
}

static int damaged(struct store *s, struct zerr *err, int64_t run, const char *what)
{
	return zerr_set(err, "%s: damaged zond profile store (run %" PRId64 ": %s)", s->path, run,
			what);
}

/* SQLite integers are signed: uint64 values are stored with the same bits. */
static int64_t u64_to_sql(uint64_t v)
{
	int64_t r;
	memcpy(&r, &v, sizeof r);
	return r;
}

static uint64_t sql_to_u64(int64_t v)
{
	uint64_t r;
	memcpy(&r, &v, sizeof r);
	return r;
}

static int exec_sql(struct store *s, const char *sql, struct zerr *err)
{
	if (sqlite3_exec(s->db, sql, NULL, NULL, NULL) != SQLITE_OK)
		return db_error(s, err);
	return 0;
}

static void rollback(struct store *s)
{
	if (!sqlite3_get_autocommit(s->db))
		sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
}

/*
 * A read transaction of its own for the reads of one call, or none inside
 * store_read_begin's, whose snapshot they share.
 */
static int read_begin(struct store *s, struct zerr *err)
{
	return s->snapshot ? 0 : exec_sql(s, "BEGIN", err);
}

static void read_end(struct store *s)
{
	if (!s->snapshot)
		rollback(s);
}

static int count_tables(struct store *s, struct zerr *err);

/*
 * After a write failed: its transaction rolled back, and its journal too.
 * A full disk puts SQLite's connection in its error state, which ends the
 * transaction but leaves the journal hot for the next opener to play back;
 * a user who may only read the store cannot, and every reading command
 * failed for them.  A read on this connection plays it back now; tried
 * again while the journal stays (it may be another writer's, then harmless).
 */
static void abandon_write(struct store *s)
{
	rollback(s);
	sqlite3_busy_timeout(s->db, STORE_SETTLE_TIMEOUT_MS);
	for (int i = 0; i < 3 && journal_exists(s); i++)
		count_tables(s, NULL);
	sqlite3_busy_timeout(s->db, STORE_BUSY_TIMEOUT_MS);
}

static int prepare(struct store *s, const char *sql, sqlite3_stmt **st, struct zerr *err)
{
	if (sqlite3_prepare_v2(s->db, sql, -1, st, NULL) != SQLITE_OK) {
		*st = NULL;
		return db_error(s, err);
	}
	return 0;
}

/* Runs an INSERT/DELETE whose parameters are bound, and resets it for reuse. */
static int step_done(struct store *s, sqlite3_stmt *st, struct zerr *err)
{
	int rc = sqlite3_step(st);
	sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		return db_error(s, err);
	return 0;
}

/* One row of a query: 1, 0 at the end, -1 on error (err set). */
static int step_row(struct store *s, sqlite3_stmt *st, struct zerr *err)
{
	int rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		return 1;
	if (rc == SQLITE_DONE)
		return 0;
	return db_error(s, err);
}

/* A text column that must hold text; NULL when it holds anything else. */
static const char *column_text(sqlite3_stmt *st, int col)
{
	if (sqlite3_column_type(st, col) != SQLITE_TEXT)
		return NULL;
	return (const char *)sqlite3_column_text(st, col);
}

static int column_is_int(sqlite3_stmt *st, int col)
{
	return sqlite3_column_type(st, col) == SQLITE_INTEGER;
}

/* ---- opening ------------------------------------------------------------ */

static void store_free(struct store *s)
{
	sqlite3_close(s->db);
	free(s->path);
	free(s->file);
	free(s);
}

int store_read_begin(struct store *s, struct zerr *err)
{
	if (s->snapshot)
		return 0;
	/* BEGIN takes no lock yet: a first read does, and keeps it to the end */
	if (exec_sql(s, "BEGIN", err) < 0)
		return -1;
	sqlite3_stmt *st;
	if (prepare(s, "SELECT count(*) FROM runs", &st, err) < 0) {
		rollback(s);
		return -1;
	}
	int rc = step_row(s, st, err);
	sqlite3_finalize(st);
	if (rc < 0) {
		rollback(s);
		return -1;
	}
	s->snapshot = 1;
	return 0;
}

void store_read_end(struct store *s)
{
	if (!s->snapshot)
		return;
	s->snapshot = 0;
	rollback(s);
}

void store_close(struct store *s)
{
	if (s) {
		store_read_end(s);
		store_free(s);
	}
}

/* The number of tables in the file, or -1 (err set: not SQLite, unreadable). */
static int count_tables(struct store *s, struct zerr *err)
{
	sqlite3_stmt *st;
	const char *sql = "SELECT count(*) FROM sqlite_master WHERE type = 'table'";
	if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK) {
		if ((sqlite3_errcode(s->db) & 0xff) == SQLITE_NOTADB)
			return zerr_set(err,
					"%s: not a zond profile store (not an SQLite database)",
					s->path);
		return db_error(s, err);
	}
	int rc = step_row(s, st, err);
	int n = rc == 1 ? sqlite3_column_int(st, 0) : -1;
	sqlite3_finalize(st);
	return n;
}

static int create_schema(struct store *s, struct zerr *err)
{
	char sql[256];
	if (exec_sql(s, "BEGIN IMMEDIATE", err) < 0)
		return -1;
	/* Another zond may have created it while we waited for the lock. */
	int n = count_tables(s, err);
	if (n < 0)
		goto fail;
	if (n == 0) {
		snprintf(sql, sizeof sql,
			 "INSERT INTO zond_meta VALUES ('format', '%s'), "
			 "('schema_version', '%d')",
			 STORE_FORMAT, STORE_SCHEMA_VERSION);
		if (exec_sql(s, schema_sql, err) < 0 || exec_sql(s, instr_sql, err) < 0 ||
		    exec_sql(s, contexts_sql, err) < 0 || exec_sql(s, spans_sql, err) < 0 ||
		    exec_sql(s, sql, err) < 0)
			goto fail;
	}
	if (exec_sql(s, "COMMIT", err) == 0)
		return 0;
fail:
	abandon_write(s);
	return -1;
}

/* The value of key in zond_meta, malloc'ed; NULL if absent or not text. */
static char *zond_meta_value(struct store *s, const char *key, struct zerr *err, int *failed)
{
	sqlite3_stmt *st;
	char *value = NULL;
	*failed = 0;
	if (prepare(s, "SELECT value FROM zond_meta WHERE key = ?", &st, err) < 0) {
		*failed = 1;
		return NULL;
	}
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	int rc = step_row(s, st, err);
	if (rc < 0)
		*failed = 1;
	else if (rc == 1 && column_text(st, 0))
		value = zp_xstrdup(column_text(st, 0));
	sqlite3_finalize(st);
	return value;
}

static int check_table_exists(struct store *s, const char *name, struct zerr *err)
{
	sqlite3_stmt *st;
	const char *sql = "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?";
	if (prepare(s, sql, &st, err) < 0)
		return -1;
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	int rc = step_row(s, st, err);
	sqlite3_finalize(st);
	return rc;
}

/* The store's schema_version, checked to be a number this zond reads; 0 or -1. */
static int schema_version(struct store *s, long *v, struct zerr *err)
{
	int failed;
	char *version = zond_meta_value(s, "schema_version", err, &failed);
	if (failed)
		return -1;
	char *end = NULL;
	*v = version ? strtol(version, &end, 10) : 0;
	int ok = version && *version && !*end && *v >= 1;
	free(version);
	if (!ok)
		return zerr_set(err, "%s: damaged zond profile store (bad schema_version)",
				s->path);
	if (*v > STORE_SCHEMA_VERSION)
		return zerr_set(err, "%s: written by a newer zond (schema %ld, this zond reads %d)",
				s->path, *v, STORE_SCHEMA_VERSION);
	return 0;
}

static int check_format(struct store *s, struct zerr *err)
{
	int failed, rc = check_table_exists(s, "zond_meta", err);
	if (rc < 0)
		return -1;
	if (rc == 0)
		return zerr_set(err,
				"%s: not a zond profile store (an SQLite database of "
				"something else)",
				s->path);
	char *format = zond_meta_value(s, "format", err, &failed);
	if (failed)
		return -1;
	int ok = format && strcmp(format, STORE_FORMAT) == 0;
	free(format);
	if (!ok)
		return zerr_set(err, "%s: not a zond profile store (no zond format mark)", s->path);
	return schema_version(s, &s->version, err);
}

/*
 * 1 when the table a schema added is there, 0 when the store is older than
 * that schema, -1 with err when it should be there and is not (damaged).
 */
static int schema_table(struct store *s, const char *table, long since, struct zerr *err)
{
	int have = check_table_exists(s, table, err);
	if (have == 0 && s->version >= since)
		return zerr_set(err, "%s: damaged zond profile store (schema %ld without table %s)",
				s->path, s->version, table);
	return have;
}

/*
 * Brings an older store up to this zond's schema: adds the tables it lacks
 * and raises schema_version.  Called inside the transaction that writes a
 * run, so the upgrade and the run are kept or lost together, and never by
 * a command that only reads.
 */
static int upgrade_schema(struct store *s, struct zerr *err)
{
	long v;
	char sql[128];
	if (schema_version(s, &v, err) < 0)
		return -1;
	if (v == STORE_SCHEMA_VERSION)
		return 0;
	snprintf(sql, sizeof sql, "UPDATE zond_meta SET value = '%d' WHERE key = 'schema_version'",
		 STORE_SCHEMA_VERSION);
	if (exec_sql(s, instr_sql, err) < 0 || exec_sql(s, contexts_sql, err) < 0 ||
	    exec_sql(s, spans_sql, err) < 0)
		return -1;
	return exec_sql(s, sql, err);
}

/* ---- where the store is ------------------------------------------------- */

/* Where the symbolic link at file points, as a path from here, into file; -1 with errno. */
static int follow_link(char file[PATH_MAX])
{
	char link[PATH_MAX], dir[PATH_MAX];
	ssize_t n = readlink(file, link, sizeof link - 1);
	if (n < 0)
		return -1;
	link[n] = 0;
	path_dir(file, dir);
	if (link[0] == '/' || strcmp(dir, ".") == 0)
		snprintf(file, PATH_MAX, "%s", link);
	else if (snprintf(file, PATH_MAX, "%s/%s", dir, link) >= PATH_MAX)
		return errno = ENAMETOOLONG, -1;
	return 0;
}

/*
 * SQLite follows the links of a database's path itself and creates the
 * file where the last one points; zond follows them first, so that the
 * checks made before a program runs (output.h) and the open look at the
 * same file, and the file is the one made, locked and removed.
 */
int store_target(const char *path, char file[PATH_MAX], struct zerr *err)
{
	struct stat st;
	snprintf(file, PATH_MAX, "%s", path);
	for (int links = 0; links <= STORE_MAX_LINKS; links++) {
		if (lstat(file, &st) != 0)
			return errno == ENOENT ? 0 : zerr_set(err, "%s: %s", path, strerror(errno));
		if (!S_ISLNK(st.st_mode))
			return 1;
		if (follow_link(file) < 0)
			return zerr_set(err, "%s: %s", path, strerror(errno));
	}
	return zerr_set(err, "%s: a loop of symbolic links (or more than %d)", path,
			STORE_MAX_LINKS);
}

/* How a message names a store whose links lead elsewhere: "PATH (a symbolic link to FILE)". */
static void name_store(const char *path, const char *file, char *name, size_t size)
{
	if (strcmp(path, file) == 0)
		snprintf(name, size, "%s", path);
	else
		snprintf(name, size, "%s (a symbolic link to %s)", path, file);
}

/* 0 when file's journal, FILE-journal, is a name its directory takes; else -1 with err. */
static int journal_fits(const char *path, const char *file, struct zerr *err)
{
	static const char suffix[] = "-journal";
	char dir[PATH_MAX], name[2 * PATH_MAX + 32];
	path_dir(file, dir);
	long max = pathconf(dir, _PC_NAME_MAX);
	if (max <= 0)
		max = NAME_MAX;
	size_t len = strlen(path_base(file)) + sizeof suffix - 1;
	if (len <= (size_t)max && strlen(file) + sizeof suffix <= PATH_MAX)
		return 0;
	name_store(path, file, name, sizeof name);
	return zerr_set(err,
			"%s: a name too long for a profile store: its journal %s%s would be "
			"longer than %ld bytes",
			name, path_base(file), suffix, len > (size_t)max ? max : (long)PATH_MAX - 1);
}

int store_writable(const char *path, const char *file, struct zerr *err)
{
	char dir[PATH_MAX], name[2 * PATH_MAX + 32];
	name_store(path, file, name, sizeof name);
	path_dir(file, dir);
	if (access(file, W_OK) != 0)
		return zerr_set(err, "%s: the profile store is not writable: %s", name,
				strerror(errno));
	if (access(dir, W_OK | X_OK) != 0)
		return zerr_set(err,
				"%s: the profile store's directory %s is not writable (its "
				"journal goes there): %s",
				name, dir, strerror(errno));
	return journal_fits(path, file, err);
}

int store_creatable(const char *path, const char *file, struct zerr *err)
{
	char name[2 * PATH_MAX + 32];
	name_store(path, file, name, sizeof name);
	if (path_dir_creatable(file, name, err) < 0)
		return -1;
	return journal_fits(path, file, err);
}

/*
 * Refuses what SQLite would open but zond cannot use: a missing file (to
 * read), one that cannot be created, a directory.  1 when file exists, 0
 * when it is to be created.
 */
static int check_path(const char *path, const char *file, int exists, enum store_mode mode,
		      struct zerr *err)
{
	struct stat st;
	char name[2 * PATH_MAX + 32];
	name_store(path, file, name, sizeof name);
	if (!exists && mode == STORE_CREATE)
		return store_creatable(path, file, err) < 0 ? -1 : 0;
	if (!exists)
		return zerr_set(err, "%s: no such file (record a run first: zond record -- PROG)",
				name);
	if (stat(file, &st) < 0)
		return zerr_set(err, "%s: %s", name, strerror(errno));
	if (S_ISDIR(st.st_mode))
		return zerr_set(err, "%s: is a directory, not a zond profile store", path);
	if (mode != STORE_READ && store_writable(path, file, err) < 0)
		return -1;
	return 1;
}

static int open_db(struct store *s, enum store_mode mode, int busy_ms, struct zerr *err)
{
	int flags = SQLITE_OPEN_READWRITE | (mode == STORE_CREATE ? SQLITE_OPEN_CREATE : 0);
	/*
	 * The file of that name, always: SQLite reads ":memory:" as a database in
	 * memory and "file:..." as a URI (another file, options), so a relative
	 * name goes as "./NAME"; the journal's name follows from it the same way.
	 */
	char name[PATH_MAX + 2];
	snprintf(name, sizeof name, "%s%s", s->file[0] == '/' ? "" : "./", s->file);
	if (sqlite3_open_v2(name, &s->db, flags, NULL) != SQLITE_OK) {
		if (!s->db)
			return zerr_set(err, "%s: out of memory opening the store", s->path);
		return zerr_set(err, "%s: cannot open (%s)", s->path, sqlite3_errmsg(s->db));
	}
	sqlite3_extended_result_codes(s->db, 0);
	sqlite3_busy_timeout(s->db, busy_ms);
	return exec_sql(s, "PRAGMA foreign_keys = ON", err);
}

/* A new empty file beside file, made as SQLite makes a database (0644 less the umask). */
static int new_file_beside(const char *file, char tmp[PATH_MAX])
{
	char dir[PATH_MAX];
	struct timespec now;
	path_dir(file, dir);
	for (int i = 0; i < 100; i++) {
		clock_gettime(CLOCK_REALTIME, &now);
		if (snprintf(tmp, PATH_MAX, "%s/.zond-new-%ld-%ld", dir, (long)getpid(),
			     (long)(now.tv_nsec + i)) >= PATH_MAX)
			return errno = ENAMETOOLONG, -1;
		int fd = open(tmp, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		if (fd >= 0)
			return close(fd);
		if (errno != EEXIST)
			return -1;
	}
	return -1;
}

static void remove_db_file(const char *file)
{
	char journal[PATH_MAX];
	unlink(file);
	if (snprintf(journal, sizeof journal, "%s-journal", file) < (int)sizeof journal)
		unlink(journal);
}

/*
 * A new store at s->file, made whole in a temporary file beside it and
 * linked into place, so that a reader never finds it half made (an empty
 * file: "not a zond profile store"), and of two zonds making it at once
 * one links its file and the other opens that one.  Where the file system
 * has no hard links, open_db makes it in place, as SQLite does.
 */
static int make_store(struct store *s, struct zerr *err)
{
	char tmp[PATH_MAX];
	if (new_file_beside(s->file, tmp) < 0) {
		char dir[PATH_MAX];
		path_dir(s->file, dir);
		return zerr_set(err, "%s: cannot create: %s: %s", s->path, dir, strerror(errno));
	}
	struct store t = {.path = s->path, .file = tmp};
	int rc = open_db(&t, STORE_CREATE, STORE_BUSY_TIMEOUT_MS, err);
	if (rc == 0)
		rc = create_schema(&t, err);
	sqlite3_close(t.db);
	if (rc == 0 && link(tmp, s->file) == 0)
		s->created = 1;
	remove_db_file(tmp);
	return rc;
}

/*
 * A reader finding no table while a journal is beside the file: another
 * zond is making the store in place (an empty file given to it, or a file
 * system without hard links), and is waited for as any writer is.
 */
static int count_tables_made(struct store *s, int busy_ms, struct zerr *err)
{
	int n = count_tables(s, err);
	for (int ms = 0; n == 0 && journal_exists(s) && ms < busy_ms; ms += 20) {
		usleep(20000);
		n = count_tables(s, err);
	}
	return n;
}

/* store_open waiting busy_ms for another's lock; *busy set when that was not enough. */
static struct store *open_waiting(const char *path, enum store_mode mode, int busy_ms, int *busy,
				  struct zerr *err)
{
	char file[PATH_MAX];
	if (!path || !*path)
		path = STORE_DEFAULT_PATH;
	int exists = store_target(path, file, err);
	if (exists < 0 || (exists = check_path(path, file, exists, mode, err)) < 0)
		return NULL;
	struct store *s = zp_xcalloc(1, sizeof *s);
	s->path = zp_xstrdup(path);
	s->file = zp_xstrdup(file);
	if (!exists && make_store(s, err) < 0)
		goto fail;
	if (open_db(s, mode, busy_ms, err) < 0)
		goto fail;
	int ntables = mode == STORE_READ ? count_tables_made(s, busy_ms, err) : count_tables(s, err);
	if (ntables < 0)
		goto fail;
	if (ntables == 0 && mode == STORE_READ) {
		zerr_set(err, "%s: not a zond profile store (an empty file)", path);
		goto fail;
	}
	if (ntables == 0 && create_schema(s, err) < 0)
		goto fail;
	if (ntables == 0 && !exists)
		s->created = 1; /* made in place */
	if (check_format(s, err) < 0)
		goto fail;
	return s;
fail:
	if (busy && s->db)
		*busy = (sqlite3_errcode(s->db) & 0xff) == SQLITE_BUSY;
	if (s->created)
		remove_db_file(s->file);
	store_free(s);
	return NULL;
}

struct store *store_open(const char *path, enum store_mode mode, struct zerr *err)
{
	return open_waiting(path, mode, STORE_BUSY_TIMEOUT_MS, NULL, err);
}

int store_check(const char *path, struct zerr *err)
{
	int busy = 0;
	struct store *s = open_waiting(path, STORE_READ, STORE_CHECK_TIMEOUT_MS, &busy, err);
	store_close(s);
	return s ? 0 : busy ? 1 : -1;
}

/* ---- writing ------------------------------------------------------------ */

/* The id of the campaign named name, created if new. */
static int campaign_id(struct store *s, const char *name, int64_t *id, struct zerr *err)
{
	sqlite3_stmt *st;
	if (prepare(s, "INSERT OR IGNORE INTO campaigns (name) VALUES (?)", &st, err) < 0)
		return -1;
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	int rc = step_done(s, st, err);
	sqlite3_finalize(st);
	if (rc < 0 || prepare(s, "SELECT id FROM campaigns WHERE name = ?", &st, err) < 0)
		return -1;
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	rc = step_row(s, st, err);
	if (rc == 1)
		*id = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	if (rc == 0)
		return db_error(s, err);
	return rc < 0 ? -1 : 0;
}

static int insert_run_row(struct store *s, struct zp_profile *p, struct zerr *err)
{
	const struct zp_run *r = &p->run;
	sqlite3_stmt *st;
	int64_t campaign = 0;
	if (r->campaign && campaign_id(s, r->campaign, &campaign, err) < 0)
		return -1;
	const char *sql = "INSERT INTO runs (campaign, collector, command, host, arch, clock, "
			  "start_ns, duration_ns, pid, exit_status, term_signal, overhead_ns) "
			  "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
	if (prepare(s, sql, &st, err) < 0)
		return -1;
	if (r->campaign)
		sqlite3_bind_int64(st, 1, campaign);
	sqlite3_bind_text(st, 2, r->collector, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, r->command, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 4, r->host, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 5, r->arch, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 6, r->clock, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 7, r->start_ns);
	sqlite3_bind_int64(st, 8, r->duration_ns);
	sqlite3_bind_int64(st, 9, r->pid);
	sqlite3_bind_int(st, 10, r->exit_status);
	sqlite3_bind_int(st, 11, r->term_signal);
	sqlite3_bind_double(st, 12, r->overhead_ns);
	int rc = step_done(s, st, err);
	sqlite3_finalize(st);
	if (rc == 0)
		p->run.id = sqlite3_last_insert_rowid(s->db);
	return rc;
}

static int insert_meta_and_events(struct store *s, const struct zp_profile *p, int64_t run,
				  struct zerr *err)
{
	sqlite3_stmt *meta, *event;
	if (prepare(s, "INSERT INTO run_meta VALUES (?, ?, ?, ?)", &meta, err) < 0)
		return -1;
	if (prepare(s, "INSERT INTO events VALUES (?, ?, ?, ?)", &event, err) < 0) {
		sqlite3_finalize(meta);
		return -1;
	}
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < p->run.nmeta; i++) {
		sqlite3_bind_int64(meta, 1, run);
		sqlite3_bind_int64(meta, 2, (int64_t)i);
		sqlite3_bind_text(meta, 3, p->run.meta[i].key, -1, SQLITE_STATIC);
		sqlite3_bind_text(meta, 4, p->run.meta[i].value, -1, SQLITE_STATIC);
		rc = step_done(s, meta, err);
	}
	for (size_t i = 0; rc == 0 && i < p->nevents; i++) {
		sqlite3_bind_int64(event, 1, run);
		sqlite3_bind_int64(event, 2, (int64_t)i);
		sqlite3_bind_text(event, 3, p->events[i].name, -1, SQLITE_STATIC);
		sqlite3_bind_text(event, 4, p->events[i].unit, -1, SQLITE_STATIC);
		rc = step_done(s, event, err);
	}
	sqlite3_finalize(meta);
	sqlite3_finalize(event);
	return rc;
}

static int insert_threads(struct store *s, const struct zp_profile *p, int64_t run,
			  struct zerr *err)
{
	sqlite3_stmt *st;
	if (prepare(s, "INSERT INTO threads VALUES (?, ?, ?, ?, ?)", &st, err) < 0)
		return -1;
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < p->nthreads; i++) {
		const struct zp_thread *t = &p->threads[i];
		sqlite3_bind_int64(st, 1, run);
		sqlite3_bind_int64(st, 2, (int64_t)i);
		sqlite3_bind_int64(st, 3, t->pid);
		sqlite3_bind_int64(st, 4, t->tid);
		sqlite3_bind_text(st, 5, t->name, -1, SQLITE_STATIC);
		rc = step_done(s, st, err);
	}
	sqlite3_finalize(st);
	return rc;
}

static int insert_nodes(struct store *s, const struct zp_profile *p, int64_t run, struct zerr *err)
{
	sqlite3_stmt *st;
	if (prepare(s, "INSERT INTO nodes VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", &st, err) < 0)
		return -1;
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < p->nnodes; i++) {
		const struct zp_node *n = &p->nodes[i];
		sqlite3_bind_int64(st, 1, run);
		sqlite3_bind_int64(st, 2, (int64_t)i);
		sqlite3_bind_int(st, 3, (int)n->kind);
		sqlite3_bind_text(st, 4, n->name, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 5, n->module, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 6, n->file, -1, SQLITE_STATIC);
		sqlite3_bind_int(st, 7, n->line);
		sqlite3_bind_int64(st, 8, u64_to_sql(n->addr));
		if (n->parent == ZP_NONE)
			sqlite3_bind_null(st, 9);
		else
			sqlite3_bind_int64(st, 9, n->parent);
		rc = step_done(s, st, err);
	}
	sqlite3_finalize(st);
	return rc;
}

/*
 * The per-event costs of one stat or context: the rows of stat_costs and
 * context_costs, which have the same columns.
 */
struct costs {
	uint64_t *self, *incl, *min, *max;
};

static struct costs stat_costs(struct zp_profile *p, size_t i)
{
	struct zp_stat *t = &p->stats[i];
	return (struct costs){t->self, t->incl, t->min, t->max};
}

static struct costs context_costs(struct zp_profile *p, size_t i)
{
	struct zp_context *c = &p->contexts[i];
	return (struct costs){c->self, c->incl, c->min, c->max};
}

/* Writes element i's costs, one row per event, with cost = "INSERT INTO x_costs VALUES (7 ?)". */
static int insert_costs(struct store *s, sqlite3_stmt *cost, int64_t run, size_t i, size_t nevents,
			struct costs c, struct zerr *err)
{
	int rc = 0;
	for (size_t e = 0; rc == 0 && e < nevents; e++) {
		sqlite3_bind_int64(cost, 1, run);
		sqlite3_bind_int64(cost, 2, (int64_t)i);
		sqlite3_bind_int64(cost, 3, (int64_t)e);
		sqlite3_bind_int64(cost, 4, u64_to_sql(c.self[e]));
		sqlite3_bind_int64(cost, 5, u64_to_sql(c.incl[e]));
		sqlite3_bind_int64(cost, 6, u64_to_sql(c.min[e]));
		sqlite3_bind_int64(cost, 7, u64_to_sql(c.max[e]));
		rc = step_done(s, cost, err);
	}
	return rc;
}

static int insert_stats(struct store *s, const struct zp_profile *p, int64_t run, struct zerr *err)
{
	sqlite3_stmt *st, *cost;
	if (prepare(s, "INSERT INTO stats VALUES (?, ?, ?, ?, ?)", &st, err) < 0)
		return -1;
	if (prepare(s, "INSERT INTO stat_costs VALUES (?, ?, ?, ?, ?, ?, ?)", &cost, err) < 0) {
		sqlite3_finalize(st);
		return -1;
	}
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < p->nstats; i++) {
		const struct zp_stat *t = &p->stats[i];
		sqlite3_bind_int64(st, 1, run);
		sqlite3_bind_int64(st, 2, (int64_t)i);
		sqlite3_bind_int64(st, 3, t->thread);
		sqlite3_bind_int64(st, 4, t->node);
		sqlite3_bind_int64(st, 5, u64_to_sql(t->calls));
		rc = step_done(s, st, err);
		if (rc == 0)
			rc = insert_costs(s, cost, run, i, p->nevents,
					  stat_costs((struct zp_profile *)p, i), err);
	}
	sqlite3_finalize(st);
	sqlite3_finalize(cost);
	return rc;
}

static void bind_edge(sqlite3_stmt *st, int64_t run, size_t i, const struct zp_edge *e)
{
	sqlite3_bind_int64(st, 1, run);
	sqlite3_bind_int64(st, 2, (int64_t)i);
	sqlite3_bind_int64(st, 3, e->thread);
	sqlite3_bind_int(st, 4, (int)e->kind);
	if (e->caller == ZP_NONE)
		sqlite3_bind_null(st, 5);
	else
		sqlite3_bind_int64(st, 5, e->caller);
	sqlite3_bind_int64(st, 6, e->callee);
	sqlite3_bind_int64(st, 7, u64_to_sql(e->calls));
	sqlite3_bind_int64(st, 8, u64_to_sql(e->taken));
	sqlite3_bind_int64(st, 9, u64_to_sql(e->site));
	sqlite3_bind_int(st, 10, e->site_line);
}

static int insert_instrs(struct store *s, const struct zp_profile *p, int64_t run, struct zerr *err)
{
	sqlite3_stmt *st, *cost;
	if (!p->ninstrs)
		return 0;
	if (prepare(s, "INSERT INTO instrs VALUES (?, ?, ?, ?, ?, ?)", &st, err) < 0)
		return -1;
	if (prepare(s, "INSERT INTO instr_costs VALUES (?, ?, ?, ?)", &cost, err) < 0) {
		sqlite3_finalize(st);
		return -1;
	}
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < p->ninstrs; i++) {
		const struct zp_instr *in = &p->instrs[i];
		sqlite3_bind_int64(st, 1, run);
		sqlite3_bind_int64(st, 2, (int64_t)i);
		sqlite3_bind_int64(st, 3, in->thread);
		sqlite3_bind_int64(st, 4, in->node);
		sqlite3_bind_int64(st, 5, u64_to_sql(in->addr));
		sqlite3_bind_int(st, 6, in->line);
		rc = step_done(s, st, err);
		for (size_t e = 0; rc == 0 && e < p->nevents; e++) {
			sqlite3_bind_int64(cost, 1, run);
			sqlite3_bind_int64(cost, 2, (int64_t)i);
			sqlite3_bind_int64(cost, 3, (int64_t)e);
			sqlite3_bind_int64(cost, 4, u64_to_sql(in->cost[e]));
			rc = step_done(s, cost, err);
		}
	}
	sqlite3_finalize(st);
	sqlite3_finalize(cost);
	return rc;
}

static int insert_edges(struct store *s, const struct zp_profile *p, int64_t run, struct zerr *err)
{
	sqlite3_stmt *st, *cost;
	const char *sql = "INSERT INTO edges VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
	if (prepare(s, sql, &st, err) < 0)
		return -1;
	if (prepare(s, "INSERT INTO edge_costs VALUES (?, ?, ?, ?)", &cost, err) < 0) {
		sqlite3_finalize(st);
		return -1;
	}
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < p->nedges; i++) {
		bind_edge(st, run, i, &p->edges[i]);
		rc = step_done(s, st, err);
		for (size_t e = 0; rc == 0 && e < p->nevents; e++) {
			sqlite3_bind_int64(cost, 1, run);
			sqlite3_bind_int64(cost, 2, (int64_t)i);
			sqlite3_bind_int64(cost, 3, (int64_t)e);
			sqlite3_bind_int64(cost, 4, u64_to_sql(p->edges[i].incl[e]));
			rc = step_done(s, cost, err);
		}
	}
	sqlite3_finalize(st);
	sqlite3_finalize(cost);
	return rc;
}

static void bind_context(sqlite3_stmt *st, int64_t run, size_t i, const struct zp_context *c)
{
	sqlite3_bind_int64(st, 1, run);
	sqlite3_bind_int64(st, 2, (int64_t)i);
	sqlite3_bind_int64(st, 3, c->thread);
	if (c->parent == ZP_NONE)
		sqlite3_bind_null(st, 4);
	else
		sqlite3_bind_int64(st, 4, c->parent);
	sqlite3_bind_int64(st, 5, c->node);
	sqlite3_bind_int64(st, 6, u64_to_sql(c->site));
	sqlite3_bind_int(st, 7, c->site_line);
	sqlite3_bind_int64(st, 8, u64_to_sql(c->calls));
}

static int insert_contexts(struct store *s, const struct zp_profile *p, int64_t run,
			   struct zerr *err)
{
	sqlite3_stmt *st, *cost;
	if (!p->ncontexts)
		return 0;
	if (prepare(s, "INSERT INTO contexts VALUES (?, ?, ?, ?, ?, ?, ?, ?)", &st, err) < 0)
		return -1;
	if (prepare(s, "INSERT INTO context_costs VALUES (?, ?, ?, ?, ?, ?, ?)", &cost, err) < 0) {
		sqlite3_finalize(st);
		return -1;
	}
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < p->ncontexts; i++) {
		bind_context(st, run, i, &p->contexts[i]);
		rc = step_done(s, st, err);
		if (rc == 0)
			rc = insert_costs(s, cost, run, i, p->nevents,
					  context_costs((struct zp_profile *)p, i), err);
	}
	sqlite3_finalize(st);
	sqlite3_finalize(cost);
	return rc;
}

static int insert_spans(struct store *s, const struct zp_profile *p, int64_t run, struct zerr *err)
{
	sqlite3_stmt *st;
	if (!p->nspans)
		return 0;
	if (prepare(s, "INSERT INTO spans VALUES (?, ?, ?, ?, ?, ?, ?, ?)", &st, err) < 0)
		return -1;
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < p->nspans; i++) {
		const struct zp_span *sp = &p->spans[i];
		sqlite3_bind_int64(st, 1, run);
		sqlite3_bind_int64(st, 2, (int64_t)i);
		sqlite3_bind_int64(st, 3, sp->thread);
		sqlite3_bind_int64(st, 4, sp->node);
		sqlite3_bind_int64(st, 5, sp->depth);
		sqlite3_bind_int64(st, 6, sp->flags);
		sqlite3_bind_int64(st, 7, sp->start);
		sqlite3_bind_int64(st, 8, sp->end);
		rc = step_done(s, st, err);
	}
	sqlite3_finalize(st);
	return rc;
}

/* The run whose meta key is value, in *run: 1, 0 when none, -1 with err. */
static int run_with_meta(struct store *s, const char *key, const char *value, int64_t *run,
			 struct zerr *err)
{
	sqlite3_stmt *st;
	if (prepare(s, "SELECT run FROM run_meta WHERE key = ? AND value = ? ORDER BY run LIMIT 1",
		    &st, err) < 0)
		return -1;
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, value, -1, SQLITE_STATIC);
	int rc = step_row(s, st, err);
	*run = rc == 1 ? sqlite3_column_int64(st, 0) : 0;
	sqlite3_finalize(st);
	return rc;
}

int store_run_with_meta(struct store *s, const char *key, const char *value, int64_t *run,
			struct zerr *err)
{
	if (read_begin(s, err) < 0)
		return -1;
	int rc = run_with_meta(s, key, value, run, err);
	read_end(s);
	return rc;
}

int store_add_run(struct store *s, struct zp_profile *p, struct zerr *err)
{
	/* IMMEDIATE: take the write lock now, so a concurrent writer waits in the busy handler. */
	if (exec_sql(s, "BEGIN IMMEDIATE", err) < 0)
		return -1;
	int64_t old_id = p->run.id, twin;
	const char *token = profile_meta(p, STORE_RUN_TOKEN);
	if (upgrade_schema(s, err) < 0)
		goto fail;
	/* in the write's own transaction: no two writers both find it missing */
	int found = token ? run_with_meta(s, STORE_RUN_TOKEN, token, &twin, err) : 0;
	if (found < 0)
		goto fail;
	if (found) {
		rollback(s);
		p->run.id = twin;
		return 1;
	}
	if (insert_run_row(s, p, err) < 0)
		goto fail;
	int64_t run = p->run.id;
	if (insert_meta_and_events(s, p, run, err) < 0 || insert_threads(s, p, run, err) < 0 ||
	    insert_nodes(s, p, run, err) < 0 || insert_stats(s, p, run, err) < 0 ||
	    insert_edges(s, p, run, err) < 0 || insert_instrs(s, p, run, err) < 0 ||
	    insert_contexts(s, p, run, err) < 0 || insert_spans(s, p, run, err) < 0 ||
	    exec_sql(s, "COMMIT", err) < 0)
		goto fail;
	return 0;
fail:
	abandon_write(s);
	p->run.id = old_id;
	return -1;
}

/* Whether the store holds no run (a store this call made may then go again). */
static int holds_no_run(struct store *s)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(s->db, "SELECT count(*) FROM runs", -1, &st, NULL) != SQLITE_OK)
		return 0;
	int none = sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int64(st, 0) == 0;
	sqlite3_finalize(st);
	return none;
}

int store_save_run(const char *path, struct zp_profile *p, struct zerr *err)
{
	struct store *s = store_open(path, STORE_CREATE, err);
	if (!s)
		return -1;
	int rc = store_add_run(s, p, err);
	/*
	 * A full disk leaves no empty store behind.  Another zond that opened it
	 * meanwhile and writes later gets SQLite's "moved" error, not a lost run.
	 */
	if (rc < 0 && s->created && holds_no_run(s))
		remove_db_file(s->file);
	store_close(s);
	return rc;
}

/* A new empty file $TMPDIR/zond-NAME-XXXXXX.db (else in /tmp), its name in path. */
static int new_temp_store(const char *name, char path[PATH_MAX])
{
	const char *dirs[] = {getenv("TMPDIR"), "/tmp"};
	for (size_t i = 0; i < 2; i++) {
		if (!dirs[i] || !*dirs[i] ||
		    snprintf(path, PATH_MAX, "%s/zond-%s-XXXXXX.db", dirs[i], name) >= PATH_MAX)
			continue;
		int fd = mkstemps(path, 3);
		if (fd >= 0)
			return close(fd);
	}
	return -1;
}

int store_keep_run(struct zp_profile *p, char kept[PATH_MAX], struct zerr *err)
{
	int made = !*kept;
	if (made && new_temp_store(p->run.collector ? p->run.collector : "run", kept) < 0) {
		*kept = 0;
		return zerr_set(err, "no store of its own could be made in $TMPDIR or /tmp: %s",
				strerror(errno));
	}
	int rc = store_save_run(kept, p, err);
	if (rc < 0 && made) {
		remove_db_file(kept);
		*kept = 0;
	}
	return rc;
}

/* ---- reading ------------------------------------------------------------ */

/*
 * A query over one table of one run, in index order.  Each loader checks
 * that the index column counts 0, 1, 2, ... so the arrays come back exactly
 * as they were written.
 */
static int query_run(struct store *s, const char *sql, int64_t run, sqlite3_stmt **st,
		     struct zerr *err)
{
	if (prepare(s, sql, st, err) < 0)
		return -1;
	sqlite3_bind_int64(*st, 1, run);
	return 0;
}

static int is_index(sqlite3_stmt *st, int col, size_t expect)
{
	return column_is_int(st, col) && sqlite3_column_int64(st, col) == (int64_t)expect;
}

/* An index column referring to one of n elements; -1 if out of range. */
static int64_t column_ref(sqlite3_stmt *st, int col, size_t n)
{
	if (!column_is_int(st, col))
		return -1;
	int64_t v = sqlite3_column_int64(st, col);
	return v >= 0 && (uint64_t)v < n ? v : -1;
}

static char *column_strdup(sqlite3_stmt *st, int col)
{
	const char *t = column_text(st, col);
	return t ? zp_xstrdup(t) : NULL;
}

static int load_run_row(struct store *s, struct zp_profile *p, int64_t id, struct zerr *err)
{
	sqlite3_stmt *st;
	const char *sql = "SELECT c.name, r.collector, r.command, r.host, r.arch, r.clock, "
			  "r.start_ns, r.duration_ns, r.pid, r.exit_status, r.term_signal, "
			  "r.overhead_ns FROM runs r LEFT JOIN campaigns c ON c.id = r.campaign "
			  "WHERE r.id = ?";
	if (query_run(s, sql, id, &st, err) < 0)
		return -1;
	int rc = step_row(s, st, err);
	if (rc == 0)
		zerr_set(err, "%s: no run %" PRId64, s->path, id);
	if (rc == 1) {
		struct zp_run *r = &p->run;
		r->id = id;
		r->campaign = column_strdup(st, 0);
		r->collector = column_strdup(st, 1);
		r->command = column_strdup(st, 2);
		r->host = column_strdup(st, 3);
		r->arch = column_strdup(st, 4);
		r->clock = column_strdup(st, 5);
		r->start_ns = sqlite3_column_int64(st, 6);
		r->duration_ns = sqlite3_column_int64(st, 7);
		r->pid = sqlite3_column_int64(st, 8);
		r->exit_status = sqlite3_column_int(st, 9);
		r->term_signal = sqlite3_column_int(st, 10);
		r->overhead_ns = sqlite3_column_double(st, 11);
	}
	sqlite3_finalize(st);
	return rc == 1 ? 0 : -1;
}

static int load_meta(struct store *s, struct zp_profile *p, int64_t run, struct zerr *err)
{
	sqlite3_stmt *st;
	const char *sql = "SELECT idx, key, value FROM run_meta WHERE run = ? ORDER BY idx";
	if (query_run(s, sql, run, &st, err) < 0)
		return -1;
	int rc;
	while ((rc = step_row(s, st, err)) == 1) {
		const char *key = column_text(st, 1), *value = column_text(st, 2);
		if (!is_index(st, 0, p->run.nmeta) || !key || !value || profile_meta(p, key)) {
			rc = damaged(s, err, run, "bad run_meta row");
			break;
		}
		profile_add_meta(p, key, value);
	}
	sqlite3_finalize(st);
	return rc;
}

static int load_events(struct store *s, struct zp_profile *p, int64_t run, struct zerr *err)
{
	sqlite3_stmt *st;
	const char *sql = "SELECT idx, name, unit FROM events WHERE run = ? ORDER BY idx";
	if (query_run(s, sql, run, &st, err) < 0)
		return -1;
	int rc;
	while ((rc = step_row(s, st, err)) == 1) {
		const char *name = column_text(st, 1), *unit = column_text(st, 2);
		if (p->nevents == ZP_MAX_EVENTS || !is_index(st, 0, p->nevents) || !name || !unit ||
		    profile_find_event(p, name) >= 0) {
			rc = damaged(s, err, run, "bad events row");
			break;
		}
		profile_event(p, name, unit);
	}
	sqlite3_finalize(st);
	return rc;
}

static int load_threads(struct store *s, struct zp_profile *p, int64_t run, struct zerr *err)
{
	sqlite3_stmt *st;
	const char *sql = "SELECT idx, pid, tid, name FROM threads WHERE run = ? ORDER BY idx";
	if (query_run(s, sql, run, &st, err) < 0)
		return -1;
	int rc;
	while ((rc = step_row(s, st, err)) == 1) {
		const char *name = column_text(st, 3);
		size_t n = p->nthreads;
		if (!is_index(st, 0, n) || !name ||
		    profile_thread(p, sqlite3_column_int64(st, 1), sqlite3_column_int64(st, 2),
				   name) != n) {
			rc = damaged(s, err, run, "bad threads row");
			break;
		}
	}
	sqlite3_finalize(st);
	return rc;
}

static int valid_node_row(sqlite3_stmt *st, size_t id)
{
	int64_t kind = sqlite3_column_int64(st, 1);
	return is_index(st, 0, id) && column_is_int(st, 1) && kind >= ZP_FUNCTION &&
	       kind <= ZP_BASIC_BLOCK && column_text(st, 2) && column_text(st, 3) &&
	       column_text(st, 4) && column_is_int(st, 5) && column_is_int(st, 6);
}

/* Parents are checked once all nodes are in: a parent may come after its child. */
static int load_nodes(struct store *s, struct zp_profile *p, int64_t run, struct zerr *err)
{
	sqlite3_stmt *st;
	const char *sql = "SELECT id, kind, name, module, file, line, addr, parent FROM nodes "
			  "WHERE run = ? ORDER BY id";
	if (query_run(s, sql, run, &st, err) < 0)
		return -1;
	int rc;
	while ((rc = step_row(s, st, err)) == 1) {
		size_t id = p->nnodes;
		if (!valid_node_row(st, id) ||
		    profile_node(p, sqlite3_column_int(st, 1), column_text(st, 2),
				 column_text(st, 3), column_text(st, 4), sqlite3_column_int(st, 5),
				 sql_to_u64(sqlite3_column_int64(st, 6))) != id) {
			rc = damaged(s, err, run, "bad nodes row");
			break;
		}
		int64_t parent = sqlite3_column_int64(st, 7);
		p->nodes[id].parent = ZP_NONE;
		if (sqlite3_column_type(st, 7) != SQLITE_NULL) {
			if (!column_is_int(st, 7) || parent < 0 || parent >= (int64_t)ZP_NONE) {
				rc = damaged(s, err, run, "bad node parent");
				break;
			}
			p->nodes[id].parent = (uint32_t)parent;
		}
	}
	sqlite3_finalize(st);
	for (size_t i = 0; rc == 0 && i < p->nnodes; i++)
		if (p->nodes[i].parent != ZP_NONE && p->nodes[i].parent >= p->nnodes)
			rc = damaged(s, err, run, "node parent out of range");
	return rc;
}

static int load_stats(struct store *s, struct zp_profile *p, int64_t run, struct zerr *err)
{
	sqlite3_stmt *st;
	const char *sql = "SELECT idx, thread, node, calls FROM stats WHERE run = ? ORDER BY idx";
	if (query_run(s, sql, run, &st, err) < 0)
		return -1;
	int rc;
	while ((rc = step_row(s, st, err)) == 1) {
		size_t i = p->nstats;
		int64_t thread = column_ref(st, 1, p->nthreads),
			node = column_ref(st, 2, p->nnodes);
		if (!is_index(st, 0, i) || thread < 0 || node < 0 || !column_is_int(st, 3)) {
			rc = damaged(s, err, run, "bad stats row");
			break;
		}
		struct zp_stat *t = profile_stat(p, (uint32_t)thread, (uint32_t)node);
		if (t != &p->stats[i]) {
			rc = damaged(s, err, run, "two stats rows for one thread and node");
			break;
		}
		t->calls = sql_to_u64(sqlite3_column_int64(st, 3));
	}
	sqlite3_finalize(st);
	return rc;
}

/*
 * Reads the rows of stat_costs or context_costs (sql selects element, event,
 * self, incl, min, max) into the n elements costs_of gives.
 */
static int load_costs(struct store *s, struct zp_profile *p, int64_t run, const char *sql, size_t n,
		      struct costs (*costs_of)(struct zp_profile *, size_t), const char *bad,
		      struct zerr *err)
{
	sqlite3_stmt *st;
	if (query_run(s, sql, run, &st, err) < 0)
		return -1;
	int rc;
	while ((rc = step_row(s, st, err)) == 1) {
		int64_t i = column_ref(st, 0, n), e = column_ref(st, 1, p->nevents);
		if (i < 0 || e < 0) {
			rc = damaged(s, err, run, bad);
			break;
		}
		struct costs c = costs_of(p, (size_t)i);
		c.self[e] = sql_to_u64(sqlite3_column_int64(st, 2));
		c.incl[e] = sql_to_u64(sqlite3_column_int64(st, 3));
		c.min[e] = sql_to_u64(sqlite3_column_int64(st, 4));
		c.max[e] = sql_to_u64(sqlite3_column_int64(st, 5));
	}
	sqlite3_finalize(st);
	return rc;
}

static int load_stat_costs(struct store *s, struct zp_profile *p, int64_t run, struct zerr *err)
{
	const char *sql = "SELECT stat, event, self, incl, min, max FROM stat_costs "
			  "WHERE run = ? ORDER BY stat, event";
	return load_costs(s, p, run, sql, p->nstats, stat_costs, "bad stat_costs row", err);
}

/* The edge of the current row, or NULL when a field is out of range. */
static struct zp_edge *edge_of_row(sqlite3_stmt *st, struct zp_profile *p)
{
	int64_t kind = sqlite3_column_int64(st, 2);
	int64_t thread = column_ref(st, 1, p->nthreads), callee = column_ref(st, 4, p->nnodes);
	int64_t caller = ZP_NONE;
	if (sqlite3_column_type(st, 3) != SQLITE_NULL)
		caller = column_ref(st, 3, p->nnodes);
	if (!is_index(st, 0, p->nedges) || thread < 0 || caller < 0 || callee < 0 ||
	    !column_is_int(st, 2) || (kind != ZP_CALL && kind != ZP_JUMP && kind != ZP_TRANSFER))
		return NULL;
	size_t before = p->nedges;
	struct zp_edge *e = profile_edge(p, (uint32_t)thread, (enum zp_edge_kind)kind,
					 (uint32_t)caller, (uint32_t)callee);
	/* No new edge means a second row for the same edge. */
	return p->nedges > before ? e : NULL;
}

static int load_edges(struct store *s, struct zp_profile *p, int64_t run, struct zerr *err)
{
	sqlite3_stmt *st;
	const char *sql = "SELECT idx, thread, kind, caller, callee, calls, taken, site, "
			  "site_line FROM edges WHERE run = ? ORDER BY idx";
	if (query_run(s, sql, run, &st, err) < 0)
		return -1;
	int rc;
	while ((rc = step_row(s, st, err)) == 1) {
		struct zp_edge *e = edge_of_row(st, p);
		if (!e) {
			rc = damaged(s, err, run, "bad edges row");
			break;
		}
		e->calls = sql_to_u64(sqlite3_column_int64(st, 5));
		e->taken = sql_to_u64(sqlite3_column_int64(st, 6));
		e->site = sql_to_u64(sqlite3_column_int64(st, 7));
		e->site_line = sqlite3_column_int(st, 8);
	}
	sqlite3_finalize(st);
	return rc;
}

static int load_edge_costs(struct store *s, struct zp_profile *p, int64_t run, struct zerr *err)
{
	sqlite3_stmt *st;
	const char *sql = "SELECT edge, event, incl FROM edge_costs WHERE run = ? "
			  "ORDER BY edge, event";
	if (query_run(s, sql, run, &st, err) < 0)
		return -1;
	int rc;
	while ((rc = step_row(s, st, err)) == 1) {
		int64_t i = column_ref(st, 0, p->nedges), e = column_ref(st, 1, p->nevents);
		if (i < 0 || e < 0) {
			rc = damaged(s, err, run, "bad edge_costs row");
			break;
		}
		p->edges[i].incl[e] = sql_to_u64(sqlite3_column_int64(st, 2));
	}
	sqlite3_finalize(st);
	return rc;
}

static int load_instrs(struct store *s, struct zp_profile *p, int64_t run, struct zerr *err)
{
	sqlite3_stmt *st;
	int have = check_table_exists(s, "instr_costs", err);
	if (have <= 0)
		return have;
	const char *sql = "SELECT idx, thread, node, addr, line FROM instrs WHERE run = ? "
			  "ORDER BY idx";
	if (query_run(s, sql, run, &st, err) < 0)
		return -1;
	int rc;
	while ((rc = step_row(s, st, err)) == 1) {
		int64_t thread = column_ref(st, 1, p->nthreads),
			node = column_ref(st, 2, p->nnodes);
		if (!is_index(st, 0, p->ninstrs) || thread < 0 || node < 0) {
			rc = damaged(s, err, run, "bad instrs row");
			break;
		}
		profile_add_instr(p, (uint32_t)thread, (uint32_t)node,
				  sql_to_u64(sqlite3_column_int64(st, 3)),
				  sqlite3_column_int(st, 4));
	}
	sqlite3_finalize(st);
	if (rc < 0)
		return rc;
	sql = "SELECT instr, event, cost FROM instr_costs WHERE run = ? ORDER BY instr, event";
	if (query_run(s, sql, run, &st, err) < 0)
		return -1;
	while ((rc = step_row(s, st, err)) == 1) {
		int64_t i = column_ref(st, 0, p->ninstrs), e = column_ref(st, 1, p->nevents);
		if (i < 0 || e < 0) {
			rc = damaged(s, err, run, "bad instr_costs row");
			break;
		}
		p->instrs[i].cost[e] = sql_to_u64(sqlite3_column_int64(st, 2));
	}
	sqlite3_finalize(st);
	return rc;
}

/* The context of the current row, or NULL when a field is out of range. */
static struct zp_context *context_of_row(sqlite3_stmt *st, struct zp_profile *p)
{
	size_t id = p->ncontexts;
	int64_t thread = column_ref(st, 1, p->nthreads), node = column_ref(st, 3, p->nnodes);
	int64_t parent = ZP_NONE;
	/* Parents come before their children, and belong to the same thread. */
	if (sqlite3_column_type(st, 2) != SQLITE_NULL) {
		parent = column_ref(st, 2, id);
		if (parent >= 0 && p->contexts[parent].thread != (uint32_t)thread)
			parent = -1;
	}
	if (!is_index(st, 0, id) || thread < 0 || parent < 0 || node < 0)
		return NULL;
	uint32_t c = profile_context(p, (uint32_t)thread, (uint32_t)parent, (uint32_t)node);
	/* An older id means a second row for the same context. */
	return c == id ? &p->contexts[c] : NULL;
}

static int load_contexts(struct store *s, struct zp_profile *p, int64_t run, struct zerr *err)
{
	sqlite3_stmt *st;
	int have = schema_table(s, "context_costs", 2, err);
	if (have > 0)
		have = schema_table(s, "contexts", 2, err);
	if (have <= 0)
		return have; /* a schema 1 store: runs without contexts */
	const char *sql = "SELECT id, thread, parent, node, site, site_line, calls FROM contexts "
			  "WHERE run = ? ORDER BY id";
	if (query_run(s, sql, run, &st, err) < 0)
		return -1;
	int rc;
	while ((rc = step_row(s, st, err)) == 1) {
		struct zp_context *c = context_of_row(st, p);
		if (!c) {
			rc = damaged(s, err, run, "bad contexts row");
			break;
		}
		c->site = sql_to_u64(sqlite3_column_int64(st, 4));
		c->site_line = sqlite3_column_int(st, 5);
		c->calls = sql_to_u64(sqlite3_column_int64(st, 6));
	}
	sqlite3_finalize(st);
	if (rc < 0)
		return rc;
	sql = "SELECT context, event, self, incl, min, max FROM context_costs "
	      "WHERE run = ? ORDER BY context, event";
	return load_costs(s, p, run, sql, p->ncontexts, context_costs, "bad context_costs row",
			  err);
}

/* A span's thread, node, depth and times as stored, in range and in order. */
static int span_of_row(sqlite3_stmt *st, const struct zp_profile *p, struct zp_span *sp)
{
	int64_t thread = sqlite3_column_int64(st, 0), node = sqlite3_column_int64(st, 1);
	int64_t depth = sqlite3_column_int64(st, 2), flags = sqlite3_column_int64(st, 3);
	*sp = (struct zp_span){.start = sqlite3_column_int64(st, 4),
			       .end = sqlite3_column_int64(st, 5)};
	if (thread < 0 || (uint64_t)thread >= p->nthreads || node < 0 ||
	    (uint64_t)node >= p->nnodes || depth < 0 || depth > UINT32_MAX || flags < 0 ||
	    flags > UINT32_MAX || sp->end < sp->start)
		return -1;
	sp->thread = (uint32_t)thread;
	sp->node = (uint32_t)node;
	sp->depth = (uint32_t)depth;
	sp->flags = (uint32_t)flags;
	return 0;
}

static int load_spans(struct store *s, struct zp_profile *p, int64_t run, struct zerr *err)
{
	sqlite3_stmt *st;
	int have = schema_table(s, "spans", 3, err);
	if (have <= 0)
		return have; /* a store older than schema 3: runs without a timeline */
	const char *sql = "SELECT thread, node, depth, flags, start, end FROM spans "
			  "WHERE run = ? ORDER BY id";
	if (query_run(s, sql, run, &st, err) < 0)
		return -1;
	int rc;
	struct zp_span sp;
	while ((rc = step_row(s, st, err)) == 1) {
		if (span_of_row(st, p, &sp) < 0) {
			rc = damaged(s, err, run, "bad spans row");
			break;
		}
		profile_add_span(p, sp.thread, sp.node, sp.depth, sp.flags, sp.start, sp.end);
	}
	sqlite3_finalize(st);
	return rc;
}

/* A run's header: the runs row, its meta facts and its events. */
static struct zp_profile *load_header(struct store *s, int64_t id, struct zerr *err)
{
	struct zp_profile *p = profile_new();
	if (load_run_row(s, p, id, err) < 0 || load_meta(s, p, id, err) < 0 ||
	    load_events(s, p, id, err) < 0) {
		profile_free(p);
		return NULL;
	}
	return p;
}

struct zp_profile *store_load_run(struct store *s, int64_t id, struct zerr *err)
{
	/* One read transaction: a concurrent delete cannot leave us half a run. */
	if (read_begin(s, err) < 0)
		return NULL;
	struct zp_profile *p = load_header(s, id, err);
	if (p && (load_threads(s, p, id, err) < 0 || load_nodes(s, p, id, err) < 0 ||
		  load_stats(s, p, id, err) < 0 || load_stat_costs(s, p, id, err) < 0 ||
		  load_edges(s, p, id, err) < 0 || load_edge_costs(s, p, id, err) < 0 ||
		  load_instrs(s, p, id, err) < 0 || load_contexts(s, p, id, err) < 0 ||
		  load_spans(s, p, id, err) < 0)) {
		profile_free(p);
		p = NULL;
	}
	read_end(s);
	return p;
}

/* Ids of all runs (or of one campaign's, when campaign is set), oldest first. */
static int run_ids(struct store *s, const char *campaign, int64_t **ids, size_t *n,
		   struct zerr *err)
{
	sqlite3_stmt *st;
	const char *sql = campaign ? "SELECT r.id FROM runs r JOIN campaigns c "
				     "ON c.id = r.campaign WHERE c.name = ? ORDER BY r.id"
				   : "SELECT id FROM runs ORDER BY id";
	*ids = NULL;
	*n = 0;
	if (prepare(s, sql, &st, err) < 0)
		return -1;
	if (campaign)
		sqlite3_bind_text(st, 1, campaign, -1, SQLITE_STATIC);
	size_t cap = 0;
	int rc;
	while ((rc = step_row(s, st, err)) == 1) {
		if (*n == cap) {
			cap = cap ? cap * 2 : 16;
			*ids = zp_xrealloc(*ids, cap * sizeof **ids);
		}
		(*ids)[(*n)++] = sqlite3_column_int64(st, 0);
	}
	sqlite3_finalize(st);
	if (rc < 0) {
		free(*ids);
		*ids = NULL;
		*n = 0;
	}
	return rc;
}

int store_list_runs(struct store *s, struct zp_profile ***runs, size_t *n, struct zerr *err)
{
	int64_t *ids;
	*runs = NULL;
	*n = 0;
	if (read_begin(s, err) < 0)
		return -1;
	if (run_ids(s, NULL, &ids, n, err) < 0) {
		read_end(s);
		return -1;
	}
	*runs = zp_xcalloc(*n, sizeof **runs);
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < *n; i++) {
		(*runs)[i] = load_header(s, ids[i], err);
		if (!(*runs)[i])
			rc = -1;
	}
	read_end(s);
	free(ids);
	if (rc < 0) {
		for (size_t i = 0; i < *n; i++)
			profile_free((*runs)[i]);
		free(*runs);
		*runs = NULL;
		*n = 0;
	}
	return rc;
}

int store_campaign_runs(struct store *s, const char *campaign, int64_t **ids, size_t *n,
			struct zerr *err)
{
	if (run_ids(s, campaign, ids, n, err) < 0)
		return -1;
	if (*n == 0)
		return zerr_set(err, "%s: no campaign '%s' (see 'zond runs')", s->path, campaign);
	return 0;
}

/* ---- references and deletion -------------------------------------------- */

/* A single integer from a query without parameters; 0 when it gives NULL. */
static int query_int(struct store *s, const char *sql, int64_t *v, struct zerr *err)
{
	sqlite3_stmt *st;
	if (prepare(s, sql, &st, err) < 0)
		return -1;
	int rc = step_row(s, st, err);
	*v = rc == 1 ? sqlite3_column_int64(st, 0) : 0;
	sqlite3_finalize(st);
	return rc < 0 ? -1 : 0;
}

/* Parses "N" or "-N" (N > 0 for "-N"); 0 or -1. */
static int parse_ref(const char *ref, int64_t *v)
{
	const char *digits = ref[0] == '-' ? ref + 1 : ref;
	if (!*digits || strspn(digits, "0123456789") != strlen(digits))
		return -1;
	errno = 0;
	long long n = strtoll(ref, NULL, 10);
	if (errno || (ref[0] == '-' && n == 0))
		return -1;
	*v = n;
	return 0;
}

static int no_such_run(struct store *s, const char *ref, int64_t count, struct zerr *err)
{
	int64_t lo, hi;
	if (query_int(s, "SELECT min(id) FROM runs", &lo, err) < 0 ||
	    query_int(s, "SELECT max(id) FROM runs", &hi, err) < 0)
		return -1;
	if (ref[0] == '-')
		return zerr_set(err, "%s: no run %s (the store holds %" PRId64 " run%s)", s->path,
				ref, count, count == 1 ? "" : "s");
	if (count == 1)
		return zerr_set(err, "%s: no run %s (the only run is %" PRId64 ")", s->path, ref,
				lo);
	if (hi - lo + 1 == count)
		return zerr_set(err, "%s: no run %s (runs are %" PRId64 "..%" PRId64 ")", s->path,
				ref, lo, hi);
	return zerr_set(err,
			"%s: no run %s (%" PRId64 " runs with ids from %" PRId64 " to %" PRId64 ")",
			s->path, ref, count, lo, hi);
}

int store_find_run(struct store *s, const char *ref, int64_t *id, struct zerr *err)
{
	int64_t count, n;
	/* "" is no reference: an unset variable's, and `runs -d ''` deleted the newest run (QA s15 W2 F2) */
	if (!ref || strcmp(ref, "last") == 0)
		ref = "-1";
	if (parse_ref(ref, &n) < 0)
		return zerr_set(err,
				"%s: bad run reference '%s' (use last, an id N or -N for the "
				"Nth newest)",
				s->path, ref);
	if (query_int(s, "SELECT count(*) FROM runs", &count, err) < 0)
		return -1;
	if (count == 0)
		return zerr_set(err, "%s: no runs yet", s->path);

	sqlite3_stmt *st;
	const char *sql = n < 0 ? "SELECT id FROM runs ORDER BY id DESC LIMIT 1 OFFSET ?"
				: "SELECT id FROM runs WHERE id = ?";
	if (prepare(s, sql, &st, err) < 0)
		return -1;
	sqlite3_bind_int64(st, 1, n < 0 ? -(n + 1) : n);
	int rc = step_row(s, st, err);
	if (rc == 1)
		*id = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	if (rc == 0)
		return no_such_run(s, ref, count, err);
	return rc < 0 ? -1 : 0;
}

static int delete_rows(struct store *s, const char *table, int64_t id, struct zerr *err)
{
	char sql[128];
	sqlite3_stmt *st;
	snprintf(sql, sizeof sql, "DELETE FROM %s WHERE run = ?", table);
	if (prepare(s, sql, &st, err) < 0)
		return -1;
	sqlite3_bind_int64(st, 1, id);
	int rc = step_done(s, st, err);
	sqlite3_finalize(st);
	return rc;
}

int store_delete_run(struct store *s, int64_t id, struct zerr *err)
{
	sqlite3_stmt *st;
	/* opened to read: SQLite's "attempt to write a readonly database" names no cause */
	if (store_writable(s->path, s->file, err) < 0 || exec_sql(s, "BEGIN IMMEDIATE", err) < 0)
		return -1;
	for (size_t i = 0; i < sizeof run_tables / sizeof run_tables[0]; i++) {
		int have = check_table_exists(s, run_tables[i], err);
		if (have < 0 || (have && delete_rows(s, run_tables[i], id, err) < 0))
			goto fail;
	}
	if (prepare(s, "DELETE FROM runs WHERE id = ?", &st, err) < 0)
		goto fail;
	sqlite3_bind_int64(st, 1, id);
	int rc = step_done(s, st, err);
	sqlite3_finalize(st);
	if (rc < 0)
		goto fail;
	if (sqlite3_changes(s->db) == 0) {
		zerr_set(err, "%s: no run %" PRId64, s->path, id);
		goto fail;
	}
	/* A campaign is only a name for its runs: it goes with its last one. */
	const char *orphans = "DELETE FROM campaigns WHERE id NOT IN "
			      "(SELECT campaign FROM runs WHERE campaign IS NOT NULL)";
	if (exec_sql(s, orphans, err) < 0 || exec_sql(s, "COMMIT", err) < 0)
		goto fail;
	return 0;
fail:
	abandon_write(s);
	return -1;
}
