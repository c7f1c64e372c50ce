/* net: blocking socket helpers with timeouts, addresses, socket options,
 * authentication. Every read here has a deadline: a peer that sends half a
 * message and goes quiet costs a timeout, never a hang. */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/random.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include "net.h"

#ifndef SO_ZEROCOPY
#define SO_ZEROCOPY 60
#endif

const char *net_strerr(int code)
{
	switch (code) {
	case NET_E_TIMEOUT: return "timed out";
	case NET_E_EOF: return "connection closed by the peer";
	case NET_E_STOP: return "stopped";
	case NET_E_TOOLONG: return "message too long";
	case NET_E_PARSE: return "malformed message";
	case NET_E_IO: return errno ? strerror(errno) : "I/O error";
	default: return "ok";
	}
}

static uint64_t mono_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

int net_wait(int fd, short ev, int timeout_ms, int stop_fd)
{
	struct pollfd p[2] = { { .fd = fd, .events = ev }, { .fd = stop_fd, .events = POLLIN } };
	uint64_t end = timeout_ms >= 0 ? mono_ms() + (uint64_t)timeout_ms : 0;
	for (;;) {
		int left = -1;
		if (timeout_ms >= 0) {
			uint64_t now = mono_ms();
			left = now >= end ? 0 : (int)(end - now);
		}
		int n = poll(p, stop_fd >= 0 ? 2 : 1, left);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return NET_E_IO;
		if (stop_fd >= 0 && (p[1].revents & POLLIN))
			return NET_E_STOP;
		if (n == 0)
			return NET_E_TIMEOUT;
		return 1;	/* ready, or an error condition the next call reports */
	}
}

/* One deadline for the whole buffer, not per chunk: a peer trickling a byte
   a second cannot hold a reader forever. */
int net_read_full(int fd, void *buf, size_t n, int timeout_ms, int stop_fd)
{
	size_t got = 0;
	uint64_t end = mono_ms() + (uint64_t)(timeout_ms < 0 ? 0 : timeout_ms);
	while (got < n) {
		uint64_t now = mono_ms();
		int left = timeout_ms < 0 ? -1 : now >= end ? 0 : (int)(end - now);
		int w = net_wait(fd, POLLIN, left, stop_fd);
		if (w <= 0)
			return w;
		ssize_t r = recv(fd, (char *)buf + got, n - got, MSG_DONTWAIT);
		if (r == 0)
			return NET_E_EOF;
		if (r < 0 && (errno == EAGAIN || errno == EINTR))
			continue;
		if (r < 0)
			return NET_E_IO;
		got += (size_t)r;
	}
	return NET_OK;
}

int net_write_full(int fd, const void *buf, size_t n, int timeout_ms)
{
	size_t put = 0;
	uint64_t end = mono_ms() + (uint64_t)(timeout_ms < 0 ? 0 : timeout_ms);
	while (put < n) {
		uint64_t now = mono_ms();
		int left = timeout_ms < 0 ? -1 : now >= end ? 0 : (int)(end - now);
		int w = net_wait(fd, POLLOUT, left, -1);
		if (w <= 0)
			return w;
		ssize_t r = send(fd, (const char *)buf + put, n - put, MSG_DONTWAIT | MSG_NOSIGNAL);
		if (r < 0 && (errno == EAGAIN || errno == EINTR))
			continue;
		if (r < 0)
			return errno == EPIPE || errno == ECONNRESET ? NET_E_EOF : NET_E_IO;
		put += (size_t)r;
	}
	return NET_OK;
}

int net_send_msg(int fd, const net_msg *m, int timeout_ms)
{
	size_t len = 0;
	char *body = net_msg_encode(m, &len);
	if (!body)
		return NET_E_IO;
	unsigned char *frame = malloc(len + 4);
	int rc = NET_E_IO;
	if (frame) {
		net_frame_hdr((uint32_t)len, frame);
		memcpy(frame + 4, body, len);
		rc = net_write_full(fd, frame, len + 4, timeout_ms);
	}
	free(frame);
	free(body);
	return rc;
}

