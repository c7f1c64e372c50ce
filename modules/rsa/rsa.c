/*
 * rsa: public-key and bulk crypto speed through OpenSSL 3 EVP, like
 * `openssl speed rsa2048 -multi N` and `openssl speed -evp`.
 *
 * algo=rsa|ecdsa-p256|ed25519: every operation is one sign or one verify,
 * timed on its own (hundreds of microseconds; the clock costs ~20 ns). The
 * key is made once per case in init, outside the measured window; each
 * thread duplicates it (EVP_PKEY_dup) and has its own EVP_PKEY_CTX, so
 * threads share nothing while measured, as openssl speed -multi's
 * processes share nothing.
 *
 * op=both: openssl speed signs for S seconds, then verifies for S seconds,
 * and reports count/time of each phase. Here each thread alternates phases
 * of RSA_PHASE_NS, so both kinds run under the same conditions for the whole
 * window; sign_per_sec is the sign count divided by the time the threads
 * spent signing (see rsa_finish), i.e. the rate "if they only signed".
 *
 * algo=aes-256-gcm|sha256: one operation is one message of block_size
 * bytes, as openssl speed -evp counts them: for GCM a TLS-like record (new
 * nonce, 13 bytes of AAD, the payload, the tag), for SHA-256 Init+Update+
 * Final. Those take ~100 ns at 16 bytes, so they are timed in batches.
 *
 * Threads: init/finish/destroy run on the main thread; struct rsa_thread is
 * written only by its worker; finish reads the per-thread busy times after
 * the workers stopped.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <benchcore/module.h>

#define RSA_PHASE_NS	100000000ull	/* op=both: 100 ms of signing, then of verifying */
#define RSA_BATCH_NS	20000u		/* aes/sha: target length of one timed batch */
#define RSA_BATCH_MAX	4096u

enum rsa_algo { RSA_ALGO_RSA, RSA_ALGO_ECDSA, RSA_ALGO_ED25519, RSA_ALGO_AES_GCM, RSA_ALGO_SHA256 };
enum rsa_opsel { RSA_OP_BOTH, RSA_OP_SIGN, RSA_OP_VERIFY };
enum rsa_class { RSA_SIGN, RSA_VERIFY, RSA_ENCRYPT, RSA_DIGEST };

static const char *const rsa_algo_names[] = {
	"rsa", "ecdsa-p256", "ed25519", "aes-256-gcm", "sha256", NULL };
static const char *const rsa_bits_names[] = { "1024", "2048", "3072", "4096", NULL };
static const char *const rsa_op_names[] = { "both", "sign", "verify", NULL };
static const char *const rsa_classes[] = { "sign", "verify", "encrypt", "digest", NULL };

/* The options as the host fills them for each case (ABI 1.3): enums as
   their index into the names above. */
struct rsa_opts {
	int algo, bits, op;
	int64_t block_size;
};

static const bench_option_v1 rsa_options[] = {
	{ .name = "algo", .type = BENCH_OPT_ENUM, .def = "rsa", .choices = rsa_algo_names,
	  .help = "rsa, ecdsa-p256, ed25519 (sign/verify) or aes-256-gcm, sha256 (bytes/s)",
	  BENCH_OPT_AT(struct rsa_opts, algo) },
	{ .name = "bits", .type = BENCH_OPT_ENUM, .def = "2048", .choices = rsa_bits_names,
	  .help = "RSA modulus size (algo=rsa)",
	  BENCH_OPT_AT(struct rsa_opts, bits) },
	{ .name = "op", .type = BENCH_OPT_ENUM, .def = "both", .choices = rsa_op_names,
	  .help = "sign, verify, or both (alternating phases; rates per time spent in each)",
	  BENCH_OPT_AT(struct rsa_opts, op) },
	{ .name = "block_size", .type = BENCH_OPT_SIZE, .def = "16K", .min = 16, .max = 16384,
	  .help = "bytes per call for aes-256-gcm and sha256 (openssl speed -evp: 16 .. 16K)",
	  BENCH_OPT_AT(struct rsa_opts, block_size) },
	{ 0 }
};

