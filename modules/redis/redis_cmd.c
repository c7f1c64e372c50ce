/*
 * The tests: what each sends (the commands redis-benchmark 7.0 sends, with
 * keys under the run's prefix benchcore:<run id>:), as RESP templates with
 * patch points.
 *
 * "__rand_int__" is 12 characters and a key number is written as 12 digits,
 * as redis-benchmark does, so a template has the same length whether or not
 * its numbers are patched: with keyspace = 0 the literal key
 * "benchcore:<run id>:key:__rand_int__" is sent (redis-benchmark without -r), and a
 * batch of requests is a copy of bytes prepared once.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "redis.h"

/* What a test's writes do to the server's memory, and what its replies are. */
enum { RD_T_HITS = 1,		/* reads keys its fill put there: nil is an error */
       RD_T_BOUNDED = 2,	/* writes at most keyspace keys (or members) */
       RD_T_GROWS = 4 };	/* writes grow with the number of requests */

typedef struct rd_testdef {
	const char *name;
	const char *cmd;	/* words; ^ is the run's prefix; __rand_int__, __data__, __score__ placeholders */
	int fill;
	int flags;
	unsigned elems;		/* LRANGE_N: N elements per reply */
} rd_testdef;

#define K "^key:__rand_int__"
#define KD K " __data__ "
static const rd_testdef rd_tests[] = {
	{ "PING_INLINE", NULL, RD_FILL_NONE, 0, 0 },
	{ "PING_MBULK", "PING", RD_FILL_NONE, 0, 0 },
	{ "SET", "SET " K " __data__", RD_FILL_NONE, RD_T_BOUNDED, 0 },
	{ "GET", "GET " K, RD_FILL_KEYS, RD_T_HITS, 0 },
	{ "INCR", "INCR ^counter:__rand_int__", RD_FILL_NONE, RD_T_BOUNDED, 0 },
	{ "LPUSH", "LPUSH ^mylist __data__", RD_FILL_NONE, RD_T_GROWS, 0 },
	{ "RPUSH", "RPUSH ^mylist __data__", RD_FILL_NONE, RD_T_GROWS, 0 },
	{ "LPOP", "LPOP ^mylist", RD_FILL_LIST, 0, 0 },
	{ "RPOP", "RPOP ^mylist", RD_FILL_LIST, 0, 0 },
	{ "SADD", "SADD ^myset element:__rand_int__", RD_FILL_NONE, RD_T_BOUNDED, 0 },
	{ "HSET", "HSET ^myhash element:__rand_int__ __data__", RD_FILL_NONE, RD_T_BOUNDED, 0 },
	{ "SPOP", "SPOP ^myset", RD_FILL_SET, 0, 0 },
	{ "ZADD", "ZADD ^myzset __score__ element:__rand_int__", RD_FILL_NONE, RD_T_BOUNDED, 0 },
	{ "ZPOPMIN", "ZPOPMIN ^myzset", RD_FILL_ZSET, 0, 2 },
	{ "LRANGE_100", "LRANGE ^mylist 0 99", RD_FILL_LIST, RD_T_HITS, 100 },
	{ "LRANGE_300", "LRANGE ^mylist 0 299", RD_FILL_LIST, RD_T_HITS, 300 },
	{ "LRANGE_500", "LRANGE ^mylist 0 499", RD_FILL_LIST, RD_T_HITS, 500 },
	{ "LRANGE_600", "LRANGE ^mylist 0 599", RD_FILL_LIST, RD_T_HITS, 600 },
	{ "MSET", "MSET " KD KD KD KD KD KD KD KD KD K " __data__", RD_FILL_NONE, RD_T_BOUNDED, 0 },
	{ "XADD", "XADD ^mystream * myfield __data__", RD_FILL_NONE, RD_T_GROWS, 0 },
	{ "custom", NULL, RD_FILL_NONE, RD_T_GROWS, 0 },
	{ "SET_GET", NULL, RD_FILL_KEYS, RD_T_BOUNDED, 0 },
	{ NULL, NULL, 0, 0, 0 }
};
#undef KD
#undef K

const char *const rd_test_names[] = {
	"PING_INLINE", "PING_MBULK", "SET", "GET", "INCR", "LPUSH", "RPUSH", "LPOP", "RPOP", "SADD",
	"HSET", "SPOP", "ZADD", "ZPOPMIN", "LRANGE_100", "LRANGE_300", "LRANGE_500", "LRANGE_600",
	"MSET", "XADD", "custom", "SET_GET", NULL
};
/* redis-benchmark 7.0's default list, in its order (its "LPUSH (needed to
   benchmark LRANGE)" is the LRANGE cases' untimed fill here). */
