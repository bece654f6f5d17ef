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
 * is how `zond trace record` learns that recording failed.
 * doc/trace-format.md describes the file.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "../../tool/trace/format.h"
#include "../../tool/trace/isa.h"
#include "online.h"
#include "qemu_api.h"

QEMU_PLUGIN_EXPORT int qemu_plugin_version = ZOND_QEMU_PLUGIN_VERSION;

#define BUF_SIZE (1u << 20)
#define BUF_ROOM (BUF_SIZE - 2 * ZT_MAX_BLOCK_BYTES - 4096) /* flush when fuller */

#define MAX_VCPUS 4096 /* guest threads alive at once */

/* A chunk's worth of one stream: the shared one (thread 0) or a thread's. */
struct sbuf {
	uint8_t *buf;
	size_t len;
	uint32_t thread;
};

/* The state of one vCPU, i.e. of the guest thread running on it. */
struct vcpu {
	struct sbuf out;
	uint32_t last, last_n; /* block executed last and its length; last_n 0 before the first */
	uint32_t pos;          /* instructions of it that ran, set by on_insn */
	uint64_t insns, execs;
	struct online_thread *ot; /* online: its thread's rebuild */
};

struct block {
	uint64_t vaddr;
	uint32_t ninsns, nbytes, id;
	uint8_t *bytes;
};

static struct {
	FILE *out;
	const char *path;
	const char *online; /* the store of the online mode, NULL when writing a trace */
	const char *status; /* where to say "ok" at a complete end, or NULL */
	struct sbuf shared;  /* definitions and mappings (thread 0) */
	pthread_mutex_t lock; /* the shared stream, the block table and the file */
	struct vcpu *vcpus[MAX_VCPUS];
	uint8_t exec_prot[MAX_VCPUS]; /* the pending mmap/mprotect asked for PROT_EXEC */
	uint32_t nthreads;
	void *zbuf;
	size_t zcap;
	ZSTD_CCtx *zctx;
	int failed;

	struct block *blocks; /* open addressing on vaddr, for dedup */
	size_t cap, nblocks;

	uint64_t pos;      /* online, one thread: instructions of the current block so far (inline) */
	int64_t last;      /* online, one thread: id of the block executed last, -1 before the first */
	struct online_thread *ot; /* online, one thread: the first thread's rebuild */
	int threaded;      /* online: a second vCPU started, counting is per vCPU (see the top) */
	int slow;          /* online: failed or threaded, on_exec_online's one check */
	uint64_t insns, execs;
	int64_t mmap_num, mprotect_num;
	const char *target; /* QEMU's name of the guest architecture */
	const struct isa *isa; /* its decoder, NULL if zond has none */
	int started;
	char **maps;       /* mappings already written, as "start path" keys */
	size_t nmaps;
} z = {.last = -1, .lock = PTHREAD_MUTEX_INITIALIZER};

static void fail(const char *what)
{
	if (!z.failed) {
		char msg[512];
		snprintf(msg, sizeof msg, "zond: %s: %s\n", z.path, what);
		fputs(msg, stderr);
	}
	z.failed = 1;
	z.slow = 1;
}

/* The online profile is lost: online.c said why. */
static void lose(void)
{
	z.failed = 1;
	z.slow = 1;
}

/* Writes b as one chunk; the caller holds z.lock. */
static void flush_chunk(struct sbuf *b)
{
	if (!b->len || z.failed)
		return;
	size_t n = ZSTD_compressCCtx(z.zctx, z.zbuf, z.zcap, b->buf, b->len, 1);
	uint8_t head[12];
	zt_put_u32(head, (uint32_t)b->len);
	zt_put_u32(head + 4, (uint32_t)n);
	zt_put_u32(head + 8, b->thread);
	if (ZSTD_isError(n) || fwrite(head, 12, 1, z.out) != 1 || fwrite(z.zbuf, n, 1, z.out) != 1)
		fail("cannot write the trace");
	b->len = 0;
}