static const bench_metric_v1 rsa_metrics[] = {
	{ "sign_per_sec", "sign/s", 1 },
	{ "verify_per_sec", "verify/s", 1 },
	{ "mib_per_sec", "MiB/s", 1 },
	{ "ops_per_sec", "ops/s", 1 },
	{ NULL, NULL, 0 }
};

/* Written by its worker only; aligned so neighbours never share a line. */
struct rsa_thread {
	struct rsa_state *s;
	bench_thread *bt;
	EVP_PKEY *key;			/* this thread's own copy of the key */
	EVP_PKEY_CTX *sctx, *vctx;	/* rsa, ecdsa */
	EVP_MD_CTX *mctx;		/* ed25519 sign; sha256 */
	EVP_MD_CTX *vmctx;		/* ed25519 verify */
	EVP_CIPHER_CTX *cctx;		/* aes-256-gcm */
	unsigned char *sig, *in, *out;
	size_t siglen, sigcap;
	unsigned char iv[12];		/* GCM nonce: the last 8 bytes count messages */
	uint64_t busy_ns[2];		/* time spent signing / verifying */
	int logged;
} __attribute__((aligned(64)));

struct rsa_state {
	const bench_host_api_v1 *api;
	bench_ctx *ctx;
	int algo, op;
	unsigned bits, threads;
	size_t block;
	EVP_PKEY *pkey;
	EVP_MD *md;			/* sha256, fetched once */
	const EVP_CIPHER *cipher;
	unsigned char digest[32];	/* what rsa/ecdsa sign: a SHA-256 value */
	struct rsa_thread **th;		/* [threads], for finish */
};

/* The most recent OpenSSL error as text, for messages. */
static const char *rsa_ossl_err(char *buf, size_t n)
{
	unsigned long e = ERR_get_error();

	if (e == 0)
		snprintf(buf, n, "no OpenSSL error queued");
	else
		ERR_error_string_n(e, buf, n);
	ERR_clear_error();
	return buf;
}

/* ---------------------------------------------------------------- init */

static EVP_PKEY *rsa_keygen(struct rsa_state *s)
{
	switch (s->algo) {
	case RSA_ALGO_RSA:
		return EVP_PKEY_Q_keygen(NULL, NULL, "RSA", (size_t)s->bits);
	case RSA_ALGO_ECDSA:
		return EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256");
	default:
		return EVP_PKEY_Q_keygen(NULL, NULL, "ED25519");
	}
}

static void rsa_destroy(void *state)
{
	struct rsa_state *s = state;

	if (!s)
		return;
	if (s->th)
		for (unsigned i = 0; i < s->threads; i++)
			free(s->th[i]);
	free(s->th);
	EVP_PKEY_free(s->pkey);
	EVP_MD_free(s->md);
	free(s);
}