const char rd_default_tests[] = "PING_INLINE,PING_MBULK,SET,GET,INCR,LPUSH,RPUSH,LPOP,RPOP,SADD,"
	"HSET,SPOP,ZADD,ZPOPMIN,LRANGE_100,LRANGE_300,LRANGE_500,LRANGE_600,MSET";

int rd_resp_append(char **buf, size_t *len, size_t *cap, int argc, const char **argv, const size_t *lens)
{
	size_t need = 32;
	for (int i = 0; i < argc; i++)
		need += lens[i] + 32;
	if (*len + need > *cap) {
		size_t ncap = (*len + need) * 2;
		char *nb = realloc(*buf, ncap);
		if (!nb)
			return -1;	/* *buf stays as it was: the caller frees it */
		*buf = nb;
		*cap = ncap;
	}
	char *p = *buf + *len;
	p += sprintf(p, "*%d\r\n", argc);
	for (int i = 0; i < argc; i++) {
		p += sprintf(p, "$%zu\r\n", lens[i]);
		memcpy(p, argv[i], lens[i]);
		p += lens[i];
		*p++ = '\r';
		*p++ = '\n';
	}
	*len = (size_t)(p - *buf);
	return 0;
}

/* A word of a command line as sent: __data__ is the value, __score__ a key
   number (or 0), __key__ (also inside a word) the run's prefix + "key:"
   + the key number, and in a built-in test's line a leading ^ the prefix.
   *owned is set when the word was built (the caller frees it); NULL with
   why when out of memory. */
static const char *rd_word(rd_state *s, const char *w, int builtin, char **owned, size_t *len)
{
	*owned = NULL;
	if (!strcmp(w, "__data__")) {
		*len = s->data_size;
		return s->data;
	}
	if (!strcmp(w, "__score__"))
		w = s->keyspace ? "__rand_int__" : "0";
	const char *k = strstr(w, "__key__");
	if (k || (builtin && w[0] == '^')) {
		size_t n = strlen(w) + s->prefix_len + 32;
		if (!(*owned = malloc(n)))
			return NULL;
		if (k)
			snprintf(*owned, n, "%.*s%skey:__rand_int__%s", (int)(k - w), w, s->prefix, k + 7);
		else
			snprintf(*owned, n, "%s%s", s->prefix, w + 1);
		w = *owned;
	}
	*len = strlen(w);
	return w;
}

/* Patch points of template t, whose argc words are argv/lens: -1 when
   there are more than RD_MAX_PATCH. */
static int rd_tmpl_patches(rd_state *s, rd_tmpl *t, int argc, const char **argv, const size_t *lens)
{
	char *p = t->buf + strcspn(t->buf, "\n") + 1;
	t->npatch = 0;
	for (int i = 0; i < argc; i++) {
		p = strchr(p, '\n') + 1;	/* past "$len\r\n" */
		uint32_t off = (uint32_t)(p - t->buf);
		if (i == 1) {
			t->key_off = off;
			t->key_len = (uint32_t)lens[i];
		}
		if (argv[i] == s->data && s->data_random) {
			if (t->npatch == RD_MAX_PATCH)
				return -1;
			t->patch[t->npatch++] = (rd_patch){ off, 1 };
		} else if (argv[i] != s->data && s->keyspace) {
			for (const char *r = argv[i]; (r = strstr(r, "__rand_int__")); r += RD_DIGITS) {
				if (t->npatch == RD_MAX_PATCH)
					return -1;
				t->patch[t->npatch++] = (rd_patch){ off + (uint32_t)(r - argv[i]), 0 };
			}
		}
		p += lens[i] + 2;
	}
	return 0;
}

