/*
 * pprof.c - pprof's profile.proto, gzipped: what go tool pprof, Pyroscope,
 * Parca and Grafana read.
 *
 * Encoded by protobuf-c from the profile.proto pprof itself ships (the C
 * code is generated at build time, tool/CMakeLists.txt) and compressed by
 * zlib as the encoder produces it.
 *
 * Sample types: "calls" (unit "count") first, then one per event of the
 * run, a time in "nanoseconds" (pprof's name, so that it scales them) and
 * any other event in its own unit.  The default sample type is the chosen
 * event (-e), else the first event, else calls.
 *
 * Samples: one per calling context of the exported threads, its stack the
 * context's location and those of its callers up to the thread's root
 * (leaf first, as pprof wants), its values the context's calls and self
 * cost per event, labelled with the thread ("thread" name, "pid", "tid").
 * Each sample is encoded and compressed as soon as it is made, as a
 * profile of that one sample: protobuf reads messages written one after
 * another as one message whose repeated fields are the chunks' in order,
 * so the samples come first and a last chunk holds the rest (string table,
 * locations, functions, mappings, types).  The writer then holds one
 * stack at a time, not every context's, which a deep recursion makes
 * quadratic (8 bytes per frame: gigabytes at 20,000 levels).
 * pprof then sums self costs into a function's flat figure and, counting a
 * function once per stack, the inclusive cost of its outermost activations
 * into its cum figure: zond's own self and inclusive.  A run without
 * contexts has only call edges, which are not stacks: each (thread,
 * function) gives one one-frame sample of its calls and self cost (flat is
 * exact, cum is then flat; zond export says so on stderr).
 *
 * Locations and functions: one of each per node sampled (id = node id + 1),
 * with the node's name, source file and line.  Mappings: one per module,
 * with the module's GNU build id when the file is still there to read it.
 */
#include "export.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "profile.pb-c.h"
#include "report/format.h"
#include "symbols/symbols.h"
#include "util/path.h"
#include "util/strtab.h"

typedef Perftools__Profiles__Profile PProfile;
typedef Perftools__Profiles__ValueType PValueType;
typedef Perftools__Profiles__Sample PSample;
typedef Perftools__Profiles__Label PLabel;
typedef Perftools__Profiles__Mapping PMapping;
typedef Perftools__Profiles__Location PLocation;
typedef Perftools__Profiles__Line PLine;
typedef Perftools__Profiles__Function PFunction;

enum { LABEL_THREAD, LABEL_PID, LABEL_TID, NLABELS };

/*
 * The string table: string i is w->str.s[i]; equal strings share an index.
 * Protobuf strings are UTF-8 (strict decoders refuse others): names are
 * written as export_utf8 makes them.
 */
static int64_t intern(struct strtab *t, const char *s)
{
	char *utf8 = export_utf8(s);
	int64_t i = (int64_t)strtab_intern(t, utf8);
	free(utf8);
	return i;
}

/* A protobuf-c output buffer that deflates into a gzip stream on a FILE. */
struct gzip_out {
	ProtobufCBuffer base;
	z_stream z;
	FILE *out;
	int failed;
};

static void gzip_write(struct gzip_out *g, const uint8_t *data, size_t len, int flush)
{
	unsigned char buf[1 << 16];
	g->z.next_in = (Bytef *)data;
	g->z.avail_in = (uInt)len;
	do {
		g->z.next_out = buf;
		g->z.avail_out = sizeof buf;
		int rc = deflate(&g->z, flush);
		if (rc == Z_STREAM_ERROR)
			g->failed = 1;
		size_t have = sizeof buf - g->z.avail_out;
		if (have && fwrite(buf, 1, have, g->out) != have)
			g->failed = 1;
	} while (!g->failed && (g->z.avail_out == 0 || (flush == Z_FINISH && g->z.avail_in)));
}

static void gzip_append(ProtobufCBuffer *buffer, size_t len, const uint8_t *data)
{
	struct gzip_out *g = (struct gzip_out *)buffer;
	/* deflate takes uInt lengths: feed a long run in pieces */
	while (!g->failed && len) {
		size_t n = len < (1u << 30) ? len : (1u << 30);
		gzip_write(g, data, n, Z_NO_FLUSH);
		data += n;
		len -= n;
	}
}

