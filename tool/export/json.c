/*
 * json.c - zond's JSON document ("format": "zond-profile", "version": 1).
 *
 * The schema is doc/json-schema.md.  Strings are written as UTF-8 with
 * quotes, backslashes and control characters escaped; bytes that are not
 * valid UTF-8 (symbol names are bytes, not text) become U+FFFD so that any
 * JSON parser accepts the document.
 */
#include "export.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/format.h"

size_t export_utf8_len(const unsigned char *s)
{
	unsigned lo = 0x80, hi = 0xbf;
	size_t n;
	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		n = 2;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		n = 3;
		lo = s[0] == 0xe0 ? 0xa0 : lo; /* no overlong forms */
		hi = s[0] == 0xed ? 0x9f : hi; /* no UTF-16 surrogates */
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		n = 4;
		lo = s[0] == 0xf0 ? 0x90 : lo;
		hi = s[0] == 0xf4 ? 0x8f : hi; /* nothing above U+10FFFF */
	} else {
		return 0;
	}
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return n;
}

char *export_utf8(const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t len = strlen(str);
	char *out = zp_xmalloc(3 * len + 1), *o = out; /* each bad byte: 3 bytes */
	while (*s) {
		size_t n = export_utf8_len(s);
		if (n) {
			memcpy(o, s, n);
			o += n;
		} else {
			memcpy(o, "\xef\xbf\xbd", 3);
			o += 3;
		}
		s += n ? n : 1;
	}
	*o = 0;
	return out;
}

void json_put_string(FILE *out, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	if (!s) {
		fputs("null", out);
		return;
	}
	putc('"', out);
	while (*s) {
		size_t n = export_utf8_len(s);
		if (*s == '"' || *s == '\\')
			fprintf(out, "\\%c", *s);
		else if (*s == '\n')
			fputs("\\n", out);
		else if (*s == '\t')
			fputs("\\t", out);
		else if (*s < 0x20)
			fprintf(out, "\\u%04x", *s);
		else if (n)
			fwrite(s, 1, n, out);
		else
			fputs("\\ufffd", out);
		s += n ? n : 1;
	}
	putc('"', out);
}

static void put_key(FILE *out, const char *key)
{
	json_put_string(out, key);
	fputs(": ", out);
}

/* {"event": value, ...}; a min of UINT64_MAX (never measured) is null. */
static void put_costs(FILE *out, const struct zp_profile *p, const char *key, const uint64_t *cost)
{
	fprintf(out, ", \"%s\": {", key);
	for (size_t i = 0; i < p->nevents; i++) {
		fputs(i ? ", " : "", out);
		put_key(out, p->events[i].name);
		if (cost[i] == UINT64_MAX)
			fputs("null", out);
		else
			fprintf(out, "%" PRIu64, cost[i]);
	}
	putc('}', out);
}

static void put_stat(FILE *out, const struct zp_profile *p, const struct zp_stat *s)
{
	fprintf(out, "\"calls\": %" PRIu64, s->calls);
	put_costs(out, p, "self", s->self);
	put_costs(out, p, "incl", s->incl);
	put_costs(out, p, "min", s->min);
	put_costs(out, p, "max", s->max);
}

/* A node or thread index, null for ZP_NONE. */
static void put_index(FILE *out, uint32_t n)
{
	if (n == ZP_NONE)
		fputs("null", out);
	else
		fprintf(out, "%" PRIu32, n);
}

/* Every edge kind has its own name: a reader must not take a trace's block transfers for calls. */
static const char *edge_kind_name(enum zp_edge_kind kind)
{
	switch (kind) {
	case ZP_JUMP: return "jump";
	case ZP_TRANSFER: return "transfer";
	default: return "call";
	}
}

static void put_edge(FILE *out, const struct zp_profile *p, const struct zp_edge *e)
{
	fprintf(out, "{\"kind\": \"%s\", \"caller\": ", edge_kind_name(e->kind));
	put_index(out, e->caller);
	fprintf(out,
		", \"callee\": %" PRIu32 ", \"calls\": %" PRIu64 ", \"taken\": %" PRIu64
		", \"site\": %" PRIu64 ", \"site_line\": %d",
		e->callee, e->calls, e->taken, e->site, e->site_line);
	put_costs(out, p, "incl", e->incl);
	putc('}', out);
}

static void put_context(FILE *out, const struct zp_profile *p, uint32_t id,
			const struct zp_context *c)
{
	fprintf(out, "{\"id\": %" PRIu32 ", \"parent\": ", id);
	put_index(out, c->parent);
	fprintf(out,
		", \"node\": %" PRIu32 ", \"site\": %" PRIu64 ", \"site_line\": %d"
		", \"calls\": %" PRIu64,
		c->node, c->site, c->site_line, c->calls);
	put_costs(out, p, "self", c->self);
	put_costs(out, p, "incl", c->incl);
	put_costs(out, p, "min", c->min);
	put_costs(out, p, "max", c->max);
	putc('}', out);
}

/* The calling contexts of thread (ZP_NONE: all threads folded by path), ids local to the list. */
static void put_contexts(FILE *out, const struct zp_profile *p, uint32_t thread, const char *indent)
{
	struct zp_context_view *cv = profile_context_view(p, thread);
	fputs("[", out);
	for (uint32_t c = 0; c < cv->ncontexts; c++) {
		fprintf(out, "%s\n%s", c ? "," : "", indent);
		put_context(out, p, c, &cv->contexts[c]);
	}
	fputs("]", out);
	profile_context_view_free(cv);
}

static const char *kind_name(enum zp_node_kind kind)
{
	switch (kind) {
	case ZP_BLOCK: return "block";
	case ZP_BASIC_BLOCK: return "basic_block";
	default: return "function";
	}
}

