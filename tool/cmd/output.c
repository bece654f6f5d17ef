/* output.c - checked, all-or-nothing output files (output.h). */
#include "output.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store/store.h"
#include "util/path.h"

static const char sqlite_magic[16] = "SQLite format 3";

/* What an existing file is, when zond must never write over it; NULL otherwise. */
static const char *precious(const char *path, const struct stat *st)
{
	unsigned char head[16] = {0};
	int fd = open(path, O_RDONLY | O_NONBLOCK);
	ssize_t n = fd >= 0 ? read(fd, head, sizeof head) : 0;
	if (fd >= 0)
		close(fd);
	if (n == (ssize_t)sizeof head && memcmp(head, sqlite_magic, sizeof sqlite_magic) == 0)
		return "a profile store (SQLite)";
	if (n >= 4 && memcmp(head, "\177ELF", 4) == 0)
		return "an ELF file";
	if (st->st_mode & (S_IXUSR | S_IXGRP | S_IXOTH))
		return "an executable file";
	return NULL;
}

static int same_file(const struct stat *a, const char *path)
{
	struct stat b;
	return path && stat(path, &b) == 0 && a->st_dev == b.st_dev && a->st_ino == b.st_ino;
}

/* A path that does not exist yet: its directory must let us create it. */
static int check_creatable(const char *path, struct zerr *err)
{
	if (path_dir_creatable(path, path, err) < 0)
		return -1;
	/*
	 * access() does not tell every directory where nothing can be created
	 * (/proc, /sys to root): the file is made and removed again, so that a
	 * collector that writes it in place (the trace plugin inside QEMU) is
	 * never started for an output it cannot write.
	 */
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
	if (fd < 0)
		return errno == EEXIST ? 0 : zerr_set(err, "%s: cannot create: %s", path,
						      strerror(errno));
	close(fd);
	unlink(path);
	return 0;
}

/*
 * An existing store is added to: it must be one, and writable with its
 * directory (the journal goes there), file being where path's links lead.
 */
static int check_store(const char *path, const char *file, const struct stat *st,
		       const char *what, struct zerr *err)
{
	if (!S_ISREG(st->st_mode))
		return zerr_set(err, "%s: not a regular file, cannot be a profile store", path);
	if (st->st_size > 0 && (!what || strcmp(what, "a profile store (SQLite)") != 0))
		return zerr_set(err, "%s: exists and is %s, not a profile store; will not write "
				     "over it",
				path, what ? what : "some other file");
	if (store_writable(path, file, err) < 0)
		return -1;
	if (st->st_size == 0)
		return 0;
	/*
	 * A store of a newer schema, damaged or of another program: found before a
	 * program runs.  SQLite puts /dev/null on a closed fd 0, 1 or 2 rather than
	 * a database there, and the program would inherit it: they are taken first
	 * and closed again after.
	 */
	int taken[3] = {-1, -1, -1};
	for (int fd = 0; fd < 3; fd++)
		if (fcntl(fd, F_GETFD) < 0 && errno == EBADF)
			taken[fd] = open("/dev/null", O_RDWR | O_CLOEXEC); /* the lowest free: fd */
	int rc = store_check(path, err); /* 1: locked by another process, not waited for */
	for (int fd = 0; fd < 3; fd++)
		if (taken[fd] >= 0)
			close(taken[fd]);
	return rc;
}

int output_check(const char *path, enum output_kind kind, const char *const *inputs,
		 struct zerr *err)
{
	struct stat st;
	char file[PATH_MAX];
	if (!*path)
		return zerr_set(err, "an empty output file name");
	if (kind == OUTPUT_FILE && strcmp(path, "-") == 0)
		return 0; /* standard output */
	/* a store is checked where the store's own open will look: through its links */
	if (kind == OUTPUT_STORE) {
		int exists = store_target(path, file, err);
		if (exists <= 0)
			return exists < 0 ? -1 : store_creatable(path, file, err);
	}
	if (stat(path, &st) != 0)
		return errno == ENOENT ? check_creatable(path, err)
				       : zerr_set(err, "%s: %s", path, strerror(errno));
	if (S_ISDIR(st.st_mode))
		return zerr_set(err, "%s: is a directory", path);
	for (size_t i = 0; inputs && inputs[i]; i++)
		if (same_file(&st, inputs[i]))
			return strcmp(path, inputs[i]) == 0
				       ? zerr_set(err, "%s: is an input of this command; will not "
						       "write over it",
						  path)
				       : zerr_set(err, "%s: is the same file as %s, an input of "
						       "this command; will not write over it",
						  path, inputs[i]);
	if (!S_ISREG(st.st_mode))
		return kind == OUTPUT_STORE ? check_store(path, file, &st, NULL, err) : 0;
	const char *what = precious(path, &st);
	if (kind == OUTPUT_STORE)
		return check_store(path, file, &st, what, err);
	if (what)
		return zerr_set(err, "%s: is %s; will not write over it (choose another output "
				     "file)",
				path, what);
	if (access(path, W_OK) != 0)
		return zerr_set(err, "%s: not writable: %s", path, strerror(errno));
	return 0;
}

