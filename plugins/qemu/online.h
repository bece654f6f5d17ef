/*
 * online.h - the plugin's online mode: the profile is rebuilt inside QEMU,
 * block by block as the guest runs, and stored at exit; no trace is
 * written, so runs of any length fit (memory follows the code size).
 *
 * The calls mirror the records of a .ztrace (format.h) one to one, and go
 * to the same one-pass rebuild (tool/trace/rebuild.h) that `zond trace
 * report` runs: the profile equals the offline one of the same run.
 * Failures print one line through QEMU and stop the profile, not the guest.
 *
 * Threads: each guest thread has its own rebuild (its own shadow stack and
 * counts), as the offline reader gives it, and is a thread of the profile
 * (tid 0 the first, then in order of creation).  Mappings and definitions
 * go to one shared, append-only log (online_map and online_define may run
 * on any thread); each thread's rebuild takes the records it has not seen
 * yet itself, in online_exec, on its own thread, before the block it is
 * given: a block is defined at its translation, before any thread runs it.
 * So no thread's rebuild is ever touched by another thread while it runs.
 * While there is one thread, it takes each record at once, as it is logged
 * (it is the thread that translates), so its online_exec_one has no check.
 */
#ifndef ZOND_QEMU_ONLINE_H
#define ZOND_QEMU_ONLINE_H

#include <stdint.h>

#include "trace/rebuild.h"

struct online_thread;

/* Starts the rebuild for QEMU's target arch; the store is written at the end. */
int online_start(const char *store, const char *arch, const char *exe, uint64_t entry);
/* Each thread keeps a timeline (rebuild_set_timeline); before the first thread starts. */
void online_timeline(uint64_t events, int keep_newest);
void online_map(uint64_t start, uint64_t end, uint64_t offset, const char *path);
int online_define(uint32_t id, uint64_t vaddr, uint32_t ninsns, const uint8_t *sizes,
		  const uint8_t *bytes);
/* A new guest thread (the next tid); NULL once the profile is lost. */
struct online_thread *online_thread(void);
/* Block id ran its first n instructions, on thread t (called from t's own thread only). */
int online_exec(struct online_thread *t, uint32_t id, uint32_t n);
/*
 * The same for the first thread while it is the only one, without a check:
 * its rebuild has every record already (online_define took it at once).
 * Called from that thread only, and never again after this or online_define
 * failed (returned -1), nor once a second thread started.  Inline: the
 * rebuild's fast path runs in the plugin's per-block callback, without a
 * call; online_exec_one_slow does the rest.
 */
extern struct rebuild *online_one; /* the first thread's rebuild, while it is alone */
int online_exec_one_slow(uint32_t id, uint32_t n);
static inline int online_exec_one(uint32_t id, uint32_t n)
{
	return rebuild_exec_fast(online_one, id, n) ? 0 : online_exec_one_slow(id, n);
}
/*
 * Builds the profile of every thread and adds it to the store as a run of
 * command (the program's path if empty) with that exit status (-1:
 * unknown), begun at start_ns (realtime) and ended now; the line to show
 * the user goes into summary.  A run the store cannot take is kept in a
 * store of its own (store_keep_run), and the line that says so is printed.
 */
int online_finish(uint64_t execs, const char *command, int status, int64_t start_ns,
		  char *summary, size_t size);

#endif
