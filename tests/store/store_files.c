/*
 * store_files.c - the store as files others use too: the paths the store
 * refuses (before a program runs, through store_target), a store made
 * while others read it, a write that fails for lack of room, and the store
 * of its own a run goes to when its store cannot take it.
 */
#define _GNU_SOURCE /* asprintf */

#include <dirent.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../check.h"
#include "sample.h"
#include "store/store.h"

static void symlink_or_die(const char *target, const char *link)
{
	if (symlink(target, link) != 0) {
		perror(link);
		exit(2);
	}
}

/* Checks that store_open(path, mode) fails with exactly want. */
static void check_refused(const char *path, enum store_mode mode, const char *want)
{
	struct zerr err = {{0}};
	struct store *s = store_open(path, mode, &err);
	CHECK(s == NULL);
	CHECK_EQ_STR(err.msg, want);
	store_close(s);
}

/* The number of entries of dir whose name starts with prefix. */
static int count_entries(const char *dir, const char *prefix)
{
	DIR *d = opendir(dir);
	int n = 0;
	for (struct dirent *e; d && (e = readdir(d));)
		n += strncmp(e->d_name, prefix, strlen(prefix)) == 0;
	if (d)
		closedir(d);
	return n;
}

static off_t file_size(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 ? st.st_size : -1;
}

/*
 * Links that lead nowhere, in a loop, or through a file are refused by
 * store_target, which the checks before a program runs use: SQLite refused
 * them only when the run was written.  A link to a file yet to be made
 * makes the store there and stays a link.
 */
static void test_paths(const char *dir)
{
	char want[3000], file[PATH_MAX];
	struct zerr err;
	char *dangling = sample_path(dir, "dangling.db");
	symlink_or_die("/nonexistent-dir/x.db", dangling);
	CHECK(store_target(dangling, file, &err) == 0);
	CHECK_EQ_STR(file, "/nonexistent-dir/x.db");
	CHECK(store_creatable(dangling, file, &err) < 0);
	snprintf(want, sizeof want,
		 "%s (a symbolic link to /nonexistent-dir/x.db): cannot create: "
		 "/nonexistent-dir: No such file or directory",
		 dangling);
	CHECK_EQ_STR(err.msg, want);
	check_refused(dangling, STORE_CREATE, want);
	snprintf(want, sizeof want,
		 "%s (a symbolic link to /nonexistent-dir/x.db): no such file (record a run "
		 "first: zond record -- PROG)",
		 dangling);
	check_refused(dangling, STORE_READ, want);

	char *loop1 = sample_path(dir, "loop1.db"), *loop2 = sample_path(dir, "loop2.db");
	symlink_or_die("loop2.db", loop1);
	symlink_or_die("loop1.db", loop2);
	CHECK(store_target(loop1, file, &err) < 0);
	snprintf(want, sizeof want, "%s: a loop of symbolic links (or more than 40)", loop1);
	CHECK_EQ_STR(err.msg, want);
	check_refused(loop1, STORE_CREATE, want);

	char *notes = sample_path(dir, "notes.txt"), *under = sample_path(dir, "notes.txt/x.db");
	FILE *f = fopen(notes, "w");
	if (!f || fclose(f) != 0)
		exit(2);
	snprintf(want, sizeof want, "%s: Not a directory", under);
	check_refused(under, STORE_CREATE, want);
	char *via = sample_path(dir, "via.db");
	symlink_or_die("notes.txt/x.db", via);
	snprintf(want, sizeof want, "%s: Not a directory", via);
	check_refused(via, STORE_CREATE, want);

	char *later = sample_path(dir, "later.db"), *real = sample_path(dir, "real.db");
	symlink_or_die("real.db", later);
	struct zp_profile *p = sample_profile(NULL);
	CHECK(store_save_run(later, p, &err) == 0);
	profile_free(p);
	struct stat st;
	CHECK(lstat(later, &st) == 0 && S_ISLNK(st.st_mode));
	CHECK(sample_sql_int(real, "SELECT count(*) FROM runs") == 1);
	CHECK(count_entries(dir, ".zond-new-") == 0); /* the file it was made in is gone */

	free(dangling);
	free(loop1);
	free(loop2);
	free(notes);
	free(under);
	free(via);
	free(later);
	free(real);
}

/*
 * Readers opening the store while others make it see no store or the
 * whole store, never "an empty file": it is made aside and linked into
 * place.  Several writers make it at once, each adds its run.
 */
static void test_creation_seen_whole(const char *dir)
{
	enum { ROUNDS = 20, WRITERS = 3 };
	int bad = 0;
	for (int round = 0; round < ROUNDS; round++) {
		char name[32];
		snprintf(name, sizeof name, "new%d.db", round);
		char *path = sample_path(dir, name);
		pid_t pids[WRITERS];
		for (int w = 0; w < WRITERS; w++) {
			pids[w] = fork();
			if (pids[w] == 0) {
				struct zerr err;
				struct zp_profile *p = sample_profile(NULL);
				_exit(store_save_run(path, p, &err) == 0 ? 0 : 1);
			}
		}
		int done = 0, reads = 0;
		while (done < WRITERS || reads < 10) {
			struct zerr err;
			struct store *s = store_open(path, STORE_READ, &err);
			if (!s && !strstr(err.msg, ": no such file (record a run first")) {
				if (!bad++)
					fprintf(stderr, "    a reader was told: %s\n", err.msg);
			}
			store_close(s);
			reads += s != NULL;
			int status;
			while (done < WRITERS && waitpid(-1, &status, WNOHANG) > 0) {
				done++;
				CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
			}
		}
		CHECK(sample_sql_int(path, "SELECT count(*) FROM runs") == WRITERS);
		free(path);
	}
	CHECK(bad == 0);
	CHECK(count_entries(dir, ".zond-new-") == 0);
}

