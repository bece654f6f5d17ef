/*
 * zond_qemu.c - zond's QEMU TCG plugin: writes a .ztrace of a user-mode run.
 *
 *   qemu-aarch64 -plugin libzond_qemu.so,out=FILE ./app args
 *
 * Each translated block is written once (address, instruction sizes and
 * bytes), then each execution of a block as its id: the trace is the exact
 * sequence of executed instructions at about one byte per block before
 * compression.  File mappings are recorded when QEMU loads the program and
 * after each mmap/mprotect that makes code executable, so a reader learns
 * where a library is before it sees code from it.
 *
 * Threads: qemu-user runs each guest thread as its own vCPU, in parallel.
 * Nothing that counts is shared between them: each vCPU (by vcpu_index,
 * which the callbacks get) has its own buffer, written as chunks of its
 * thread's stream, and its own record of how far its current block ran.
 * That is set by a callback before each instruction that can stop a block
 * early (an exception: isa.h's may_stop) and the last one; the others
 * cannot stop a block.  QEMU 7.2's inline counters add to one address for
 * all vCPUs, so they cannot count per thread.  Definitions and mappings go
 * to the shared stream, under a lock, which is written before any thread's
 * chunk: a block is always defined before a chunk that runs it.  A vCPU
 * index freed by a thread that exited can be reused: a new thread is a new
 * stream.
 *
 * With online=STORE the same events go to the rebuild in-process instead
 * (online.h) and the profile is stored at exit: no trace at all.  While the
 * program has one thread it counts with an inline counter (the fastest way,
 * but one address for all vCPUs).  When a second vCPU starts (its init
 * callback runs in the parent's clone, before either runs guest code again),
 * the plugin switches to the trace mode's per-vCPU callbacks: the parent's
 * current block carries over to its vCPU state, and every block translated
 * after the switch counts per vCPU.  QEMU 7.2 itself sets CF_PARALLEL on
 * the parent before that callback and flushes the code cache: translations
 * are looked up by their flags, so no block translated before the switch
 * runs again (on_exec_online fails loudly if one did).  Each vCPU's thread
 * has its own rebuild (online.h).
 *
 * With status=FILE the plugin writes "ok" there once the trace (or the
 * online profile) is complete: QEMU's exit status is the guest's, so this
 * is how `zond trace record` learns that recording failed (zond gives
 * /proc/ZOND/fd/N, a memory file of its own: nothing in $TMPDIR).
 * doc/trace-format.md describes the file.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zstd.h>

#include "../../tool/trace/format.h"
#include "../../tool/trace/isa.h"
#include "../../tool/trace/tail.h"
#include "online.h"
#include "qemu_api.h"

QEMU_PLUGIN_EXPORT int qemu_plugin_version = ZOND_QEMU_PLUGIN_VERSION;

#define BUF_SIZE TAIL_BUF
#define BUF_ROOM (BUF_SIZE - 2 * ZT_MAX_BLOCK_BYTES - 4096) /* flush when fuller */

#define MAX_VCPUS (TAIL_SLOTS - 1) /* guest threads alive at once */

/*
 * A chunk's worth of one stream, the shared one (thread 0) or a thread's,
 * in the memory file of tail.h: buf, len, thread.  For a guest thread it is
 * the state of its vCPU too (one load from the callbacks): the block
 * executed last (last), its length (last_n, 0 before the first), how many
 * of its instructions ran (pos, set by on_insn), its counts and its online
 * rebuild.
 */
typedef struct tail_slot sbuf;

struct block {
	uint64_t vaddr;
	uint32_t ninsns, nbytes, id;
	uint8_t *bytes; /* its code, then its instructions' sizes (for a forked child's trace) */
};

/* Where a block starts and ends, and its last instruction. */
struct span {
	uint64_t start, end, last;
};

/*
 * x86's rep-prefixed string instructions (isa.h repeats).  QEMU translates
 * one as a block that runs an iteration and jumps back to itself; ending on
 * its count, it runs once more with the count at 0 to leave (target/i386
 * gen_repz without repz_opt), while one ending on its condition (repe,
 * repne) goes straight on, as does one a signal interrupts.  That last run
 * is no execution (QEMU's -d nochain log has none), and only the plugin can
 * tell it: it touches no memory.  Block callbacks' udata carry the flags
 * UD_REP_*, a thread's state REP_* with the id + 1 of the block before it
 * when that ran a rep to its end (REP_SHIFT up).
 */
#define UD_ID 0x0fffffffu
#define UD_REP_END (1u << 28)   /* the block ends with a rep */
#define UD_REP_BLOCK (1u << 29) /* the block is a rep alone (UD_REP_END too) */
#define REP_END 1u
#define REP_BLOCK 2u
#define REP_TOUCHED 4u /* the current run (of a REP_BLOCK) accessed memory */
#define REP_SHIFT 4

static struct {
	int out;           /* writing a trace (out_append opens it each time) */
	dev_t dev;         /* its file, to see that it is still the one created */
	ino_t ino;
	uint64_t written;  /* bytes of it written */
	void *tail;        /* tail.h: the streams' buffers */
	struct tail_head *head;
	struct tail_head *family; /* zond's memory file, where every process counts its forks */
	pid_t pid;         /* this process: a guest fork makes a child (trace_child) */
	int child;         /* a child that is not traced (online mode, or its trace failed) */
	int forked;        /* a traced child: its buffers die with it (trace_child) */
	pid_t parent;      /* a traced child: the process that forked it, for its header */
	unsigned int fork_vcpu; /* a traced child: the vCPU that forked it (its one thread) */
	/*
	 * Per vCPU, at its last fork system call: its thread's stream number and
	 * the executions of that stream up to the block making the call.  In
	 * this process's own memory (not the shared file, which the parent goes
	 * on writing), so a child finds them as they were at the fork: its
	 * header's fork point, where the reader takes the stack it starts in.
	 */
	uint32_t fork_thread[MAX_VCPUS];
	uint64_t fork_execs[MAX_VCPUS];
	const char *path;
	const char *base;  /* the first process's trace: a child's is BASE.PID */
	char run[64];      /* this recording's token, in every process's header */
	char *command;     /* the command line as zond wrote it in the memory file, or NULL */
	int64_t start_ns;  /* when this process's trace began (realtime), for its header */
	const char *online; /* the store of the online mode, NULL when writing a trace */
	const char *status; /* where to say "ok" at a complete end, or NULL */
	sbuf *shared;        /* definitions and mappings (thread 0) */
	pthread_mutex_t lock; /* the shared stream, the block table and the file */
	sbuf *vcpus[MAX_VCPUS];
	uint8_t exec_prot[MAX_VCPUS]; /* the pending mmap/mprotect asked for PROT_EXEC */
	uint32_t nthreads;
	void *zbuf;
	size_t zcap;
	ZSTD_CCtx *zctx;
	int failed;

