/*
 * store.h - the profile store: one SQLite file holding many runs.
 *
 * The schema is documented in doc/store-schema.md and versioned in the
 * zond_meta table (key 'schema_version').  A run is written in one
 * transaction: a reader never sees half a run.  Opening a file that is not a
 * zond store, or one written by a newer zond, fails with a clear message
 * ("FILE: not a zond profile store (...)", "FILE: written by a newer zond
 * (schema 4, this zond reads 3)").  A damaged file gives "FILE: damaged zond
 * profile store (...)", never a crash.
 *
 * An older store (schema 1: no calling contexts; schema 2: no timeline
 * spans) opens and reads as it is; its runs load without them.  Writing a run into it first
 * upgrades it to this zond's schema in the run's own transaction.  Opening and reading never change
 * the file.
 *
 * Run ids are never reused, so "run 7" names the same run for the life of
 * the store.  Several zond processes may use one store at once: each waits
 * (up to 30 s) for another's write to finish.
 *
 * Errors: functions returning int give 0 on success and -1 on failure, with
 * the message in *err (see util/error.h); those returning pointers give NULL.
 */
#ifndef ZOND_STORE_H
#define ZOND_STORE_H

#include <limits.h>
#include <stdint.h>

#include "../model/profile.h"
#include "../util/error.h"

#define STORE_SCHEMA_VERSION 3
#define STORE_DEFAULT_PATH "zond.db"

struct store;

enum store_mode {
	STORE_READ,   /* the file must exist and be a zond store (deleting runs is allowed) */
	STORE_CREATE, /* created (with its schema) when missing */
};

/*
 * A new store is made whole in a temporary file beside path and linked into
 * place: readers never see it half made.  After a write that failed, the
 * store is as it was, its journal played back (a full disk leaves none for
 * the next opener); a reader who finds such a journal and may not write the
 * store is told so in one line.
 */
struct store *store_open(const char *path, enum store_mode mode, struct zerr *err);
void store_close(struct store *s);

/*
 * Whether the store at path (which exists) opens as a zond store of this
 * zond's schema, as a collector checks it before a program runs: 0, -1 with
 * err, or 1 with err when another process holds its lock for more than a
 * second (a writer's commit takes less): it could not be checked, and a
 * write may wait up to 30 s for it.
 */
int store_check(const char *path, struct zerr *err);

/*
 * A run's identity (run meta): a collector that may store one run twice
 * (zond killed after the commit, then `zond recover`) gives each run a
 * token, which store_add_run never stores twice.
 */
#define STORE_RUN_TOKEN "run_token"

/*
 * Writes p as a new run; sets p->run.id.  Creates p->run.campaign if new.
 * 1 (nothing written, p->run.id the run's) when p's STORE_RUN_TOKEN is the
 * store's already.
 */
int store_add_run(struct store *s, struct zp_profile *p, struct zerr *err);

/* The first run whose meta key is value, in *run: 1, 0 when none, -1 with err. */
int store_run_with_meta(struct store *s, const char *key, const char *value, int64_t *run,
			struct zerr *err);

/*
 * What a collector does with its run: opens (STORE_CREATE) the store at
 * path, adds p as a new run and closes it.  When that fails, a store this
 * call made is removed again if it holds no run (a full disk leaves no
 * empty store behind).  0, 1 (store_add_run: stored already), or -1.
 */
int store_save_run(const char *path, struct zp_profile *p, struct zerr *err);

/*
 * Where a run goes when its store cannot take it (store_save_run failed), so
 * that what was measured is not lost: into a store of its own,
 * $TMPDIR/zond-COLLECTOR-XXXXXX.db (else in /tmp; every command reads it
 * with -i), whose name is put in kept; called again with kept set, the run
 * is added to that store.  0, or -1 with err (kept is then "" if it was).
 */
int store_keep_run(struct zp_profile *p, char kept[PATH_MAX], struct zerr *err);

/*
 * The file a store path leads to, as store_open finds it: symbolic links
 * followed (a loop, or more than 40, refused) into file.  1 when file
 * exists, 0 when it does not (store_creatable says whether it can be made),
 * -1 with err naming path ("FILE: Not a directory", "FILE: a loop of
 * symbolic links ...").  Whoever checks a store before a program runs
 * checks file, the one store_open will open, make or refuse.
 */
int store_target(const char *path, char file[PATH_MAX], struct zerr *err);

/*
 * 0 when store_open can make the store at file (path's target, which does
 * not exist): its directory exists and this user may create files there;
 * else -1 with err, e.g. "link.db (a symbolic link to /mnt/x.db): cannot
 * create: /mnt: No such file or directory".
 */
int store_creatable(const char *path, const char *file, struct zerr *err);

/*
 * 0 when the existing store at file (path's target) can be written: the
 * file and its directory writable (SQLite's rollback journal, FILE-journal,
 * goes there) and the journal's name one the file system takes; else -1
 * with err naming the cause ("NAME: the profile store's directory D is not
 * writable (its journal goes there): Permission denied").  store_open
 * checks it before a write; store_creatable checks the journal's name of a
 * store yet to be made.
 */
int store_writable(const char *path, const char *file, struct zerr *err);

/*
 * Resolves a user's run reference: NULL or "last" = the newest run,
 * "N" = run id N, "-N" = the Nth newest (-1 = last); "" is a bad one.  0 and the id, or -1
 * with "FILE: no runs yet", "FILE: no run 7 (runs are 1..5)" or "FILE: bad
 * run reference 'x' (...)".
 */
int store_find_run(struct store *s, const char *ref, int64_t *id, struct zerr *err);

/*
 * One read transaction for the reads that follow, up to store_read_end (or
 * store_close): they all see the store as it was at the first of them, so
 * that runs listed or resolved (a campaign's, "last") are the runs loaded,
 * even when another process deletes or adds runs meanwhile (a writer's
 * commit waits for the reader to end, up to its 30 s).  No write inside.
 * 0, or -1 with err.
 */
int store_read_begin(struct store *s, struct zerr *err);
void store_read_end(struct store *s);

/* Loads a whole run into a new profile, or NULL. */
struct zp_profile *store_load_run(struct store *s, int64_t id, struct zerr *err);

/*
 * Run headers, oldest first: the run fields, meta facts and events (no
 * threads, nodes, stats or edges).  Free each with profile_free, then *runs.
 */
int store_list_runs(struct store *s, struct zp_profile ***runs, size_t *n, struct zerr *err);

/*
 * Ids of the runs of a campaign, oldest first; *ids malloc'ed.  A campaign
 * with no runs does not exist: "FILE: no campaign 'NAME' (see 'zond runs')".
 */
int store_campaign_runs(struct store *s, const char *campaign, int64_t **ids, size_t *n,
			struct zerr *err);

/* Removes a run and everything that belongs to it (and its campaign, if it was the last run). */
int store_delete_run(struct store *s, int64_t id, struct zerr *err);

#endif
