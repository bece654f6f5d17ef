/*
 * online.h - the plugin's online mode: the profile is rebuilt inside QEMU,
 * block by block as the guest runs, and stored at exit; no trace is
 * written, so runs of any length fit (memory follows the code size).
 *
 * The calls mirror the records of a .ztrace (format.h) one to one, and go
 * to the same one-pass rebuild (tool/trace/rebuild.h) that `zond trace
 * report` runs: the profile equals the offline one of the same run.
 * Failures print one line through QEMU and stop the profile, not the guest.
 */
#ifndef ZOND_QEMU_ONLINE_H
#define ZOND_QEMU_ONLINE_H

#include <stdint.h>

/* Starts the rebuild for QEMU's target arch; the store is written at the end. */
int online_start(const char *store, const char *arch, const char *exe, uint64_t entry);
void online_map(uint64_t start, uint64_t end, uint64_t offset, const char *path);
int online_define(uint32_t id, uint64_t vaddr, uint32_t ninsns, const uint8_t *sizes,
		  const uint8_t *bytes);
/* Block id ran its first n instructions. */
int online_exec(uint32_t id, uint32_t n);
/* Builds the profile and adds it to the store as a run; lost: blocks of other threads. */
int online_finish(uint64_t lost, uint64_t execs);

#endif
