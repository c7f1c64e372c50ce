/* net: control-message framing, parsing and encoding (see net_proto.h).
 * Depends on jansson and the C library only: the fuzz target links it alone. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#include "net_proto.h"

/* Indexed by enum net_test: the names on the wire, and the test option's
   choices, whose index the host hands the module (net.c). */
const char *const net_test_names[NET_NTESTS + 1] = {
	[NET_TCP_STREAM] = "tcp_stream", [NET_TCP_RR] = "tcp_rr", [NET_TCP_CRR] = "tcp_crr",
	[NET_UDP_STREAM] = "udp_stream", [NET_UDP_RR] = "udp_rr", [NET_NTESTS] = NULL,
};

static const char *const net_mtype_names[NET_M_N] = {
	[NET_M_NONE] = "none", [NET_M_HELLO] = "hello", [NET_M_BUSY] = "busy", [NET_M_TEST] = "test",
	[NET_M_READY] = "ready", [NET_M_STOP] = "stop", [NET_M_RESULTS] = "results",
	[NET_M_ERROR] = "error", [NET_M_MARK] = "mark",
};

const char *net_mtype_name(int type)
{
	return type > 0 && type < NET_M_N ? net_mtype_names[type] : "none";
}

int net_frame_len(const unsigned char hdr[4], uint32_t *len)
{
	*len = (uint32_t)hdr[0] << 24 | (uint32_t)hdr[1] << 16 | (uint32_t)hdr[2] << 8 | hdr[3];
	return *len == 0 || *len > NET_MAX_MSG ? -1 : 0;
}

void net_frame_hdr(uint32_t len, unsigned char hdr[4])
{
	hdr[0] = (unsigned char)(len >> 24);
	hdr[1] = (unsigned char)(len >> 16);
	hdr[2] = (unsigned char)(len >> 8);
	hdr[3] = (unsigned char)len;
}

