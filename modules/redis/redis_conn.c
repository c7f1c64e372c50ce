/*
 * Connections: TCP or unix socket, optionally TLS (OpenSSL on the socket:
 * Debian's hiredis 0.14 has no TLS), then AUTH and SELECT. Set-up is
 * blocking (thread_init, init, prepare); the workers then switch the socket
 * to non-blocking and drive it from their epoll loop with rd_read/rd_write.
 * Replies of set-up commands are parsed by hiredis's redisReader.
 */
#include <errno.h>
#include <fcntl.h>
#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include <hiredis/hiredis.h>
#include <openssl/err.h>
#include <openssl/x509v3.h>

#include "redis.h"

#define RD_IO_TIMEOUT_MS 5000	/* set-up commands; prepare's fills are pipelined */

int rd_parse_server(const char *spec, rd_server *out)
{
	memset(out, 0, sizeof(*out));
	if (spec[0] == '/' || spec[0] == '.') {
		if (strlen(spec) >= sizeof(((struct sockaddr_un *)0)->sun_path))
			return -1;
		snprintf(out->host, sizeof(out->host), "%s", spec);
		return 0;
	}
	const char *colon = strrchr(spec, ':');
	const char *h = spec;
	size_t hl = colon ? (size_t)(colon - spec) : strlen(spec);
	if (h[0] == '[' && hl > 1 && h[hl - 1] == ']') {	/* [::1]:6379 */
		h++;
		hl -= 2;
	}
	if (hl == 0 || hl >= sizeof(out->host))
		return -1;
	memcpy(out->host, h, hl);
	out->port = 6379;
	if (colon) {
		char *end;
		long p = strtol(colon + 1, &end, 10);
		if (*end || p <= 0 || p > 65535)
			return -1;
		out->port = (int)p;
	}
	return 0;
}

void rd_describe(const rd_server *srv, char *buf, size_t n)
{
	if (srv->port)
		snprintf(buf, n, "%s:%d", srv->host, srv->port);
	else
		snprintf(buf, n, "unix:%s", srv->host);
}

static void rd_ssl_reason(char *buf, size_t n)
{
	unsigned long e = ERR_get_error();
	if (e)
		ERR_error_string_n(e, buf, n);
	else
		snprintf(buf, n, "%s", errno ? strerror(errno) : "the peer closed the connection");
	ERR_clear_error();
}

int rd_tls_init(rd_state *s)
{
	const bench_host_api_v1 *api = s->api;
	const char *ca = s->opts->tls_ca, *cert = s->opts->tls_cert, *key = s->opts->tls_key;
	char why[256];
	s->ssl_ctx = SSL_CTX_new(TLS_client_method());
	if (!s->ssl_ctx)
		goto fail;
	SSL_CTX_set_min_proto_version(s->ssl_ctx, TLS1_2_VERSION);
	SSL_CTX_set_verify(s->ssl_ctx, SSL_VERIFY_PEER, NULL);
	if (*ca ? SSL_CTX_load_verify_locations(s->ssl_ctx, ca, NULL) != 1
		: SSL_CTX_set_default_verify_paths(s->ssl_ctx) != 1) {
		rd_ssl_reason(why, sizeof(why));
		api->error(s->ctx, NULL, "redis: cannot load the TLS CA", why,
			   "set tls_ca to a PEM file with the CA that signed the server's certificate");
		return -1;
	}
	if (*cert || *key) {
		if (!*cert || !*key || SSL_CTX_use_certificate_chain_file(s->ssl_ctx, cert) != 1 ||
		    SSL_CTX_use_PrivateKey_file(s->ssl_ctx, key, SSL_FILETYPE_PEM) != 1) {
			rd_ssl_reason(why, sizeof(why));
			api->error(s->ctx, NULL, "redis: cannot load the TLS client certificate",
				   *cert && *key ? why : "tls_cert and tls_key go together",
				   "set tls_cert and tls_key to PEM files of one certificate and its key");
			return -1;
		}
	}
	return 0;
fail:
	rd_ssl_reason(why, sizeof(why));
	api->error(s->ctx, NULL, "redis: TLS set-up failed", why, NULL);
	return -1;
}