/* Builds the template of a command line; -1 with a reason in why. */
static int rd_tmpl_build(rd_state *s, rd_tmpl *t, const char *line, unsigned op, int builtin,
			 char *why, size_t wn)
{
	char *copy = strdup(line), *words[RD_MAX_ARGS * 2];
	const char *argv[RD_MAX_ARGS * 2];
	size_t lens[RD_MAX_ARGS * 2], len = 0, cap = 0;
	char *owned[RD_MAX_ARGS * 2] = { 0 };
	int argc = 0, rc = -1;
	t->buf = NULL;
	if (!copy) {
		snprintf(why, wn, "out of memory");
		return -1;
	}
	for (char *save = NULL, *w = strtok_r(copy, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
		if (argc == RD_MAX_ARGS * 2) {
			snprintf(why, wn, "more than %d words", RD_MAX_ARGS * 2);
			goto out;
		}
		words[argc++] = w;
	}
	if (!argc) {
		snprintf(why, wn, "the command is empty");
		goto out;
	}
	for (int i = 0; i < argc; i++)
		if (!(argv[i] = rd_word(s, words[i], builtin, &owned[i], &lens[i]))) {
			snprintf(why, wn, "out of memory");
			goto out;
		}
	if (rd_resp_append(&t->buf, &len, &cap, argc, argv, lens) != 0 || len > UINT32_MAX / 2) {
		snprintf(why, wn, len > UINT32_MAX / 2 ? "a request of more than 2 GiB" :
			 "out of memory for a request of about %zu bytes", cap);
		goto out;
	}
	t->len = (uint32_t)len;
	t->op = op;
	t->key_arg = argc > 1 ? 1 : -1;
	if (rd_tmpl_patches(s, t, argc, argv, lens) != 0) {
		snprintf(why, wn, "more than %d placeholders", RD_MAX_PATCH);
		goto out;
	}
	rc = 0;
out:
	for (int i = 0; i < argc; i++)
		free(owned[i]);
	free(copy);
	if (rc) {
		free(t->buf);
		t->buf = NULL;
	}
	return rc;
}

/* a x b, or UINT64_MAX when it does not fit (keyspace 1e12 x data_size 512M) */
static uint64_t rd_mul(uint64_t a, uint64_t b)
{
	uint64_t r;
	return __builtin_mul_overflow(a, b, &r) ? UINT64_MAX : r;
}

/* What the test's replies can be (a larger one is a protocol error, so a
   server cannot make the client buffer without bound), and what its data
   takes on the server (checked against maxmemory before it is written). */
static void rd_test_bounds(rd_state *s, const rd_testdef *d)
{
	uint64_t ds = s->data_size, n = s->keyspace ? s->keyspace : 1;
	uint64_t keylen = s->prefix_len + 20;
	s->reply_max = 4096 + 2 * ds;
	s->elems_max = 16;
	if (d->elems > 2) {
		s->reply_max = rd_mul(d->elems, ds + 24) + 4096;
		s->elems_max = d->elems;
	}
	if (!strcmp(d->name, "custom")) {	/* unknown: generous, but bounded */
		s->reply_max = (16u << 20) + 4 * ds;
		s->elems_max = 1u << 20;
	}
	/* per key about 100 bytes of the server's own (dict entry, object,
	   sds headers, jemalloc's rounding); per list element 16 */
	s->grows = (d->flags & RD_T_GROWS) != 0;
	switch (d->fill) {
	case RD_FILL_KEYS:
		s->footprint = rd_mul(n, keylen + ds + 100);
		break;
	case RD_FILL_LIST:
		s->footprint = rd_mul(s->fill, ds + 16);
		break;
	case RD_FILL_SET:
	case RD_FILL_ZSET:
		s->footprint = rd_mul(n, 24 + 120);
		break;
	default:
		s->footprint = (d->flags & RD_T_BOUNDED) ? rd_mul(n, keylen + ds + 100) : 0;
	}
}

/* One value for every key, like redis-benchmark's: printable, not all the
   same byte. -1 after api->error() when it does not fit in memory. */
static int rd_value(rd_state *s)
{
	if (!(s->data = malloc(s->data_size + 1))) {
		char d[128];
		snprintf(d, sizeof(d), "a value of data_size = %llu bytes could not be allocated",
			 (unsigned long long)s->data_size);
		s->api->error(s->ctx, NULL, "redis: out of memory", d, "use a smaller data_size");
		return -1;
	}
	uint64_t x = 0x9E3779B97F4A7C15ull;
	for (uint64_t i = 0; i < s->data_size; i++)
		s->data[i] = (char)('A' + rd_rand(&x) % 26);
	s->data[s->data_size] = '\0';
	return 0;
}

static const rd_testdef *rd_find_test(const char *name)
{
	const rd_testdef *d = rd_tests;
	while (d->name && strcmp(d->name, name))
		d++;
	return d->name ? d : NULL;
}

int rd_test_setup(rd_state *s, const char *custom)
{
	const bench_host_api_v1 *api = s->api;
	const rd_testdef *d = rd_find_test(s->test);
	if (!d) {
		api->error(s->ctx, NULL, "redis: unknown test", s->test, "see benchcore help redis");
		return -1;
	}
	s->fill_kind = d->fill;
	rd_test_bounds(s, d);
	if (rd_value(s) != 0)
		return -1;
	char why[128];
	const char *what = d->cmd;
	int rc = 0;
	s->nops = s->ntmpl = 1;
	if (!strcmp(d->name, "PING_INLINE")) {
		s->tmpl[0] = (rd_tmpl){ .buf = strdup("PING\r\n"), .len = 6, .key_arg = -1 };
		if (!s->tmpl[0].buf)
			api->error(s->ctx, NULL, "redis: out of memory", "the PING_INLINE request", NULL);
		return s->tmpl[0].buf ? 0 : -1;
	} else if (!strcmp(d->name, "SET_GET")) {
		s->nops = s->ntmpl = 2;
		rc = rd_tmpl_build(s, &s->tmpl[0], "SET __key__ __data__", 0, 1, why, sizeof(why));
		if (!rc)
			rc = rd_tmpl_build(s, &s->tmpl[1], "GET __key__", 1, 1, why, sizeof(why));
		s->tmpl[1].expect_hits = 1;
		what = "SET/GET";
	} else {
		int is_custom = !strcmp(d->name, "custom");
		if (is_custom) {
			what = custom;
			if (!*custom) {
				api->error(s->ctx, NULL, "redis: tests=custom needs a command",
					   "the option command is empty",
					   "set command, e.g. command=\"SET __key__ __data__\"");
				return -1;
			}
			if (!s->allow_foreign && rd_custom_check(s, custom) != 0)
				return -1;
		}
		rc = rd_tmpl_build(s, &s->tmpl[0], what, 0, !is_custom, why, sizeof(why));
		s->tmpl[0].expect_hits = (d->flags & RD_T_HITS) != 0;
	}
	if (rc) {
		char d2[256];
		snprintf(d2, sizeof(d2), "%.120s: %s", what, why);
		api->error(s->ctx, NULL, "redis: cannot build the test's command", d2, NULL);
		return -1;
	}
	return 0;
}

void rd_test_free(rd_state *s)
{
	for (unsigned i = 0; i < 2; i++)	/* a template not built is NULL */
		free(s->tmpl[i].buf);
	free(s->data);
}

/* YCSB's zipfian generator (Gray et al., "Quickly generating billion-record
   synthetic databases"), theta 0.99: key 0 is the hottest. */
void rd_zipf_init(rd_state *s)
{
	double th = s->zipf_theta = 0.99, n = (double)s->keyspace, z = 0;
	uint64_t exact = s->keyspace < 10000000 ? s->keyspace : 10000000;
	for (uint64_t i = 1; i <= exact; i++)
		z += pow((double)i, -th);
	if (s->keyspace > exact)	/* the tail as an integral: within 1e-6 at these sizes */
		z += (pow(n + 0.5, 1 - th) - pow((double)exact + 0.5, 1 - th)) / (1 - th);
	s->zipf_zetan = z;
	double zeta2 = 1 + pow(0.5, th);
	s->zipf_alpha = 1 / (1 - th);
	s->zipf_eta = (1 - pow(2 / n, 1 - th)) / (1 - zeta2 / z);
}

uint64_t rd_next_key(const rd_state *s, uint64_t *rng, uint64_t *seq)
{
	uint64_t n = s->keyspace, k;
	double u;
	switch (s->key_pattern) {
	case RD_KP_SEQUENTIAL:
		k = (*seq)++ % n;
		break;
	case RD_KP_ZIPF:
		u = (double)(rd_rand(rng) >> 11) * 0x1.0p-53;
		if (u * s->zipf_zetan < 1)
			return 0;
		if (u * s->zipf_zetan < 1 + pow(0.5, s->zipf_theta))
			return n > 1;
		k = (uint64_t)((double)n * pow(s->zipf_eta * u - s->zipf_eta + 1, s->zipf_alpha));
		break;
	case RD_KP_GAUSSIAN: {	/* memtier's: mean keyspace/2, stddev keyspace/6 */
		double u1 = ((double)(rd_rand(rng) >> 11) + 1) * 0x1.0p-53;
		double u2 = (double)(rd_rand(rng) >> 11) * 0x1.0p-53;
		double g = sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
		double v = (double)n / 2 + g * (double)n / 6;
		k = v < 0 ? 0 : (uint64_t)v;
		break;
	}
	default:
		k = rd_rand(rng) % n;
	}
	return k < n ? k : n - 1;
}
