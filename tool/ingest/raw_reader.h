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

#endif