struct pprof {
	const struct zp_profile *p;
	PProfile msg;
	struct strtab str;
	PValueType *types;
	PValueType **type_ptrs;
	/* per node: location and function (id node + 1), 0 until sampled */
	uint32_t *location_of;
	PLocation *locations;
	PLine *lines;
	PLine **line_ptrs;
	PFunction *functions;
	PMapping *mappings;
	int64_t label_keys[NLABELS];
	struct gzip_out *out; /* where each sample goes as it is made */
};

static void add_value_types(struct pprof *w, int metric)
{
	const struct zp_profile *p = w->p;
	size_t n = 1 + p->nevents;
	w->types = zp_xcalloc(n, sizeof *w->types);
	w->type_ptrs = zp_xcalloc(n, sizeof *w->type_ptrs);
	for (size_t i = 0; i < n; i++) {
		perftools__profiles__value_type__init(&w->types[i]);
		w->type_ptrs[i] = &w->types[i];
	}
	w->types[0].type = intern(&w->str, "calls");
	w->types[0].unit = intern(&w->str, "count");
	for (size_t e = 0; e < p->nevents; e++) {
		const char *unit = p->events[e].unit;
		w->types[1 + e].type = intern(&w->str, p->events[e].name);
		w->types[1 + e].unit =
			intern(&w->str, unit && strcmp(unit, "ns") == 0 ? "nanoseconds" : unit);
	}
	w->msg.n_sample_type = n;
	w->msg.sample_type = w->type_ptrs;
	w->msg.default_sample_type = w->types[metric < 0 ? 0 : 1 + metric].type;
}

/* The location of node n, made with its function on first use. */
static uint64_t location(struct pprof *w, uint32_t n)
{
	if (!w->location_of[n]) {
		const struct zp_node *node = &w->p->nodes[n];
		PFunction *f = &w->functions[n];
		perftools__profiles__function__init(f);
		f->id = n + 1;
		f->name = f->system_name = intern(&w->str, node->name);
		f->filename = intern(&w->str, node->file);
		f->start_line = node->line;
		PLine *line = &w->lines[n];
		perftools__profiles__line__init(line);
		line->function_id = n + 1;
		line->line = node->line;
		w->line_ptrs[n] = line;
		PLocation *l = &w->locations[n];
		perftools__profiles__location__init(l);
		l->id = n + 1;
		l->address = node->addr;
		l->n_line = 1;
		l->line = &w->line_ptrs[n];
		w->location_of[n] = n + 1;
	}
	return w->location_of[n];
}

static void add_sample(struct pprof *w, uint32_t thread, const uint64_t *locations, size_t depth,
		       uint64_t calls, const uint64_t *self)
{
	const struct zp_profile *p = w->p;
	int any = calls != 0;
	for (size_t e = 0; e < p->nevents; e++)
		any |= self[e] != 0;
	if (!any)
		return;
	/* One block per sample: the sample, its values, labels and locations. */
	size_t nvalues = 1 + p->nevents;
	PSample *s = zp_xcalloc(1, sizeof *s + nvalues * sizeof(int64_t) +
					   NLABELS * (sizeof(PLabel) + sizeof(PLabel *)) +
					   depth * sizeof(uint64_t));
	int64_t *values = (int64_t *)(s + 1);
	PLabel *labels = (PLabel *)(values + nvalues);
	PLabel **label_ptrs = (PLabel **)(labels + NLABELS);
	uint64_t *ids = (uint64_t *)(label_ptrs + NLABELS);
	perftools__profiles__sample__init(s);
	values[0] = (int64_t)calls;
	for (size_t e = 0; e < p->nevents; e++)
		values[1 + e] = (int64_t)self[e];
	const struct zp_thread *t = &p->threads[thread];
	for (int i = 0; i < NLABELS; i++) {
		perftools__profiles__label__init(&labels[i]);
		labels[i].key = w->label_keys[i];
		label_ptrs[i] = &labels[i];
	}
	labels[LABEL_THREAD].str = intern(&w->str, t->name);
	labels[LABEL_PID].num = t->pid;
	labels[LABEL_TID].num = t->tid;
	memcpy(ids, locations, depth * sizeof *ids);
	s->n_value = nvalues;
	s->value = values;
	s->n_label = NLABELS;
	s->label = label_ptrs;
	s->n_location_id = depth;
	s->location_id = ids;
	/* a profile of this sample alone, read as part of the one profile */
	PProfile one;
	perftools__profiles__profile__init(&one);
	one.n_sample = 1;
	one.sample = &s;
	perftools__profiles__profile__pack_to_buffer(&one, &w->out->base);
	free(s);
}