	struct block *blocks; /* open addressing on vaddr, for dedup */
	size_t cap, nblocks;
	struct span *spans;   /* by block id (z.lock), for reps' extra runs (rep_close) */
	size_t nspans;

	uint64_t pos;      /* online, one thread: instructions of the current block so far (inline) */
	int64_t last;      /* online, one thread: id of the block executed last, -1 before the first */
	uint32_t last_n;   /* online, one thread: its length, when it ends with a rep (REP_END) */
	uint32_t rep;      /* online, one thread: rep string instruction state (REP_*) */
	struct online_thread *ot; /* online, one thread: the first thread's rebuild */
	int threaded;      /* online: a second vCPU started, counting is per vCPU (see the top) */
	int slow;          /* online: failed, threaded or a rep to close (rep_close): on_exec_online's one check */
	uint64_t insns, execs;
	int exit_status;   /* the guest's, from its exit system call; -1 before */
	char summary[8192]; /* online: the lines for zond to show (a summary, then warnings) */
	int64_t exit_group_num, mmap_num, mprotect_num, clone_num, fork_num, vfork_num, execve_num, execveat_num;
	const char *target; /* QEMU's name of the guest architecture */
	const struct isa *isa; /* its decoder, NULL if zond has none */
	int started;
	char **maps;       /* mappings already written, as "start path" keys */
	size_t nmaps;
} z = {.exit_status = -1, .last = -1, .lock = PTHREAD_MUTEX_INITIALIZER};

static void fail(const char *what)
{
	if (!z.failed) {
		char msg[512];
		snprintf(msg, sizeof msg, "zond trace: %s: %s\n", z.path, what);
		fputs(msg, stderr);
	}
	z.failed = 1;
	z.slow = 1;
}

/*
 * The trace cannot be written (errno says why: a full disk, `ulimit -f`): one
 * line with the cause and what is left.  A forked child's is counted as cut
 * (zond's summary then does not call it traced).
 */
static void fail_write(void)
{
	char what[300];
	int e = errno;
	snprintf(what, sizeof what, "cannot write the trace: %s%s; it holds the chunks written before",
		 e ? strerror(e) : "another file is there now", e == EFBIG ? " (ulimit -f)" : "");
	if (!z.failed && z.forked)
		__atomic_fetch_add(&z.family->cut, 1, __ATOMIC_RELAXED);
	fail(what);
}

/* The online profile is lost: online.c said why. */
static void lose(void)
{
	z.failed = 1;
	z.slow = 1;
}

/*
 * The trace is opened for each write and closed after it: guest and QEMU
 * share one descriptor table, so a descriptor kept open would be one more
 * for the guest to see (/proc/self/fd, the lowest free number) and to close
 * (close_range, a daemon's loop), after which its own next file would get
 * our number and our writes.  Opened close-on-exec, and only if it is
 * still the file created at the start (never another file put there).
 * Appends n1 + n2 bytes; the caller holds z.lock.
 */
static int out_append(const void *b1, size_t n1, const void *b2, size_t n2)
{
	struct stat st;
	struct rlimit lim;
	/*
	 * Not past `ulimit -f`: the kernel's SIGXFSZ would go to QEMU, which gives
	 * it to the guest, whose default is to die of it.  The trace ends at its
	 * last whole chunk instead (fail_write says why).
	 */
	if (getrlimit(RLIMIT_FSIZE, &lim) == 0 && lim.rlim_cur != RLIM_INFINITY &&
	    z.written + n1 + n2 > (uint64_t)lim.rlim_cur) {
		errno = EFBIG;
		return -1;
	}
	int fd = open(z.path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	int ok = fstat(fd, &st) == 0 && st.st_dev == z.dev && st.st_ino == z.ino;
	if (!ok)
		errno = 0; /* another file there now: fail_write says so */
	const uint8_t *p[2] = {b1, b2};
	size_t n[2] = {n1, n2};
	for (int k = 0; ok && k < 2; k++) {
		while (n[k]) {
			ssize_t w = pwrite(fd, p[k], n[k], (off_t)z.written);
			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0) {
				ok = 0;
				break;
			}
			p[k] += w;
			n[k] -= (size_t)w;
			z.written += (uint64_t)w;
		}
	}
	int e = errno;
	if (close(fd) != 0 && ok)
		return -1;
	errno = e;
	return ok ? 0 : -1;
}

/* Writes b as one chunk; the caller holds z.lock. */
static void flush_chunk(sbuf *b)
{
	if (!b->len || z.failed)
		return;
	size_t n = ZSTD_compressCCtx(z.zctx, z.zbuf, z.zcap, b->buf, b->len, 1);
	uint8_t head[12];
	zt_put_u32(head, (uint32_t)b->len);
	zt_put_u32(head + 4, (uint32_t)n);
	zt_put_u32(head + 8, b->thread);
	if (ZSTD_isError(n))
		fail("cannot compress a chunk of the trace");
	else if (out_append(head, 12, z.zbuf, n) < 0)
		fail_write();
	b->len = 0;
	z.head->committed = z.written;
}

/* A thread's chunk, after the shared records its blocks may need (z.lock held). */
static void flush_thread(sbuf *v)
{
	flush_chunk(z.shared);
	flush_chunk(v);
}

