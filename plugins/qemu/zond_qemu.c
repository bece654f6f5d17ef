/*
 * zond_qemu.c - zond's QEMU TCG plugin: writes a .ztrace of a user-mode run.
 *
 *   qemu-aarch64 -plugin libzond_qemu.so,out=FILE ./app args
 *
 * Each translated block is written once (address, instruction sizes and
 * bytes), then each execution of a block as its id: the trace is the exact
 * sequence of executed instructions at about one byte per block before
 * compression.  An inline counter tells how many instructions of a block
 * really ran, so that a block left early (a fault) is recorded as such.
 * It is only advanced before instructions that can raise an exception (and
 * the last one), by the instructions since the previous such point: the
 * others cannot stop a block, and a counter per instruction would cost
 * more than the rest of the plugin.  File mappings are recorded when QEMU loads
 * the program and after each mmap/mprotect that makes code executable, so a
 * reader learns where a library is before it sees code from it.
 *
 * Single-threaded programs only: QEMU 7.2 runs guest threads in parallel,
 * and its inline counters add to one address for all of them, so the
 * counts of a second thread would corrupt the first one's.  When a second
 * vCPU starts, recording stops with one error line (the trace is left
 * without its end, the online profile is not stored).  doc/trace-format.md
 * describes the file.
 *
 * With online=STORE the same events go to the rebuild in-process instead
 * (online.h) and the profile is stored at exit: no trace at all.
 *
 * With status=FILE the plugin writes "ok" there once the trace (or the
 * online profile) is complete: QEMU's exit status is the guest's, so this
 * is how `zond trace record` learns that recording failed.
 */
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
	uint8_t *buf;
	size_t len;
	void *zbuf;
	size_t zcap;
	ZSTD_CCtx *zctx;
	int failed;

	struct block *blocks; /* open addressing on vaddr, for dedup */
	size_t cap, nblocks;
	uint32_t *ninsns_of; /* by id */
	size_t ids_cap;

	uint64_t pos;      /* instructions of the current block executed so far (inline) */
	int64_t last;      /* id of the block executed last, -1 before the first */
	uint64_t insns, execs, lost;
	int64_t mmap_num, mprotect_num;
	int exec_prot;     /* the pending mmap/mprotect asked for PROT_EXEC */
	const char *target; /* QEMU's name of the guest architecture */
	const struct isa *isa; /* its decoder, NULL if zond has none */
	int started;
	char **maps;       /* mappings already written, as "start path" keys */
	size_t nmaps;
} z = {.last = -1};

static void fail(const char *what)
{
	if (!z.failed) {
		char msg[512];
		snprintf(msg, sizeof msg, "zond: %s: %s\n", z.path, what);
		fputs(msg, stderr);
	}
	z.failed = 1;
}

static void flush_chunk(void)
{
	if (!z.len || z.failed)
		return;
	size_t n = ZSTD_compressCCtx(z.zctx, z.zbuf, z.zcap, z.buf, z.len, 1);
	uint8_t head[8];
	zt_put_u32(head, (uint32_t)z.len);
	zt_put_u32(head + 4, (uint32_t)n);
	if (ZSTD_isError(n) || fwrite(head, 8, 1, z.out) != 1 || fwrite(z.zbuf, n, 1, z.out) != 1)
		fail("cannot write the trace");
	z.len = 0;
}

static inline void put(uint64_t v)
{
	z.len = (size_t)(zt_put_uleb(z.buf + z.len, v) - z.buf);
}

static inline void room(void)
{
	if (z.len > BUF_ROOM)
		flush_chunk();
}

/* The record that closes the previous block: how far it really ran. */
static inline void close_last(void)
{
	if (z.online) {
		if (z.last >= 0 && z.pos)
			online_exec((uint32_t)z.last, (uint32_t)z.pos);
	} else if (z.last >= 0 && z.pos != z.ninsns_of[z.last]) {
		put((uint64_t)z.pos << 2 | ZT_PARTIAL);
	}
	z.insns += z.last >= 0 ? z.pos : 0;
}

static void on_exec(unsigned int vcpu, void *udata)
{
	if (vcpu != 0 || z.failed) {
		z.lost++;
		return;
	}
	uint32_t id = (uint32_t)(uintptr_t)udata;
	close_last();
	z.last = id;
	z.pos = 0;
	z.execs++;
	put((uint64_t)id << 2 | ZT_EXEC);
	room();
}

/*
 * The online mode's callback, run once per executed block: the previous
 * block's instructions go to the rebuild, whose fast path is inlined here.
 * z.pos is 0 before the first block and after a block left before its
 * first counted instruction: nothing ran that the rebuild must see.
 */