static int rsa_init(const bench_host_api_v1 *api, bench_ctx *ctx, void **state)
{
	/* errorf and options came together (host API 1.3): before it, only
	   set_error can say why rsa cannot run */
	const struct rsa_opts *o = BENCH_HOST_HAS(api, errorf) ? api->options(ctx) : NULL;
	struct rsa_state *s;
	char err[256];

	if (!o) {
		api->set_error(ctx, "rsa needs a benchcore of ABI 1.3 or later (typed options, errorf)");
		return BENCH_ERR;
	}
	if (!(s = calloc(1, sizeof(*s)))) {
		api->errorf(ctx, NULL, "out of memory");
		return BENCH_ERR;
	}
	*state = s;
	s->api = api;
	s->ctx = ctx;
	s->algo = o->algo;
	s->op = o->op;
	s->bits = (unsigned)atoi(rsa_bits_names[o->bits]);
	s->block = (size_t)o->block_size;
	s->threads = api->threads(ctx);
	s->th = calloc(s->threads ? s->threads : 1, sizeof(*s->th));
	if (!s->th) {
		api->errorf(ctx, NULL, "out of memory\n%u threads' state", s->threads);
		return BENCH_ERR;
	}
	api->set_info(ctx, "openssl_version", OpenSSL_version(OPENSSL_VERSION));
	if (RAND_bytes(s->digest, sizeof(s->digest)) != 1) {
		api->errorf(ctx, NULL, "cannot draw the random digest to sign\nRAND_bytes: %s\n"
			    "OpenSSL's random generator needs a working getrandom() or /dev/urandom",
			    rsa_ossl_err(err, sizeof(err)));
		return BENCH_ERR;
	}
	switch (s->algo) {
	case RSA_ALGO_AES_GCM:
		s->cipher = EVP_aes_256_gcm();
		return BENCH_OK;
	case RSA_ALGO_SHA256:
		if (!(s->md = EVP_MD_fetch(NULL, "SHA256", NULL))) {
			api->errorf(ctx, NULL, "cannot fetch SHA256 from OpenSSL\n%s\n"
				    "check that OpenSSL's default provider loads: openssl list -providers",
				    rsa_ossl_err(err, sizeof(err)));
			return BENCH_ERR;
		}
		return BENCH_OK;
	}
	/* Key generation can take a second for 4096 bits: here, not timed. */
	if (!(s->pkey = rsa_keygen(s))) {
		api->errorf(ctx, NULL, "cannot generate a %s key\n%s\n"
			    "check that OpenSSL's default provider loads: openssl list -providers",
			    rsa_algo_names[s->algo], rsa_ossl_err(err, sizeof(err)));
		return BENCH_ERR;
	}
	if (s->algo == RSA_ALGO_RSA)
		api->set_info(ctx, "signature", "RSA PKCS#1 v1.5 over a SHA-256 digest, e=65537");
	else if (s->algo == RSA_ALGO_ECDSA)
		api->set_info(ctx, "signature", "ECDSA P-256 over a SHA-256 digest");
	else
		api->set_info(ctx, "signature", "Ed25519 (pure) over 32 bytes");
	return BENCH_OK;
}

/* --------------------------------------------------------- per thread */

static int rsa_pkey_op(struct rsa_thread *t, int cls)
{
	const struct rsa_state *s = t->s;

	if (s->algo == RSA_ALGO_ED25519) {
		/* A one-shot EVP_DigestSign/Verify finalises its context from
		   OpenSSL 3.5 (Debian 13): the next call fails ("final error").
		   Each operation starts it again with the key it holds (a NULL
		   key keeps it); 3.0 takes that too. */
		if (cls == RSA_SIGN) {
			t->siglen = t->sigcap;
			return EVP_DigestSignInit_ex(t->mctx, NULL, NULL, NULL, NULL, NULL, NULL) == 1 &&
			       EVP_DigestSign(t->mctx, t->sig, &t->siglen,
					      s->digest, sizeof(s->digest)) == 1;
		}
		return EVP_DigestVerifyInit_ex(t->vmctx, NULL, NULL, NULL, NULL, NULL, NULL) == 1 &&
		       EVP_DigestVerify(t->vmctx, t->sig, t->siglen,
					s->digest, sizeof(s->digest)) == 1;
	}
	if (cls == RSA_SIGN) {
		t->siglen = t->sigcap;
		return EVP_PKEY_sign(t->sctx, t->sig, &t->siglen,
				     s->digest, sizeof(s->digest)) == 1;
	}
	return EVP_PKEY_verify(t->vctx, t->sig, t->siglen,
			       s->digest, sizeof(s->digest)) == 1;
}

