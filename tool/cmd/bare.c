/* bare.c - `zond record` of a bare-metal RISC-V program under QEMU (bare.h). */
#include "bare.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../runtime/core/raw.h"
#include "cmd.h"

/* The placeholder path the bare-metal port gives its module (runtime/bare/port.c). */
static const char elf_placeholder[] = "[elf]";

int bare_wanted(const struct launch *l, const char *elf)
{
	const char *slash = strrchr(l->argv[0], '/');
	const char *name = slash ? slash + 1 : l->argv[0];
	return elf || strncmp(name, "qemu-system-", 12) == 0;
}

/* The argument after QEMU's -kernel, NULL when there is none. */
static char **kernel_arg(char **argv)
{
	for (char **a = argv + 1; *a; a++)
		if (!strcmp(*a, "-kernel") || !strcmp(*a, "--kernel"))
			return a[1] ? a + 1 : NULL;
	return NULL;
}

/* In the child, before exec: QEMU resolves semihosting file names from its working directory. */
static void enter_raw_dir(void *arg)
{
	const struct launch *l = arg;
	if (chdir(l->dir) < 0) {
		fprintf(stderr, "zond record: %s: %s\n", l->dir, strerror(errno));
		_exit(127);
	}
}

static int read_at(int fd, void *buf, size_t len, uint64_t off)
{
	return pread(fd, buf, len, (off_t)off) == (ssize_t)len ? 0 : -1;
}

static int write_at(int fd, const void *buf, size_t len, uint64_t off)
{
	return pwrite(fd, buf, len, (off_t)off) == (ssize_t)len ? 0 : -1;
}

/*
 * Names the module of the raw file at path after elf: the path goes into
 * the string pool's free room.  0 (also when the file is not the bare
 * port's: the reader then says what is wrong), or -1 with err set.
 */
static int name_module(const char *path, const char *elf, struct zerr *err)
{
	int fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? 0 : zerr_set(err, "%s: %s", path, strerror(errno));
	struct zr_header h;
	struct zr_module m;
	char old[sizeof elf_placeholder];
	int rc = 0;
	size_t len = strlen(elf) + 1;
	if (read_at(fd, &h, sizeof h, 0) < 0 || memcmp(h.magic, ZR_MAGIC, 8) != 0 ||
	    h.n_modules != 1 || read_at(fd, &m, sizeof m, h.modules_off) < 0 ||
	    m.path >= h.string_bytes || h.string_used > h.string_bytes ||
	    read_at(fd, old, sizeof old, h.strings_off + m.path) < 0 ||
	    memcmp(old, elf_placeholder, sizeof old) != 0)
		goto done;
	if (h.string_bytes - h.string_used < len) {
		rc = zerr_set(err, "%s: no room in the string pool for the ELF path %s", path, elf);
		goto done;
	}
	m.path = h.string_used;
	h.string_used += (uint32_t)len;
	if (write_at(fd, elf, len, h.strings_off + m.path) < 0 ||
	    write_at(fd, &m, sizeof m, h.modules_off) < 0 || write_at(fd, &h, sizeof h, 0) < 0)
		rc = zerr_set(err, "%s: cannot write: %s", path, strerror(errno));
done:
	close(fd);
	return rc;
}

int bare_record(struct launch *l, const char *elf)
{
	char **kernel = kernel_arg(l->argv);
	if (!elf && !kernel)
		return cmd_usage_error("record", "no ELF file: give --elf FILE or QEMU's -kernel FILE");
	char elf_path[PATH_MAX], raw[PATH_MAX];
	if (!realpath(elf ? elf : *kernel, elf_path))
		return cmd_error("record", "%s: %s", elf ? elf : *kernel, strerror(errno));
	struct zerr err;
	if (launch_prepare(l, "record", &err) < 0)
		return cmd_error("record", "%s", err.msg);
	/* QEMU runs in the raw directory: its -kernel path must not depend on ours */
	char *kernel_was = kernel ? *kernel : NULL;
	char kernel_path[PATH_MAX];
	if (kernel && realpath(*kernel, kernel_path))
		*kernel = kernel_path;
	int status = launch_run(l, enter_raw_dir, l, &err);
	if (kernel)
		*kernel = kernel_was;
	if (status == 0 && launch_join_path(raw, sizeof raw, l->dir, "zond.zraw") == 0)
		status = name_module(raw, elf_path, &err);
	if (status < 0) {
		l->keep_raw = 1;
		cmd_error("record", "%s", err.msg);
	}
	return launch_collect(l, "record",
			      "left no profile data: was it linked with `zond config --target "
			      "rv32imac --libs` and run with semihosting on, and did it reach exit?");
}