static void on_exec_online(unsigned int vcpu, void *udata)
{
	if (vcpu != 0 || z.failed) {
		z.lost++;
		return;
	}
	uint64_t n = z.pos;
	z.pos = 0;
	z.execs++;
	if (n)
		online_exec((uint32_t)z.last, (uint32_t)n);
	z.last = (uint32_t)(uintptr_t)udata;
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
	if (z.nblocks > z.ids_cap) {
		z.ids_cap = z.ids_cap ? 2 * z.ids_cap : 4096;
		z.ninsns_of = realloc(z.ninsns_of, z.ids_cap * sizeof *z.ninsns_of);
		if (!z.ninsns_of)
			abort();
	}
	z.ninsns_of[b->id] = ninsns;
	if (z.online) {
		online_define(b->id, vaddr, ninsns, sizes, bytes);
		return b->id;
	}
	put((uint64_t)b->id << 2 | ZT_DEFINE);
	put(vaddr);
	put(ninsns);
	put(nbytes);
	memcpy(z.buf + z.len, sizes, ninsns);
	z.len += ninsns;
	memcpy(z.buf + z.len, bytes, nbytes);
	z.len += nbytes;
	room();
	return b->id;
}

static void put_header(void);
static void write_maps(void);

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	(void)id;
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
		if (i == n - 1 || !z.isa || z.isa->may_stop(data, size)) {
			qemu_plugin_register_vcpu_insn_exec_inline(insn, QEMU_PLUGIN_INLINE_ADD_U64,
								   &z.pos, i + 1 - counted);
			counted = i + 1;
		}
	}
	uint32_t bid = block_id(qemu_plugin_tb_vaddr(tb), (uint32_t)n, sizes, bytes, (uint32_t)nbytes);
	qemu_plugin_register_vcpu_tb_exec_cb(tb, z.online ? on_exec_online : on_exec,
					     QEMU_PLUGIN_CB_NO_REGS, (void *)(uintptr_t)bid);
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
		put((uint64_t)ZT_MAP << 2 | ZT_CONTROL);
		put(start);
		put(end);
		put(off);
		put(len);
		memcpy(z.buf + z.len, path, len);
		z.len += len;
		room();
	}
	if (f)
		fclose(f);
}

static void on_syscall(qemu_plugin_id_t id, unsigned int vcpu, int64_t num, uint64_t a1,
		       uint64_t a2, uint64_t a3, uint64_t a4, uint64_t a5, uint64_t a6, uint64_t a7,
		       uint64_t a8)
{
	(void)id, (void)vcpu, (void)a1, (void)a2, (void)a4, (void)a5, (void)a6, (void)a7, (void)a8;
	z.exec_prot = (num == z.mmap_num || num == z.mprotect_num) && (a3 & 4 /* PROT_EXEC */);
}

static void on_syscall_ret(qemu_plugin_id_t id, unsigned int vcpu, int64_t num, int64_t ret)
{
	(void)id, (void)vcpu, (void)num;
	if (z.exec_prot && ret >= 0 && !z.failed)
		write_maps();
	z.exec_prot = 0;
}

/* A second guest thread: see the top of this file. */
static void on_vcpu_init(qemu_plugin_id_t id, unsigned int vcpu)
{
	(void)id;
	if (vcpu == 0 || z.failed)
		return;
	char msg[512];
	snprintf(msg, sizeof msg, "zond: %s: the program started a second thread; zond trace "
		 "records single-threaded programs only\n", z.online ? z.online : z.path);
	fputs(msg, stderr);
	z.failed = 1;
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
		close_last();
		z.last = -1;
		if (online_finish(z.lost, z.execs) == 0)
			say_ok();
		z.online = NULL;
		return;
	}
	if (!z.out)
		return;
	close_last();
	z.last = -1;
	if (z.lost) {
		put((uint64_t)ZT_LOST << 2 | ZT_CONTROL);
		put(z.lost);
	}
	put((uint64_t)ZT_END << 2 | ZT_CONTROL);
	put(z.insns);
	put(z.execs);
	flush_chunk();
	if (fclose(z.out) != 0)
		fail("cannot write the trace");
	z.out = NULL;
	if (!z.failed)
		say_ok();
}

/* Written at the first translation: QEMU knows the program only once a vCPU runs it. */
static void put_header(void)
{
	char text[8192];
	const char *exe = qemu_plugin_path_to_binary();
	if (z.online) {
		online_start(z.online, z.target, exe, qemu_plugin_entry_code());
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
			z.online = argv[i] + 7;
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
	z.buf = malloc(BUF_SIZE);
	z.zcap = ZSTD_compressBound(BUF_SIZE);
	z.zbuf = malloc(z.zcap);
	z.zctx = ZSTD_createCCtx();
	if ((!z.online && !z.out) || !z.buf || !z.zbuf || !z.zctx) {
		fprintf(stderr, "zond plugin: %s: cannot create the trace\n", z.path);
		return -1;
	}
	z.target = info->target_name;
	z.isa = isa_find(z.target);
	qemu_plugin_register_vcpu_init_cb(id, on_vcpu_init);
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
	qemu_plugin_register_vcpu_syscall_cb(id, on_syscall);
	qemu_plugin_register_vcpu_syscall_ret_cb(id, on_syscall_ret);
	qemu_plugin_register_atexit_cb(id, on_guest_exit, NULL);
	return 0;
}