/* One sample per context of the exported threads: its stack, leaf first. */
static void add_context_samples(struct pprof *w, uint32_t thread)
{
	const struct zp_profile *p = w->p;
	uint64_t *stack = zp_xcalloc(p->ncontexts, sizeof *stack);
	for (size_t i = 0; i < p->ncontexts; i++) {
		const struct zp_context *c = &p->contexts[i];
		if (thread != ZP_NONE && c->thread != thread)
			continue;
		size_t depth = 0;
		for (uint32_t up = (uint32_t)i; up != ZP_NONE; up = p->contexts[up].parent)
			stack[depth++] = location(w, p->contexts[up].node);
		add_sample(w, c->thread, stack, depth, c->calls, c->self);
	}
	free(stack);
}

/* No contexts: one one-frame sample per (thread, node) of its calls and self. */
static void add_flat_samples(struct pprof *w, uint32_t thread)
{
	const struct zp_profile *p = w->p;
	for (size_t i = 0; i < p->nstats; i++) {
		const struct zp_stat *s = &p->stats[i];
		if (thread != ZP_NONE && s->thread != thread)
			continue;
		uint64_t loc = location(w, s->node);
		add_sample(w, s->thread, &loc, 1, s->calls, s->self);
	}
}

/* 1 when module's file name is the command's program's (its first word's). */
static int runs_as(const char *module, const char *command)
{
	if (!command || !*module)
		return 0;
	char word[4096];
	command += strspn(command, "'\"");
	size_t len = strcspn(command, " '\"");
	if (!len || len >= sizeof word)
		return 0;
	memcpy(word, command, len);
	word[len] = 0;
	return strcmp(path_base(module), path_base(word)) == 0;
}

/*
 * The program's module: the one named as the run's command, else that of
 * the first root call's node, else of the first node with one.
 */
static const char *program_module(const struct zp_profile *p)
{
	for (size_t i = 0; i < p->nnodes; i++)
		if (runs_as(p->nodes[i].module, p->run.command))
			return p->nodes[i].module;
	for (size_t i = 0; i < p->ncontexts; i++) {
		const struct zp_context *c = &p->contexts[i];
		if (c->parent == ZP_NONE && c->node < p->nnodes && *p->nodes[c->node].module)
			return p->nodes[c->node].module;
	}
	for (size_t i = 0; i < p->nnodes; i++)
		if (*p->nodes[i].module)
			return p->nodes[i].module;
	return "";
}

/*
 * One mapping per module of a sampled node, the program's first (pprof names
 * the profile after its first mapping: `File: ...`); locations point at theirs.
 */
static void add_mappings(struct pprof *w)
{
	const struct zp_profile *p = w->p;
	const char *program = program_module(p);
	size_t n = 0, nknown = 0;
	uint32_t *mapping_of_string = NULL; /* by string index of the module's path */
	for (uint32_t k = 0; k < 2 * p->nnodes; k++) {
		/* the program's nodes, then the others */
		uint32_t i = k % p->nnodes;
		const char *module = p->nodes[i].module;
		if (!w->location_of[i] || !module || !*module ||
		    (strcmp(module, program) == 0) != (k < p->nnodes))
			continue;
		size_t name = (size_t)intern(&w->str, module);
		if (name >= nknown) {
			mapping_of_string = zp_xrealloc(mapping_of_string,
							w->str.cap * sizeof *mapping_of_string);
			memset(mapping_of_string + nknown, 0,
			       (w->str.cap - nknown) * sizeof *mapping_of_string);
			nknown = w->str.cap;
		}
		if (!mapping_of_string[name]) {
			PMapping *map = &w->mappings[n];
			perftools__profiles__mapping__init(map);
			map->id = mapping_of_string[name] = (uint32_t)++n;
			map->filename = (int64_t)name;
			char id[2 * 64 + 1];
			if (symbols_build_id(module, id, sizeof id) == 0)
				map->build_id = intern(&w->str, id);
			map->has_functions = map->has_filenames = map->has_line_numbers = 1;
		}
		PMapping *map = &w->mappings[mapping_of_string[name] - 1];
		w->locations[i].mapping_id = map->id;
		if (p->nodes[i].addr >= map->memory_limit)
			map->memory_limit = p->nodes[i].addr + 1;
	}
	free(mapping_of_string);
	w->msg.n_mapping = n;
	w->msg.mapping = zp_xcalloc(n ? n : 1, sizeof *w->msg.mapping);
	for (size_t i = 0; i < n; i++)
		w->msg.mapping[i] = &w->mappings[i];
}