static inline void put(sbuf *b, uint64_t v)
{
	b->len = (size_t)(zt_put_uleb(b->buf + b->len, v) - b->buf);
}

/* Keeps room for the largest record in the shared stream (z.lock held). */
static inline void room(void)
{
	if (z.shared->len > BUF_ROOM)
		flush_chunk(z.shared);
}

/* The online mode's record that closes v's previous block (per vCPU): how far it ran. */
static inline void close_online(sbuf *v)
{
	if (v->pos)
		online_exec(v->online, v->last, v->pos);
	v->pos = 0;
}

/*
 * The records of v's previous block, written once it is over: an EXEC if
 * any of it ran, a PARTIAL if not all of it.
 */
static inline void close_vcpu_block(sbuf *v)
{
	sbuf *o = v;
	if (!o->pos)
		return;
	put(o, (uint64_t)o->last << 2 | ZT_EXEC);
	if (o->pos != o->last_n)
		put(o, (uint64_t)o->pos << 2 | ZT_PARTIAL);
	v->insns += o->pos;
	v->execs++;
	o->pos = 0;
}

/* A new guest thread on vCPU index i (z.lock held). */
static sbuf *start_thread(unsigned int i)
{
	sbuf *v = tail_slot(z.tail, i + 1);
	*v = (sbuf){.thread = ++z.nthreads, .used = 1, .buf = tail_buf(z.tail, i + 1)};
	if (z.online)
		v->online = online_thread();
	z.vcpus[i] = v;
	return v;
}

/* Its last block, its END and its last chunk (z.lock held). */
static void end_thread(unsigned int i)
{
	sbuf *v = z.vcpus[i];
	if (!v)
		return;
	if (z.online) {
		close_online(v);
		z.execs += v->execs;
		v->used = 0;
		z.vcpus[i] = NULL;
		return;
	}
	close_vcpu_block(v);
	put(v, (uint64_t)ZT_END << 2 | ZT_CONTROL);
	put(v, v->insns);
	put(v, v->execs);
	flush_thread(v);
	z.insns += v->insns;
	z.execs += v->execs;
	v->used = 0;
	z.vcpus[i] = NULL;
}

static uint32_t rep_flags(uintptr_t udata)
{
	return (udata & UD_REP_END ? REP_END : 0) | (udata & UD_REP_BLOCK ? REP_BLOCK : 0);
}

/*
 * Whether the run of rep block last that touched no memory was its extra
 * run: the block run before (after, an id + 1) ended with this rep, and the
 * next one starts after it (not a fault's handler: a faulting iteration
 * counts, as in QEMU's log).
 */
static int rep_extra(uint32_t after, uint32_t last, uint32_t next)
{
	pthread_mutex_lock(&z.lock);
	int extra = after && after - 1 < z.nblocks && last < z.nblocks && next < z.nblocks &&
		    z.spans[after - 1].last == z.spans[last].start &&
		    z.spans[next].start == z.spans[last].end;
	pthread_mutex_unlock(&z.lock);
	return extra;
}

/*
 * The run of block last (its first *pos of last_n instructions) ends, the
 * block of udata next: *pos set to 0 when it was a rep's extra run, and
 * *rep to the state the next block starts with.
 */
static void rep_close(uint32_t *rep, uint32_t last, uint32_t *pos, uint32_t last_n,
		      uintptr_t next)
{
	uint32_t s = *rep, after = 0;
	if (s & REP_END) {
		if ((s & (REP_BLOCK | REP_TOUCHED)) == REP_BLOCK && *pos &&
		    rep_extra(s >> REP_SHIFT, last, (uint32_t)next & UD_ID))
			*pos = 0;
		else if (*pos == last_n)
			after = last + 1;
	}
	*rep = after << REP_SHIFT | rep_flags(next);
}

/* A memory access of a rep alone: an iteration, not the extra run. */
static void on_rep_mem(unsigned int vcpu, qemu_plugin_meminfo_t info, uint64_t vaddr, void *udata)
{
	(void)info, (void)vaddr, (void)udata;
	sbuf *v = vcpu < MAX_VCPUS ? z.vcpus[vcpu] : NULL;
	if (z.online && !z.threaded)
		z.rep |= REP_TOUCHED;
	else if (v)
		v->rep |= REP_TOUCHED;
}

/* Before each instruction that can stop a block, and the last: how far it ran. */
static void on_insn(unsigned int vcpu, void *udata)
{
	sbuf *v = vcpu < MAX_VCPUS ? z.vcpus[vcpu] : NULL;
	if (v)
		v->pos = (uint32_t)(uintptr_t)udata;
}

/* udata: the block's id, and its length in the upper half. */
static void on_exec(unsigned int vcpu, void *udata)
{
	sbuf *v = vcpu < MAX_VCPUS ? z.vcpus[vcpu] : NULL;
	if (!v || z.failed)
		return;
	if (__builtin_expect(v->rep || ((uintptr_t)udata & UD_REP_END), 0))
		rep_close(&v->rep, v->last, &v->pos, v->last_n, (uintptr_t)udata);
	close_vcpu_block(v);
	v->last = (uint32_t)(uintptr_t)udata & UD_ID;
	v->last_n = (uint32_t)((uintptr_t)udata >> 32);
	if (v->len > BUF_SIZE - 64) {
		pthread_mutex_lock(&z.lock);
		flush_thread(v);
		pthread_mutex_unlock(&z.lock);
	}
}

/*
 * on_exec_online around reps (rep_close), one thread: z.slow stays set
 * while the state says something, so that the next block comes here too.
 */
static __attribute__((noinline)) void exec_online_rep(uintptr_t udata)
{
	uint32_t n = (uint32_t)z.pos;
	z.pos = 0;
	z.execs++;
	if (z.last >= 0)
		rep_close(&z.rep, (uint32_t)z.last, &n, z.last_n, udata);
	else
		z.rep = rep_flags(udata);
	if (n && online_exec_one((uint32_t)z.last, n) < 0)
		lose();
	z.last = (uint32_t)udata & UD_ID;
	z.last_n = (uint32_t)(udata >> 32);
	z.slow = z.failed || z.rep;
}

