/* rsp.c - a client of the GDB remote serial protocol (rsp.h). */
#include "rsp.h"

#include <errno.h>
#include <expat.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "model/profile.h"
#include "util/clock.h"

#define RETRIES     3   /* a packet resent, or asked for again, at most */
#define PACKET_MIN  400 /* what a stub takes when it does not say (gdb's default) */
#define PACKET_MAX  0x10000 /* a larger PacketSize is taken as this (replies fit in recv_packet's) */
#define CMD_SHOWN   40  /* bytes of a request repeated in messages */
#define XML_DEPTH   4   /* xi:include nesting */
#define XML_MAX     (1 << 20) /* bytes of one description file */

struct rsp {
	int fd;
	char name[128];
	int timeout_ms;
	size_t packet_size;
	int vcont;          /* the stub has vCont;c */
	char broken[1024];  /* once set: why every call fails */
	uint8_t in[4096];   /* bytes received, not consumed yet */
	size_t in_pos, in_len;
	char *pkt;          /* the last packet received, decoded */
	size_t pkt_len, pkt_cap;
	char *out;          /* the packet being sent, framed */
	size_t out_cap;
};

/* Marks the connection broken: every later call fails with this line. */
__attribute__((format(printf, 3, 4))) static int fail(struct rsp *r, struct zerr *err,
						      const char *fmt, ...)
{
	char msg[sizeof r->broken - 160];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	snprintf(r->broken, sizeof r->broken, "%s: %s", r->name, msg);
	return zerr_set(err, "%s", r->broken);
}

/*
 * The first CMD_SHOWN bytes of s (a request, a reply, a name the stub gave)
 * for a message, in buf: printable ASCII as it is, any other byte as \xNN, so
 * that the stub's bytes never break the message's one line.
 */
#define SHOWN_CAP (4 * CMD_SHOWN + 4)
static const char *shown(const char *s, char *buf)
{
	size_t k = 0, i;
	for (i = 0; s[i] && i < CMD_SHOWN; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c >= 0x20 && c < 0x7f)
			buf[k++] = (char)c;
		else
			k += (size_t)sprintf(buf + k, "\\x%02x", c);
	}
	strcpy(buf + k, s[i] ? "..." : "");
	return buf;
}

/* One byte from the stub; 0, 1 when nothing came within wait_ms, -1 when the connection ended. */
static int get_byte(struct rsp *r, int wait_ms, uint8_t *c, struct zerr *err, const char *what)
{
	if (r->in_pos == r->in_len) {
		struct pollfd p = {.fd = r->fd, .events = POLLIN};
		int64_t until = clock_now_ns(CLOCK_MONOTONIC) / 1000000 + (wait_ms < 0 ? 0 : wait_ms);
		for (;;) {
			int left = (int)(until - clock_now_ns(CLOCK_MONOTONIC) / 1000000);
			int n = poll(&p, 1, left < 0 ? 0 : left);
			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0)
				return fail(r, err, "%s: poll: %s", what, strerror(errno));
			if (n == 0)
				return 1;
			break;
		}
		ssize_t got = recv(r->fd, r->in, sizeof r->in, 0);
		if (got < 0 && errno == EINTR)
			return get_byte(r, wait_ms, c, err, what);
		if (got <= 0)
			return fail(r, err, "%s: the connection was closed by the target%s%s", what,
				    got < 0 ? ": " : "", got < 0 ? strerror(errno) : "");
		r->in_pos = 0;
		r->in_len = (size_t)got;
	}
	*c = r->in[r->in_pos++];
	return 0;
}