static int rd_wait(int fd, short ev)
{
	struct pollfd p = { .fd = fd, .events = ev };
	int r;
	while ((r = poll(&p, 1, RD_IO_TIMEOUT_MS)) < 0 && errno == EINTR)
		;
	if (r == 0)
		errno = ETIMEDOUT;
	return r > 0 ? 0 : -1;
}

/* Connected, non-blocking socket to srv, or -1 with errno. */
static int rd_dial(const rd_server *srv)
{
	int fd = -1, err = ECONNREFUSED;
	if (!srv->port) {
		struct sockaddr_un a = { .sun_family = AF_UNIX };
		memcpy(a.sun_path, srv->host, strnlen(srv->host, sizeof(a.sun_path) - 1));
		fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof(a)) != 0) {
			err = errno;
			close(fd);
			fd = -1;
		}
	} else {
		struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *ai = NULL;
		char port[16];
		snprintf(port, sizeof(port), "%d", srv->port);
		if (getaddrinfo(srv->host, port, &hints, &ai) != 0) {
			errno = EHOSTUNREACH;
			return -1;
		}
		for (struct addrinfo *p = ai; p && fd < 0; p = p->ai_next) {
			fd = socket(p->ai_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
			if (fd < 0)
				continue;
			int r = connect(fd, p->ai_addr, p->ai_addrlen);
			if (r != 0 && errno == EINPROGRESS && rd_wait(fd, POLLOUT) == 0) {
				socklen_t l = sizeof(err);
				getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &l);
				r = err ? -1 : 0;
			} else if (r != 0) {
				err = errno;
			}
			if (r != 0) {
				close(fd);
				fd = -1;
			}
		}
		freeaddrinfo(ai);
		if (fd >= 0) {
			int one = 1;
			setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		}
	}
	if (fd < 0) {
		errno = err;
		return -1;
	}
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	return fd;
}

static int rd_tls_handshake(rd_state *s, const rd_server *srv, rd_sock *k, char *why, size_t n)
{
	k->ssl = SSL_new(s->ssl_ctx);
	if (!k->ssl || SSL_set_fd(k->ssl, k->fd) != 1)
		goto fail;
	SSL_set_mode(k->ssl, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
	if (srv->port) {
		struct in6_addr a6;
		struct in_addr a4;
		X509_VERIFY_PARAM *vp = SSL_get0_param(k->ssl);
		if (inet_pton(AF_INET, srv->host, &a4) == 1 || inet_pton(AF_INET6, srv->host, &a6) == 1) {
			X509_VERIFY_PARAM_set1_ip_asc(vp, srv->host);
		} else {
			SSL_set_tlsext_host_name(k->ssl, srv->host);
			X509_VERIFY_PARAM_set1_host(vp, srv->host, 0);
		}
	}
	for (;;) {
		ERR_clear_error();
		int r = SSL_connect(k->ssl);
		if (r == 1)
			return 0;
		int e = SSL_get_error(k->ssl, r);
		if ((e != SSL_ERROR_WANT_READ && e != SSL_ERROR_WANT_WRITE) ||
		    rd_wait(k->fd, e == SSL_ERROR_WANT_READ ? POLLIN : POLLOUT) != 0)
			break;
	}
fail:;
	long v = k->ssl ? SSL_get_verify_result(k->ssl) : X509_V_OK;
	if (v != X509_V_OK) {
		snprintf(why, n, "certificate verification failed: %s", X509_verify_cert_error_string(v));
		ERR_clear_error();
	} else {
		rd_ssl_reason(why, n);
	}
	return -1;
}

/* What SSL_read or SSL_write returned (r), as read(2) and write(2) say it:
   r bytes; -1 with errno EAGAIN when the call would block (TLS may want to
   read to write, or write to read); a clean close is 0 for a read, -1 with
   EPIPE for a write; otherwise -1 with the syscall's errno, or EPROTO. */
static ssize_t rd_ssl_result(rd_sock *k, int r, int writing)
{
	if (r > 0)
		return r;
	int e = SSL_get_error(k->ssl, r);
	if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) {
		errno = EAGAIN;
		return -1;
	}
	if (e == SSL_ERROR_ZERO_RETURN || (e == SSL_ERROR_SYSCALL && errno == 0)) {
		if (!writing)
			return 0;
		errno = e == SSL_ERROR_ZERO_RETURN ? EPIPE : EPROTO;
	} else if (e != SSL_ERROR_SYSCALL) {
		errno = EPROTO;
	}
	ERR_clear_error();
	return -1;
}