/* on_exec_online after a failure, once there are threads, or around reps. */
static __attribute__((noinline, cold)) void exec_online_slow(uintptr_t udata)
{
	if (!z.failed && !z.threaded)
		exec_online_rep(udata);
	else if (!z.failed) /* threaded: cannot happen (see the top): never count wrong silently */
		fail("a block translated for one thread ran after the second one started");
}

/*
 * The online mode's callback while the program has one thread, run once per
 * executed block: the previous block's instructions go to the rebuild,
 * whose fast path is inlined here.  One check (z.slow: failed or threaded),
 * never taken while the profile is fine and there is one thread; the rebuild
 * took every definition at the block's translation (online_exec_one).  z.pos
 * is 0 before the first block and after a block left before its first
 * counted instruction: nothing ran that the rebuild must see.
 */
static void on_exec_online(unsigned int vcpu, void *udata)
{
	(void)vcpu;
	if (__builtin_expect(z.slow, 0)) {
		exec_online_slow((uintptr_t)udata);
		return;
	}
	uint64_t n = z.pos;
	z.pos = 0;
	z.execs++;
	if (n && online_exec_one((uint32_t)z.last, (uint32_t)n) < 0)
		lose();
	z.last = (uint32_t)(uintptr_t)udata;
}

/* on_exec_online for a block ending with a rep (its udata has its length). */
static void on_exec_online_rep(unsigned int vcpu, void *udata)
{
	(void)vcpu;
	if (z.slow && (z.failed || z.threaded))
		exec_online_slow((uintptr_t)udata);
	else
		exec_online_rep((uintptr_t)udata);
}

/* The same once there are threads: per vCPU, with the trace mode's on_insn. */
static void on_exec_threaded(unsigned int vcpu, void *udata)
{
	sbuf *v = vcpu < MAX_VCPUS ? z.vcpus[vcpu] : NULL;
	if (!v || z.failed)
		return;
	v->execs++;
	if (__builtin_expect(v->rep || ((uintptr_t)udata & UD_REP_END), 0))
		rep_close(&v->rep, v->last, &v->pos, v->last_n, (uintptr_t)udata);
	close_online(v);
	v->last = (uint32_t)(uintptr_t)udata & UD_ID;
	v->last_n = (uint32_t)((uintptr_t)udata >> 32);
}

static uint64_t hash64(uint64_t v)
{
	v ^= v >> 33;
	v *= 0xff51afd7ed558ccdull;
	v ^= v >> 33;
	return v;
}

static void grow_blocks(void)
{
	size_t cap = z.cap ? z.cap * 2 : 4096;
	struct block *nb = calloc(cap, sizeof *nb);
	if (!nb)
		abort();
	for (size_t i = 0; i < z.cap; i++) {
		if (!z.blocks[i].bytes)
			continue;
		size_t j = hash64(z.blocks[i].vaddr) & (cap - 1);
		while (nb[j].bytes)
			j = (j + 1) & (cap - 1);
		nb[j] = z.blocks[i];
	}
	free(z.blocks);
	z.blocks = nb;
	z.cap = cap;
}

/* b's DEFINE record, in the shared stream (z.lock held). */
static void put_define(const struct block *b)
{
	sbuf *o = z.shared;
	put(o, (uint64_t)b->id << 2 | ZT_DEFINE);
	put(o, b->vaddr);
	put(o, b->ninsns);
	put(o, b->nbytes);
	memcpy(o->buf + o->len, b->bytes + b->nbytes, b->ninsns);
	o->len += b->ninsns;
	memcpy(o->buf + o->len, b->bytes, b->nbytes);
	o->len += b->nbytes;
	room();
}

/* The id of a block with this address and code, defining it if it is new. */
/* Block id's span, for rep_extra (z.lock held). */
static void note_span(uint32_t id, uint64_t vaddr, uint32_t nbytes, uint8_t last_size)
{
	if (id >= z.nspans) {
		size_t n = z.nspans ? 2 * z.nspans : 1024;
		while (n <= id)
			n *= 2;
		z.spans = realloc(z.spans, n * sizeof *z.spans);
		if (!z.spans)
			abort();
		z.nspans = n;
	}
	z.spans[id] = (struct span){vaddr, vaddr + nbytes, vaddr + nbytes - last_size};
}

static uint32_t block_id(uint64_t vaddr, uint32_t ninsns, const uint8_t *sizes,
			 const uint8_t *bytes, uint32_t nbytes)
{
	if (2 * (z.nblocks + 1) > z.cap)
		grow_blocks();
	size_t j = hash64(vaddr) & (z.cap - 1);
	for (; z.blocks[j].bytes; j = (j + 1) & (z.cap - 1)) {
		struct block *b = &z.blocks[j];
		if (b->vaddr == vaddr && b->ninsns == ninsns && b->nbytes == nbytes &&
		    memcmp(b->bytes, bytes, nbytes) == 0)
			return b->id;
	}
	struct block *b = &z.blocks[j];
	b->vaddr = vaddr;
	b->ninsns = ninsns;
	b->nbytes = nbytes;
	b->id = (uint32_t)z.nblocks++;
	note_span(b->id, vaddr, nbytes, sizes[ninsns - 1]);
	b->bytes = malloc(nbytes + ninsns);
	if (!b->bytes)
		abort();
	memcpy(b->bytes, bytes, nbytes);
	memcpy(b->bytes + nbytes, sizes, ninsns);
	if (z.online) {
		if (online_define(b->id, vaddr, ninsns, sizes, bytes) < 0)
			lose();
		return b->id;
	}
	put_define(b);
	return b->id;
}

static void put_header(void);
static void write_maps(void);

static void translate(struct qemu_plugin_tb *tb);

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	(void)id;
	pthread_mutex_lock(&z.lock);
	translate(tb);
	pthread_mutex_unlock(&z.lock);
}