static int put_bytes(struct rsp *r, const void *buf, size_t n, struct zerr *err, const char *what)
{
	const char *p = buf;
	while (n) {
		ssize_t put = send(r->fd, p, n, MSG_NOSIGNAL);
		if (put < 0 && errno == EINTR)
			continue;
		if (put < 0)
			return fail(r, err, "%s: the connection was closed by the target: %s", what,
				    strerror(errno));
		p += put;
		n -= (size_t)put;
	}
	return 0;
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static void pkt_push(struct rsp *r, char c)
{
	if (r->pkt_len + 2 > r->pkt_cap) {
		r->pkt_cap = r->pkt_cap ? 2 * r->pkt_cap : 4096;
		r->pkt = zp_xrealloc(r->pkt, r->pkt_cap);
	}
	r->pkt[r->pkt_len++] = c;
}

/*
 * Decodes the raw bytes between `$` and `#` into r->pkt: escapes and
 * run-length encoding.  -1 on a malformed run or escape.
 */
static int decode(struct rsp *r, const uint8_t *raw, size_t n)
{
	r->pkt_len = 0;
	for (size_t i = 0; i < n; i++) {
		if (raw[i] == '}') {
			if (++i == n)
				return -1;
			pkt_push(r, (char)(raw[i] ^ 0x20));
		} else if (raw[i] == '*') {
			if (++i == n || r->pkt_len == 0 || raw[i] < 29 + 3 || raw[i] > 126)
				return -1;
			char last = r->pkt[r->pkt_len - 1];
			for (int k = 0; k < raw[i] - 29; k++)
				pkt_push(r, last);
		} else {
			pkt_push(r, (char)raw[i]);
		}
	}
	pkt_push(r, 0);
	r->pkt_len--;
	return 0;
}

/*
 * Receives one packet into r->pkt and acknowledges it.  1 when none began
 * within wait_ms; stray acks before it are skipped.
 */
static int recv_packet(struct rsp *r, int wait_ms, struct zerr *err, const char *what)
{
	static uint8_t raw[1 << 17];
	for (int tries = 0;; tries++) {
		uint8_t c;
		int rc;
		do {
			if ((rc = get_byte(r, wait_ms, &c, err, what)) != 0)
				return rc;
		} while (c != '$');
		size_t n = 0;
		unsigned sum = 0;
		for (;;) {
			if ((rc = get_byte(r, r->timeout_ms, &c, err, what)) < 0)
				return -1;
			if (rc)
				return fail(r, err, "%s: the reply stopped after %zu bytes", what, n);
			if (c == '#')
				break;
			if (c == '$')
				return fail(r, err, "%s: malformed reply: '$' inside a packet", what);
			if (n == sizeof raw)
				return fail(r, err, "%s: reply longer than %zu bytes", what, sizeof raw);
			raw[n++] = c;
			sum += c;
		}
		uint8_t cc[2];
		for (int k = 0; k < 2; k++) {
			if ((rc = get_byte(r, r->timeout_ms, &cc[k], err, what)) < 0)
				return -1;
			if (rc)
				return fail(r, err, "%s: the reply stopped in its checksum", what);
		}
		int hi = hexval(cc[0]), lo = hexval(cc[1]);
		if (hi < 0 || lo < 0) {
			char bytes[3] = {(char)cc[0], (char)cc[1], 0}, buf[SHOWN_CAP];
			return fail(r, err, "%s: malformed reply: checksum '%s' is not hex", what,
				    shown(bytes, buf));
		}
		if ((unsigned)(hi * 16 + lo) != (sum & 0xff)) {
			if (tries == RETRIES)
				return fail(r, err,
					    "%s: bad checksum %02x (the data sum to %02x), %d times",
					    what, hi * 16 + lo, sum & 0xff, RETRIES + 1);
			if (put_bytes(r, "-", 1, err, what) < 0)
				return -1;
			continue;
		}
		/* a stub that ends (W, X) may close before our ack: the packet stands */
		put_bytes(r, "+", 1, NULL, what);
		if (decode(r, raw, n) < 0)
			return fail(r, err, "%s: malformed reply: a bad escape or run length", what);
		return 0;
	}
}

/* Frames data (escaping $ # } *), sends it and waits for its ack. */
static int send_packet(struct rsp *r, const char *data, size_t n, struct zerr *err,
		       const char *what)
{
	if (2 * n + 4 > r->out_cap) {
		r->out_cap = 2 * n + 4;
		r->out = zp_xrealloc(r->out, r->out_cap);
	}
	size_t k = 0;
	unsigned sum = 0;
	r->out[k++] = '$';
	for (size_t i = 0; i < n; i++) {
		char c = data[i];
		if (c == '$' || c == '#' || c == '}' || c == '*') {
			r->out[k++] = '}';
			sum += '}';
			c ^= 0x20;
		}
		r->out[k++] = c;
		sum += (uint8_t)c;
	}
	k += (size_t)sprintf(r->out + k, "#%02x", sum & 0xff);
	for (int tries = 0; tries <= RETRIES; tries++) {
		if (put_bytes(r, r->out, k, err, what) < 0)
			return -1;
		uint8_t c;
		int rc;
		do {
			if ((rc = get_byte(r, r->timeout_ms, &c, err, what)) < 0)
				return -1;
			if (rc)
				return fail(r, err, "%s: no reply within %d ms", what,
					    r->timeout_ms);
		} while (c != '+' && c != '-');
		if (c == '+')
			return 0;
	}
	return fail(r, err, "%s: the target refused the packet %d times (checksum)", what,
		    RETRIES + 1);
}

static int is_stop(const char *p)
{
	return (p[0] == 'T' || p[0] == 'S' || p[0] == 'W' || p[0] == 'X') &&
	       hexval(p[1]) >= 0 && hexval(p[2]) >= 0;
}

int rsp_request(struct rsp *r, const char *cmd, const char **reply, size_t *len,
		struct zerr *err)
{
	if (r->broken[0])
		return zerr_set(err, "%s", r->broken);
	char buf[SHOWN_CAP], rbuf[SHOWN_CAP];
	const char *what = shown(cmd, buf);
	if (send_packet(r, cmd, strlen(cmd), err, what) < 0)
		return -1;
	int rc = recv_packet(r, r->timeout_ms, err, what);
	if (rc < 0)
		return -1;
	if (rc)
		return fail(r, err, "%s: no reply within %d ms", what, r->timeout_ms);
	const char *p = r->pkt;
	if (p[0] == 'E' && r->pkt_len == 3 && hexval(p[1]) >= 0 && hexval(p[2]) >= 0)
		return zerr_set(err, "%s: %s: the target answered %s", r->name, what, p);
	if (is_stop(p) && cmd[0] != '?')
		return fail(r, err, "%s: unexpected stop reply %s (the target stopped)", what,
			    shown(p, rbuf));
	*reply = p;
	if (len)
		*len = r->pkt_len;
	return 0;
}

/* Reads qSupported's PacketSize and whether vCont;c exists. */
static int hello(struct rsp *r, struct zerr *err)
{
	const char *rep;
	if (rsp_request(r, "qSupported:swbreak+;xmlRegisters=riscv", &rep, NULL, err) < 0)
		return -1;
	const char *ps = strstr(rep, "PacketSize=");
	if (ps) {
		unsigned long long size = strtoull(ps + 11, NULL, 16);
		r->packet_size = size < 64 ? PACKET_MIN : size > PACKET_MAX ? PACKET_MAX : size;
	}
	if (rsp_request(r, "vCont?", &rep, NULL, err) < 0)
		return -1;
	r->vcont = strncmp(rep, "vCont", 5) == 0 && strstr(rep, ";c") != NULL;
	return 0;
}

struct rsp *rsp_open_fd(int fd, const char *name, int timeout_ms, struct zerr *err)
{
	struct rsp *r = zp_xcalloc(1, sizeof *r);
	r->fd = fd;
	snprintf(r->name, sizeof r->name, "%s", name);
	r->timeout_ms = timeout_ms;
	r->packet_size = PACKET_MIN;
	if (hello(r, err) < 0) {
		rsp_close(r);
		return NULL;
	}
	return r;
}

/* A socket connected to path (AF_UNIX), or -1 with errno set. */
static int dial_unix(const char *path)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	if (strlen(path) >= sizeof sa.sun_path) {
		errno = ENAMETOOLONG;
		return -1;
	}
	strcpy(sa.sun_path, path);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof sa) < 0) {
		int e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

/* A socket connected to HOST:PORT over TCP, or -1 with errno set (*gai on a bad name). */
static int dial_tcp(const char *hostport, int *gai)
{
	char host[256];
	const char *colon = strrchr(hostport, ':');
	size_t hl = (size_t)(colon - hostport);
	if (hl >= sizeof host) {
		*gai = EAI_NONAME;
		return -1;
	}
	memcpy(host, hostport, hl);
	host[hl] = 0;
	struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *ai;
	if ((*gai = getaddrinfo(host[0] ? host : "localhost", colon + 1, &hints, &ai)) != 0)
		return -1;
	int fd = -1, e = 0;
	for (struct addrinfo *a = ai; a && fd < 0; a = a->ai_next) {
		fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
		if (fd >= 0 && connect(fd, a->ai_addr, a->ai_addrlen) < 0) {
			e = errno;
			close(fd);
			fd = -1;
		}
	}
	freeaddrinfo(ai);
	if (fd < 0) {
		errno = e;
		return -1;
	}
	int one = 1; /* small packets go out at once, not after the peer's delayed ack */
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	return fd;
}

/* Connects to "/path" (a Unix socket) or HOST:PORT, retrying while nobody listens yet. */
static int dial(const char *where, int timeout_ms, struct zerr *err)
{
	int unix_socket = where[0] == '/';
	const char *colon = strrchr(where, ':');
	if (!unix_socket && (!colon || !colon[1]))
		return zerr_set(err, "%s: not HOST:PORT", where);
	int64_t until = clock_now_ns(CLOCK_MONOTONIC) / 1000000 + timeout_ms;
	for (;;) {
		int gai = 0;
		int fd = unix_socket ? dial_unix(where) : dial_tcp(where, &gai);
		if (fd >= 0)
			return fd;
		if (gai)
			return zerr_set(err, "%s: %s", where, gai_strerror(gai));
		int e = errno;
		if ((e != ECONNREFUSED && e != ENOENT) || clock_now_ns(CLOCK_MONOTONIC) / 1000000 >= until)
			return zerr_set(err, "%s: cannot connect: %s", where, strerror(e));
		nanosleep(&(struct timespec){0, 20 * 1000000}, NULL);
	}
}

struct rsp *rsp_connect(const char *hostport, const char *name, int timeout_ms, struct zerr *err)
{
	int fd = dial(hostport, timeout_ms, err);
	return fd < 0 ? NULL : rsp_open_fd(fd, name ? name : hostport, timeout_ms, err);
}

void rsp_close(struct rsp *r)
{
	if (!r)
		return;
	close(r->fd);
	free(r->pkt);
	free(r->out);
	free(r);
}

int rsp_gone(const struct rsp *r)
{
	return r->broken[0] != 0;
}

const char *rsp_name(const struct rsp *r)
{
	return r->name;
}

size_t rsp_packet_size(const struct rsp *r)
{
	return r->packet_size;
}

int rsp_features(struct rsp *r, const char *annex, char **xml, struct zerr *err)
{
	size_t n = 0, cap = 4096, chunk = r->packet_size - 8;
	char *out = zp_xmalloc(cap), cmd[256], abuf[SHOWN_CAP];
	for (;;) {
		snprintf(cmd, sizeof cmd, "qXfer:features:read:%s:%zx,%zx", annex, n, chunk);
		const char *rep;
		size_t len;
		if (rsp_request(r, cmd, &rep, &len, err) < 0) {
			free(out);
			return -1;
		}
		if (len == 0 || (rep[0] != 'l' && rep[0] != 'm')) {
			char rbuf[SHOWN_CAP];
			free(out);
			return zerr_set(err, "%s: %s: the target has no register description%s%s",
					r->name, shown(annex, abuf), len ? ": " : "",
					len ? shown(rep, rbuf) : "");
		}
		if (rep[0] == 'm' && len == 1) {
			free(out);
			return zerr_set(err, "%s: %s: a part of the register description with no data",
					r->name, shown(annex, abuf));
		}
		if (n + len > XML_MAX) {
			free(out);
			return zerr_set(err, "%s: %s: register description longer than %d bytes",
					r->name, shown(annex, abuf), XML_MAX);
		}
		if (n + len > cap) {
			cap = 2 * (n + len);
			out = zp_xrealloc(out, cap);
		}
		memcpy(out + n, rep + 1, len - 1);
		n += len - 1;
		if (rep[0] == 'l')
			break;
	}
	out[n] = 0;
	*xml = out;
	return 0;
}

struct xml_walk {
	struct rsp *r;
	struct rsp_regs *out;
	size_t cap;
	uint32_t next; /* regnum of a register without one */
	int depth, failed, in_arch;
	struct zerr *err;
};

static int parse_xml(struct xml_walk *w, const char *annex);

static const char *attr(const char **atts, const char *name)
{
	for (size_t i = 0; atts[i]; i += 2)
		if (strcmp(atts[i], name) == 0)
			return atts[i + 1];
	return NULL;
}

static void xml_start(void *arg, const char *el, const char **atts)
{
	struct xml_walk *w = arg;
	if (w->failed)
		return;
	if (strcmp(el, "architecture") == 0) {
		w->in_arch = 1;
	} else if (strcmp(el, "xi:include") == 0) {
		const char *href = attr(atts, "href");
		if (href && parse_xml(w, href) < 0)
			w->failed = 1;
	} else if (strcmp(el, "reg") == 0) {
		const char *name = attr(atts, "name"), *bits = attr(atts, "bitsize"),
			   *num = attr(atts, "regnum");
		if (!name || !bits)
			return;
		if (w->out->n == w->cap) {
			w->cap = w->cap ? 2 * w->cap : 128;
			w->out->regs = zp_xrealloc(w->out->regs, w->cap * sizeof *w->out->regs);
		}
		struct rsp_reg *g = &w->out->regs[w->out->n++];
		snprintf(g->name, sizeof g->name, "%s", name);
		g->bitsize = (uint32_t)strtoul(bits, NULL, 10);
		g->regnum = num ? (uint32_t)strtoul(num, NULL, 0) : w->next;
		w->next = g->regnum + 1;
	}
}

static void xml_end(void *arg, const char *el)
{
	struct xml_walk *w = arg;
	if (strcmp(el, "architecture") == 0)
		w->in_arch = 0;
}

static void xml_text(void *arg, const char *s, int len)
{
	struct xml_walk *w = arg;
	if (!w->in_arch)
		return;
	size_t have = strlen(w->out->arch), room = sizeof w->out->arch - 1 - have;
	size_t n = (size_t)len < room ? (size_t)len : room;
	memcpy(w->out->arch + have, s, n);
	w->out->arch[have + n] = 0;
}

static int parse_xml(struct xml_walk *w, const char *annex)
{
	char abuf[SHOWN_CAP];
	if (w->depth == XML_DEPTH)
		return zerr_set(w->err, "%s: %s: xi:include nested deeper than %d", w->r->name,
				shown(annex, abuf), XML_DEPTH);
	char *xml;
	if (rsp_features(w->r, annex, &xml, w->err) < 0)
		return -1;
	XML_Parser p = XML_ParserCreate(NULL);
	XML_SetUserData(p, w);
	XML_SetElementHandler(p, xml_start, xml_end);
	XML_SetCharacterDataHandler(p, xml_text);
	w->depth++;
	int ok = XML_Parse(p, xml, (int)strlen(xml), 1) == XML_STATUS_OK;
	w->depth--;
	int rc = 0;
	if (!ok)
		rc = zerr_set(w->err, "%s: %s line %lu: %s", w->r->name, shown(annex, abuf),
			      (unsigned long)XML_GetCurrentLineNumber(p),
			      XML_ErrorString(XML_GetErrorCode(p)));
	else if (w->failed)
		rc = -1;
	XML_ParserFree(p);
	free(xml);
	return rc;
}

int rsp_target_regs(struct rsp *r, struct rsp_regs *out, struct zerr *err)
{
	memset(out, 0, sizeof *out);
	struct xml_walk w = {.r = r, .out = out, .err = err};
	if (parse_xml(&w, "target.xml") < 0) {
		rsp_regs_free(out);
		return -1;
	}
	/* the architecture as a message may show it: no surrounding space, one line */
	char *a = out->arch, *end = a + strlen(a);
	while (a < end && strchr(" \t\r\n", *a))
		a++;
	while (end > a && strchr(" \t\r\n", end[-1]))
		end--;
	memmove(out->arch, a, (size_t)(end - a));
	out->arch[end - a] = 0;
	for (char *c = out->arch; *c; c++)
		if ((unsigned char)*c < 0x20 || (unsigned char)*c >= 0x7f)
			*c = '?';
	return 0;
}

void rsp_regs_free(struct rsp_regs *regs)
{
	free(regs->regs);
	memset(regs, 0, sizeof *regs);
}

const struct rsp_reg *rsp_reg_find(const struct rsp_regs *regs, const char *name)
{
	for (size_t i = 0; i < regs->n; i++)
		if (strcmp(regs->regs[i].name, name) == 0)
			return &regs->regs[i];
	return NULL;
}

/* Hex digits at s into n bytes; -1 when there are not 2n of them. */
static int unhex(const char *s, size_t len, uint8_t *out, size_t n)
{
	if (len < 2 * n)
		return -1;
	for (size_t i = 0; i < n; i++) {
		int hi = hexval(s[2 * i]), lo = hexval(s[2 * i + 1]);
		if (hi < 0 || lo < 0)
			return -1;
		out[i] = (uint8_t)(hi * 16 + lo);
	}
	return 0;
}

static size_t tohex(const uint8_t *b, size_t n, char *out)
{
	static const char digits[] = "0123456789abcdef";
	for (size_t i = 0; i < n; i++) {
		out[2 * i] = digits[b[i] >> 4];
		out[2 * i + 1] = digits[b[i] & 15];
	}
	out[2 * n] = 0;
	return 2 * n;
}

/* Bytes of memory one packet carries as hex, both ways. */
static size_t mem_chunk(const struct rsp *r)
{
	return (r->packet_size - 32) / 2;
}

int rsp_read_mem(struct rsp *r, uint64_t addr, void *buf, size_t n, struct zerr *err)
{
	uint8_t *b = buf;
	for (size_t done = 0; done < n;) {
		size_t k = n - done < mem_chunk(r) ? n - done : mem_chunk(r);
		char cmd[64];
		snprintf(cmd, sizeof cmd, "m%llx,%zx", (unsigned long long)(addr + done), k);
		const char *rep;
		size_t len;
		if (rsp_request(r, cmd, &rep, &len, err) < 0)
			return -1;
		if (unhex(rep, len, b + done, k) < 0)
			return zerr_set(err, "%s: %s: %zu bytes asked, the reply has %zu hex digits",
					r->name, cmd, k, len);
		done += k;
	}
	return 0;
}

int rsp_write_mem(struct rsp *r, uint64_t addr, const void *buf, size_t n, struct zerr *err)
{
	const uint8_t *b = buf;
	char *cmd = zp_xmalloc(2 * mem_chunk(r) + 64), rbuf[SHOWN_CAP];
	int rc = 0;
	for (size_t done = 0; done < n && rc == 0;) {
		size_t k = n - done < mem_chunk(r) ? n - done : mem_chunk(r);
		int at = sprintf(cmd, "M%llx,%zx:", (unsigned long long)(addr + done), k);
		tohex(b + done, k, cmd + at);
		const char *rep;
		if (rsp_request(r, cmd, &rep, NULL, err) < 0)
			rc = -1;
		else if (strcmp(rep, "OK") != 0)
			rc = zerr_set(err, "%s: M%llx,%zx: unexpected reply '%s'", r->name,
				      (unsigned long long)(addr + done), k, shown(rep, rbuf));
		done += k;
	}
	free(cmd);
	return rc;
}

int rsp_read_reg(struct rsp *r, uint32_t regnum, size_t bytes, uint64_t *value,
		 struct zerr *err)
{
	char cmd[32];
	snprintf(cmd, sizeof cmd, "p%x", regnum);
	const char *rep;
	size_t len;
	uint8_t b[8];
	if (bytes > 8 || rsp_request(r, cmd, &rep, &len, err) < 0)
		return bytes > 8 ? zerr_set(err, "%s: register %u wider than 8 bytes", r->name,
					    regnum)
				 : -1;
	char rbuf[SHOWN_CAP];
	if (unhex(rep, len, b, bytes) < 0)
		return zerr_set(err, "%s: %s: not a %zu-byte register: '%s'", r->name, cmd,
				bytes, shown(rep, rbuf));
	*value = 0;
	for (size_t i = 0; i < bytes; i++)
		*value |= (uint64_t)b[i] << (8 * i);
	return 0;
}

int rsp_write_reg(struct rsp *r, uint32_t regnum, size_t bytes, uint64_t value,
		  struct zerr *err)
{
	uint8_t b[8];
	for (size_t i = 0; i < 8; i++)
		b[i] = (uint8_t)(value >> (8 * i));
	char cmd[48];
	int at = snprintf(cmd, sizeof cmd, "P%x=", regnum);
	tohex(b, bytes > 8 ? 8 : bytes, cmd + at);
	const char *rep;
	char rbuf[SHOWN_CAP];
	if (rsp_request(r, cmd, &rep, NULL, err) < 0)
		return -1;
	if (strcmp(rep, "OK") != 0)
		return zerr_set(err, "%s: %s: unexpected reply '%s'", r->name, cmd,
				shown(rep, rbuf));
	return 0;
}

int rsp_read_gregs(struct rsp *r, uint8_t *buf, size_t cap, size_t *n, struct zerr *err)
{
	const char *rep;
	size_t len;
	if (rsp_request(r, "g", &rep, &len, err) < 0)
		return -1;
	size_t k = len / 2 < cap ? len / 2 : cap;
	char rbuf[SHOWN_CAP];
	if (len % 2 || unhex(rep, len, buf, k) < 0)
		return zerr_set(err, "%s: g: not hex: '%s'", r->name, shown(rep, rbuf));
	*n = k;
	return 0;
}

int rsp_break(struct rsp *r, uint64_t addr, int kind, int insert, struct zerr *err)
{
	char cmd[48];
	snprintf(cmd, sizeof cmd, "%c0,%llx,%d", insert ? 'Z' : 'z', (unsigned long long)addr,
		 kind);
	const char *rep;
	char rbuf[SHOWN_CAP];
	if (rsp_request(r, cmd, &rep, NULL, err) < 0)
		return -1;
	if (strcmp(rep, "OK") != 0)
		return zerr_set(err, "%s: %s: %s", r->name, cmd,
				rep[0] ? shown(rep, rbuf) : "the target has no software breakpoints");
	return 0;
}

/* Parses a stop reply in r->pkt; -1 when it is none. */
static int parse_stop(struct rsp *r, struct rsp_stop *stop)
{
	const char *p = r->pkt;
	if (!is_stop(p))
		return -1;
	memset(stop, 0, sizeof *stop);
	stop->kind = p[0];
	stop->value = hexval(p[1]) * 16 + hexval(p[2]);
	const char *t = strstr(p, "thread:");
	if (t) {
		size_t n = strcspn(t + 7, ";");
		snprintf(stop->thread, sizeof stop->thread, "%.*s", (int)n, t + 7);
	}
	return 0;
}

int rsp_halt_reason(struct rsp *r, struct rsp_stop *stop, struct zerr *err)
{
	const char *rep;
	char rbuf[SHOWN_CAP];
	if (rsp_request(r, "?", &rep, NULL, err) < 0)
		return -1;
	if (parse_stop(r, stop) < 0)
		return fail(r, err, "?: not a stop reply: '%s'", shown(rep, rbuf));
	return 0;
}

int rsp_continue(struct rsp *r, struct zerr *err)
{
	if (r->broken[0])
		return zerr_set(err, "%s", r->broken);
	const char *cmd = r->vcont ? "vCont;c" : "c";
	return send_packet(r, cmd, strlen(cmd), err, cmd);
}

int rsp_step(struct rsp *r, struct rsp_stop *stop, struct zerr *err)
{
	if (r->broken[0])
		return zerr_set(err, "%s", r->broken);
	if (send_packet(r, "s", 1, err, "s") < 0)
		return -1;
	int rc = rsp_wait_stop(r, -1, stop, err);
	return rc == 0 ? fail(r, err, "s: no stop reply to a single step") : rc < 0 ? -1 : 0;
}

int rsp_wait_stop(struct rsp *r, int timeout_ms, struct rsp_stop *stop, struct zerr *err)
{
	if (r->broken[0])
		return zerr_set(err, "%s", r->broken);
	int64_t until = clock_now_ns(CLOCK_MONOTONIC) / 1000000 +
			(timeout_ms < 0 ? r->timeout_ms : timeout_ms);
	for (;;) {
		int left = (int)(until - clock_now_ns(CLOCK_MONOTONIC) / 1000000);
		int rc = recv_packet(r, left < 0 ? 0 : left, err, "waiting for the target to stop");
		if (rc)
			return rc < 0 ? -1 : 0;
		if (r->pkt[0] == 'O' && r->pkt_len > 1)
			continue; /* console output */
		char rbuf[SHOWN_CAP];
		if (parse_stop(r, stop) < 0)
			return fail(r, err, "waiting for the target to stop: unexpected packet '%s'",
				    shown(r->pkt, rbuf));
		return 1;
	}
}

int rsp_interrupt(struct rsp *r, struct zerr *err)
{
	if (r->broken[0])
		return zerr_set(err, "%s", r->broken);
	return put_bytes(r, "\x03", 1, err, "interrupt");
}