ssize_t rd_read(rd_sock *k, void *buf, size_t n)
{
	if (!k->ssl)
		return read(k->fd, buf, n);
	ERR_clear_error();
	return rd_ssl_result(k, SSL_read(k->ssl, buf, (int)(n > INT32_MAX ? INT32_MAX : n)), 0);
}

ssize_t rd_write(rd_sock *k, const void *buf, size_t n)
{
	if (!k->ssl)
		return write(k->fd, buf, n);
	ERR_clear_error();
	return rd_ssl_result(k, SSL_write(k->ssl, buf, (int)(n > INT32_MAX ? INT32_MAX : n)), 1);
}

static int rd_write_all(rd_sock *k, const char *buf, size_t len)
{
	while (len) {
		ssize_t w = rd_write(k, buf, len);
		if (w < 0 && errno == EAGAIN) {
			if (rd_wait(k->fd, POLLOUT) != 0)
				return -1;
			continue;
		}
		if (w <= 0)
			return -1;
		buf += w;
		len -= (size_t)w;
	}
	return 0;
}

/* Set-up replies (INFO, SCAN, CLUSTER SLOTS, a fill's +OK) are built as
   hiredis's redisReply objects, freed with freeReplyObject(), but by
   functions that count what one reply holds: more than RD_SETUP_MAX bytes
   of strings or RD_SETUP_ELEMS elements is refused (NULL: the reader
   fails), so a server cannot make the set-up allocate without bound (the
   stock functions calloc whatever element count an array announces). */
typedef struct rd_budget {
	size_t bytes, elems;
	char why[128];
} rd_budget;

static void *rd_setup_obj(const redisReadTask *task, int type)
{
	rd_budget *b = task->privdata;
	redisReply *r = calloc(1, sizeof(*r));
	if (!r) {
		snprintf(b->why, sizeof(b->why), "out of memory");
		return NULL;
	}
	r->type = type;
	if (task->parent) {
		redisReply *parent = task->parent->obj;
		parent->element[task->idx] = r;
	}
	return r;
}

static void *rd_setup_string(const redisReadTask *task, char *str, size_t len)
{
	rd_budget *b = task->privdata;
	if ((b->bytes += len) > RD_SETUP_MAX) {
		snprintf(b->why, sizeof(b->why), "a reply of more than %u bytes", RD_SETUP_MAX);
		return NULL;
	}
	char *copy = malloc(len + 1);
	if (!copy) {
		snprintf(b->why, sizeof(b->why), "out of memory");
		return NULL;
	}
	redisReply *r = rd_setup_obj(task, task->type);
	if (!r) {
		free(copy);
		return NULL;
	}
	memcpy(copy, str, len);
	copy[len] = '\0';
	r->str = copy;
	r->len = len;
	return r;
}

static void *rd_setup_array(const redisReadTask *task, rd_array_len n)
{
	rd_budget *b = task->privdata;
	if (n > 0 && (b->elems += (size_t)n) > RD_SETUP_ELEMS) {
		snprintf(b->why, sizeof(b->why), "a reply of more than %u elements", RD_SETUP_ELEMS);
		return NULL;
	}
	redisReply **el = n > 0 ? calloc((size_t)n, sizeof(*el)) : NULL;
	if (n > 0 && !el) {
		snprintf(b->why, sizeof(b->why), "out of memory");
		return NULL;
	}
	redisReply *r = rd_setup_obj(task, REDIS_REPLY_ARRAY);
	if (!r) {
		free(el);
		return NULL;
	}
	r->element = el;
	r->elements = n > 0 ? (size_t)n : 0;
	return r;
}

static void *rd_setup_integer(const redisReadTask *task, long long v)
{
	redisReply *r = rd_setup_obj(task, REDIS_REPLY_INTEGER);
	if (r)
		r->integer = v;
	return r;
}