/*
 * A fresh empty temporary file beside path, its name in tmp, with mode
 * (and, where this user may, the owner) of the file it is to replace, or
 * fopen's 0666 less the umask for a new one (old NULL).  Its name is
 * .BASE.zond-XXXXXX, BASE cut so that it stays a name the file system takes.
 */
static int output_temp(const char *path, const struct stat *old, char tmp[PATH_MAX],
		       struct zerr *err)
{
	static const char suffix[] = ".zond-XXXXXX";
	char dir[PATH_MAX];
	path_dir(path, dir);
	long max = pathconf(dir, _PC_NAME_MAX);
	int keep = (int)((max > 0 ? max : NAME_MAX) - (long)sizeof suffix); /* less "." */
	int n = snprintf(tmp, PATH_MAX, "%s/.%.*s%s", dir, keep > 0 ? keep : 0, path_base(path),
			 suffix);
	if (n < 0 || n >= PATH_MAX)
		return zerr_set(err, "%s: path too long", path);
	int fd = mkstemp(tmp);
	if (fd < 0)
		return zerr_set(err, "%s: cannot create a file in %s: %s", path, dir,
				strerror(errno));
	if (old) {
		if (fchown(fd, old->st_uid, old->st_gid) != 0 && fchown(fd, -1, old->st_gid) != 0) {
			/* not ours to give: the file is ours, as a new one would be */
		}
		fchmod(fd, old->st_mode & 07777);
	} else {
		mode_t mask = umask(0);
		umask(mask);
		fchmod(fd, 0666 & ~mask);
	}
	close(fd);
	return 0;
}

/* Renames tmp to path, or removes it. */
static int output_commit(const char *tmp, const char *path, struct zerr *err)
{
	if (rename(tmp, path) == 0)
		return 0;
	int e = errno;
	unlink(tmp);
	return zerr_set(err, "%s: cannot write: %s", path, strerror(e));
}

/* The standard stream whose file st is (-o /dev/stdout, /proc/self/fd/2), or NULL. */
static FILE *standard_stream(const struct stat *st)
{
	struct stat fd;
	if (fstat(STDOUT_FILENO, &fd) == 0 && fd.st_dev == st->st_dev && fd.st_ino == st->st_ino)
		return stdout;
	if (fstat(STDERR_FILENO, &fd) == 0 && fd.st_dev == st->st_dev && fd.st_ino == st->st_ino)
		return stderr;
	return NULL;
}

/* Opens the temporary file o->tmp made for o->path. */
static int open_temp(struct output *o, struct zerr *err)
{
	o->f = fopen(o->tmp, "w");
	if (o->f)
		return 0;
	int e = errno;
	unlink(o->tmp);
	return zerr_set(err, "%s: cannot write: %s", o->path, strerror(e));
}

static int open_directly(struct output *o, const char *path, struct zerr *err)
{
	o->f = fopen(path, "w");
	return o->f ? 0 : zerr_set(err, "%s: cannot write: %s", path, strerror(errno));
}

int output_open(struct output *o, const char *path, struct zerr *err)
{
	struct stat st;
	char file[PATH_MAX];
	*o = (struct output){.f = stdout};
	if (!path || strcmp(path, "-") == 0)
		return 0;
	snprintf(o->path, sizeof o->path, "%s", path);
	if (stat(path, &st) != 0) {
		/* a link to nothing yet: written through, the file made where it points */
		if (lstat(path, &st) == 0)
			return open_directly(o, path, err);
		return output_temp(path, NULL, o->tmp, err) < 0 ? -1 : open_temp(o, err);
	}
	FILE *stream = standard_stream(&st);
	if (stream) {
		/* zond's own output already: written there (not truncated, not replaced) */
		o->f = stream;
		o->stream = 1;
		return 0;
	}
	/* a device, a FIFO, a file other names share: the file itself is written */
	if (!S_ISREG(st.st_mode) || st.st_nlink > 1)
		return open_directly(o, path, err);
	/* through symbolic links: the file they lead to is replaced, the links stay */
	if (!realpath(path, file))
		return zerr_set(err, "%s: %s", path, strerror(errno));
	if (output_temp(file, &st, o->tmp, err) < 0)
		return -1;
	snprintf(o->target, sizeof o->target, "%s", file);
	return open_temp(o, err);
}

int output_close(struct output *o, int ok, struct zerr *err)
{
	const char *name = *o->path ? o->path : "standard output";
	int e = errno; /* a writer that failed to write stopped there */
	int bad = ferror(o->f);
	if (fflush(o->f) != 0 && !bad) {
		bad = 1;
		e = errno;
	}
	if (*o->path && !o->stream && fclose(o->f) != 0 && !bad) {
		bad = 1;
		e = errno;
	}
	o->f = NULL;
	if (*o->tmp && (!ok || bad))
		unlink(o->tmp);
	/* a failed write is the reason, whatever the writer said */
	if (bad)
		return zerr_set(err, "%s: write failed: %s", name, strerror(e));
	return ok && *o->tmp ? output_commit(o->tmp, *o->target ? o->target : o->path, err) : 0;
}