void net_hex_encode(const unsigned char *in, size_t n, char *out)
{
	static const char digits[] = "0123456789abcdef";
	for (size_t i = 0; i < n; i++) {
		out[2 * i] = digits[in[i] >> 4];
		out[2 * i + 1] = digits[in[i] & 15];
	}
	out[2 * n] = '\0';
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int net_hex_decode(const char *hex, unsigned char *out, size_t n)
{
	if (strlen(hex) != 2 * n)
		return -1;
	for (size_t i = 0; i < n; i++) {
		int hi = hexval(hex[2 * i]), lo = hexval(hex[2 * i + 1]);
		if (hi < 0 || lo < 0)
			return -1;
		out[i] = (unsigned char)(hi << 4 | lo);
	}
	return 0;
}

/* ------------------------------------------------------------ parsing */

typedef struct pctx {
	json_t *o;
	char *err;
	size_t errlen;
} pctx;

static int bad(pctx *c, const char *key, const char *why)
{
	snprintf(c->err, c->errlen, "\"%s\" %s", key, why);
	return -1;
}

/* An integer key in [lo, hi]; absent: *out keeps its value unless required. */
static int get_u64(pctx *c, const char *key, uint64_t lo, uint64_t hi, int required, uint64_t *out)
{
	json_t *v = json_object_get(c->o, key);
	if (!v)
		return required ? bad(c, key, "is missing") : 0;
	if (!json_is_integer(v))
		return bad(c, key, "must be an integer");
	json_int_t i = json_integer_value(v);
	if (i < 0 || (uint64_t)i < lo || (uint64_t)i > hi)
		return bad(c, key, "is out of range");
	*out = (uint64_t)i;
	return 0;
}

static int get_int(pctx *c, const char *key, int lo, int hi, int required, int *out)
{
	uint64_t v = (uint64_t)*out;
	if (get_u64(c, key, (uint64_t)lo, (uint64_t)hi, required, &v))
		return -1;
	*out = (int)v;
	return 0;
}

static int get_double(pctx *c, const char *key, double *out)
{
	json_t *v = json_object_get(c->o, key);
	if (!v)
		return 0;
	if (!json_is_number(v))
		return bad(c, key, "must be a number");
	double d = json_number_value(v);
	if (!(d >= 0 && d <= 1e18))
		return bad(c, key, "is out of range");
	*out = d;
	return 0;
}

static int get_bool(pctx *c, const char *key, int required, int *out)
{
	json_t *v = json_object_get(c->o, key);
	if (!v)
		return required ? bad(c, key, "is missing") : 0;
	if (!json_is_boolean(v))
		return bad(c, key, "must be true or false");
	*out = json_is_true(v);
	return 0;
}

/* A string key copied into out (size n); non-printable bytes become '?' so a
   message from the peer is safe to print. */
static int get_str(pctx *c, const char *key, int required, char *out, size_t n)
{
	json_t *v = json_object_get(c->o, key);
	if (!v)
		return required ? bad(c, key, "is missing") : 0;
	if (!json_is_string(v))
		return bad(c, key, "must be a string");
	size_t l = json_string_length(v);
	if (l >= n)
		return bad(c, key, "is too long");
	memcpy(out, json_string_value(v), l);
	out[l] = '\0';
	for (size_t i = 0; i < l; i++)
		if (!isprint((unsigned char)out[i]))
			out[i] = '?';
	return 0;
}

static int get_hex(pctx *c, const char *key, int required, size_t bytes, char *out)
{
	unsigned char tmp[64];
	if (get_str(c, key, required, out, 2 * bytes + 1))
		return -1;
	if ((out[0] || required) && net_hex_decode(out, tmp, bytes))
		return bad(c, key, "must be hex digits of the right length");
	return 0;
}

static int parse_test(pctx *c, net_msg *m)
{
	char name[32] = "";
	net_params *p = &m->p;
	if (get_hex(c, "auth", 0, NET_PROOF_LEN, m->proof) ||
	    get_hex(c, "challenge", 0, NET_CHALLENGE_LEN, m->challenge) ||
	    get_str(c, "test", 1, name, sizeof(name)))
		return -1;
	for (p->test = 0; net_test_names[p->test] && strcmp(net_test_names[p->test], name); p->test++)
		;
	if (!net_test_names[p->test])
		return bad(c, "test", "names an unknown test");
	uint64_t flows = 1, threads = 1;
	if (get_u64(c, "flows", 1, NET_MAX_FLOWS, 1, &flows) ||
	    get_u64(c, "threads", 1, NET_MAX_THREADS, 1, &threads) ||
	    get_u64(c, "msg_size", 1, 64u << 20, 1, &p->msg_size) ||
	    get_u64(c, "window", 0, 1u << 30, 0, &p->window) ||
	    get_u64(c, "pacing_rate", 0, UINT32_MAX, 0, &p->pacing_rate) ||
	    get_bool(c, "reverse", 0, &p->reverse) || get_bool(c, "bidir", 0, &p->bidir) ||
	    get_bool(c, "nodelay", 0, &p->nodelay) || get_bool(c, "zerocopy", 0, &p->zerocopy) ||
	    get_str(c, "congestion", 0, p->congestion, sizeof(p->congestion)))
		return -1;
	p->flows = (uint32_t)flows;
	p->threads = (uint32_t)threads;
	if ((p->test == NET_UDP_STREAM || p->test == NET_UDP_RR) &&
	    (p->msg_size < NET_UDP_HDR || p->msg_size > 65507))
		return bad(c, "msg_size", "must be 32 .. 65507 for a udp test");
	for (const char *s = p->congestion; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_' && *s != '-')
			return bad(c, "congestion", "must be a congestion control name");
	return 0;
}

static int parse_results(pctx *c, net_results *r)
{
	const uint64_t big = UINT64_MAX >> 1;
	return get_u64(c, "bytes_rx", 0, big, 0, &r->bytes_rx) ||
	       get_u64(c, "bytes_tx", 0, big, 0, &r->bytes_tx) ||
	       get_u64(c, "transactions", 0, big, 0, &r->transactions) ||
	       get_u64(c, "packets", 0, big, 0, &r->packets) ||
	       get_u64(c, "lost", 0, big, 0, &r->lost) ||
	       get_u64(c, "out_of_order", 0, big, 0, &r->out_of_order) ||
	       get_u64(c, "retransmits", 0, big, 0, &r->retransmits) ||
	       get_u64(c, "conns", 0, big, 0, &r->conns) ||
	       get_double(c, "jitter_us", &r->jitter_us) || get_double(c, "cpu_s", &r->cpu_s) ||
	       get_double(c, "wall_s", &r->wall_s) ? -1 : 0;
}

static int parse_fields(pctx *c, net_msg *m)
{
	uint64_t mc = 0;
	switch (m->type) {
	case NET_M_HELLO:
		return get_bool(c, "auth", 1, &m->auth_required) ||
		       get_hex(c, "challenge", 1, NET_CHALLENGE_LEN, m->challenge) ? -1 : 0;
	case NET_M_BUSY:
		if (get_u64(c, "max_clients", 0, 1u << 20, 0, &mc))
			return -1;
		m->max_clients = (unsigned)mc;
		return get_str(c, "message", 0, m->message, sizeof(m->message));
	case NET_M_TEST:
		return parse_test(c, m);
	case NET_M_READY:
		return get_hex(c, "cookie", 1, NET_COOKIE_LEN, m->cookie) ||
		       get_int(c, "data_port", 1, 65535, 1, &m->data_port) ||
		       get_int(c, "udp_port", 0, 65535, 0, &m->udp_port) ||
		       get_bool(c, "mark", 0, &m->mark) ||
		       get_hex(c, "auth", 0, NET_PROOF_LEN, m->proof) ? -1 : 0;
	case NET_M_RESULTS:
		return parse_results(c, &m->r);
	case NET_M_ERROR:
		return get_str(c, "code", 1, m->code, sizeof(m->code)) ||
		       get_str(c, "message", 0, m->message, sizeof(m->message)) ? -1 : 0;
	default:
		return 0;
	}
}

int net_msg_parse(const char *buf, size_t len, net_msg *m, char *err, size_t errlen)
{
	json_error_t je;
	memset(m, 0, sizeof(*m));
	if (len == 0 || len > NET_MAX_MSG) {
		snprintf(err, errlen, "message length %zu is outside 1 .. %u", len, NET_MAX_MSG);
		return -1;
	}
	json_t *o = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &je);
	if (!o) {
		snprintf(err, errlen, "not JSON (%s)", je.text);
		return -1;
	}
	pctx c = { o, err, errlen };
	int rc = -1, v = 0;
	char type[16] = "";
	if (!json_is_object(o)) {
		snprintf(err, errlen, "not a JSON object");
		goto out;
	}
	if (get_str(&c, "type", 1, type, sizeof(type)) || get_int(&c, "v", 0, 1 << 20, 1, &v))
		goto out;
	if (v != NET_PROTO_VERSION) {
		snprintf(err, errlen, "protocol version %d, this side speaks %d", v, NET_PROTO_VERSION);
		goto out;
	}
	for (m->type = 1; m->type < NET_M_N && strcmp(net_mtype_names[m->type], type); m->type++)
		;
	if (m->type == NET_M_N) {
		m->type = NET_M_NONE;
		snprintf(err, errlen, "unknown message type \"%s\"", type);
		goto out;
	}
	rc = parse_fields(&c, m);
out:
	json_decref(o);
	return rc;
}

/* ----------------------------------------------------------- encoding */

static void put_params(json_t *o, const net_params *p)
{
	json_object_set_new(o, "test", json_string(net_test_names[p->test]));
	json_object_set_new(o, "flows", json_integer(p->flows));
	json_object_set_new(o, "threads", json_integer(p->threads));
	json_object_set_new(o, "msg_size", json_integer((json_int_t)p->msg_size));
	json_object_set_new(o, "window", json_integer((json_int_t)p->window));
	json_object_set_new(o, "pacing_rate", json_integer((json_int_t)p->pacing_rate));
	json_object_set_new(o, "reverse", json_boolean(p->reverse));
	json_object_set_new(o, "bidir", json_boolean(p->bidir));
	json_object_set_new(o, "nodelay", json_boolean(p->nodelay));
	json_object_set_new(o, "zerocopy", json_boolean(p->zerocopy));
	json_object_set_new(o, "congestion", json_string(p->congestion));
}

static void put_results(json_t *o, const net_results *r)
{
	json_object_set_new(o, "bytes_rx", json_integer((json_int_t)r->bytes_rx));
	json_object_set_new(o, "bytes_tx", json_integer((json_int_t)r->bytes_tx));
	json_object_set_new(o, "transactions", json_integer((json_int_t)r->transactions));
	json_object_set_new(o, "packets", json_integer((json_int_t)r->packets));
	json_object_set_new(o, "lost", json_integer((json_int_t)r->lost));
	json_object_set_new(o, "out_of_order", json_integer((json_int_t)r->out_of_order));
	json_object_set_new(o, "retransmits", json_integer((json_int_t)r->retransmits));
	json_object_set_new(o, "conns", json_integer((json_int_t)r->conns));
	json_object_set_new(o, "jitter_us", json_real(r->jitter_us));
	json_object_set_new(o, "cpu_s", json_real(r->cpu_s));
	json_object_set_new(o, "wall_s", json_real(r->wall_s));
}

char *net_msg_encode(const net_msg *m, size_t *len)
{
	json_t *o = json_object();
	json_object_set_new(o, "type", json_string(net_mtype_name(m->type)));
	json_object_set_new(o, "v", json_integer(NET_PROTO_VERSION));
	switch (m->type) {
	case NET_M_HELLO:
		json_object_set_new(o, "auth", json_boolean(m->auth_required));
		json_object_set_new(o, "challenge", json_string(m->challenge));
		break;
	case NET_M_BUSY:
		json_object_set_new(o, "max_clients", json_integer(m->max_clients));
		json_object_set_new(o, "message", json_string(m->message));
		break;
	case NET_M_TEST:
		if (m->proof[0])
			json_object_set_new(o, "auth", json_string(m->proof));
		if (m->challenge[0])
			json_object_set_new(o, "challenge", json_string(m->challenge));
		put_params(o, &m->p);
		break;
	case NET_M_READY:
		json_object_set_new(o, "cookie", json_string(m->cookie));
		json_object_set_new(o, "data_port", json_integer(m->data_port));
		json_object_set_new(o, "udp_port", json_integer(m->udp_port));
		json_object_set_new(o, "mark", json_boolean(m->mark));
		if (m->proof[0])
			json_object_set_new(o, "auth", json_string(m->proof));
		break;
	case NET_M_RESULTS:
		put_results(o, &m->r);
		break;
	case NET_M_ERROR:
		json_object_set_new(o, "code", json_string(m->code));
		json_object_set_new(o, "message", json_string(m->message));
		break;
	default:
		break;
	}
	char *s = json_dumps(o, JSON_COMPACT);
	json_decref(o);
	if (s)
		*len = strlen(s);
	return s;
}
