/*
 * mem: memory throughput, like `sysbench memory`.
 *
 * What one event is (the same work as sysbench 1.0.20 at equal settings):
 *  - access=seq: one pass over a block of block_size bytes;
 *  - access=rnd: block_size/8 accesses to random 8-byte words.
 * As in sysbench, each thread (scope=local) or all threads (scope=global)
 * work on a buffer of block_size bytes, so every event touches the same
 * block: with small blocks this measures the CPU caches, which is what most
 * published "memory" figures really are. We say so (a warning naming the
 * last-level cache, or saying its size is unknown when the machine hides
 * it), and buffer_size lets a thread walk block after block through a
 * larger buffer so that the figure is the memory's.
 *
 * Why thread_run and not event: a 4K block takes ~20 ns from L1, about as
 * long as the two clock reads the host would do around each event. We time
 * batches of events sized to ~20 us and record each event with the batch's
 * mean latency, so the clock is read twice per batch, not per event.
 *
 * Threads: init/finish/destroy on the main thread; every mem_thread belongs to
 * its worker. The global buffer is shared read/write by design (sysbench's
 * scope=global); nothing else is shared.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <benchcore/module.h>
#include "mem_kernels.h"
#include <benchcore/hugepage.h>

#define MEM_HUGE_PAGE	(2u << 20)
#define MEM_BATCH_NS	20000u		/* target length of one timed batch */
#define MEM_BATCH_MAX	65536u

enum mem_oper { MEM_READ, MEM_WRITE, MEM_COPY, MEM_NONE };
enum mem_access { MEM_SEQ, MEM_RND };
enum mem_scope { MEM_GLOBAL, MEM_LOCAL };
enum mem_width { MEM_AUTO, MEM_VECTOR, MEM_WORD };

static const char *const mem_oper_names[] = { "read", "write", "copy", "none", NULL };
static const char *const mem_access_names[] = { "seq", "rnd", NULL };
static const char *const mem_scope_names[] = { "global", "local", NULL };
static const char *const mem_width_names[] = { "auto", "vector", "word", NULL };

/* The options as the host fills them for each case (ABI 1.3): enums as
   their index into the names above. */
struct mem_opts {
	int64_t block_size, total_size, buffer_size;
	int oper, access, scope, width, hugepages;
};

static const bench_option_v1 mem_options[] = {
	{ "block_size", BENCH_OPT_SIZE, "1K",
	  "bytes touched by one event (sysbench --memory-block-size; default as sysbench)",
	  NULL, 8, 1024.0 * 1024 * 1024, 0, BENCH_OPT_AT(struct mem_opts, block_size) },
	{ "total_size", BENCH_OPT_SIZE, "0",
	  "bytes to transfer in all, split evenly across threads; 0 = until time/events end",
	  NULL, 0, 0, 0, BENCH_OPT_AT(struct mem_opts, total_size) },
	{ "oper", BENCH_OPT_ENUM, "write",
	  "read, write, copy (block to a second buffer) or none (loop only)",
	  mem_oper_names, 0, 0, 0, BENCH_OPT_AT(struct mem_opts, oper) },
	{ "access", BENCH_OPT_ENUM, "seq",
	  "seq: one pass over the block; rnd: block_size/8 random 8-byte words",
	  mem_access_names, 0, 0, 0, BENCH_OPT_AT(struct mem_opts, access) },
	{ "scope", BENCH_OPT_ENUM, "global",
	  "global: one buffer shared by all threads; local: one buffer per thread",
	  mem_scope_names, 0, 0, 0, BENCH_OPT_AT(struct mem_opts, scope) },
	{ "buffer_size", BENCH_OPT_SIZE, "0",
	  "bytes walked block by block (per thread when local); 0 = one block, as sysbench",
	  NULL, 0, 64.0 * 1024 * 1024 * 1024, BENCH_OPT_SCALES,
	  BENCH_OPT_AT(struct mem_opts, buffer_size) },
	{ "width", BENCH_OPT_ENUM, "auto",
	  "seq access size: vector (32-byte, what memcpy does), word (8-byte, as sysbench), "
	  "auto: word for writes into one block shared by several threads, else vector",
	  mem_width_names, 0, 0, 0, BENCH_OPT_AT(struct mem_opts, width) },
	{ "hugepages", BENCH_OPT_BOOL, "false",
	  "back buffers with HugeTLB pages, else transparent huge pages (madvise)",
	  NULL, 0, 0, 0, BENCH_OPT_AT(struct mem_opts, hugepages) },
	{ NULL, 0, NULL, NULL, NULL, 0, 0, 0 }
};