static void *rd_setup_nil(const redisReadTask *task)
{
	return rd_setup_obj(task, REDIS_REPLY_NIL);
}

static redisReplyObjectFunctions rd_setup_fns = {
	.createString = rd_setup_string,
	.createArray = rd_setup_array,
	.createInteger = rd_setup_integer,
	.createNil = rd_setup_nil,
	.freeObject = freeReplyObject,
};

/* Reads replies until one is complete; the reply or NULL with *why. What
   the reader buffers (one partial reply) is bounded by RD_SETUP_MAX too. */
static void *rd_read_reply(rd_sock *k, redisReader *r, char *why, size_t n)
{
	void *reply = NULL;
	char buf[16384];
	rd_budget *b = r->privdata;
	b->bytes = b->elems = 0;
	b->why[0] = '\0';
	for (;;) {
		if (redisReaderGetReply(r, &reply) != REDIS_OK) {
			snprintf(why, n, "protocol error: %s", b->why[0] ? b->why : r->errstr);
			return NULL;
		}
		if (reply)
			return reply;
		if (r->len - r->pos > RD_SETUP_MAX) {
			snprintf(why, n, "protocol error: a reply still incomplete after %u bytes", RD_SETUP_MAX);
			return NULL;
		}
		ssize_t got = rd_read(k, buf, sizeof(buf));
		if (got < 0 && errno == EAGAIN && (!k->ssl || !SSL_pending(k->ssl))) {
			if (rd_wait(k->fd, POLLIN) != 0) {
				snprintf(why, n, "no reply within %d ms", RD_IO_TIMEOUT_MS);
				return NULL;
			}
			continue;
		}
		if (got <= 0) {
			snprintf(why, n, "%s", got == 0 ? "the server closed the connection" : strerror(errno));
			return NULL;
		}
		if (redisReaderFeed(r, buf, (size_t)got) != REDIS_OK) {
			snprintf(why, n, "out of memory buffering a reply");
			return NULL;
		}
	}
}

/* A reader for set-up replies, with its budget b. */
static redisReader *rd_reader(rd_budget *b)
{
	redisReader *r = redisReaderCreateWithFunctions(&rd_setup_fns);
	if (r)
		redisReaderSetPrivdata(r, b);
	return r;
}

void *rd_command(rd_state *s, rd_sock *k, int argc, const char **argv, const size_t *lens)
{
	char *buf = NULL, why[256];
	size_t len = 0, cap = 0;
	rd_budget b;
	redisReader *r = rd_reader(&b);
	void *reply = NULL;
	if (!r || rd_resp_append(&buf, &len, &cap, argc, argv, lens) != 0)
		snprintf(why, sizeof(why), "out of memory for %s", argv[0]);
	else if (rd_write_all(k, buf, len) != 0)
		snprintf(why, sizeof(why), "sending %s failed: %s", argv[0], strerror(errno));
	else
		reply = rd_read_reply(k, r, why, sizeof(why));
	free(buf);
	if (r)
		redisReaderFree(r);
	if (!reply)
		s->api->error(s->ctx, NULL, "redis: the server did not answer", why,
			      "check that the server is up and reachable (server=...)");
	return reply;
}

void *rd_commandf(rd_state *s, rd_sock *k, const char *words)
{
	char copy[1024];
	const char *argv[RD_MAX_ARGS];
	size_t lens[RD_MAX_ARGS];
	int argc = 0;
	snprintf(copy, sizeof(copy), "%s", words);
	for (char *save = NULL, *w = strtok_r(copy, " ", &save); w && argc < RD_MAX_ARGS; w = strtok_r(NULL, " ", &save)) {
		argv[argc] = w;
		lens[argc++] = strlen(w);
	}
	return rd_command(s, k, argc, argv, lens);
}