static void put_node(FILE *out, const struct zp_profile *p, uint32_t id, const struct zp_stat *s)
{
	const struct zp_node *n = &p->nodes[id];
	fprintf(out, "{\"id\": %" PRIu32 ", \"kind\": \"%s\", \"name\": ", id, kind_name(n->kind));
	json_put_string(out, n->name);
	fputs(", \"module\": ", out);
	json_put_string(out, n->module);
	fputs(", \"file\": ", out);
	json_put_string(out, n->file);
	fprintf(out, ", \"line\": %d, \"addr\": %" PRIu64 ", \"parent\": ", n->line, n->addr);
	put_index(out, n->parent);
	fputs(", ", out);
	put_stat(out, p, s);
	putc('}', out);
}

static void put_run(FILE *out, const struct zp_profile *p)
{
	const struct zp_run *r = &p->run;
	const struct {
		const char *key, *value;
	} strings[] = {
		{"campaign", r->campaign}, {"collector", r->collector}, {"command", r->command},
		{"host", r->host},         {"arch", r->arch},           {"clock", r->clock},
	};
	fprintf(out, "\"run\": {\"id\": %" PRId64, r->id);
	for (size_t i = 0; i < sizeof strings / sizeof strings[0]; i++) {
		fprintf(out, ", \"%s\": ", strings[i].key);
		json_put_string(out, strings[i].value);
	}
	fprintf(out,
		", \"start_ns\": %" PRId64 ", \"duration_ns\": %" PRId64 ", \"pid\": %" PRId64
		", \"exit_status\": %d, \"term_signal\": %d, \"overhead_ns\": ",
		r->start_ns, r->duration_ns, r->pid, r->exit_status, r->term_signal);
	if (isfinite(r->overhead_ns))
		fprintf(out, "%.15g", r->overhead_ns);
	else
		fputs("null", out);
	fputs(", \"meta\": {", out);
	for (size_t i = 0; i < r->nmeta; i++) {
		fputs(i ? ", " : "", out);
		put_key(out, r->meta[i].key);
		json_put_string(out, r->meta[i].value);
	}
	fputs("}},\n", out);
}

static void put_events(FILE *out, const struct zp_profile *p)
{
	fputs("\"events\": [", out);
	for (size_t i = 0; i < p->nevents; i++) {
		fputs(i ? ", {\"name\": " : "{\"name\": ", out);
		json_put_string(out, p->events[i].name);
		fputs(", \"unit\": ", out);
		json_put_string(out, p->events[i].unit);
		putc('}', out);
	}
	fputs("],\n", out);
}

/* A thread with the statistics, edges and contexts it recorded itself. */
static void put_thread(FILE *out, const struct zp_profile *p, uint32_t t)
{
	const struct zp_thread *th = &p->threads[t];
	fprintf(out,
		"{\"index\": %" PRIu32 ", \"pid\": %" PRId64 ", \"tid\": %" PRId64 ", \"name\": ",
		t, th->pid, th->tid);
	json_put_string(out, th->name);
	fputs(",\n  \"nodes\": [", out);
	const char *sep = "\n   ";
	for (size_t i = 0; i < p->nstats; i++) {
		const struct zp_stat *s = &p->stats[i];
		if (s->thread != t)
			continue;
		fprintf(out, "%s{\"id\": %" PRIu32 ", ", sep, s->node);
		put_stat(out, p, s);
		putc('}', out);
		sep = ",\n   ";
	}
	fputs("],\n  \"edges\": [", out);
	sep = "\n   ";
	for (size_t i = 0; i < p->nedges; i++) {
		if (p->edges[i].thread != t)
			continue;
		fputs(sep, out);
		put_edge(out, p, &p->edges[i]);
		sep = ",\n   ";
	}
	fputs("],\n  \"contexts\": ", out);
	put_contexts(out, p, t, "   ");
	fputs("}", out);
}

int export_json(const struct zp_profile *p, const struct export_options *o, FILE *out,
		struct zerr *err)
{
	if (export_check_options(p, o, err) < 0)
		return -1;
	struct zp_view *v = profile_view(p, o->thread);

	fputs("{\"format\": \"zond-profile\", \"version\": 1,\n", out);
	put_run(out, p);
	put_events(out, p);
	fputs("\"thread\": ", out);
	put_index(out, o->thread);
	fputs(",\n\"totals\": {\"calls\": ", out);
	fprintf(out, "%" PRIu64, metric_total(v, METRIC_CALLS));
	put_costs(out, p, "self", v->total);
	fputs("},\n\"nodes\": [", out);
	for (uint32_t n = 0; n < p->nnodes; n++) {
		fputs(n ? ",\n " : "\n ", out);
		put_node(out, p, n, &v->nodes[n]);
	}
	fputs("],\n\"edges\": [", out);
	for (size_t i = 0; i < v->nedges; i++) {
		fputs(i ? ",\n " : "\n ", out);
		put_edge(out, p, &v->edges[i]);
	}
	fputs("],\n\"contexts\": ", out);
	put_contexts(out, p, o->thread, " ");
	fputs(",\n\"threads\": [", out);
	for (uint32_t t = 0; t < p->nthreads; t++) {
		if (o->thread != ZP_NONE && t != o->thread)
			continue;
		fputs(o->thread != ZP_NONE || t == 0 ? "\n " : ",\n ", out);
		put_thread(out, p, t);
	}
	fputs("]}\n", out);

	profile_view_free(v);
	if (ferror(out))
		return zerr_set(err, "cannot write the JSON document");
	return 0;
}
