/* scenario.c - one run of a program with functions measured (scenario.h). */
#include "scenario.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>

#include "model/profile.h"
#include "transport.h"

static int64_t wall_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Bytes of one function's stub and relocated copy, 16-aligned. */
static size_t stub_room(const struct inject_arch *a)
{
	return (a->stub_len + a->reloc_max + 15) & ~(size_t)15;
}

/*
 * The trampoline area, built here and written once: the payload, then per
 * function its stub and relocated copy.  *entries gets where each
 * function's jump must go.
 */
static uint8_t *build_area(struct symbols *s, const struct inject_plan *plan, const size_t *which,
			   size_t n, uint64_t bias, uint64_t area, size_t size,
			   const struct inject_payload_args *args, uint64_t *entries,
			   struct zerr *err)
{
	const struct inject_arch *a = plan->arch;
	uint8_t *buf = zp_xcalloc(1, size);
	size_t off = a->payload(buf, size, args);
	if (!off) {
		free(buf);
		return zerr_set(err, "the payload does not fit its area"), NULL;
	}
	off = (off + 63) & ~(size_t)63;
	for (size_t k = 0; k < n; k++, off += stub_room(a)) {
		const struct inject_func *f = &plan->funcs[which[k]];
		struct inject_site site = f->site;
		site.addr += bias;
		uint8_t code[512];
		long got = symbols_read(s, plan->path, f->addr, code, sizeof code, err);
		char why[INJECT_WHY];
		if (got < (long)(f->site.keep + f->site.len)) {
			free(buf);
			return got < 0 ? NULL
				       : (zerr_set(err, "%s: no code for %s", plan->path, f->name),
					  NULL);
		}
		uint64_t at = area + off;
		a->stub(buf + off, at, area, (uint32_t)k);
		if (a->relocate(&site, code, at + a->stub_len, buf + off + a->stub_len,
				a->reloc_max, why) < 0) {
			free(buf);
			return zerr_set(err, "%s: %s: %s", plan->path, f->name, why), NULL;
		}
		entries[k] = at + 4; /* the stub's call, after its id */
	}
	return buf;
}

/* Writes the jumps at the entries, checking first that the bytes are the file's. */
static int patch_entries(struct inject_transport *t, struct symbols *s,
			 const struct inject_plan *plan, const size_t *which, size_t n, uint64_t bias,
			 const uint64_t *entries, struct zerr *err)
{
	const struct inject_arch *a = plan->arch;
	for (size_t k = 0; k < n; k++) {
		const struct inject_func *f = &plan->funcs[which[k]];
		uint8_t want[16], have[16], jump[16];
		uint64_t at = f->addr + bias + f->site.keep;
		if (symbols_read(s, plan->path, f->addr + f->site.keep, want, a->jump_len, err) < 0 ||
		    t->ops->read(t, at, have, a->jump_len, err) < 0)
			return -1;
		if (memcmp(want, have, a->jump_len) != 0)
			return zerr_set(err, "%s: %s in memory is not as in the file", plan->path,
					f->name);
		a->jump(at, entries[k], jump);
		if (t->ops->write(t, at, jump, a->jump_len, err) < 0)
			return -1;
	}
	return 0;
}