/*
 * An instruction QEMU lists with no bytes: it could not read them.  On x86-64
 * that is the legacy vsyscall page (0xffffffffff600000, called by old static
 * programs and Go runtimes), which qemu-user does not map but emulates: the
 * system call, then a return to the caller.  Recorded as the one-byte return
 * it acts as (its code named by page, as other code outside files), so the
 * run keeps its calls.  Anything else cannot be recorded: said by address.
 */
static int unread_insn(uint64_t vaddr, const uint8_t **data, size_t *size)
{
	static const uint8_t ret = 0xc3;
	if (z.isa && strcmp(z.isa->name, "x86_64") == 0 && vaddr >> 12 == 0xffffffffff600ull) {
		*data = &ret;
		*size = 1;
		return 1;
	}
	char what[128];
	snprintf(what, sizeof what, "code at 0x%llx that QEMU could not read (no bytes to record)",
		 (unsigned long long)vaddr);
	fail(what);
	return 0;
}

/*
 * The UD_REP_* flags of a block of n instructions whose last (size bytes)
 * is at last; a rep alone gets a memory callback (rep_close).
 */
static uintptr_t rep_udata(struct qemu_plugin_tb *tb, size_t n, const uint8_t *last, size_t size)
{
	if (!z.isa || !z.isa->repeats || !z.isa->repeats(last, size))
		return 0;
	if (n > 1)
		return UD_REP_END;
	qemu_plugin_register_vcpu_mem_cb(qemu_plugin_tb_get_insn(tb, 0), on_rep_mem,
					 QEMU_PLUGIN_CB_NO_REGS, QEMU_PLUGIN_MEM_RW, NULL);
	return UD_REP_END | UD_REP_BLOCK;
}

/* The block's definition and callbacks (z.lock held: the buffers below are shared). */
static void translate(struct qemu_plugin_tb *tb)
{
	static uint8_t bytes[ZT_MAX_BLOCK_BYTES], sizes[ZT_MAX_BLOCK_INSNS];
	size_t n = qemu_plugin_tb_n_insns(tb), nbytes = 0;
	if (z.failed)
		return;
	if (!z.started) {
		z.started = 1;
		z.head->started = 1;
		put_header();
		write_maps();
	}
	if (n == 0 || n > ZT_MAX_BLOCK_INSNS) {
		fail("a translated block with too many instructions");
		return;
	}
	/*
	 * QEMU 7.2's x86 translator ends a block before an instruction that
	 * crosses into the next page by abandoning it part way (it is the first
	 * of the next block), but the plugin API still lists it, with the bytes
	 * read so far and no callbacks: a last instruction shorter than its
	 * encoding did not run here.
	 */
	if (n > 1 && z.isa) {
		struct qemu_plugin_insn *last = qemu_plugin_tb_get_insn(tb, n - 1);
		size_t size = qemu_plugin_insn_size(last);
		if (z.isa->length(qemu_plugin_insn_data(last), size) != size)
			n--;
	}
	size_t counted = 0; /* instructions the inline counter has added so far */
	for (size_t i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		size_t size = qemu_plugin_insn_size(insn);
		const uint8_t *data = qemu_plugin_insn_data(insn);
		if (size == 0 && !unread_insn(qemu_plugin_insn_vaddr(insn), &data, &size))
			return;
		if (size > 255 || nbytes + size > sizeof bytes) {
			fail("a translated block too large to record");
			return;
		}
		memcpy(bytes + nbytes, data, size);
		sizes[i] = (uint8_t)size;
		nbytes += size;
		if (i < n - 1 && z.isa && !z.isa->may_stop(data, size))
			continue;
		if (z.online && !z.threaded)
			qemu_plugin_register_vcpu_insn_exec_inline(insn, QEMU_PLUGIN_INLINE_ADD_U64,
								   &z.pos, i + 1 - counted);
		else
			qemu_plugin_register_vcpu_insn_exec_cb(insn, on_insn, QEMU_PLUGIN_CB_NO_REGS,
							       (void *)(uintptr_t)(i + 1));
		counted = i + 1;
	}
	uint32_t bid = block_id(qemu_plugin_tb_vaddr(tb), (uint32_t)n, sizes, bytes, (uint32_t)nbytes);
	uintptr_t rep = rep_udata(tb, n, bytes + nbytes - sizes[n - 1], sizes[n - 1]);
	uintptr_t udata = (rep || !z.online || z.threaded ? (uintptr_t)n << 32 : 0) | rep | bid;
	if (z.online)
		qemu_plugin_register_vcpu_tb_exec_cb(tb, z.threaded ? on_exec_threaded
							: rep ? on_exec_online_rep : on_exec_online,
						     QEMU_PLUGIN_CB_NO_REGS, (void *)udata);
	else
		qemu_plugin_register_vcpu_tb_exec_cb(tb, on_exec, QEMU_PLUGIN_CB_NO_REGS, (void *)udata);
}

/*
 * QEMU maps guest code readable, not executable (it runs translations), so
 * every file mapping is written.  Guest addresses are host addresses minus
 * QEMU's guest base.  We find the
 * base from the program's own mapping, whose guest address the entry point
 * tells: then every file mapped into the guest can be named.  Host
 * libraries of QEMU itself appear too; the reader ignores files that are
 * not for the guest's machine.
 */
static int have_map(const char *key)
{
	for (size_t i = 0; i < z.nmaps; i++)
		if (strcmp(z.maps[i], key) == 0)
			return 1;
	return 0;
}

