/*
 * The tests: what each sends (the commands redis-benchmark 7.0 sends, with
 * keys under the benchcore: prefix), as RESP templates with patch points.
 *
 * "__rand_int__" is 12 characters and a key number is written as 12 digits,
 * as redis-benchmark does, so a template has the same length whether or not
 * its numbers are patched: with keyspace = 0 the literal key
 * "benchcore:key:__rand_int__" is sent (redis-benchmark without -r), and a
 * batch of requests is a copy of bytes prepared once.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "redis.h"

typedef struct rd_testdef {
	const char *name;
	const char *cmd;	/* words; __rand_int__, __data__ and __score__ are placeholders */
	int fill;
} rd_testdef;

#define K RD_PREFIX "key:__rand_int__"
#define KD K " __data__ "
static const rd_testdef rd_tests[] = {
	{ "PING_INLINE", NULL, RD_FILL_NONE },
	{ "PING_MBULK", "PING", RD_FILL_NONE },
	{ "SET", "SET " K " __data__", RD_FILL_NONE },
	{ "GET", "GET " K, RD_FILL_KEYS },
	{ "INCR", "INCR " RD_PREFIX "counter:__rand_int__", RD_FILL_NONE },
	{ "LPUSH", "LPUSH " RD_PREFIX "mylist __data__", RD_FILL_NONE },
	{ "RPUSH", "RPUSH " RD_PREFIX "mylist __data__", RD_FILL_NONE },
	{ "LPOP", "LPOP " RD_PREFIX "mylist", RD_FILL_LIST },
	{ "RPOP", "RPOP " RD_PREFIX "mylist", RD_FILL_LIST },
	{ "SADD", "SADD " RD_PREFIX "myset element:__rand_int__", RD_FILL_NONE },
	{ "HSET", "HSET " RD_PREFIX "myhash element:__rand_int__ __data__", RD_FILL_NONE },
	{ "SPOP", "SPOP " RD_PREFIX "myset", RD_FILL_SET },
	{ "ZADD", "ZADD " RD_PREFIX "myzset __score__ element:__rand_int__", RD_FILL_NONE },
	{ "ZPOPMIN", "ZPOPMIN " RD_PREFIX "myzset", RD_FILL_ZSET },
	{ "LRANGE_100", "LRANGE " RD_PREFIX "mylist 0 99", RD_FILL_LIST },
	{ "LRANGE_300", "LRANGE " RD_PREFIX "mylist 0 299", RD_FILL_LIST },
	{ "LRANGE_500", "LRANGE " RD_PREFIX "mylist 0 499", RD_FILL_LIST },
	{ "LRANGE_600", "LRANGE " RD_PREFIX "mylist 0 599", RD_FILL_LIST },
	{ "MSET", "MSET " KD KD KD KD KD KD KD KD KD K " __data__", RD_FILL_NONE },
	{ "XADD", "XADD " RD_PREFIX "mystream * myfield __data__", RD_FILL_NONE },
	{ "custom", NULL, RD_FILL_NONE },
	{ "SET_GET", NULL, RD_FILL_KEYS },
	{ NULL, NULL, 0 }
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

void rd_resp_append(char **buf, size_t *len, size_t *cap, int argc, const char **argv, const size_t *lens)
{
	size_t need = 32;
	for (int i = 0; i < argc; i++)
		need += lens[i] + 32;
	if (*len + need > *cap) {
		*cap = (*len + need) * 2;
		*buf = realloc(*buf, *cap);
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
}

/* Builds the template of a command line; -1 with a reason in why. */
static int rd_tmpl_build(rd_state *s, rd_tmpl *t, const char *line, unsigned op, char *why, size_t wn)
{
	char *copy = strdup(line), *words[RD_MAX_ARGS * 2];
	int argc = 0;
	for (char *save = NULL, *w = strtok_r(copy, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
		if (argc == RD_MAX_ARGS * 2) {
			snprintf(why, wn, "more than %d words", RD_MAX_ARGS * 2);
			free(copy);
			return -1;
		}
		words[argc++] = w;
	}
	if (!argc) {
		snprintf(why, wn, "the command is empty");
		free(copy);
		return -1;
	}
	/* expand words: __key__ -> the prefixed key, __data__ -> the value, __score__ */
	const char *argv[RD_MAX_ARGS * 2];
	size_t lens[RD_MAX_ARGS * 2];
	char *owned[RD_MAX_ARGS * 2] = { 0 };
	for (int i = 0; i < argc; i++) {
		const char *w = words[i];
		if (!strcmp(w, "__data__")) {
			argv[i] = s->data;
			lens[i] = s->data_size;
			continue;
		}
		if (!strcmp(w, "__score__"))
			w = s->keyspace ? "__rand_int__" : "0";
		char *k = strstr(w, "__key__");
		if (k) {
			owned[i] = malloc(strlen(w) + 64);
			sprintf(owned[i], "%.*s%skey:__rand_int__%s", (int)(k - w), w, RD_PREFIX, k + 7);
			w = owned[i];
		}
		argv[i] = w;
		lens[i] = strlen(w);
	}
	size_t len = 0, cap = 0;
	t->buf = NULL;
	rd_resp_append(&t->buf, &len, &cap, argc, argv, lens);
	t->len = (uint32_t)len;
	t->op = op;
	t->npatch = 0;
	t->key_arg = argc > 1 ? 1 : -1;
	/* patch points: walk the encoded words */
	char *p = t->buf + strcspn(t->buf, "\n") + 1;
	for (int i = 0; i < argc; i++) {
		p = strchr(p, '\n') + 1;	/* past "$len\r\n" */
		uint32_t off = (uint32_t)(p - t->buf);
		if (i == 1) {
			t->key_off = off;
			t->key_len = (uint32_t)lens[i];
		}
		if (argv[i] == s->data && s->data_random) {
			if (t->npatch == RD_MAX_PATCH)
				goto many;
			t->patch[t->npatch++] = (rd_patch){ off, 1 };
		} else if (argv[i] != s->data && s->keyspace) {
			for (const char *r = argv[i]; (r = strstr(r, "__rand_int__")); r += RD_DIGITS) {
				if (t->npatch == RD_MAX_PATCH)
					goto many;
				t->patch[t->npatch++] = (rd_patch){ off + (uint32_t)(r - argv[i]), 0 };
			}
		}
		p += lens[i] + 2;
	}
	for (int i = 0; i < argc; i++)
		free(owned[i]);
	free(copy);
	return 0;
many:
	for (int i = 0; i < argc; i++)
		free(owned[i]);
	free(copy);
	snprintf(why, wn, "more than %d placeholders", RD_MAX_PATCH);
	return -1;
}

int rd_test_setup(rd_state *s, const char *custom)
{
	const bench_host_api_v1 *api = s->api;
	const rd_testdef *d = rd_tests;
	while (d->name && strcmp(d->name, s->test))
		d++;
	if (!d->name) {
		api->error(s->ctx, NULL, "redis: unknown test", s->test, "see benchcore help redis");
		return -1;
	}
	s->fill_kind = d->fill;
	s->data = malloc(s->data_size + 1);
	/* one value for every key, like redis-benchmark's: printable, not all the same byte */
	uint64_t x = 0x9E3779B97F4A7C15ull;
	for (uint64_t i = 0; i < s->data_size; i++)
		s->data[i] = (char)('A' + rd_rand(&x) % 26);
	s->data[s->data_size] = '\0';
	char why[128];
	const char *what = d->cmd;
	int rc = 0;
	s->nops = s->ntmpl = 1;
	if (!strcmp(d->name, "PING_INLINE")) {
		s->tmpl[0] = (rd_tmpl){ .buf = strdup("PING\r\n"), .len = 6, .key_arg = -1 };
		return 0;
	} else if (!strcmp(d->name, "SET_GET")) {
		s->nops = s->ntmpl = 2;
		rc = rd_tmpl_build(s, &s->tmpl[0], "SET __key__ __data__", 0, why, sizeof(why));
		if (!rc)
			rc = rd_tmpl_build(s, &s->tmpl[1], "GET __key__", 1, why, sizeof(why));
		what = "SET/GET";
	} else {
		if (!strcmp(d->name, "custom")) {
			what = custom;
			if (!*custom) {
				api->error(s->ctx, NULL, "redis: tests=custom needs a command",
					   "the option command is empty",
					   "set command, e.g. command=\"SET __key__ __data__\"");
				return -1;
			}
		}
		rc = rd_tmpl_build(s, &s->tmpl[0], what, 0, why, sizeof(why));
	}
	if (rc) {
		char d2[256];
		snprintf(d2, sizeof(d2), "%s: %s", what, why);
		api->error(s->ctx, NULL, "redis: cannot build the test's command", d2, NULL);
		return -1;
	}
	return 0;
}

void rd_test_free(rd_state *s)
{
	for (unsigned i = 0; i < s->ntmpl; i++)
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

enum { RD_KP_UNIFORM, RD_KP_SEQUENTIAL, RD_KP_ZIPF, RD_KP_GAUSSIAN };

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
