/*
 * tail.h - what a trace's writer has not written yet, where `zond trace
 * record` can still read it when QEMU dies without warning.
 *
 * QEMU 7.2 runs no plugin callback when the guest dies of a signal (a
 * fault, abort, a TERM that zond forwarded) or QEMU is killed: the plugin's
 * buffers would die with it.  So they live in a memory file that zond
 * creates and QEMU inherits (the plugin maps it and closes the descriptor
 * before the guest runs, so the guest never sees it): one slot per stream
 * (slot 0 the shared stream, slot i + 1 the thread on vCPU i), holding the
 * records not yet written as a chunk and the thread's current block.
 * After an abnormal end, tail_recover() cuts the trace back to its last
 * complete chunk and appends each slot as one more chunk: the trace holds
 * everything the program executed, without END records (a reader reports it
 * as cut short; trace.h).
 */
#ifndef ZOND_TRACE_TAIL_H
#define ZOND_TRACE_TAIL_H

#include <stddef.h>
#include <stdint.h>

#include "util/error.h"

#define TAIL_MAGIC "ZONDTAIL"
#define TAIL_BUF (1u << 20) /* a stream's buffer: the plugin's chunk size */
#define TAIL_SLOTS 4097     /* the shared stream and 4096 vCPUs */

struct tail_head {
	char magic[8];
	uint32_t done;      /* the plugin ended the trace itself: nothing to recover */
	uint32_t exec;      /* the program is in execve (the new image is not traced) */
	uint64_t committed; /* file offset after the last complete chunk written */
	uint32_t children;  /* processes the program forked (each adds 1, its children too) */
	uint32_t started;   /* the program ran (its first block was translated) */
	uint32_t traced;    /* of the children: those writing a trace of their own (FILE.PID) */
	uint32_t cut;       /* of those: traces that could not be written to the end (said) */
	char command[4096]; /* the command line as the user gave it (zond writes it) */
};

struct tail_slot {
	uint32_t thread;   /* the stream's number in the trace */
	uint32_t used;     /* a live stream */
	uint32_t last;     /* the thread's current block, not yet recorded */
	uint32_t last_n;   /* its length */
	uint32_t pos;      /* instructions of it that ran (0: none) */
	uint32_t rep;      /* the plugin's own: rep string instruction state (REP_*), nothing to zond */
	uint64_t len;      /* bytes of its buffer (tail_buf) not yet written */
	uint64_t insns, execs; /* the writer's counts of the thread, for its END record */
	void *online;      /* the writer's (the online mode's thread), nothing to zond */
	uint8_t *buf;      /* the writer's address of tail_buf, nothing to zond */
};

/*
 * The memory file: the head, every slot, then every slot's buffer (the
 * slots, which the plugin's callbacks write on every block, lie together,
 * as its per-vCPU state did before).
 */
static inline size_t tail_size(void)
{
	return sizeof(struct tail_head) + (size_t)TAIL_SLOTS * (sizeof(struct tail_slot) + TAIL_BUF);
}

static inline struct tail_slot *tail_slot(void *map, unsigned i)
{
	return (struct tail_slot *)((char *)map + sizeof(struct tail_head)) + i;
}

static inline uint8_t *tail_buf(void *map, unsigned i)
{
	return (uint8_t *)tail_slot(map, TAIL_SLOTS) + (size_t)i * TAIL_BUF;
}

/*
 * After QEMU ended without completing the trace at path: appends what the
 * memory file fd holds, then, when exit >= 0, an EXIT record with it
 * (format.h: the status, or 256 + the signal).  1 when something was
 * recovered, 0 when there was nothing to (the plugin completed the trace,
 * or never wrote its header), -1 with err.
 */
int tail_recover(int fd, const char *path, int64_t exit, struct zerr *err);

#endif
