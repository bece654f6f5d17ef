/*
 * store_files.c - the store as files others use too: the paths the store
 * refuses (before a program runs, through store_target).
 */
#define _GNU_SOURCE /* asprintf */

#include <stdlib.h>
#include <sys/stat.h>
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

	free(dangling);
	free(loop1);
	free(loop2);
	free(notes);
	free(under);
	free(via);
	free(later);
	free(real);
}

int main(void)
{
	char *dir = sample_tmpdir();
	test_paths(dir);
	sample_rmdir(dir);
	return check_done();
}