static int rsa_thread_pkey(struct rsa_thread *t)
{
	struct rsa_state *s = t->s;

	/* A copy per thread, as openssl speed -multi has a process per key:
	   threads sharing one RSA key share its blinding (behind a lock) and
	   its cached Montgomery contexts, which costs ~5% at 2 threads. */
	if (!(t->key = EVP_PKEY_dup(s->pkey)))
		return 0;
	t->sigcap = (size_t)EVP_PKEY_get_size(t->key);
	if (!(t->sig = malloc(t->sigcap)))
		return 0;
	if (s->algo == RSA_ALGO_ED25519) {
		t->mctx = EVP_MD_CTX_new();
		t->vmctx = EVP_MD_CTX_new();
		if (!t->mctx || !t->vmctx ||
		    EVP_DigestSignInit_ex(t->mctx, NULL, NULL, NULL, NULL, t->key, NULL) != 1 ||
		    EVP_DigestVerifyInit_ex(t->vmctx, NULL, NULL, NULL, NULL, t->key, NULL) != 1)
			return 0;
	} else {
		t->sctx = EVP_PKEY_CTX_new_from_pkey(NULL, t->key, NULL);
		t->vctx = EVP_PKEY_CTX_new_from_pkey(NULL, t->key, NULL);
		if (!t->sctx || !t->vctx ||
		    EVP_PKEY_sign_init(t->sctx) != 1 || EVP_PKEY_verify_init(t->vctx) != 1 ||
		    EVP_PKEY_CTX_set_signature_md(t->sctx, EVP_sha256()) != 1 ||
		    EVP_PKEY_CTX_set_signature_md(t->vctx, EVP_sha256()) != 1)
			return 0;
	}
	/* One signature to verify, made here so verify-only runs have one;
	   it also checks the whole path works before the clock starts. */
	return rsa_pkey_op(t, RSA_SIGN) && rsa_pkey_op(t, RSA_VERIFY);
}

static int rsa_thread_bulk(struct rsa_thread *t)
{
	struct rsa_state *s = t->s;
	unsigned char key[32];

	/* Room for the output plus a cipher block of slack. */
	if (!(t->in = malloc(s->block)) || !(t->out = malloc(s->block + 64)))
		return 0;
	if (RAND_bytes(t->in, (int)s->block) != 1 || RAND_bytes(key, sizeof(key)) != 1 ||
	    RAND_bytes(t->iv, sizeof(t->iv)) != 1)
		return 0;
	if (s->algo == RSA_ALGO_SHA256)
		return (t->mctx = EVP_MD_CTX_new()) != NULL;
	return (t->cctx = EVP_CIPHER_CTX_new()) != NULL &&
	       EVP_EncryptInit_ex2(t->cctx, s->cipher, key, t->iv, NULL) == 1;
}

static void rsa_thread_done(void *tstate)
{
	struct rsa_thread *t = tstate;

	/* The struct itself stays for finish (busy times); destroy frees it. */
	EVP_PKEY_CTX_free(t->sctx);
	EVP_PKEY_CTX_free(t->vctx);
	EVP_PKEY_free(t->key);
	EVP_MD_CTX_free(t->mctx);
	EVP_MD_CTX_free(t->vmctx);
	EVP_CIPHER_CTX_free(t->cctx);
	free(t->sig);
	free(t->in);
	free(t->out);
	t->sctx = t->vctx = NULL;
	t->mctx = t->vmctx = NULL;
	t->cctx = NULL;
	t->sig = t->in = t->out = NULL;
}

static int rsa_thread_init(void *state, bench_thread *bt, void **tstate)
{
	struct rsa_state *s = state;
	unsigned idx = s->api->thread_index(bt);
	struct rsa_thread *t = aligned_alloc(64, sizeof(*t));
	char err[256];
	int ok;

	if (!t) {
		s->api->errorf(s->ctx, bt, "out of memory\nthread %u's state", idx);
		return BENCH_ERR;
	}
	memset(t, 0, sizeof(*t));
	t->s = s;
	t->bt = bt;
	s->th[idx] = t;
	*tstate = t;
	ok = s->pkey ? rsa_thread_pkey(t) : rsa_thread_bulk(t);
	if (!ok) {
		s->api->errorf(s->ctx, bt, "cannot set up %s for thread %u\n%s", rsa_algo_names[s->algo], idx,
			       rsa_ossl_err(err, sizeof(err)));
		rsa_thread_done(t);
		return BENCH_ERR;
	}
	return BENCH_OK;
}

