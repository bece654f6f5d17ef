/*
 * raw_reader.h - turns the runtime's raw data files into profiles.
 *
 * Reads one raw file (runtime/core/raw.h), checks it (magic, version, sizes,
 * every index and offset in range: a corrupt file is an error naming the
 * file and the offset, never a crash), closes frames still open when the
 * process ended (crash, kill, exec), converts ticks to ns, names every
 * address through symbols.h and fills a zp_profile with one event "time"
 * in ns (or no event at all for --no-time data), per-thread stats and call
 * edges.
 *
 * run metadata the file cannot know (command, host, campaign) is left for
 * the caller to set.  The file format is described in doc/raw-format.md.
 *
 * syms may be NULL: functions are then named by address only
 * ("0x1149@libfoo.so": link-time address and module base name, the name
 * given to code no symbol covers).  A module whose ELF file cannot be read
 * is named the same way; that is not an error.
 */
#ifndef ZOND_RAW_READER_H
#define ZOND_RAW_READER_H

#include "../model/profile.h"
#include "../symbols/symbols.h"
#include "../util/error.h"

/*
 * Adds the process recorded in the raw file at path to p: its threads (with
 * their pid), nodes, stats and edges.  A run of a program that forks or execs
 * has one raw file per process image; calling this once per file builds the
 * whole run.  Sets p->run.clock, arch, pid (first file only: the earliest
 * start wins), start_ns and overhead_ns, and adds meta facts such as
 * "lost_funcs" when a pool overflowed.  0, or -1 with err set.
 */
int raw_read_into(struct zp_profile *p, const char *path, struct symbols *syms,
		  struct zerr *err);

/*
 * raw_read_into, the process's threads filed under pid (raw_process_ids);
 * pid -1: as raw_read_into files them.
 */
int raw_read_as(struct zp_profile *p, const char *path, int64_t pid, struct symbols *syms,
		struct zerr *err);

/*
 * The pid each of the n raw files at paths is filed under (pids[i]; -1 for
 * a file that is no raw file, for raw_read_as to say why): the header's pid
 * where it is zond's, or one of the run's own (RAW_NS_PIDS) for a process
 * whose pid is of a namespace of its own, in which two processes may have
 * the same (ZP_NS_PIDS, k in the order the processes started), each
 * process's (the images it exec'ed) its own.  raw_read_into
 * of one file files such a process as the run's first.
 */
void raw_process_ids(const char *const *paths, size_t n, int64_t *pids);

/*
 * What raw files hold so far, read while their processes may still write
 * them (the progress line of `zond record` and `zond libcalls`).  Nothing
 * in a file is trusted: the header is checked as raw_read_into checks it,
 * every count is bounded by the file's own room, and the file is read, not
 * mapped (a file cut short under us cannot fault).  A moment's view, not a
 * profile: a thread being merged into the ended threads' slot (raw.h) may be
 * counted twice or not at all for an instant.
 */
struct raw_peek {
	uint64_t calls; /* calls counted so far (what the run's summary will total) */
	uint64_t lost;  /* the lost_* counters summed: what the summary will warn of */
	uint64_t bytes; /* what the files take on disk: the pages written (they are sparse) */
};

/*
 * Adds what the raw file at path holds so far to *pk: 0, or -1 (nothing
 * added) when it cannot be read or is no raw file, or not yet one (a file
 * just created is zeros until the runtime writes its header).
 */
int raw_peek(const char *path, struct raw_peek *pk);

/* raw_peek of every raw file (*.zraw) in dir; the number of files read. */
int raw_peek_dir(const char *dir, struct raw_peek *pk);

#endif