int net_recv_msg(int fd, net_msg *m, int timeout_ms, int stop_fd, char *err, size_t errlen)
{
	unsigned char hdr[4];
	uint32_t len;
	memset(m, 0, sizeof(*m));
	/* one deadline for header and body: a peer trickling the length and
	   then the body gets timeout_ms in all, not twice */
	uint64_t end = mono_ms() + (uint64_t)(timeout_ms < 0 ? 0 : timeout_ms);
	int rc = net_read_full(fd, hdr, 4, timeout_ms, stop_fd);
	if (rc)
		return rc;
	if (net_frame_len(hdr, &len)) {
		snprintf(err, errlen, "length prefix %u is outside 1 .. %u", len, NET_MAX_MSG);
		return NET_E_TOOLONG;
	}
	char *body = malloc(len);
	if (!body)
		return NET_E_IO;
	uint64_t now = mono_ms();
	rc = net_read_full(fd, body, len, timeout_ms < 0 ? -1 : now >= end ? 0 : (int)(end - now), stop_fd);
	if (rc == NET_OK && net_msg_parse(body, len, m, err, errlen))
		rc = NET_E_PARSE;
	free(body);
	return rc;
}

/* ------------------------------------------------------------ addresses */

int net_split_hostport(const char *s, char *host, size_t hostlen, int *port, int defport)
{
	const char *colon;
	size_t hl;
	*port = defport;
	if (s[0] == '[') {
		const char *close = strchr(s, ']');
		if (!close)
			return -1;
		hl = (size_t)(close - s - 1);
		s++;
		colon = close[1] == ':' ? close + 1 : NULL;
		if (close[1] && !colon)
			return -1;
	} else {
		colon = strrchr(s, ':');
		if (colon && strchr(s, ':') != colon)
			colon = NULL;	/* a bare IPv6 address */
		hl = colon ? (size_t)(colon - s) : strlen(s);
	}
	if (hl == 0 || hl >= hostlen)
		return -1;
	memcpy(host, s, hl);
	host[hl] = '\0';
	if (colon) {
		char *end;
		long p = strtol(colon + 1, &end, 10);
		if (*end || end == colon + 1 || p < 1 || p > 65535)
			return -1;
		*port = (int)p;
	}
	return 0;
}

void net_addr_text(const struct sockaddr *sa, char *buf, size_t n)
{
	char h[INET6_ADDRSTRLEN] = "?";
	int port = 0;
	if (sa->sa_family == AF_INET) {
		const struct sockaddr_in *a = (const struct sockaddr_in *)sa;
		inet_ntop(AF_INET, &a->sin_addr, h, sizeof(h));
		port = ntohs(a->sin_port);
		snprintf(buf, n, "%s:%d", h, port);
	} else if (sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *a = (const struct sockaddr_in6 *)sa;
		inet_ntop(AF_INET6, &a->sin6_addr, h, sizeof(h));
		port = ntohs(a->sin6_port);
		snprintf(buf, n, "[%s]:%d", h, port);
	} else {
		snprintf(buf, n, "?");
	}
}

int net_set_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);
	return fl < 0 ? -1 : fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

void *net_page_alloc(size_t size)
{
	void *p = NULL;
	long pg = sysconf(_SC_PAGESIZE);
	size_t a = pg > 0 ? (size_t)pg : 4096;
	return posix_memalign(&p, a, (size + a - 1) / a * a) ? NULL : p;
}

int net_connect_addr(const struct sockaddr *sa, socklen_t len, int timeout_ms, char *err, size_t errlen)
{
	int fd = socket(sa->sa_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0) {
		snprintf(err, errlen, "socket: %s", strerror(errno));
		return -1;
	}
	if (connect(fd, sa, len) != 0 && errno != EINPROGRESS) {
		snprintf(err, errlen, "%s", strerror(errno));
		close(fd);
		return -1;
	}
	int w = net_wait(fd, POLLOUT, timeout_ms, -1), soerr = 0;
	socklen_t sl = sizeof(soerr);
	if (w <= 0) {
		snprintf(err, errlen, "%s", w == NET_E_TIMEOUT ? "connect timed out" : strerror(errno));
		close(fd);
		return -1;
	}
	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl) != 0 || soerr) {
		snprintf(err, errlen, "%s", strerror(soerr ? soerr : errno));
		close(fd);
		return -1;
	}
	int fl = fcntl(fd, F_GETFL);
	fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
	return fd;
}

static struct addrinfo *resolve(const char *host, int port, int type, int passive, char *err, size_t errlen)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = type,
				  .ai_flags = passive ? AI_PASSIVE : 0 }, *res = NULL;
	char ps[16];
	snprintf(ps, sizeof(ps), "%d", port);
	int rc = getaddrinfo(host, ps, &hints, &res);
	if (rc) {
		snprintf(err, errlen, "cannot resolve \"%s\": %s", host, gai_strerror(rc));
		return NULL;
	}
	return res;
}

