/*
 * runinfo.h - what a run's raw data directory says of the run besides its
 * raw files, for `zond recover DIR` to store a run whose zond could not:
 * DIR/run.info, "key value" lines, the first "format 2".  Written before
 * the program starts: collector, program, command (joined and quoted as
 * the store keeps it), store (absolute: recover may run elsewhere),
 * campaign, knobs, token (the run's identity, run meta run_token: recover
 * never stores a run its store holds already); appended once it ended: start_ns, duration_ns, exit_status,
 * term_signal.  A value may hold anything a path, an argument or a
 * campaign may (newlines, any length): its backslashes and newlines are
 * written \\ and \n, every other byte as it is.  A file without the format
 * line (an older zond's) has its values as they are.
 *
 * And DIR/lock, which the zond that owns DIR holds (a POSIX record lock) while
 * it lives, a recover too while it stores: neither a recover of a run still
 * being recorded nor two recovers of one run at once.  The lock goes with
 * its process, SIGKILL too, so a killed zond's DIR is recoverable at once.
 * It is made before anything else in DIR and removed after everything else
 * (launch_remove_dir): a recover that finds no lock finds nothing to store
 * twice.  recover makes none: a directory of an older zond's is recovered
 * unlocked, and one of no zond's is left as it was.
 */
#ifndef ZOND_RUNINFO_H
#define ZOND_RUNINFO_H

#include <stdint.h>
#include <sys/types.h>

#include "util/error.h"

#define RUNINFO_FILE "run.info"
#define RUNINFO_LOCK "lock"
/*
 * In a directory kept (--keep-raw) after its run was stored: the store it
 * went to, a line.  recover refuses such a directory (its run is not lost).
 */
#define RUNINFO_STORED "stored"

/* What run.info says; NULL (or 0, -1) where it says nothing. */
struct runinfo {
	char *collector, *program, *command, *store, *campaign;
	char *knobs; /* the runtime's variables zond passed on as found (launch.h) */
	char *token; /* the run's identity (store.h STORE_RUN_TOKEN), NULL: an older zond's */
	int64_t start_ns, duration_ns;
	int exit_status, term_signal; /* -1 and 0 when not said */
};

/* Writes dir/run.info's start (fields without value are left out).  0, or -1 with err. */
int runinfo_write(const char *dir, const struct runinfo *ri, struct zerr *err);

/* Appends the run's end: start_ns, duration_ns, exit_status, term_signal. */
int runinfo_append_end(const char *dir, const struct runinfo *ri, struct zerr *err);

/*
 * Reads dir/run.info into ri (runinfo_free frees it): 1 when read, 0 when
 * there is none, -1 with err (one line naming the file, and the line of
 * it) when it cannot be read or is not what zond writes.
 */
int runinfo_read(const char *dir, struct runinfo *ri, struct zerr *err);

void runinfo_free(struct runinfo *ri);

/*
 * Takes dir/lock for this process, for its whole life (made if missing
 * and create): an fd; -1 with err, *holder the pid holding it (0 when
 * none was seen); -2 when there is no lock file and not create.
 */
int runinfo_lock(const char *dir, int create, pid_t *holder, struct zerr *err);

#endif
