/*
 * rebuild.h - the one-pass reconstruction of a program's behaviour from the
 * sequence of blocks it executed.
 *
 * A reader (zond's trace, QEMU's log, a plain PC list) feeds it, in trace
 * order: where the program's files were mapped, each block's definition
 * (address and instruction bytes, once), and each execution of a block
 * (how many of its instructions ran).  It keeps a shadow call stack and
 * counters per block, transition and call edge: its memory follows the
 * size of the code that ran and the depth of the stack, never the length
 * of the trace.  rebuild_finish() turns them into a profile with event Ir:
 * functions (self, inclusive, calls), call edges, basic blocks (kind
 * ZP_BASIC_BLOCK, named func+0xoff), jump edges between them (taken counts
 * for conditional branches) and per-instruction costs with DWARF lines.
 *
 * Calling contexts (struct zp_context of the profile) come from the same
 * frames as the call edges: a frame counts calls, self and inclusive cost
 * into the context of its path (recursion keeps the full path) when it
 * ends, so tail calls, unwinding and signal delivery shape the contexts as
 * they shape the edges.
 *
 * How control transfers move the call stack (doc/trace.md has the whole
 * list, with the test of each rule):
 *  - a call pushes a frame; a return pops to the innermost frame that
 *    expects that return address (so recursion is safe), with every frame
 *    above it (the frames a longjmp skipped);
 *  - a jump or fall-through to another function's entry is a tail call: a
 *    frame that ends with the frame below it (callgrind's convention);
 *  - any other transfer into a function that has a live frame unwinds to it
 *    (longjmp, sigreturn, exception unwinding);
 *  - control arriving elsewhere without a transfer instruction (signal
 *    delivery) is a call from the interrupted function;
 *  - a lazy binding's resolver jumping to the function it bound ends the
 *    PLT header's and the resolver's frames: the function is the stub's
 *    tail call (rebuild.c lazy_binding);
 *  - a forked child starts in the stack its parent had at the fork
 *    (rebuild_inherit);
 *  - the end of the trace closes every frame.
 *
 * Errors (-1 and err): block used before it was defined, more instructions
 * executed than the block has, bytes that are not whole instructions, code
 * that differs from the ELF file mapped there ("does not match").  Messages
 * name the block; the reader adds the file and offset.
 */
#ifndef ZOND_TRACE_REBUILD_H
#define ZOND_TRACE_REBUILD_H

#include <stddef.h>
#include <stdint.h>

#include "isa.h"
#include "model/profile.h"
#include "symbols/symbols.h"
#include "util/error.h"

struct rebuild;

struct rebuild *rebuild_new(const struct isa *isa, struct symbols *syms);

/*
 * The executions come from QEMU with its blocks chained (zond's plugin, not
 * a -d nochain log): a repeating instruction's block (isa.h repeats) runs
 * once more than it iterates, and that run is not counted.
 */
void rebuild_chained(struct rebuild *r);
void rebuild_free(struct rebuild *r);

/*
 * The main program and the run-time address of its entry point, from which
 * the load bias and QEMU's guest base (for rebuild_host_map) follow.
 */
void rebuild_set_program(struct rebuild *r, const char *path, uint64_t entry);

/*
 * A file mapping as the QEMU process saw it (host addresses).  Files that
 * are not ELF files of the guest's machine are ignored.
 */
void rebuild_host_map(struct rebuild *r, uint64_t start, uint64_t end, uint64_t offset,
		      const char *path);

/* An ELF file loaded with this bias (run-time minus link-time address). */
int rebuild_add_module(struct rebuild *r, const char *path, uint64_t bias, struct zerr *err);

/*
 * The mapped files that could not be opened (deleted, no permission), as
 * "PATH: why", in *files (the rebuild's own); their number.  Not every one
 * is the guest's (QEMU's own files are mapped too), but a guest library
 * among them is named by address.
 */
size_t rebuild_unreadable(const struct rebuild *r, const char *const **files);

/*
 * Code that differs from the file mapped there is counted as it ran, not
 * refused at once (text relocations, self-modifying code): live, it is the
 * running program's (the online mode); else (a trace) the finish refuses
 * it when most blocks compared differ (a trace of another build).
 */
void rebuild_allow_patches(struct rebuild *r, int live);

/*
 * When code differed from its file: 1 and one line saying where and how much
 * (without a newline) in line.
 */
int rebuild_patched(const struct rebuild *r, char *line, size_t size);

/* Defines block id (ids need not be dense but should be small). */
int rebuild_define(struct rebuild *r, uint32_t id, uint64_t vaddr, uint32_t ninsns,
		   const uint8_t *sizes, const uint8_t *bytes, struct zerr *err);

/*
 * Keeps a timeline (call it before the first execution): every frame
 * pushed and popped is an enter and an exit event at the instructions this
 * rebuild executed so far, at most events of them, the first ones or, with
 * keep_newest, the last.  rebuild_finish turns them into the profile's
 * spans (in instructions of the thread, from 0 at its first instruction:
 * a call's span is exactly its inclusive cost) and sets the run's facts
 * timeline_unit "instructions", timeline_keep, timeline_events and
 * timeline_dropped (summed over the threads finished into it).
 */