int rd_pipeline(rd_state *s, rd_sock *k, const char *buf, size_t len, unsigned n)
{
	char why[256] = "";
	rd_budget b;
	redisReader *r = rd_reader(&b);
	int rc = r ? rd_write_all(k, buf, len) : -1;
	if (!r)
		snprintf(why, sizeof(why), "out of memory");
	else if (rc != 0)
		snprintf(why, sizeof(why), "write: %s", strerror(errno));
	for (unsigned i = 0; i < n && rc == 0; i++) {
		redisReply *rep = rd_read_reply(k, r, why, sizeof(why));
		if (!rep) {
			rc = -1;
		} else if (rep->type == REDIS_REPLY_ERROR) {
			snprintf(why, sizeof(why), "%s", rep->str);
			rc = -1;
		}
		if (rep)
			freeReplyObject(rep);
	}
	if (r)
		redisReaderFree(r);
	if (rc != 0)
		s->api->error(s->ctx, NULL, "redis: preparing the test's data failed", why, NULL);
	return rc;
}

/* AUTH and SELECT on a fresh connection; -1 after api->error(). */
static int rd_handshake(rd_state *s, bench_thread *t, rd_sock *k, const char *where)
{
	const bench_host_api_v1 *api = s->api;
	char detail[512];
	if (*s->password) {
		const char *argv[3] = { "AUTH" };
		size_t lens[3] = { 4 };
		int argc = 1;
		if (*s->user) {
			argv[argc] = s->user;
			lens[argc++] = strlen(s->user);
		}
		argv[argc] = s->password;
		lens[argc++] = strlen(s->password);
		redisReply *r = rd_command(s, k, argc, argv, lens);
		if (!r)
			return -1;
		if (r->type == REDIS_REPLY_ERROR) {
			/* the server's message never contains the password */
			snprintf(detail, sizeof(detail), "%s answered AUTH%s%s with: %s", where,
				 *s->user ? " as user " : "", s->user, r->str);
			freeReplyObject(r);
			api->error(s->ctx, t, "redis: authentication failed", detail,
				   "check user and password (or password_env / password_file)");
			return -1;
		}
		freeReplyObject(r);
	}
	char sel[64];
	snprintf(sel, sizeof(sel), s->db ? "SELECT %d" : "PING", s->db);
	redisReply *r = rd_commandf(s, k, sel);
	if (!r)
		return -1;
	if (r->type == REDIS_REPLY_ERROR) {
		int noauth = !strncmp(r->str, "NOAUTH", 6);
		snprintf(detail, sizeof(detail), "%s answered %s with: %s", where, s->db ? "SELECT" : "PING", r->str);
		freeReplyObject(r);
		api->error(s->ctx, t, noauth ? "redis: the server requires a password" : "redis: the server refused the connection",
			   detail, noauth ? "set password (or password_env / password_file), and user for an ACL user" :
			   s->db ? "check db (a cluster has only db 0)" : NULL);
		return -1;
	}
	freeReplyObject(r);
	return 0;
}

int rd_connect(rd_state *s, bench_thread *t, const rd_server *srv, rd_sock *out)
{
	char where[300], why[400];
	rd_describe(srv, where, sizeof(where));
	out->ssl = NULL;
	out->fd = rd_dial(srv);
	if (out->fd < 0) {
		snprintf(why, sizeof(why), "connecting to %s: %s", where, strerror(errno));
		s->api->error(s->ctx, t, "redis: cannot connect to the server", why,
			      s->private_server ? "the private server (server_bin) stopped: see its log" :
			      "check server= (host:port or a unix socket path) and that Redis or Valkey runs there");
		return -1;
	}
	if (s->tls && rd_tls_handshake(s, srv, out, why, sizeof(why)) != 0) {
		char d[800];
		snprintf(d, sizeof(d), "TLS handshake with %s: %s", where, why);
		rd_close(out);
		s->api->error(s->ctx, t, "redis: TLS handshake failed", d,
			      "check tls_ca (the CA of the server's certificate), tls_cert/tls_key, and that the port speaks TLS");
		return -1;
	}
	if (rd_handshake(s, t, out, where) != 0) {
		rd_close(out);
		return -1;
	}
	return 0;
}

void rd_close(rd_sock *k)
{
	if (k->ssl) {
		SSL_free(k->ssl);
		k->ssl = NULL;
	}
	if (k->fd >= 0)
		close(k->fd);
	k->fd = -1;
}