static const bench_metric_v1 mem_metrics[] = {
	{ "mib_per_sec", "MiB/s", 1 },
	{ "ops_per_sec", "ops/s", 1 },
	{ NULL, NULL, 0 }
};

/* One mapping: the buffer, plus the copy target when oper=copy. */
struct mem_region {
	char *map;		/* what mmap returned (munmap this) */
	size_t map_len;
	char *src, *dst;	/* dst == NULL unless oper=copy */
};

struct mem_state {
	const bench_host_api_v1 *api;
	bench_ctx *ctx;
	size_t block, buffer, nblocks;
	uint64_t per_thread_events;	/* 0 = no total_size bound */
	int oper, access, scope, width, hugepages;
	unsigned threads;
	const char *page_kind;		/* "hugetlb", "thp", "default" */
	struct mem_region global;
	struct mem_region *local;	/* [threads] when scope=local */
};

/* Written only by its worker thread; aligned so neighbours never share a line. */
struct mem_thread {
	struct mem_state *s;
	bench_thread *bt;
	struct mem_region *r;
	size_t cursor;			/* index of the next block (seq) */
	size_t rot;			/* one shared block: where this thread's pass starts */
	uint64_t rng, seq, sink;
} __attribute__((aligned(64)));

/* ------------------------------------------------------------ buffers */

static void mem_fmt_size(uint64_t v, char *buf, size_t n)
{
	static const char units[] = "KMGT";
	int u = -1;

	while (v >= 1024 && v % 1024 == 0 && u < 3) {
		v /= 1024;
		u++;
	}
	if (u < 0)
		snprintf(buf, n, "%llu", (unsigned long long)v);
	else
		snprintf(buf, n, "%llu%c", (unsigned long long)v, units[u]);
}

/* Transparent huge page mode: the bracketed word of the sysfs file. */
static void mem_thp_mode(char *mode, size_t n)
{
	char line[128] = "";
	FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");

	snprintf(mode, n, "unavailable");
	if (!f)
		return;
	if (fgets(line, sizeof(line), f)) {
		char *a = strchr(line, '['), *b = a ? strchr(a, ']') : NULL;
		if (a && b) {
			*b = '\0';
			snprintf(mode, n, "%s", a + 1);
		}
	}
	fclose(f);
}

/* Maps len bytes. page_kind says how hugepages=true was honoured; the
   first mapping of a case decides and later ones follow it. */
static int mem_map(struct mem_state *s, size_t len, struct mem_region *r)
{
	const int prot = PROT_READ | PROT_WRITE, flags = MAP_PRIVATE | MAP_ANONYMOUS;
	size_t hlen = (len + MEM_HUGE_PAGE - 1) / MEM_HUGE_PAGE * MEM_HUGE_PAGE;
	void *p = MAP_FAILED;

	if (s->hugepages && strcmp(s->page_kind, "thp") != 0) {
		p = mmap(NULL, hlen, prot, flags | MAP_HUGETLB, -1, 0);
		if (p != MAP_FAILED) {
			s->page_kind = "hugetlb";
			r->map = p;
			r->map_len = hlen;
			return 0;
		}
		if (strcmp(s->page_kind, "hugetlb") == 0) {
			s->api->set_error(s->ctx, "cannot map %zu bytes of HugeTLB pages: %s",
					  hlen, strerror(errno));
			return -1;
		}
		s->page_kind = "thp";
	}
	if (s->hugepages) {
		p = bench_thp_map(len, &r->map_len);
		if (p == MAP_FAILED)
			goto fail;
		r->map = r->src = p;
		return 0;
	}
	p = mmap(NULL, len, prot, flags, -1, 0);
	if (p == MAP_FAILED)
		goto fail;
	r->map = p;
	r->map_len = len;
	return 0;
fail:
	s->api->set_error(s->ctx, "cannot map a %zu-byte buffer: %s",
			  len, strerror(errno));
	return -1;
}