/* A thread's chunk, after the shared records its blocks may need (z.lock held). */
static void flush_thread(struct vcpu *v)
{
	flush_chunk(&z.shared);
	flush_chunk(&v->out);
}

static inline void put(struct sbuf *b, uint64_t v)
{
	b->len = (size_t)(zt_put_uleb(b->buf + b->len, v) - b->buf);
}

/* Keeps room for the largest record in the shared stream (z.lock held). */
static inline void room(void)
{
	if (z.shared.len > BUF_ROOM)
		flush_chunk(&z.shared);
}

/* The online mode's record that closes v's previous block (per vCPU): how far it ran. */
static inline void close_online(struct vcpu *v)
{
	if (v->pos)
		online_exec(v->ot, v->last, v->pos);
	v->pos = 0;
}

/*
 * The records of v's previous block, written once it is over: an EXEC if
 * any of it ran, a PARTIAL if not all of it.
 */
static inline void close_vcpu_block(struct vcpu *v)
{
	if (!v->pos)
		return;
	put(&v->out, (uint64_t)v->last << 2 | ZT_EXEC);
	if (v->pos != v->last_n)
		put(&v->out, (uint64_t)v->pos << 2 | ZT_PARTIAL);
	v->insns += v->pos;
	v->execs++;
	v->pos = 0;
}

/* A new guest thread on vCPU index i (z.lock held). */
static struct vcpu *start_thread(unsigned int i)
{
	struct vcpu *v = calloc(1, sizeof *v);
	if (!v || (!z.online && !(v->out.buf = malloc(BUF_SIZE))))
		abort();
	v->out.thread = ++z.nthreads;
	if (z.online)
		v->ot = online_thread();
	z.vcpus[i] = v;
	return v;
}

/* Its last block, its END and its last chunk (z.lock held). */
static void end_thread(unsigned int i)
{
	struct vcpu *v = z.vcpus[i];
	if (!v)
		return;
	if (z.online) {
		close_online(v);
		z.execs += v->execs;
		free(v);
		z.vcpus[i] = NULL;
		return;
	}
	close_vcpu_block(v);
	put(&v->out, (uint64_t)ZT_END << 2 | ZT_CONTROL);
	put(&v->out, v->insns);
	put(&v->out, v->execs);
	flush_thread(v);
	z.insns += v->insns;
	z.execs += v->execs;
	free(v->out.buf);
	free(v);
	z.vcpus[i] = NULL;
}

/* Before each instruction that can stop a block, and the last: how far it ran. */
static void on_insn(unsigned int vcpu, void *udata)
{
	struct vcpu *v = vcpu < MAX_VCPUS ? z.vcpus[vcpu] : NULL;
	if (v)
		v->pos = (uint32_t)(uintptr_t)udata;
}

/* udata: the block's id, and its length in the upper half. */
static void on_exec(unsigned int vcpu, void *udata)
{
	struct vcpu *v = vcpu < MAX_VCPUS ? z.vcpus[vcpu] : NULL;
	if (!v || z.failed)
		return;
	close_vcpu_block(v);
	v->last = (uint32_t)(uintptr_t)udata;
	v->last_n = (uint32_t)((uintptr_t)udata >> 32);
	if (v->out.len > BUF_SIZE - 64) {
		pthread_mutex_lock(&z.lock);
		flush_thread(v);
		pthread_mutex_unlock(&z.lock);
	}
}

/* on_exec_online after a failure, or once there are threads. */
static __attribute__((noinline, cold)) void exec_online_slow(void)
{
	if (!z.failed) /* threaded: cannot happen (see the top): never count wrong silently */
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
		exec_online_slow();
		return;
	}
	uint64_t n = z.pos;
	z.pos = 0;
	z.execs++;
	if (n && online_exec_one((uint32_t)z.last, (uint32_t)n) < 0)
		lose();
	z.last = (uint32_t)(uintptr_t)udata;
}

