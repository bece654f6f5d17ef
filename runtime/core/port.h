/*
 * port.h - what the runtime core needs from the system it runs on.
 *
 * The core (tables, shadow stack, probe logic: core.h, core.c) uses no libc
 * and makes no system call; everything it needs from outside comes through
 * these few functions, which a port implements (runtime/linux/ is the Linux
 * one).  The port in turn owns the entry points: the -finstrument-functions
 * hooks, the zond.h API and start-up, and calls the core from them.
 *
 * All of them are called on cold paths only (start-up, a thread's first
 * call, a function's first call on a thread, fork); the per-call path takes
 * the clock and the thread state inline from the port's own hooks.
 */
#ifndef ZOND_PORT_H
#define ZOND_PORT_H

#include <stdint.h>

/* The current time in the clock's ticks (the clock the hooks read). */
uint64_t port_clock(void);

/* Why a raw file or its blocks could not be had (port_map_output, port_reserve_output). */
#define PORT_NO_ROOM (-1)   /* the file system or a limit: ENOSPC, EFBIG, RLIMIT_* */
#define PORT_NO_ACCESS (-2) /* the directory or file is out of the process's reach:
			       EACCES, EPERM, ENOENT (it changed its user or root) */

/*
 * Memory for the raw file of this process image: bytes long, zero-filled,
 * backed by the file so that it outlives the process.  NULL on failure (the
 * core then records nothing), *why then PORT_NO_ROOM or PORT_NO_ACCESS.
 * Called once at start and once in a forked child (which must get its own
 * file).
 */
void *port_map_output(uint64_t bytes, int *why);

/*
 * Room for data: the largest raw file this process may write and map
 * (RLIMIT_FSIZE, a share of RLIMIT_AS; UINT64_MAX when unlimited), and the
 * file system's blocks for bytes of the
 * file at offset, reserved before they are first written (fallocate), so
 * that a full file system costs zond's data, never a SIGBUS in the program.
 * 0, or PORT_NO_ROOM when there is no room, PORT_NO_ACCESS when the file
 * is out of reach and its blocks could not be reserved another way.  A file
 * system that cannot reserve is taken as it is (0).  port_drop_output unmaps
 * and deletes the file.
 */
uint64_t port_output_limit(void);
int port_reserve_output(uint64_t offset, uint64_t bytes);
void port_drop_output(void *map, uint64_t bytes);

/*
 * Zero-filled private memory for one thread's hash indexes (not part of the
 * file), bytes long; NULL on failure (the thread is then not recorded).
 * Called on a thread's first call.
 */
void *port_map_index(uint64_t bytes);

/* Gives back memory from port_map_index (a thread's end). */
void port_unmap_index(void *p, uint64_t bytes);

/* The calling thread's id and name (name: up to 15 chars + NUL). */
int32_t port_thread_id(void);
void port_thread_name(char name[16]);

/* Tells the port that the calling thread now owns a slot (e.g. to learn when it ends). */
void port_thread_attached(void);

/*
 * The loaded object (executable or shared library) containing addr: its
 * run-time range of loaded segments, load bias and path.  0 when found, -1
 * when addr belongs to no known object.  path stays valid for the life of
 * the object.
 */
struct port_module {
	uint64_t start, end, bias;
	const char *path;
};
int port_module_of(uint64_t addr, struct port_module *out);

#endif