/* One region: the buffer and, for copy, the target right after it. */
static int mem_region_init(struct mem_state *s, struct mem_region *r)
{
	size_t len = s->buffer * (s->oper == MEM_COPY ? 2 : 1);

	memset(r, 0, sizeof(*r));
	if (mem_map(s, len, r) < 0)
		return -1;
	if (!r->src)
		r->src = r->map;
	if (s->oper == MEM_COPY)
		r->dst = r->src + s->buffer;
	return 0;
}

static void mem_region_free(struct mem_region *r)
{
	if (r->map)
		munmap(r->map, r->map_len);
	memset(r, 0, sizeof(*r));
}

static void mem_region_touch(const struct mem_state *s, struct mem_region *r)
{
	/* Fault every page in now, outside the measured window (and, for
	   local buffers, from the thread that will use it: first touch puts
	   the pages on that thread's NUMA node). */
	memset(r->src, 1, s->buffer);
	if (r->dst)
		memset(r->dst, 0, s->buffer);
}

/* With the last-level cache's size unknown (hidden by a hypervisor, or a
   figure the host judged implausible), a set this small most likely fits
   in it: server L3s reach 32-112 MiB. */
#define MEM_LLC_GUESS	(64ull << 20)

/* The last-level cache as the host found it; 0 when unknown, or when an
   ABI 1.0 host cannot say. *level: its level, 0 if none is known. */
static uint64_t mem_llc(const struct mem_state *s, unsigned *level, const char **source)
{
	*level = 0;
	*source = NULL;
	if (!BENCH_HOST_HAS(s->api, cache_size))
		return 0;
	return s->api->cache_size(s->ctx, 0, level, source);
}

/* Records the LLC the warning is based on (info.llc) and warns when the
   buffers fit in it, or, its size unknown, most likely fit in a cache. */
static void mem_warn_cache(struct mem_state *s)
{
	unsigned level;
	const char *source;
	uint64_t llc = mem_llc(s, &level, &source);
	uint64_t set = (uint64_t)s->buffer * (s->oper == MEM_COPY ? 2 : 1) *
		       (s->scope == MEM_LOCAL ? s->threads : 1);
	char a[32], b[32], c[32], info[80], lvl[16] = "LLC";

	if (level)
		snprintf(lvl, sizeof(lvl), "L%u", level);
	mem_fmt_size(llc, b, sizeof(b));
	snprintf(info, sizeof(info), llc ? "%s %s (%s)" : "%s unknown", lvl, b, source);
	s->api->set_info(s->ctx, "llc", info);
	if (s->oper == MEM_NONE)
		return;
	mem_fmt_size(set, a, sizeof(a));
	if (llc && set <= llc) {
		mem_fmt_size(llc * 4, c, sizeof(c));
		s->api->log(s->ctx, BENCH_LOG_WARN,
			    "the buffers (%s in all) fit in the last-level cache (%s, %s): this "
			    "measures cache bandwidth, not memory; for memory set buffer_size=%s or more",
			    a, lvl, b, c);
	} else if (!llc && set <= MEM_LLC_GUESS) {
		mem_fmt_size((uint64_t)s->buffer, b, sizeof(b));
		s->api->log(s->ctx, BENCH_LOG_WARN,
			    "cache size unknown on this machine: a %s buffer most likely measures a "
			    "cache, not memory (%s in all; the %s size is hidden or implausible); for "
			    "memory set buffer_size=512M or more", b, a, lvl);
	}
}

/* Says once per case how hugepages=true was honoured. */
static void mem_log_pages(struct mem_state *s)
{
	char mode[32];

	if (!s->hugepages)
		return;
	if (strcmp(s->page_kind, "hugetlb") == 0) {
		s->api->log(s->ctx, BENCH_LOG_INFO, "buffers use HugeTLB pages");
		return;
	}
	mem_thp_mode(mode, sizeof(mode));
	if (strcmp(mode, "always") == 0 || strcmp(mode, "madvise") == 0) {
		s->api->log(s->ctx, BENCH_LOG_WARN,
			    "no HugeTLB pages available (vm.nr_hugepages); buffers use transparent "
			    "huge pages (THP mode %s), which the kernel grants when it can", mode);
		return;
	}
	s->page_kind = "default";
	s->api->log(s->ctx, BENCH_LOG_WARN,
		    "hugepages=true but neither HugeTLB pages (vm.nr_hugepages) nor transparent "
		    "huge pages (THP mode %s) are available: buffers use normal pages", mode);
}