/* z.lock held. */
static void write_maps(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[4096 + 256];
	while (f && fgets(line, sizeof line, f)) {
		unsigned long long start, end, off;
		char perms[8];
		int n = 0;
		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %n", &start, &end, perms, &off, &n) < 4 ||
		    !n || line[n] != '/')
			continue;
		char *path = line + n;
		path[strcspn(path, "\n")] = 0;
		char key[4096 + 32];
		snprintf(key, sizeof key, "%llx %s", start, path);
		if (have_map(key))
			continue;
		z.maps = realloc(z.maps, (z.nmaps + 1) * sizeof *z.maps);
		if (!z.maps || !(z.maps[z.nmaps++] = strdup(key)))
			abort();
		size_t len = strlen(path);
		if (z.online) {
			online_map(start, end, off, path);
			continue;
		}
		sbuf *o = z.shared;
		put(o, (uint64_t)ZT_MAP << 2 | ZT_CONTROL);
		put(o, start);
		put(o, end);
		put(o, off);
		put(o, len);
		memcpy(o->buf + o->len, path, len);
		o->len += len;
		room();
	}
	if (f)
		fclose(f);
}

static void end_online(void);

/*
 * The new image of an execve is not traced (QEMU runs it afresh, without
 * the plugin).  A trace needs nothing: its buffers are in the memory file,
 * from which zond completes it once the new image has ended (tail.h).  An
 * online profile is stored now.
 */
static void on_execve(void)
{
	if (z.child)
		return;
	if (z.forked && !z.online) { /* zond cannot recover a child's buffers: written now */
		pthread_mutex_lock(&z.lock);
		for (unsigned int i = 0; i < MAX_VCPUS; i++) {
			if (z.vcpus[i]) {
				close_vcpu_block(z.vcpus[i]);
				flush_thread(z.vcpus[i]);
			}
		}
		pthread_mutex_unlock(&z.lock);
	}
	z.head->exec = 1;
	if (z.online && !z.failed)
		end_online();
}

/*
 * Whether path may be truncated for a child's trace: it does not exist, or
 * is an old trace (a pid used again).  Any other file is the user's: never
 * written over (zond checked the first trace's name, not these).
 */
static int child_out_free(const char *path)
{
	char magic[8];
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return errno == ENOENT;
	struct stat st;
	int ok = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
		 read(fd, magic, sizeof magic) == (ssize_t)sizeof magic &&
		 memcmp(magic, ZT_MAGIC, sizeof magic) == 0;
	close(fd);
	return ok;
}

/*
 * Creates the trace at path (truncated) and keeps it as z.path, absolute:
 * the guest may change its directory.  0 if it cannot.
 */
static int create_out(const char *path)
{
	static char abs_path[4096 + 32];
	struct stat st;
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	int ok = fd >= 0 && fstat(fd, &st) == 0 && realpath(path, abs_path);
	if (fd >= 0)
		close(fd);
	if (!ok)
		return 0;
	z.path = abs_path;
	z.out = 1;
	z.dev = st.st_dev;
	z.ino = st.st_ino;
	z.written = 0;
	return 1;
}

static int open_tail(int fd);

/*
 * The trace of a process the guest forked, on vCPU vcpu, its only thread
 * (z.lock re-made: another thread may have held it at the fork).  The
 * parent's buffers are in the memory file they share, so the child takes
 * buffers of its own (a child that dies of a signal keeps its complete
 * chunks only), and writes BASE.PID: a header naming its pid and the
 * recording's token, every mapping and every block the parent translated
 * (QEMU's code cache came with the fork, so the child runs them without
 * translating them again), then its own thread from the fork's return.
 * 0 when it cannot: the child goes untraced (in_child).
 */
