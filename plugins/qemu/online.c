/*
 * online.c - the plugin's online mode (online.h): the rebuild and the store
 * of the zond command, linked into the plugin.
 */
#include "online.h"

#include <inttypes.h>
#include <stdio.h>
#include <sys/utsname.h>
#include <time.h>

#include "qemu_api.h"
#include "store/store.h"
#include "symbols/symbols.h"
#include "trace/rebuild.h"

static struct {
	const char *store;
	char arch[32];
	char exe[4096];
	struct symbols *syms;
	struct rebuild *rb;
	int failed;
	struct zerr err; /* not on the stack of the per-block callback: it is large */
} o;

static int failed(const struct zerr *err)
{
	if (!o.failed) {
		char msg[1200];
		snprintf(msg, sizeof msg, "zond: online profile lost: %s\n", err->msg);
		fputs(msg, stderr);
	}
	o.failed = 1;
	return -1;
}

int online_start(const char *store, const char *arch, const char *exe, uint64_t entry)
{
	struct zerr err;
	const struct isa *isa = isa_find(arch);
	o.store = store;
	if (!isa) {
		zerr_set(&err, "unknown architecture '%s' (zond knows %s)", arch, isa_names());
		return failed(&err);
	}
	snprintf(o.arch, sizeof o.arch, "%s", isa->name);
	snprintf(o.exe, sizeof o.exe, "%s", exe ? exe : "");
	o.syms = symbols_new();
	o.rb = rebuild_new(isa, o.syms);
	if (exe)
		rebuild_set_program(o.rb, exe, entry);
	return 0;
}

void online_map(uint64_t start, uint64_t end, uint64_t offset, const char *path)
{
	if (o.rb && !o.failed)
		rebuild_host_map(o.rb, start, end, offset, path);
}

int online_define(uint32_t id, uint64_t vaddr, uint32_t ninsns, const uint8_t *sizes,
		  const uint8_t *bytes)
{
	struct zerr err;
	if (!o.rb || o.failed)
		return -1;
	return rebuild_define(o.rb, id, vaddr, ninsns, sizes, bytes, &err) < 0 ? failed(&err) : 0;
}

int online_exec(uint32_t id, uint32_t n)
{
	if (o.failed)
		return -1;
	return rebuild_exec(o.rb, id, n, &o.err) < 0 ? failed(&o.err) : 0;
}

/* What `zond trace report` records of a run, for the online one. */
static void describe(struct zp_profile *p, uint64_t insns)
{
	char v[32];
	struct utsname u;
	profile_set_str(&p->run.collector, "trace");
	profile_set_str(&p->run.arch, o.arch);
	profile_set_str(&p->run.clock, "icount");
	profile_set_str(&p->run.command, o.exe);
	if (uname(&u) == 0)
		profile_set_str(&p->run.host, u.nodename);
	p->run.start_ns = (int64_t)time(NULL) * 1000000000;
	p->run.exit_status = -1;
	snprintf(v, sizeof v, "%" PRIu64, insns);
	profile_add_meta(p, "instructions", v);
	profile_add_meta(p, "trace_bytes", "0");
	profile_add_meta(p, "trace", "online");
}

int online_finish(uint64_t lost, uint64_t execs)
{
	struct zerr err;
	int rc = -1;
	if (!o.rb || o.failed)
		return -1;
	struct zp_profile *p = profile_new();
	uint64_t insns = rebuild_insns(o.rb);
	if (rebuild_finish(o.rb, p, &err) == 0) {
		describe(p, insns);
		struct store *s = store_open(o.store, STORE_CREATE, &err);
		rc = !s || store_add_run(s, p, &err) < 0 ? -1 : 0;
		store_close(s);
	}
	if (rc < 0) {
		failed(&err);
	} else {
		char msg[512];
		snprintf(msg, sizeof msg, "zond: online profile stored in %s: %" PRIu64
			 " instructions, %" PRIu64 " block executions%s\n", o.store, insns, execs,
			 lost ? " (other threads not traced)" : "");
		fputs(msg, stderr);
	}
	profile_free(p);
	rebuild_free(o.rb);
	symbols_free(o.syms);
	o.rb = NULL;
	o.syms = NULL;
	return rc;
}