/* ---------------------------------------------------------- lifecycle */

static void mem_destroy(void *state)
{
	struct mem_state *s = state;

	if (!s)
		return;
	mem_region_free(&s->global);
	if (s->local)
		for (unsigned i = 0; i < s->threads; i++)
			mem_region_free(&s->local[i]);
	free(s->local);
	free(s);
}

static int mem_init(const bench_host_api_v1 *api, bench_ctx *ctx, void **state)
{
	const struct mem_opts *o = BENCH_HOST_HAS(api, options) ? api->options(ctx) : NULL;
	struct mem_state *s;
	uint64_t total;

	if (!o) {
		api->set_error(ctx, "mem needs a benchcore of ABI 1.3 or later (typed options)");
		return BENCH_ERR;
	}
	if (!(s = calloc(1, sizeof(*s)))) {
		api->set_error(ctx, "out of memory");
		return BENCH_ERR;
	}
	*state = s;
	s->api = api;
	s->ctx = ctx;
	s->block = (size_t)o->block_size;
	s->buffer = (size_t)o->buffer_size;
	s->oper = o->oper;
	s->access = o->access;
	s->scope = o->scope;
	s->width = o->width;
	s->hugepages = o->hugepages;
	s->threads = api->threads(ctx);
	s->page_kind = "default";
	total = (uint64_t)o->total_size;

	if (s->buffer == 0)
		s->buffer = s->block;
	if (s->buffer < s->block) {
		api->set_error(ctx, "buffer_size (%zu) is smaller than block_size (%zu): "
			       "set buffer_size=0 (one block) or at least block_size",
			       s->buffer, s->block);
		return BENCH_ERR;
	}
	s->nblocks = s->buffer / s->block;
	/* 32-byte stores into lines another core is storing to collapse
	   (measured 16 vs 38 GB/s at 4K, 2 threads); 8-byte stores cope, and
	   are what sysbench does. Everywhere else 32-byte accesses are faster. */
	if (s->width == MEM_AUTO)
		s->width = s->scope == MEM_GLOBAL && s->threads > 1 && s->nblocks == 1 &&
			(s->oper == MEM_WRITE || s->oper == MEM_COPY) ? MEM_WORD : MEM_VECTOR;
	s->buffer = s->nblocks * s->block;
	/* As sysbench: each thread does total / block / threads events. */
	if (total > 0) {
		s->per_thread_events = total / s->block / (s->threads ? s->threads : 1);
		if (s->per_thread_events == 0)
			s->per_thread_events = 1;
	}
	if (s->scope == MEM_GLOBAL) {
		if (mem_region_init(s, &s->global) < 0)
			return BENCH_ERR;
		mem_region_touch(s, &s->global);
	} else {
		/* Mapped here, touched by the owning thread in thread_init. */
		s->local = calloc(s->threads, sizeof(*s->local));
		if (!s->local) {
			api->set_error(ctx, "out of memory");
			return BENCH_ERR;
		}
		for (unsigned i = 0; i < s->threads; i++)
			if (mem_region_init(s, &s->local[i]) < 0)
				return BENCH_ERR;
	}
	mem_log_pages(s);
	mem_warn_cache(s);
	api->set_info(ctx, "pages", s->page_kind);
	api->set_info(ctx, "width", mem_width_names[s->width]);
	return BENCH_OK;
}