static int trace_child(unsigned int vcpu)
{
	char path[4096 + 32];
	snprintf(path, sizeof path, "%s.%ld", z.base, (long)getpid());
	if (vcpu >= MAX_VCPUS || z.failed || !z.base || !child_out_free(path) || !create_out(path) ||
	    !open_tail(-1))
		return 0;
	__atomic_fetch_add(&z.family->children, 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&z.family->traced, 1, __ATOMIC_RELAXED);
	z.parent = z.pid;
	z.fork_vcpu = vcpu;
	z.pid = getpid();
	z.forked = 1;
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	z.start_ns = (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
	z.status = NULL; /* the parent's "ok" is the parent's */
	for (unsigned int i = 0; i < MAX_VCPUS; i++)
		z.vcpus[i] = NULL;
	for (size_t i = 0; i < z.nmaps; i++)
		free(z.maps[i]);
	z.nmaps = 0;
	z.nthreads = 0;
	z.insns = z.execs = 0;
	z.head->started = 1;
	put_header();
	write_maps();
	struct block **byid = calloc(z.nblocks ? z.nblocks : 1, sizeof *byid);
	if (!byid)
		abort();
	for (size_t i = 0; i < z.cap; i++)
		if (z.blocks[i].bytes)
			byid[z.blocks[i].id] = &z.blocks[i];
	for (size_t i = 0; i < z.nblocks; i++)
		put_define(byid[i]);
	free(byid);
	start_thread(vcpu);
	return 1;
}

/*
 * In a process the guest forked (qemu-user forks itself): the trace mode
 * gives it a trace of its own (trace_child).  Otherwise this copy of the
 * plugin must not write the parent's trace, buffers or profile, nor print.
 * It counts itself in the memory file, for zond to report, and goes quiet.
 */
static void in_child(unsigned int vcpu)
{
	pthread_mutex_init(&z.lock, NULL); /* another thread may have held it at the fork */
	if (!z.online && trace_child(vcpu))
		return;
	z.child = 1;
	z.failed = 1;
	z.slow = 1;
	z.online = NULL;
	for (unsigned int i = 0; i < MAX_VCPUS; i++)
		z.vcpus[i] = NULL; /* their buffers are the parent's */
	z.out = 0;
	__atomic_fetch_add(&z.family->children, 1, __ATOMIC_RELAXED);
}

static int is_fork(int64_t num)
{
	return num == z.clone_num || num == z.fork_num || num == z.vfork_num || num == 435 /* clone3 */;
}

/*
 * The fork point of a child this system call may make: the block making it
 * is the current one (on_insn set its pos), not yet closed into an EXEC.
 */
static void note_fork(unsigned int vcpu)
{
	sbuf *v = vcpu < MAX_VCPUS ? z.vcpus[vcpu] : NULL;
	if (!v || z.online)
		return;
	z.fork_thread[vcpu] = v->thread;
	z.fork_execs[vcpu] = v->execs + (v->pos ? 1 : 0);
}

static void on_syscall(qemu_plugin_id_t id, unsigned int vcpu, int64_t num, uint64_t a1,
		       uint64_t a2, uint64_t a3, uint64_t a4, uint64_t a5, uint64_t a6, uint64_t a7,
		       uint64_t a8)
{
	(void)id, (void)a1, (void)a2, (void)a4, (void)a5, (void)a6, (void)a7, (void)a8;
	if (is_fork(num) && !z.child)
		note_fork(vcpu);
	if (vcpu < MAX_VCPUS)
		z.exec_prot[vcpu] = (num == z.mmap_num || num == z.mprotect_num) &&
				    (a3 & 4 /* PROT_EXEC */);
	if (num == z.execve_num || num == z.execveat_num)
		on_execve();
	if (num == z.exit_group_num)
		z.exit_status = (int)(a1 & 0xff);
}

static void on_syscall_ret(qemu_plugin_id_t id, unsigned int vcpu, int64_t num, int64_t ret)
{
	(void)id;
	if (ret == 0 && !z.child && is_fork(num) && getpid() != z.pid) {
		in_child(vcpu);
		return;
	}
	if ((num == z.execve_num || num == z.execveat_num) && !z.child) {
		z.head->exec = 0; /* it failed: the program goes on */
		if (z.online)
			fail("the program's execve failed after its profile was stored: "
			     "the rest of the run is not profiled");
	}
	if (vcpu >= MAX_VCPUS || !z.exec_prot[vcpu])
		return;
	z.exec_prot[vcpu] = 0;
	pthread_mutex_lock(&z.lock);
	if (ret >= 0 && !z.failed)
		write_maps();
	pthread_mutex_unlock(&z.lock);
}

/*
 * Online: the first thread's counting moves from the inline counter to its
 * vCPU state, from its current block on (z.lock held; see the top).
 */
static void switch_to_threads(void)
{
	for (unsigned int i = 0; i < MAX_VCPUS; i++) {
		sbuf *v = z.vcpus[i];
		if (v && v->online == z.ot) {
			v->last = z.last >= 0 ? (uint32_t)z.last : 0;
			v->pos = z.last >= 0 ? (uint32_t)z.pos : 0;
			v->last_n = z.last_n;
			v->rep = z.rep;
		}
	}
	z.pos = 0;
	z.last = -1;
	z.rep = 0;
	z.threaded = 1;
	z.slow = 1;
}

/* A new guest thread (the first one too): its own stream. */
static void on_vcpu_init(qemu_plugin_id_t id, unsigned int vcpu)
{
	(void)id;
	if (z.child)
		return;
	pthread_mutex_lock(&z.lock);
	if (vcpu >= MAX_VCPUS) {
		fail("more guest threads at once than zond trace records (4096)");
	} else if (z.online && z.nthreads == 0) {
		z.ot = start_thread(vcpu)->online; /* counted by the inline counter until a second one */
	} else {
		if (z.online && !z.threaded)
			switch_to_threads();
		end_thread(vcpu); /* an exited thread's, if QEMU did not say */
		start_thread(vcpu);
	}
	pthread_mutex_unlock(&z.lock);
}

/* A guest thread exited, before its vCPU index can be reused. */
static void on_vcpu_exit(qemu_plugin_id_t id, unsigned int vcpu)
{
	(void)id;
	if (vcpu >= MAX_VCPUS || z.child)
		return;
	pthread_mutex_lock(&z.lock);
	end_thread(vcpu);
	pthread_mutex_unlock(&z.lock);
}

/* Tells `zond trace record` that the trace or profile is complete (see the top). */
static void say_ok(void)
{
	FILE *f = z.status ? fopen(z.status, "w") : NULL;
	if (f) {
		fprintf(f, "ok\n%s", z.summary);
		fclose(f);
	}
}

/* The online profile, stored (at exit, or before an execve). */
static void end_online(void)
{
	pthread_mutex_lock(&z.lock);
	if (!z.threaded && z.last >= 0 && z.pos)
		online_exec(z.ot, (uint32_t)z.last, (uint32_t)z.pos);
	z.last = -1;
	for (unsigned int i = 0; i < MAX_VCPUS; i++)
		end_thread(i);
	if (online_finish(z.execs, z.head->command, z.exit_status, z.start_ns, z.summary,
			  sizeof z.summary) == 0 &&
	    !z.failed)
		say_ok();
	z.online = NULL;
	z.failed = z.slow = 1; /* nothing more to count */
	pthread_mutex_unlock(&z.lock);
}

static void on_guest_exit(qemu_plugin_id_t id, void *udata)
{
	(void)id, (void)udata;
	if (z.child)
		return;
	if (z.online && z.failed) {
		z.online = NULL;
		return;
	}
	if (z.online) {
		if (z.started)
			end_online();
		return;
	}
	pthread_mutex_lock(&z.lock);
	if (!z.out || !z.started) {
		pthread_mutex_unlock(&z.lock);
		return;
	}
	for (unsigned int i = 0; i < MAX_VCPUS; i++)
		end_thread(i);
	if (z.exit_status >= 0) {
		put(z.shared, (uint64_t)ZT_EXIT << 2 | ZT_CONTROL);
		put(z.shared, (uint64_t)z.exit_status);
	}
	put(z.shared, (uint64_t)ZT_END << 2 | ZT_CONTROL);
	put(z.shared, z.insns);
	put(z.shared, z.execs);
	flush_chunk(z.shared);
	z.out = 0;
	z.head->done = 1;
	if (!z.failed)
		say_ok();
	pthread_mutex_unlock(&z.lock);
}

/*
 * The streams' buffers: in zond's memory file (descriptor fd, closed here,
 * before the guest runs), else in memory of our own.  0 if none.
 */
static int open_tail(int fd)
{
	void *map = MAP_FAILED;
	if (fd >= 0) {
		map = mmap(NULL, tail_size(), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		close(fd);
	}
	if (map == MAP_FAILED)
		map = mmap(NULL, tail_size(), PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (map == MAP_FAILED) {
		fprintf(stderr, "zond plugin: no memory for the trace's buffers\n");
		return 0;
	}
	z.tail = map;
	z.head = map;
	if (!z.family)
		z.family = map;
	memcpy(z.head->magic, TAIL_MAGIC, 8);
	z.shared = tail_slot(map, 0);
	*z.shared = (sbuf){.thread = 0, .used = 1, .buf = tail_buf(map, 0)};
	return 1;
}

/*
 * The header's "command" line into out (cap bytes): a line break in an
 * argument would end the line, so it is written as a space.  Its length.
 */
static int put_command(char *out, size_t cap, const char *command)
{
	int n = snprintf(out, cap, "command %s\n", command);
	if (n < 0 || (size_t)n >= cap)
		return 0; /* no room: the header goes without it */
	for (int i = 8; i < n - 1; i++)
		if (out[i] == '\n' || out[i] == '\r')
			out[i] = ' ';
	return n;
}

/* Written at the first translation: QEMU knows the program only once a vCPU runs it. */
static void put_header(void)
{
	char text[8192], real[4096];
	const char *exe = qemu_plugin_path_to_binary();
	/* As typed (zond keeps the guest's argv[0] and AT_EXECFN): absolute for the reader. */
	if (exe && realpath(exe, real))
		exe = real;
	if (z.online) {
		if (online_start(z.online, z.target, exe, qemu_plugin_entry_code()) < 0)
			lose();
		return;
	}
	/* reps exact: no rep's extra run recorded (rep_close) */
	int n = snprintf(text, sizeof text,
			 "arch %s\nexe %s\nentry 0x%llx\npid %ld\nrun %s\nstart %lld\nreps exact\n",
			 z.target,
			 exe ? exe : "", (unsigned long long)qemu_plugin_entry_code(), (long)z.pid,
			 z.run, (long long)z.start_ns);
	if (z.forked && n < (int)sizeof text) /* where the parent was: the child's stack */
		n += snprintf(text + n, sizeof text - (size_t)n, "parent %ld\nfork %u %llu\n",
			      (long)z.parent, (unsigned)z.fork_thread[z.fork_vcpu],
			      (unsigned long long)z.fork_execs[z.fork_vcpu]);
	if (z.command && n < (int)sizeof text)
		n += put_command(text + n, sizeof text - (size_t)n, z.command);
	uint8_t head[16];
	memcpy(head, ZT_MAGIC, 8);
	zt_put_u32(head + 8, ZT_VERSION);
	zt_put_u32(head + 12, (uint32_t)n);
	if (out_append(head, 16, text, (size_t)n) < 0)
		fail_write();
	z.head->committed = z.written;
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
					   int argc, char **argv)
{
	z.path = "zond.ztrace";
	int tail_fd = -1, tl_newest = 0;
	uint64_t tl_events = 0;
	for (int i = 0; i < argc; i++) {
		if (strncmp(argv[i], "tail=", 5) == 0) {
			tail_fd = atoi(argv[i] + 5);
		} else if (strncmp(argv[i], "out=", 4) == 0) {
			z.path = argv[i] + 4;
		} else if (strncmp(argv[i], "online=", 7) == 0) {
			z.online = z.path = argv[i] + 7;
		} else if (strncmp(argv[i], "status=", 7) == 0) {
			z.status = argv[i] + 7;
		} else if (strncmp(argv[i], "timeline=", 9) == 0) {
			tl_events = strtoull(argv[i] + 9, NULL, 10);
		} else if (strncmp(argv[i], "timeline_keep=", 14) == 0) {
			tl_newest = strcmp(argv[i] + 14, "newest") == 0;
		} else {
			fprintf(stderr, "zond plugin: unknown option '%s' (out=FILE, online=STORE, "
				"status=FILE, tail=FD, timeline=N, timeline_keep=oldest|newest)\n",
				argv[i]);
			return -1;
		}
	}
	/* online only: a trace keeps every call, `zond trace report --timeline` reads them */
	online_timeline(tl_events, tl_newest);
	if (info->system_emulation) {
		fprintf(stderr, "zond plugin: only user-mode QEMU (qemu-ARCH) is supported\n");
		return -1;
	}
	int generic = strcmp(info->target_name, "x86_64") != 0;
	z.mmap_num = generic ? 222 : 9;
	z.mprotect_num = generic ? 226 : 10;
	z.exit_group_num = generic ? 94 : 231;
	z.clone_num = generic ? 220 : 56;
	z.fork_num = generic ? -1 : 57;
	z.vfork_num = generic ? -1 : 58;
	z.execve_num = generic ? 221 : 59;
	z.execveat_num = generic ? 281 : 322;
	z.pid = getpid();
	if (!open_tail(tail_fd))
		return -1;
	if (*z.head->command)
		z.command = strndup(z.head->command, sizeof z.head->command);
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	z.start_ns = (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
	snprintf(z.run, sizeof z.run, "%ld.%lld.%ld", (long)z.pid, (long long)now.tv_sec,
		 now.tv_nsec);
	if (!z.online && create_out(z.path))
		z.base = strdup(z.path);
	z.zcap = ZSTD_compressBound(BUF_SIZE);
	z.zbuf = malloc(z.zcap);
	z.zctx = ZSTD_createCCtx();
	if ((!z.online && !z.out) || !z.zbuf || !z.zctx) {
		fprintf(stderr, "zond plugin: %s: cannot create the trace: %s\n", z.path,
			strerror(errno));
		return -1;
	}
	z.target = info->target_name;
	z.isa = isa_find(z.target);
	qemu_plugin_register_vcpu_init_cb(id, on_vcpu_init);
	qemu_plugin_register_vcpu_exit_cb(id, on_vcpu_exit);
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
	qemu_plugin_register_vcpu_syscall_cb(id, on_syscall);
	qemu_plugin_register_vcpu_syscall_ret_cb(id, on_syscall_ret);
	qemu_plugin_register_atexit_cb(id, on_guest_exit, NULL);
	return 0;
}
