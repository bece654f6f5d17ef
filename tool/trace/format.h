/*
 * format.h - zond's instruction trace format (.ztrace), version 3 (2 is read too).
 *
 * Shared by the writer (plugins/qemu) and the reader (ztrace.c); the
 * byte-level description for other writers is doc/trace-format.md.
 *
 *   file   = header chunk*
 *   header = "ZONDTRC\n" u32 version u32 textlen text        (little endian)
 *            text: "key value\n" lines (arch, exe, entry, pid, run, start, command;
 *            a forked child's: parent, fork; a reader ignores keys it does not know)
 *   chunk  = u32 rawlen u32 zlen u32 thread zstd-frame(zlen bytes -> rawlen bytes)
 *
 * Records come in streams: thread 0 is the shared stream (DEFINE, MAP, and
 * the final END), thread n >= 1 the executions of guest thread n (EXEC,
 * PARTIAL, and its own END); thread 1 is the program's first thread.  Each
 * stream is the concatenation of its chunks' contents, in file order.  A
 * record starts with an unsigned LEB128 number v whose low two bits are
 * its kind:
 *
 *   EXEC  (0): block v>>2 was executed (all its instructions, unless a
 *              PARTIAL record follows)
 *   PARTIAL (1): the block of the previous EXEC ran only v>>2 instructions
 *              (an exception or signal left it early)
 *   DEFINE (2): block v>>2 is: vaddr, ninsns, nbytes (LEB128), then ninsns
 *              bytes of instruction sizes, then nbytes bytes of code
 *   CONTROL (3): v>>2 is the control kind below
 *
 * A block is defined (in a chunk of the shared stream) before any chunk
 * that executes it; ids are dense from 0.
 */
#ifndef ZOND_TRACE_FORMAT_H
#define ZOND_TRACE_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#define ZT_MAGIC "ZONDTRC\n"
/*
 * 3: a forked child's header names its parent and the fork point (where its
 * stack comes from); a version 2 reader would take the child's stack to
 * start at the fork's return, so it must refuse these.
 */
#define ZT_VERSION 3
#define ZT_VERSION_OLDEST 2 /* the oldest version this reader reads */
#define ZT_MAX_THREADS 4096 /* threads of one trace; larger ids are corrupt */
#define ZT_MAX_CHUNK (4u << 20)  /* largest raw chunk a reader must accept */
#define ZT_MAX_HEADER (64u << 10)
#define ZT_MAX_BLOCK_INSNS 4096  /* larger blocks are refused as corrupt */
#define ZT_MAX_BLOCK_BYTES 65536

enum zt_record {
	ZT_EXEC = 0,
	ZT_PARTIAL = 1,
	ZT_DEFINE = 2,
	ZT_CONTROL = 3,
};

enum zt_control {
	/*
	 * end of a thread's stream, and (in the shared stream, the last record
	 * of the file) of the trace: LEB128 instructions executed, LEB128 blocks
	 * executed, by the thread or by all of them
	 */
	ZT_END = 0,
	/* a file mapping: LEB128 start, end, file offset, length, path bytes */
	ZT_MAP = 1,
	/*
	 * LEB128: the program's exit status (0-255), or 256 + the signal that
	 * killed it (zond writes that one when it completes the trace); before
	 * the final END.  Informational: a reader ignores a value it does not know.
	 */
	ZT_EXIT = 2,
	/* LEB128 count of blocks that other threads ran and that were not recorded */
	ZT_LOST = 3,
};

/* Appends v as unsigned LEB128 to p; returns the byte after it (at most 10 bytes). */
static inline uint8_t *zt_put_uleb(uint8_t *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	return p;
}

static inline void zt_put_u32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static inline uint32_t zt_get_u32(const uint8_t *p)
{
	return p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

#endif