static int mem_thread_init(void *state, bench_thread *bt, void **tstate)
{
	struct mem_state *s = state;
	unsigned idx = s->api->thread_index(bt);
	struct mem_thread *t = aligned_alloc(64, sizeof(*t));

	if (!t) {
		s->api->set_error(s->ctx, "out of memory");
		return BENCH_ERR;
	}
	memset(t, 0, sizeof(*t));
	t->s = s;
	t->bt = bt;
	t->rng = s->api->now_ns() ^ (0x9e3779b97f4a7c15ull * (idx + 1));
	if (s->scope == MEM_LOCAL) {
		t->r = &s->local[idx];
		mem_region_touch(s, t->r);
	} else {
		t->r = &s->global;
		/* Spread the threads over a shared multi-block buffer. */
		t->cursor = (size_t)((uint64_t)s->nblocks * idx / (s->threads ? s->threads : 1));
		/* With one shared block, threads that all start each pass at its
		   first byte run in lockstep over the same cache lines and measure
		   line ping-pong between cores, not memory. Each thread starts its
		   pass at its own 64-byte aligned point and wraps around: the same
		   bytes per event, spread apart. */
		if (s->nblocks == 1 && s->threads > 1 && s->block % 64 == 0)
			t->rot = (size_t)(s->block / 64 * idx / s->threads) * 64;
	}
	*tstate = t;
	return BENCH_OK;
}

/* One sequential pass over n bytes at p (and dst for copy). */
static inline void mem_seq_pass(struct mem_thread *t, char *p, char *dst, size_t n)
{
	const struct mem_state *s = t->s;

	switch (s->oper) {
	case MEM_READ:
		t->sink ^= s->width == MEM_WORD ? mem_seq_read_word(p, n) : mem_seq_read_vec(p, n);
		break;
	case MEM_WRITE:
		if (s->width == MEM_WORD)
			mem_seq_write_word(p, n, t->seq);
		else
			mem_seq_write_vec(p, n, t->seq);
		break;
	case MEM_COPY:
		if (s->width == MEM_WORD)
			mem_seq_copy_word(dst, p, n);
		else
			memcpy(dst, p, n);
		break;
	default:
		t->sink ^= mem_seq_none(n);
		break;
	}
}

/* One event: block_size bytes of work at the thread's cursor. */
static inline void mem_one(struct mem_thread *t)
{
	const struct mem_state *s = t->s;
	const struct mem_region *r = t->r;

	if (s->access == MEM_RND) {
		size_t nw = s->buffer / 8, n = s->block / 8;
		switch (s->oper) {
		case MEM_READ:	t->sink ^= mem_rnd_read(r->src, nw, n, &t->rng); break;
		case MEM_WRITE:	mem_rnd_write(r->src, nw, n, &t->rng); break;
		case MEM_COPY:	mem_rnd_copy(r->dst, r->src, nw, n, &t->rng); break;
		default:	t->sink ^= mem_rnd_none(nw, n, &t->rng); break;
		}
		return;
	}
	size_t off = t->cursor * s->block;
	char *p = r->src + off;

	if (t->rot) {	/* one shared block: [rot, end) then [0, rot) */
		size_t b = s->block - t->rot;
		mem_seq_pass(t, r->src + t->rot, r->dst ? r->dst + t->rot : NULL, b);
		mem_seq_pass(t, r->src, r->dst, t->rot);
		t->seq++;
		return;
	}

	if (++t->cursor == s->nblocks)
		t->cursor = 0;
	t->seq++;
	mem_seq_pass(t, p, r->dst ? r->dst + off : NULL, s->block);
}