/* Lists the locations and functions made, in node order. */
static void list_locations(struct pprof *w)
{
	size_t n = 0;
	w->msg.location = zp_xcalloc(w->p->nnodes + 1, sizeof *w->msg.location);
	w->msg.function = zp_xcalloc(w->p->nnodes + 1, sizeof *w->msg.function);
	for (uint32_t i = 0; i < w->p->nnodes; i++) {
		if (!w->location_of[i])
			continue;
		w->msg.location[n] = &w->locations[i];
		w->msg.function[n++] = &w->functions[i];
	}
	w->msg.n_location = w->msg.n_function = n;
}

static int gzip_begin(struct gzip_out *g, FILE *out, struct zerr *err)
{
	*g = (struct gzip_out){.base.append = gzip_append, .out = out};
	/* windowBits 15 + 16: a gzip header and trailer around the deflate stream */
	if (deflateInit2(&g->z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK)
		return zerr_set(err, "cannot start gzip compression");
	return 0;
}

/* Ends the stream with msg, the profile but its samples (written already). */
static int gzip_end(struct gzip_out *g, const PProfile *msg, struct zerr *err)
{
	perftools__profiles__profile__pack_to_buffer(msg, &g->base);
	if (!g->failed)
		gzip_write(g, NULL, 0, Z_FINISH);
	deflateEnd(&g->z);
	if (g->failed || ferror(g->out))
		return zerr_set(err, "cannot write the pprof profile");
	return 0;
}

static void pprof_free(struct pprof *w)
{
	strtab_free(&w->str);
	free(w->types);
	free(w->type_ptrs);
	free(w->location_of);
	free(w->locations);
	free(w->lines);
	free(w->line_ptrs);
	free(w->functions);
	free(w->mappings);
	free(w->msg.mapping);
	free(w->msg.location);
	free(w->msg.function);
	free(w->msg.comment);
}

int export_pprof(const struct zp_profile *p, const struct export_options *o, FILE *out,
		 struct zerr *err)
{
	if (export_check_options(p, o, err) < 0)
		return -1;
	struct gzip_out g;
	if (gzip_begin(&g, out, err) < 0)
		return -1;
	struct pprof w = {.p = p, .out = &g};
	size_t nnodes = p->nnodes ? p->nnodes : 1;
	perftools__profiles__profile__init(&w.msg);
	intern(&w.str, ""); /* string 0 must be "" */
	w.label_keys[LABEL_THREAD] = intern(&w.str, "thread");
	w.label_keys[LABEL_PID] = intern(&w.str, "pid");
	w.label_keys[LABEL_TID] = intern(&w.str, "tid");
	add_value_types(&w, metric_pick(p, o->event));
	w.location_of = zp_xcalloc(nnodes, sizeof *w.location_of);
	w.locations = zp_xcalloc(nnodes, sizeof *w.locations);
	w.lines = zp_xcalloc(nnodes, sizeof *w.lines);
	w.line_ptrs = zp_xcalloc(nnodes, sizeof *w.line_ptrs);
	w.functions = zp_xcalloc(nnodes, sizeof *w.functions);
	w.mappings = zp_xcalloc(nnodes, sizeof *w.mappings);
	if (p->ncontexts)
		add_context_samples(&w, o->thread);
	else
		add_flat_samples(&w, o->thread);
	add_mappings(&w);
	list_locations(&w);

	char line[64];
	snprintf(line, sizeof line, "zond run %" PRId64, p->run.id);
	/* the command, when the store knows it (NULL if unknown: QA s15 W2 F4, a crash) */
	w.msg.n_comment = p->run.command ? 2 : 1;
	w.msg.comment = zp_xcalloc(2, sizeof *w.msg.comment);
	w.msg.comment[0] = intern(&w.str, line);
	if (p->run.command)
		w.msg.comment[1] = intern(&w.str, p->run.command);
	w.msg.time_nanos = p->run.start_ns;
	w.msg.duration_nanos = p->run.duration_ns;
	w.msg.n_string_table = w.str.n;
	w.msg.string_table = w.str.s;

	int rc = gzip_end(&g, &w.msg, err);
	pprof_free(&w);
	return rc;
}
