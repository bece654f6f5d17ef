/*
 * store.h - the profile store: one SQLite file holding many runs.
 *
 * The schema is documented in doc/store-schema.md and versioned in the
 * zond_meta table (key 'schema_version').  A run is written in one
 * transaction: a reader never sees half a run.  Opening a file that is not a
 * zond store, or one written by a newer zond, fails with a clear message.
 *
 * Errors: functions returning int give 0 on success and -1 on failure, with
 * the message in *err (see util/error.h); those returning pointers give NULL.
 */
#ifndef ZOND_STORE_H
#define ZOND_STORE_H

#include <stdint.h>

#include "../model/profile.h"
#include "../util/error.h"

#define STORE_SCHEMA_VERSION 1
#define STORE_DEFAULT_PATH "zond.db"

struct store;

enum store_mode {
	STORE_READ,   /* the file must exist and be a zond store */
	STORE_CREATE, /* created (with its schema) when missing */
};

struct store *store_open(const char *path, enum store_mode mode, struct zerr *err);
void store_close(struct store *s);

/* Writes p as a new run; sets p->run.id.  Creates p->run.campaign if new. */
int store_add_run(struct store *s, struct zp_profile *p, struct zerr *err);

/*
 * Resolves a user's run reference: NULL or "" or "last" = the newest run,
 * "N" = run id N, "-N" = the Nth newest (-1 = last).  0 and the id, or -1.
 */
int store_find_run(struct store *s, const char *ref, int64_t *id, struct zerr *err);

/* Loads a whole run into a new profile, or NULL. */
struct zp_profile *store_load_run(struct store *s, int64_t id, struct zerr *err);

/* Run headers (no nodes/stats/edges), oldest first.  Free each with profile_free. */
int store_list_runs(struct store *s, struct zp_profile ***runs, size_t *n, struct zerr *err);

/* Ids of the runs of a campaign, oldest first; *ids malloc'ed. */
int store_campaign_runs(struct store *s, const char *campaign, int64_t **ids, size_t *n,
			struct zerr *err);

/* Removes a run and everything that belongs to it. */
int store_delete_run(struct store *s, int64_t id, struct zerr *err);

#endif