/* The same once there are threads: per vCPU, with the trace mode's on_insn. */
static void on_exec_threaded(unsigned int vcpu, void *udata)
{
	struct vcpu *v = vcpu < MAX_VCPUS ? z.vcpus[vcpu] : NULL;
	if (!v || z.failed)
		return;
	v->execs++;
	close_online(v);
	v->last = (uint32_t)(uintptr_t)udata;
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

/* The id of a block with this address and code, defining it if it is new. */
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
	b->bytes = malloc(nbytes ? nbytes : 1);
	if (!b->bytes)
		abort();
	memcpy(b->bytes, bytes, nbytes);
	if (z.online) {
		if (online_define(b->id, vaddr, ninsns, sizes, bytes) < 0)
			lose();
		return b->id;
	}
	struct sbuf *o = &z.shared;
	put(o, (uint64_t)b->id << 2 | ZT_DEFINE);
	put(o, vaddr);
	put(o, ninsns);
	put(o, nbytes);
	memcpy(o->buf + o->len, sizes, ninsns);
	o->len += ninsns;
	memcpy(o->buf + o->len, bytes, nbytes);
	o->len += nbytes;
	room();
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

/* The block's definition and callbacks (z.lock held: the buffers below are shared). */
static void translate(struct qemu_plugin_tb *tb)
{
	static uint8_t bytes[ZT_MAX_BLOCK_BYTES], sizes[ZT_MAX_BLOCK_INSNS];
	size_t n = qemu_plugin_tb_n_insns(tb), nbytes = 0;
	if (z.failed)
		return;
	if (!z.started) {
		z.started = 1;
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
		if (size == 0 || size > 255 || nbytes + size > sizeof bytes) {
			fail("a translated block too large to record");
			return;
		}
		const uint8_t *data = qemu_plugin_insn_data(insn);
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
	if (z.online)
		qemu_plugin_register_vcpu_tb_exec_cb(tb, z.threaded ? on_exec_threaded : on_exec_online,
						     QEMU_PLUGIN_CB_NO_REGS, (void *)(uintptr_t)bid);
	else
		qemu_plugin_register_vcpu_tb_exec_cb(tb, on_exec, QEMU_PLUGIN_CB_NO_REGS,
						     (void *)((uintptr_t)n << 32 | bid));
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
		struct sbuf *o = &z.shared;
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

static void on_syscall(qemu_plugin_id_t id, unsigned int vcpu, int64_t num, uint64_t a1,
		       uint64_t a2, uint64_t a3, uint64_t a4, uint64_t a5, uint64_t a6, uint64_t a7,
		       uint64_t a8)
{
	(void)id, (void)a1, (void)a2, (void)a4, (void)a5, (void)a6, (void)a7, (void)a8;
	if (vcpu < MAX_VCPUS)
		z.exec_prot[vcpu] = (num == z.mmap_num || num == z.mprotect_num) &&
				    (a3 & 4 /* PROT_EXEC */);
}

static void on_syscall_ret(qemu_plugin_id_t id, unsigned int vcpu, int64_t num, int64_t ret)
{
	(void)id, (void)num;
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
		struct vcpu *v = z.vcpus[i];
		if (v && v->ot == z.ot) {
			v->last = z.last >= 0 ? (uint32_t)z.last : 0;
			v->pos = z.last >= 0 ? (uint32_t)z.pos : 0;
		}
	}
	z.pos = 0;
	z.last = -1;
	z.threaded = 1;
	z.slow = 1;
}

/* A new guest thread (the first one too): its own stream. */
static void on_vcpu_init(qemu_plugin_id_t id, unsigned int vcpu)
{
	(void)id;
	pthread_mutex_lock(&z.lock);
	if (vcpu >= MAX_VCPUS) {
		fail("more guest threads at once than zond trace records (4096)");
	} else if (z.online && z.nthreads == 0) {
		z.ot = start_thread(vcpu)->ot; /* counted by the inline counter until a second one */
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
	if (vcpu >= MAX_VCPUS)
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
		fputs("ok\n", f);
		fclose(f);
	}
}

static void on_guest_exit(qemu_plugin_id_t id, void *udata)
{
	(void)id, (void)udata;
	if (z.online && z.failed) {
		z.online = NULL;
		return;
	}
	if (z.online) {
		pthread_mutex_lock(&z.lock);
		if (!z.threaded && z.last >= 0 && z.pos)
			online_exec(z.ot, (uint32_t)z.last, (uint32_t)z.pos);
		z.last = -1;
		for (unsigned int i = 0; i < MAX_VCPUS; i++)
			end_thread(i);
		if (online_finish(z.execs) == 0 && !z.failed)
			say_ok();
		z.online = NULL;
		pthread_mutex_unlock(&z.lock);
		return;
	}
	pthread_mutex_lock(&z.lock);
	if (!z.out) {
		pthread_mutex_unlock(&z.lock);
		return;
	}
	for (unsigned int i = 0; i < MAX_VCPUS; i++)
		end_thread(i);
	put(&z.shared, (uint64_t)ZT_END << 2 | ZT_CONTROL);
	put(&z.shared, z.insns);
	put(&z.shared, z.execs);
	flush_chunk(&z.shared);
	if (fclose(z.out) != 0)
		fail("cannot write the trace");
	z.out = NULL;
	if (!z.failed)
		say_ok();
	pthread_mutex_unlock(&z.lock);
}

/* Written at the first translation: QEMU knows the program only once a vCPU runs it. */
static void put_header(void)
{
	char text[8192];
	const char *exe = qemu_plugin_path_to_binary();
	if (z.online) {
		if (online_start(z.online, z.target, exe, qemu_plugin_entry_code()) < 0)
			lose();
		return;
	}
	int n = snprintf(text, sizeof text, "arch %s\nexe %s\nentry 0x%llx\n", z.target,
			 exe ? exe : "", (unsigned long long)qemu_plugin_entry_code());
	uint8_t head[16];
	memcpy(head, ZT_MAGIC, 8);
	zt_put_u32(head + 8, ZT_VERSION);
	zt_put_u32(head + 12, (uint32_t)n);
	if (fwrite(head, 16, 1, z.out) != 1 || fwrite(text, (size_t)n, 1, z.out) != 1)
		fail("cannot write the trace");
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
					   int argc, char **argv)
{
	z.path = "zond.ztrace";
	for (int i = 0; i < argc; i++) {
		if (strncmp(argv[i], "out=", 4) == 0) {
			z.path = argv[i] + 4;
		} else if (strncmp(argv[i], "online=", 7) == 0) {
			z.online = z.path = argv[i] + 7;
		} else if (strncmp(argv[i], "status=", 7) == 0) {
			z.status = argv[i] + 7;
		} else {
			fprintf(stderr, "zond plugin: unknown option '%s' (out=FILE, online=STORE, "
				"status=FILE)\n",
				argv[i]);
			return -1;
		}
	}
	if (info->system_emulation) {
		fprintf(stderr, "zond plugin: only user-mode QEMU (qemu-ARCH) is supported\n");
		return -1;
	}
	int generic = strcmp(info->target_name, "x86_64") != 0;
	z.mmap_num = generic ? 222 : 9;
	z.mprotect_num = generic ? 226 : 10;
	z.out = z.online ? NULL : fopen(z.path, "wb");
	z.shared.buf = malloc(BUF_SIZE);
	z.zcap = ZSTD_compressBound(BUF_SIZE);
	z.zbuf = malloc(z.zcap);
	z.zctx = ZSTD_createCCtx();
	if ((!z.online && !z.out) || !z.shared.buf || !z.zbuf || !z.zctx) {
		fprintf(stderr, "zond plugin: %s: cannot create the trace\n", z.path);
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