int net_connect(const char *host, int port, int timeout_ms, char *err, size_t errlen)
{
	struct addrinfo *res = resolve(host, port, SOCK_STREAM, 0, err, errlen);
	int fd = -1;
	for (struct addrinfo *a = res; a && fd < 0; a = a->ai_next)
		fd = net_connect_addr(a->ai_addr, a->ai_addrlen, timeout_ms, err, errlen);
	if (res)
		freeaddrinfo(res);
	return fd;
}

int net_listen_addr(const struct sockaddr *sa, socklen_t len, int type, char *err, size_t errlen)
{
	int fd = socket(sa->sa_family, type | SOCK_CLOEXEC, 0), one = 1;
	if (fd < 0) {
		snprintf(err, errlen, "socket: %s", strerror(errno));
		return -1;
	}
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, sa, len) != 0 || (type == SOCK_STREAM && listen(fd, 1024) != 0)) {
		char a[80];
		net_addr_text(sa, a, sizeof(a));
		snprintf(err, errlen, "cannot listen on %s: %s", a, strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

int net_listen(const char *bind_addr, int port, int type, char *err, size_t errlen)
{
	struct addrinfo *res = resolve(bind_addr, port, type, 1, err, errlen);
	int fd = -1;
	for (struct addrinfo *a = res; a && fd < 0; a = a->ai_next)
		fd = net_listen_addr(a->ai_addr, a->ai_addrlen, type, err, errlen);
	if (res)
		freeaddrinfo(res);
	return fd;
}

int net_local_port(int fd)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	if (getsockname(fd, (struct sockaddr *)&ss, &len) != 0)
		return -1;
	return ss.ss_family == AF_INET6 ? ntohs(((struct sockaddr_in6 *)&ss)->sin6_port)
					: ntohs(((struct sockaddr_in *)&ss)->sin_port);
}

int net_sockopts(int fd, const net_params *p, int tcp, char *err, size_t errlen)
{
	int one = 1;
	if (p->window) {
		int w = (int)p->window;
		if (setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &w, sizeof(w)) ||
		    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &w, sizeof(w))) {
			snprintf(err, errlen, "window %d: %s", w, strerror(errno));
			return -1;
		}
	}
	if (p->pacing_rate) {
		unsigned rate = (unsigned)p->pacing_rate;
		if (setsockopt(fd, SOL_SOCKET, SO_MAX_PACING_RATE, &rate, sizeof(rate))) {
			snprintf(err, errlen, "pacing_rate: %s", strerror(errno));
			return -1;
		}
	}
	if (p->zerocopy && (p->test == NET_TCP_STREAM) &&
	    setsockopt(fd, SOL_SOCKET, SO_ZEROCOPY, &one, sizeof(one))) {
		snprintf(err, errlen, "zerocopy (SO_ZEROCOPY): %s", strerror(errno));
		return -1;
	}
	if (!tcp)
		return 0;
	if (p->nodelay && setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one))) {
		snprintf(err, errlen, "nodelay: %s", strerror(errno));
		return -1;
	}
	if (p->congestion[0] &&
	    setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, p->congestion, (socklen_t)strlen(p->congestion))) {
		snprintf(err, errlen, "congestion control \"%s\": %s", p->congestion, strerror(errno));
		return -1;
	}
	return 0;
}

/* ------------------------------------------------------------------ auth */

void net_auth_proof(const char *secret, int server, const char *challenge_hex, char out[2 * NET_PROOF_LEN + 1])
{
	const char *label = server ? "benchcore-net/1 server" : "benchcore-net/1";
	size_t ll = strlen(label);
	unsigned char msg[32 + NET_CHALLENGE_LEN], md[EVP_MAX_MD_SIZE];
	unsigned mdlen = 0;
	memcpy(msg, label, ll);
	if (net_hex_decode(challenge_hex, msg + ll, NET_CHALLENGE_LEN))
		memset(msg + ll, 0, NET_CHALLENGE_LEN);
	HMAC(EVP_sha256(), secret, (int)strlen(secret), msg, ll + NET_CHALLENGE_LEN, md, &mdlen);
	net_hex_encode(md, NET_PROOF_LEN, out);
	OPENSSL_cleanse(md, sizeof(md));
}

int net_proof_equal(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	return la == lb && la == 2 * NET_PROOF_LEN && CRYPTO_memcmp(a, b, la) == 0;
}

int net_random(void *buf, size_t n)
{
	size_t got = 0;
	while (got < n) {
		ssize_t r = getrandom((char *)buf + got, n - got, 0);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -1;
		got += (size_t)r;
	}
	return 0;
}