/*
 * A write that fails for lack of room (here the file-size limit: SQLite
 * sees a full disk) leaves the store as it was: the same size, one run, and
 * no journal, which a reader who may not write the store could not roll
 * back ("attempt to write a readonly database" for every reading command).
 */
static void test_failed_write(const char *dir)
{
	struct zerr err;
	char *path = sample_path(dir, "full.db"), *journal = sample_path(dir, "full.db-journal");
	struct zp_profile *p = sample_profile(NULL);
	CHECK(store_save_run(path, p, &err) == 0);
	profile_free(p);
	off_t size = file_size(path);

	struct rlimit old, limit;
	getrlimit(RLIMIT_FSIZE, &old);
	limit = old;
	limit.rlim_cur = (rlim_t)size + 64 * 1024; /* room for the journal, not for the run */
	signal(SIGXFSZ, SIG_IGN);
	setrlimit(RLIMIT_FSIZE, &limit);
	p = sample_big_profile(2, 20000);
	struct store *s = store_open(path, STORE_CREATE, &err);
	CHECK(s != NULL);
	CHECK(s && store_add_run(s, p, &err) < 0);
	/* the limit named as the cause (EFBIG was SQLite's bare "disk I/O error") */
	if (!CHECK(strstr(err.msg, "full.db: cannot write: the file size limit was reached "
				    "(ulimit -f: File too large)")))
		fprintf(stderr, "    %s\n", err.msg);
	CHECK(access(journal, F_OK) != 0); /* rolled back by the writer, not left hot */
	store_close(s);
	setrlimit(RLIMIT_FSIZE, &old);
	signal(SIGXFSZ, SIG_DFL);
	profile_free(p);
	CHECK(access(journal, F_OK) != 0);
	CHECK_EQ_U64((uint64_t)file_size(path), (uint64_t)size);
	CHECK(sample_sql_int(path, "SELECT count(*) FROM runs") == 1);
	free(path);
	free(journal);
}

/*
 * A new store past `ulimit -f` (its schema alone does not fit): the limit
 * is named as the cause, where SQLite said "disk I/O error".
 */
static void test_new_store_fsize(const char *dir)
{
	struct zerr err;
	char *path = sample_path(dir, "small.db");
	struct zp_profile *p = sample_profile(NULL);
	struct rlimit old, limit;
	getrlimit(RLIMIT_FSIZE, &old);
	limit = old;
	limit.rlim_cur = 16 * 1024;
	signal(SIGXFSZ, SIG_IGN);
	setrlimit(RLIMIT_FSIZE, &limit);
	CHECK(store_save_run(path, p, &err) < 0);
	setrlimit(RLIMIT_FSIZE, &old);
	signal(SIGXFSZ, SIG_DFL);
	if (!CHECK(strstr(err.msg, "small.db: cannot write: the file size limit was reached "
				    "(ulimit -f: File too large)")))
		fprintf(stderr, "    %s\n", err.msg);
	CHECK(access(path, F_OK) != 0);
	CHECK(count_entries(dir, ".zond-new-") == 0);
	profile_free(p);
	free(path);
}

/*
 * A run its store cannot take goes to a store of its own in $TMPDIR, and
 * the runs after it into the same one.
 */
static void test_keep_run(const char *dir)
{
	struct zerr err;
	char kept[PATH_MAX] = "", prefix[PATH_MAX];
	setenv("TMPDIR", dir, 1);
	struct zp_profile *p = sample_profile("kept");
	CHECK(store_keep_run(p, kept, &err) == 0);
	snprintf(prefix, sizeof prefix, "%s/zond-record-", dir);
	CHECK(strncmp(kept, prefix, strlen(prefix)) == 0);
	CHECK(strlen(kept) > 3 && strcmp(kept + strlen(kept) - 3, ".db") == 0);
	char first[PATH_MAX];
	snprintf(first, sizeof first, "%s", kept);
	CHECK(store_keep_run(p, kept, &err) == 0);
	CHECK_EQ_STR(kept, first);
	CHECK(sample_sql_int(kept, "SELECT count(*) FROM runs") == 2);
	struct store *s = store_open(kept, STORE_READ, &err);
	int64_t id;
	CHECK(s && store_find_run(s, "1", &id, &err) == 0);
	struct zp_profile *back = s ? store_load_run(s, id, &err) : NULL;
	CHECK(back && sample_mismatches(p, back) == 0);
	profile_free(back);
	store_close(s);
	profile_free(p);
	unsetenv("TMPDIR");
}

int main(void)
{
	char *dir = sample_tmpdir();
	test_paths(dir);
	test_creation_seen_whole(dir);
	test_failed_write(dir);
	test_new_store_fsize(dir);
	test_keep_run(dir);
	sample_rmdir(dir);
	return check_done();
}