void rebuild_set_timeline(struct rebuild *r, uint64_t events, int keep_newest);

/*
 * Calls tap with every executed instruction, in trace order (its address,
 * first bytes as a little-endian number, and length): for converters.
 */
typedef void (*rebuild_tap)(void *ctx, uint64_t pc, uint64_t word, unsigned len);
void rebuild_set_tap(struct rebuild *r, rebuild_tap tap, void *ctx);

/*
 * Shown here only for rebuild_exec_fast, which runs once per executed block
 * and is inlined into every reader (zond trace report's, QEMU log import,
 * the QEMU plugin's callback); rebuild.c owns them.
 *
 * A translated block.  The fields the per-execution fast path reads come
 * first: the last two successors after full runs, their transitions and
 * counts not yet added to those transitions (rebuild.c: flush_cache).
 */
struct rebuild_block {
	uint32_t ninsns;
	uint32_t nsegs;         /* segs[seg .. seg+nsegs): functions it spans */
	uint64_t full;          /* executions that ran every instruction */
	uint32_t cache_next[2], cache_edge[2];
	uint64_t cache_count[2];
	uint8_t cache_quiet[2]; /* that transition leaves the stack alone */
	uint8_t defined;
	uint8_t repeats;        /* one instruction that QEMU runs once more to leave (isa.h) */
	uint8_t lone;           /* one plain instruction: maybe QEMU restarting it (rebuild.c) */
	uint32_t first;         /* insns[first .. first+ninsns) */
	uint32_t seg;
	uint64_t vaddr;
};

/* The first member of struct rebuild: what the fast path reads and counts. */
struct rebuild_hot {
	struct rebuild_block *blocks;
	uint64_t icount;       /* instructions executed */
	uint32_t prev, prev_n; /* the previous execution; prev UINT32_MAX at the start */
	rebuild_tap tap;
};

/*
 * Block id ran its first n instructions: the common case only, 1 when it
 * counted it, 0 (and nothing changed) when rebuild_exec_slow must.  Most
 * executions follow a cached, quiet transition (inside one function, no
 * call or return) from a block that ran in full into a block of one
 * function that runs in full: three counters and no stack work.
 */
static inline int rebuild_exec_fast(struct rebuild *r, uint32_t id, uint32_t n)
{
	struct rebuild_hot *h = (struct rebuild_hot *)r;
	if (__builtin_expect(h->prev == UINT32_MAX || h->tap, 0))
		return 0;
	struct rebuild_block *p = &h->blocks[h->prev];
	int k = p->cache_next[0] == id ? 0 : p->cache_next[1] == id ? 1 : -1;
	if (k < 0 || !p->cache_quiet[k] || h->prev_n != p->ninsns)
		return 0;
	struct rebuild_block *b = &h->blocks[id];
	if (n != b->ninsns || b->nsegs != 1 || b->repeats || b->lone)
		return 0;
	p->cache_count[k]++;
	b->full++;
	h->icount += n;
	h->prev = id;
	h->prev_n = n;
	return 1;
}

/* Every execution: the checks (errors below), the transition, the stack. */
int rebuild_exec_slow(struct rebuild *r, uint32_t id, uint32_t n, struct zerr *err);

/* Block id ran its first n instructions (all of them when n is its length). */
static inline int rebuild_exec(struct rebuild *r, uint32_t id, uint32_t n, struct zerr *err)
{
	return rebuild_exec_fast(r, id, n) ? 0 : rebuild_exec_slow(r, id, n, err);
}

/*
 * A frame of the call stack, by its function's run-time entry (so that
 * another rebuild of the same mappings finds the same function).
 */
struct rebuild_frame {
	uint64_t func, ret, site;
	int tail;
};

/* The call stack as it stands, outermost first, in *frames (malloc'ed); their number. */
size_t rebuild_stack(struct rebuild *r, struct rebuild_frame **frames);

/*
 * A forked child's rebuild, before its first execution: the stack its
 * parent had at the fork (rebuild_stack of the parent's rebuild there).
 * The child's first block runs inside it: those frames shape its contexts
 * and take its instructions, but count no call (the parent made them).
 */
void rebuild_inherit(struct rebuild *r, const struct rebuild_frame *frames, size_t n);

/* Instructions executed so far. */
uint64_t rebuild_insns(const struct rebuild *r);
/* The same with the extra runs of repeating instructions (rebuild_chained): what QEMU ran. */
uint64_t rebuild_insns_run(const struct rebuild *r);

/* Whether block id is defined; its length in instructions (0 if not). */
uint32_t rebuild_block_length(const struct rebuild *r, uint32_t id);

/* Closes every frame and writes the profile into p (event Ir, one thread). */
int rebuild_finish(struct rebuild *r, struct zp_profile *p, struct zerr *err);

/*
 * The same as the thread with this tid of p (0 for rebuild_finish): one
 * rebuild per guest thread, each with its own stack, finished into one
 * profile whose nodes they share.
 */
int rebuild_finish_thread(struct rebuild *r, struct zp_profile *p, int64_t tid,
			  struct zerr *err);

#endif