static int mem_thread_run(void *tstate)
{
	struct mem_thread *t = tstate;
	const struct mem_state *s = t->s;
	const bench_host_api_v1 *api = s->api;
	const uint64_t bytes = s->oper == MEM_NONE ? 0 : s->block;
	uint64_t left = s->per_thread_events, batch = 1;
	/* warmup must not use up the total_size budget (host API field since 1.0) */
	int (*measuring)(bench_thread *) = BENCH_HOST_HAS(api, measuring) ? api->measuring : NULL;
	void (*record_n)(bench_thread *, unsigned, uint64_t, uint64_t, uint64_t) =
		BENCH_HOST_HAS(api, record_n) ? api->record_n : NULL;
	/* warmup = auto judges the rate of the batches warmup runs (1.3) */
	void (*warmup_n)(bench_thread *, uint64_t) = BENCH_HOST_HAS(api, warmup_n) ? api->warmup_n : NULL;

	/* --events N counts operations, not batches: each batch of the window
	   takes its n events with claim() (1.1), and the loop stops on
	   stopping(), which takes none; should_stop() (a 1.0 host's only way)
	   would take one event a batch */
	int (*stopping)(bench_thread *) = BENCH_HOST_HAS(api, stopping) ? api->stopping : api->should_stop;
	uint64_t (*claim)(bench_thread *, uint64_t) = BENCH_HOST_HAS(api, claim) ? api->claim : NULL;

	while (!stopping(t->bt)) {
		uint64_t n = batch;
		/* a batch started in warmup is not recorded, even if it ends after
		   it (measuring() before claim(): one that said yes claims in the
		   window; one begun in warmup takes nothing) */
		int counted = !measuring || measuring(t->bt);
		if (s->per_thread_events && counted) {
			if (left == 0)
				break;
			if (n > left)
				n = left;
		}
		if (counted && claim && (n = claim(t->bt, n)) == 0)
			break;	/* --events: the budget is spent */
		if (s->per_thread_events && counted)
			left -= n;
		uint64_t t0 = api->now_ns();
		for (uint64_t i = 0; i < n; i++)
			mem_one(t);
		uint64_t dt = api->now_ns() - t0;
		/* Every event of the batch gets the batch's mean latency. */
		uint64_t lat = dt / n;
		if (counted && record_n)
			record_n(t->bt, (unsigned)s->oper, n, lat, bytes);
		for (uint64_t i = 0; counted && !record_n && i < n; i++)
			api->record(t->bt, (unsigned)s->oper, lat, bytes);
		if (!counted && warmup_n)
			warmup_n(t->bt, n);
		/* Grow or shrink the batch towards MEM_BATCH_NS. */
		if (dt < MEM_BATCH_NS / 2 && batch < MEM_BATCH_MAX)
			batch *= 2;
		else if (dt > MEM_BATCH_NS * 2 && batch > 1)
			batch /= 2;
	}
	/* Publish the sink so no load above is dead code. */
	__asm__ volatile("" : : "r"(t->sink) : "memory");
	return BENCH_OK;
}

static void mem_thread_done(void *tstate)
{
	free(tstate);
}

static int mem_finish(void *state)
{
	struct mem_state *s = state;
	bench_totals_v1 tot;

	if (s->api->totals(s->ctx, (unsigned)s->oper, &tot) != 0 || tot.seconds <= 0)
		return BENCH_OK;
	if (s->oper != MEM_NONE)
		s->api->report_metric(s->ctx, "mib_per_sec",
				      (double)tot.bytes / (1024.0 * 1024.0) / tot.seconds);
	s->api->report_metric(s->ctx, "ops_per_sec", (double)tot.count / tot.seconds);
	return BENCH_OK;
}

/* Memory a case touches: its buffer (buffer_size, or one block), one per
   thread when local, twice over for copy. */
static int mem_needs(const bench_host_api_v1 *api, bench_ctx *ctx, bench_needs_v1 *out)
{
	const struct mem_opts *o = api->options(ctx);
	uint64_t buf = (uint64_t)(o->buffer_size ? o->buffer_size : o->block_size);
	uint64_t n = (o->scope == 1 ? api->threads(ctx) : 1) * (o->oper == MEM_COPY ? 2 : 1);
	out->memory_bytes = buf * n;
	out->why = o->scope == 1 ? "a buffer per thread" : "one buffer for all threads";
	return BENCH_OK;
}

static const bench_module_v1 mem_module = {
	BENCH_MODULE_HEADER,
	.name		= "mem",
	.version	= "1.0",
	.summary	= "memory throughput by block size (sysbench memory)",
	.options	= mem_options,
	.opts_size	= sizeof(struct mem_opts),
	.op_classes	= mem_oper_names,
	.metrics	= mem_metrics,
	.headline_metric = "mib_per_sec",
	.needs		= mem_needs,
	.init		= mem_init,
	.thread_init	= mem_thread_init,
	.thread_run	= mem_thread_run,
	.thread_done	= mem_thread_done,
	.finish		= mem_finish,
	.destroy	= mem_destroy,
};
BENCH_MODULE(mem_module);