/* ------------------------------------------------------------- the loop */

static void rsa_fail(struct rsa_thread *t, unsigned cls)
{
	char err[256];

	rsa_ossl_err(err, sizeof(err));
	if (!t->logged++)
		t->s->api->log(t->s->ctx, BENCH_LOG_ERROR, "%s %s failed: %s",
			       rsa_algo_names[t->s->algo], rsa_classes[cls], err);
	t->s->api->record_error(t->bt, cls, "openssl");
}

static int rsa_run_pkey(struct rsa_thread *t)
{
	const bench_host_api_v1 *api = t->s->api;
	const int both = t->s->op == RSA_OP_BOTH;
	unsigned cls = t->s->op == RSA_OP_VERIFY ? RSA_VERIFY : RSA_SIGN;
	uint64_t phase_end = api->now_ns() + RSA_PHASE_NS;

	while (!api->should_stop(t->bt)) {
		/* pace() is now_ns() in closed loop, the intended start otherwise. */
		uint64_t t0 = api->pace(t->bt);
		int ok = rsa_pkey_op(t, (int)cls);
		uint64_t t1 = api->now_ns();

		if (ok) {
			api->record(t->bt, cls, t1 - t0, 0);
			t->busy_ns[cls] += t1 - t0;
		} else {
			rsa_fail(t, cls);
		}
		if (both && t1 >= phase_end) {
			cls ^= 1;
			phase_end = t1 + RSA_PHASE_NS;
		}
	}
	return BENCH_OK;
}

static int rsa_bulk_op(struct rsa_thread *t)
{
	const struct rsa_state *s = t->s;
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned mdlen;
	int outl;

	if (s->algo == RSA_ALGO_SHA256)
		return EVP_DigestInit_ex2(t->mctx, s->md, NULL) == 1 &&
		       EVP_DigestUpdate(t->mctx, t->in, s->block) == 1 &&
		       EVP_DigestFinal_ex(t->mctx, md, &mdlen) == 1;
	/* A fresh nonce per message (never reuse one under a key), then AAD
	   the size of a TLS record header, the payload, and the tag. */
	uint64_t ctr;
	memcpy(&ctr, t->iv + 4, sizeof(ctr));
	ctr++;
	memcpy(t->iv + 4, &ctr, sizeof(ctr));
	return EVP_EncryptInit_ex2(t->cctx, NULL, NULL, t->iv, NULL) == 1 &&
	       EVP_EncryptUpdate(t->cctx, NULL, &outl, s->digest, 13) == 1 &&
	       EVP_EncryptUpdate(t->cctx, t->out, &outl, t->in, (int)s->block) == 1 &&
	       EVP_EncryptFinal_ex(t->cctx, t->out + outl, &outl) == 1 &&
	       EVP_CIPHER_CTX_ctrl(t->cctx, EVP_CTRL_AEAD_GET_TAG, 16, md) == 1;
}

static int rsa_run_bulk(struct rsa_thread *t)
{
	const bench_host_api_v1 *api = t->s->api;
	const unsigned cls = t->s->algo == RSA_ALGO_SHA256 ? RSA_DIGEST : RSA_ENCRYPT;
	const uint64_t bytes = t->s->block;
	uint64_t batch = 1;
	/* --events N counts calls, not batches: a batch of the window takes
	   its calls with claim() and the loop stops on stopping(), which takes
	   nothing (should_stop() takes one event: a 1.0 host's only way). A
	   batch begun in warmup is warmup's, even if it ends in the window:
	   measuring() before claim(). */
	const int v11 = BENCH_HOST_HAS(api, claim) && BENCH_HOST_HAS(api, stopping);

	while (!(v11 ? api->stopping(t->bt) : api->should_stop(t->bt))) {
		uint64_t t0, n = 0, dt, want = batch;
		int ok = 1, counted = api->measuring(t->bt);

		if (v11 && counted && (want = api->claim(t->bt, batch)) == 0)
			break;	/* --events: the budget is spent */
		t0 = api->now_ns();
		while (n < want && (ok = rsa_bulk_op(t)))
			n++;
		dt = api->now_ns() - t0;
		/* Each call of the batch gets the batch's mean latency; warmup's
		   count only for warmup = auto. */
		if (!counted && BENCH_HOST_SINCE(api, 4, warmup_n))
			api->warmup_n(t->bt, n);
		else if (!counted)
			;
		else if (n && BENCH_HOST_HAS(api, record_n))
			api->record_n(t->bt, cls, n, dt / n, bytes);
		else
			for (uint64_t i = 0; i < n; i++)
				api->record(t->bt, cls, dt / n, bytes);
		if (!ok)
			rsa_fail(t, cls);
		if (dt < RSA_BATCH_NS / 2 && batch < RSA_BATCH_MAX)
			batch *= 2;
		else if (dt > RSA_BATCH_NS * 2 && batch > 1)
			batch /= 2;
	}
	return BENCH_OK;
}