/* Prepares the stopped program: bias, area, results, payload, jumps. */
static int prepare(struct inject_transport *t, const struct inject_plan *plan, const size_t *which,
		   size_t n, struct inject_result *out, void **shared, size_t *shared_len,
		   struct zerr *err)
{
	const struct inject_arch *a = plan->arch;
	struct symbols *s = symbols_new();
	uint64_t start, load, area, remote;
	size_t size = (((size_t)4096 + n * stub_room(a)) + 4095) & ~(size_t)4095;
	*shared_len = inject_results_size(n);
	uint64_t *entries = zp_xcalloc(n ? n : 1, sizeof *entries);
	uint8_t *buf = NULL;
	int rc = -1;
	if (t->ops->module_start(t, plan->path, &start, err) < 0 ||
	    symbols_load_start(s, plan->path, &load, err) < 0)
		goto out;
	uint64_t bias = start - load;
	if (t->ops->alloc_near(t, plan->image_end + bias, size, &area, err) < 0 ||
	    t->ops->share(t, *shared_len, shared, &remote, err) < 0)
		goto out;
	struct inject_header *h = *shared;
	h->magic = INJ_MAGIC;
	h->nfuncs = n;
	struct inject_stat *st = (struct inject_stat *)((uint8_t *)*shared + INJ_HDR);
	for (size_t k = 0; k < n; k++)
		st[k].min = UINT64_MAX;
	struct inject_payload_args args = {remote, remote + INJ_HDR + n * INJ_STAT, INJ_SLOT(n),
					   remote + INJ_HDR, out->c0, out->cpair};
	buf = build_area(s, plan, which, n, bias, area, size, &args, entries, err);
	if (buf && t->ops->write(t, area, buf, size, err) == 0 &&
	    patch_entries(t, s, plan, which, n, bias, entries, err) == 0)
		rc = 0;
out:
	free(buf);
	free(entries);
	symbols_free(s);
	return rc;
}

/*
 * Calls still on a shadow stack when the program ended: the functions it
 * exited from (exit() called in main) or left by longjmp with no measured
 * call after.  They count as calls; their time is unknown.
 */
static uint64_t count_open_frames(const uint8_t *shared, size_t n, struct inject_stat *stats)
{
	uint64_t open = 0;
	for (size_t t = 0; t < INJ_THREADS; t++) {
		const uint8_t *slot = shared + INJ_HDR + n * INJ_STAT + t * (size_t)INJ_SLOT(n);
		uint64_t key, depth;
		memcpy(&key, slot + INJ_T_KEY, 8);
		memcpy(&depth, slot + INJ_T_DEPTH, 8);
		for (uint64_t d = 0; key && d < depth && d < INJ_DEPTH; d++) {
			uint64_t id;
			memcpy(&id, slot + INJ_SLOT_HDR + d * INJ_FRAME + INJ_F_ID, 8);
			if (id < n) {
				stats[id].calls++;
				open++;
			}
		}
	}
	return open;
}

int inject_run(const struct inject_plan *plan, const size_t *which, size_t n, char *const argv[],
	       struct inject_result *out, struct zerr *err)
{
	memset(out, 0, sizeof *out);
	if (plan->arch->calibrate(&out->c0, &out->cpair, &out->hz, err) < 0)
		return -1;
	struct inject_transport *t = inject_ptrace_start(argv, err);
	if (!t)
		return -1;
	void *shared = NULL;
	size_t shared_len = 0;
	out->start_ns = wall_ns();
	out->pid = t->pid;
	int status = 0;
	if (prepare(t, plan, which, n, out, &shared, &shared_len, err) < 0) {
		/* zond's trouble costs zond's data only: the program runs on (every
		 * jump written so far leads to a complete stub) */
		struct zerr ignored;
		if (t->ops->release(t, &ignored) == 0 && t->ops->wait(t, &status, &ignored) == 0)
			out->status = status;
		t->ops->close(t);
		if (shared)
			munmap(shared, shared_len);
		return -1;
	}
	if (t->ops->release(t, err) < 0 || t->ops->wait(t, &status, err) < 0) {
		t->ops->close(t);
		munmap(shared, shared_len);
		return -1;
	}
	t->ops->close(t);
	out->duration_ns = wall_ns() - out->start_ns;
	out->status = status;
	const struct inject_header *h = shared;
	out->deep = h->deep;
	out->noslot = h->noslot;
	out->n = n;
	out->stats = zp_xcalloc(n ? n : 1, sizeof *out->stats);
	memcpy(out->stats, (uint8_t *)shared + INJ_HDR, n * sizeof *out->stats);
	out->open = count_open_frames(shared, n, out->stats);
	munmap(shared, shared_len);
	return 0;
}

void inject_result_free(struct inject_result *r)
{
	free(r->stats);
	memset(r, 0, sizeof *r);
}