static int rsa_thread_run(void *tstate)
{
	struct rsa_thread *t = tstate;

	return t->s->pkey ? rsa_run_pkey(t) : rsa_run_bulk(t);
}

/* --------------------------------------------------------------- finish */

/* op=both: the rate of one kind over the thread time spent on it. The
   counts come from the measured window; the split of time between the two
   kinds from the threads' own busy sums (which also span the warm-up, but
   a share of time is the same in both). */
static double rsa_rate(struct rsa_state *s, unsigned cls, const bench_totals_v1 *t)
{
	double mine = 0, all = 0;

	if (t->seconds <= 0)
		return 0;
	if (s->op != RSA_OP_BOTH)
		return (double)t->count / t->seconds;
	for (unsigned i = 0; i < s->threads; i++) {
		if (!s->th[i])
			continue;
		mine += (double)s->th[i]->busy_ns[cls];
		all += (double)(s->th[i]->busy_ns[RSA_SIGN] + s->th[i]->busy_ns[RSA_VERIFY]);
	}
	if (mine <= 0 || all <= 0)
		return 0;
	return (double)t->count / (t->seconds * (mine / all));
}

static int rsa_finish(void *state)
{
	struct rsa_state *s = state;
	const bench_host_api_v1 *api = s->api;
	bench_totals_v1 t;

	if (!s->pkey) {
		unsigned cls = s->algo == RSA_ALGO_SHA256 ? RSA_DIGEST : RSA_ENCRYPT;
		if (api->totals(s->ctx, cls, &t) != 0 || t.seconds <= 0)
			return BENCH_OK;
		api->report_metric(s->ctx, "mib_per_sec",
				   (double)t.bytes / (1024.0 * 1024.0) / t.seconds);
		api->report_metric(s->ctx, "ops_per_sec", (double)t.count / t.seconds);
		return BENCH_OK;
	}
	if (s->op != RSA_OP_VERIFY && api->totals(s->ctx, RSA_SIGN, &t) == 0)
		api->report_metric(s->ctx, "sign_per_sec", rsa_rate(s, RSA_SIGN, &t));
	if (s->op != RSA_OP_SIGN && api->totals(s->ctx, RSA_VERIFY, &t) == 0)
		api->report_metric(s->ctx, "verify_per_sec", rsa_rate(s, RSA_VERIFY, &t));
	return BENCH_OK;
}

static const bench_module_v1 rsa_module = {
	BENCH_MODULE_HEADER,
	.name		= "rsa",
	.version	= "1.0",
	.summary	= "sign/verify and bulk crypto via OpenSSL EVP (openssl speed)",
	.options	= rsa_options,
	.opts_size	= sizeof(struct rsa_opts),
	.op_classes	= rsa_classes,
	.metrics	= rsa_metrics,
	.init		= rsa_init,
	.thread_init	= rsa_thread_init,
	.thread_run	= rsa_thread_run,
	.thread_done	= rsa_thread_done,
	.finish		= rsa_finish,
	.destroy	= rsa_destroy,
};
BENCH_MODULE(rsa_module);
