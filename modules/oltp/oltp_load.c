/*
 * The TPC-C schema and its initial population (spec 4.3.3.1), loaded in
 * parallel over load_threads connections, and the consistency conditions.
 *
 * The work is cut into jobs small enough to balance two threads over one
 * warehouse: the items in 4 parts, each warehouse's stock in 4 parts (the
 * first with the warehouse and district rows), and per district its
 * customers with their history, and its orders with their lines and new
 * orders. Threads take jobs from a shared counter; the main thread reports
 * progress and joins every thread (the barrier) before the load is declared
 * complete. Rows go in as multi-row INSERTs of up to LOAD_BATCH_BYTES, each
 * its own transaction: big enough to amortise the round trip and the commit,
 * small enough to stay far from max_allowed_packet and the undo log.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "oltp.h"

#define LOAD_BATCH_BYTES	(256u * 1024u)
#define LOAD_ROW_MAX		2048u		/* the longest row we write, with room */
#define ITEM_PARTS		4
#define STOCK_PARTS		4

struct oltp_load {
	oltp_state *s;
	unsigned njobs;
	unsigned next_job;		/* atomic */
	uint64_t done;			/* atomic: rows inserted */
	int stop;			/* atomic: a thread failed or the user cancelled */
	unsigned finished;		/* atomic: threads that returned */
	pthread_mutex_t lock;
	char err[600];
	char date[24];			/* YYYY-MM-DD HH:MM:SS of the load */
	int tsv;			/* the server takes LOAD DATA LOCAL */
};

/* A multi-row INSERT being built. */
struct batch {
	struct oltp_load *L;
	MYSQL *m;
	char *buf;
	size_t len, head, rows;
	uint64_t *seed;
	int tsv;		/* LOAD DATA LOCAL rows, else a multi-row INSERT */
	const char *table;
	size_t pos;		/* LOAD DATA: bytes handed to the client library */
};

/* ------------------------------------------------------------ the schema */

static const char *const oltp_tables[] = {
	"CREATE TABLE warehouse (w_id SMALLINT NOT NULL, w_name VARCHAR(10), w_street_1 VARCHAR(20), "
	"w_street_2 VARCHAR(20), w_city VARCHAR(20), w_state CHAR(2), w_zip CHAR(9), w_tax DECIMAL(4,4), "
	"w_ytd DECIMAL(12,2), PRIMARY KEY (w_id))",
	"CREATE TABLE district (d_id TINYINT NOT NULL, d_w_id SMALLINT NOT NULL, d_name VARCHAR(10), "
	"d_street_1 VARCHAR(20), d_street_2 VARCHAR(20), d_city VARCHAR(20), d_state CHAR(2), d_zip CHAR(9), "
	"d_tax DECIMAL(4,4), d_ytd DECIMAL(12,2), d_next_o_id INT, PRIMARY KEY (d_w_id, d_id))",
	"CREATE TABLE customer (c_id INT NOT NULL, c_d_id TINYINT NOT NULL, c_w_id SMALLINT NOT NULL, "
	"c_first VARCHAR(16), c_middle CHAR(2), c_last VARCHAR(16), c_street_1 VARCHAR(20), "
	"c_street_2 VARCHAR(20), c_city VARCHAR(20), c_state CHAR(2), c_zip CHAR(9), c_phone CHAR(16), "
	"c_since DATETIME, c_credit CHAR(2), c_credit_lim DECIMAL(12,2), c_discount DECIMAL(4,4), "
	"c_balance DECIMAL(12,2), c_ytd_payment DECIMAL(12,2), c_payment_cnt SMALLINT, "
	"c_delivery_cnt SMALLINT, c_data TEXT, PRIMARY KEY (c_w_id, c_d_id, c_id))",
	"CREATE TABLE history (h_c_id INT, h_c_d_id TINYINT, h_c_w_id SMALLINT, h_d_id TINYINT, "
	"h_w_id SMALLINT, h_date DATETIME, h_amount DECIMAL(6,2), h_data VARCHAR(24))",
	"CREATE TABLE new_orders (no_o_id INT NOT NULL, no_d_id TINYINT NOT NULL, no_w_id SMALLINT NOT NULL, "
	"PRIMARY KEY (no_w_id, no_d_id, no_o_id))",
	"CREATE TABLE orders (o_id INT NOT NULL, o_d_id TINYINT NOT NULL, o_w_id SMALLINT NOT NULL, "
	"o_c_id INT, o_entry_d DATETIME, o_carrier_id TINYINT, o_ol_cnt TINYINT, o_all_local TINYINT, "
	"PRIMARY KEY (o_w_id, o_d_id, o_id))",
	"CREATE TABLE order_line (ol_o_id INT NOT NULL, ol_d_id TINYINT NOT NULL, ol_w_id SMALLINT NOT NULL, "
	"ol_number TINYINT NOT NULL, ol_i_id INT, ol_supply_w_id SMALLINT, ol_delivery_d DATETIME, "
	"ol_quantity TINYINT, ol_amount DECIMAL(6,2), ol_dist_info CHAR(24), "
	"PRIMARY KEY (ol_w_id, ol_d_id, ol_o_id, ol_number))",
	"CREATE TABLE item (i_id INT NOT NULL, i_im_id INT, i_name VARCHAR(24), i_price DECIMAL(5,2), "
	"i_data VARCHAR(50), PRIMARY KEY (i_id))",
	"CREATE TABLE stock (s_i_id INT NOT NULL, s_w_id SMALLINT NOT NULL, s_quantity SMALLINT, "
	"s_dist_01 CHAR(24), s_dist_02 CHAR(24), s_dist_03 CHAR(24), s_dist_04 CHAR(24), "
	"s_dist_05 CHAR(24), s_dist_06 CHAR(24), s_dist_07 CHAR(24), s_dist_08 CHAR(24), "
	"s_dist_09 CHAR(24), s_dist_10 CHAR(24), s_ytd DECIMAL(8,0), s_order_cnt SMALLINT, "
	"s_remote_cnt SMALLINT, s_data VARCHAR(50), PRIMARY KEY (s_w_id, s_i_id))",
	NULL
};

/* tpcc-mysql's secondary indexes, built after the data: a sorted build of
   each costs less than keeping it up to date row by row. */
static const char *const oltp_indexes[] = {
	"ALTER TABLE customer ADD KEY idx_customer (c_w_id, c_d_id, c_last, c_first)",
	"ALTER TABLE orders ADD KEY idx_orders (o_w_id, o_d_id, o_c_id, o_id)",
	"ALTER TABLE order_line ADD KEY fkey_order_line_2 (ol_supply_w_id, ol_i_id)",
	"ALTER TABLE stock ADD KEY fkey_stock_2 (s_i_id)",
	NULL
};

/* foreign_keys = true: the references of the spec's schema (1.3), added after
   the data with foreign_key_checks = 0 so they cost no validation scan. */
static const char *const oltp_fkeys[] = {
	"ALTER TABLE district ADD CONSTRAINT fkey_district_1 FOREIGN KEY (d_w_id) REFERENCES warehouse (w_id)",
	"ALTER TABLE customer ADD CONSTRAINT fkey_customer_1 FOREIGN KEY (c_w_id, c_d_id) "
	"REFERENCES district (d_w_id, d_id)",
	"ALTER TABLE history ADD CONSTRAINT fkey_history_1 FOREIGN KEY (h_c_w_id, h_c_d_id, h_c_id) "
	"REFERENCES customer (c_w_id, c_d_id, c_id), ADD CONSTRAINT fkey_history_2 "
	"FOREIGN KEY (h_w_id, h_d_id) REFERENCES district (d_w_id, d_id)",
	"ALTER TABLE new_orders ADD CONSTRAINT fkey_new_orders_1 FOREIGN KEY (no_w_id, no_d_id, no_o_id) "
	"REFERENCES orders (o_w_id, o_d_id, o_id)",
	"ALTER TABLE orders ADD CONSTRAINT fkey_orders_1 FOREIGN KEY (o_w_id, o_d_id, o_c_id) "
	"REFERENCES customer (c_w_id, c_d_id, c_id)",
	"ALTER TABLE order_line ADD CONSTRAINT fkey_order_line_1 FOREIGN KEY (ol_w_id, ol_d_id, ol_o_id) "
	"REFERENCES orders (o_w_id, o_d_id, o_id), ADD CONSTRAINT fkey_order_line_2 "
	"FOREIGN KEY (ol_supply_w_id, ol_i_id) REFERENCES stock (s_w_id, s_i_id)",
	"ALTER TABLE stock ADD CONSTRAINT fkey_stock_1 FOREIGN KEY (s_w_id) REFERENCES warehouse (w_id), "
	"ADD CONSTRAINT fkey_stock_2 FOREIGN KEY (s_i_id) REFERENCES item (i_id)",
	NULL
};

/* ---------------------------------------------------------- row writing */

static const char oltp_alnum[] =
	"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_";

static inline void put_c(struct batch *b, char c) { b->buf[b->len++] = c; }

static inline void put_s(struct batch *b, const char *s, size_t n)
{
	memcpy(b->buf + b->len, s, n);
	b->len += n;
}

static inline void put_sep(struct batch *b) { put_c(b, b->tsv ? '\t' : ','); }
static inline void put_quote(struct batch *b) { if (!b->tsv) put_c(b, '\''); }

static void put_u(struct batch *b, uint64_t v)
{
	char tmp[24];
	int n = 0;
	do
		tmp[n++] = (char)('0' + v % 10);
	while ((v /= 10));
	while (n)
		put_c(b, tmp[--n]);
	put_sep(b);
}

/* A fixed-point number: v / 10^frac, e.g. cents with frac 2. */
static void put_fix(struct batch *b, int64_t v, int frac)
{
	char tmp[32];
	int n = 0;
	if (v < 0) {
		put_c(b, '-');
		v = -v;
	}
	for (int i = 0; i < frac; i++, v /= 10)
		tmp[n++] = (char)('0' + v % 10);
	tmp[n++] = '.';
	do
		tmp[n++] = (char)('0' + v % 10);
	while ((v /= 10));
	while (n)
		put_c(b, tmp[--n]);
	put_sep(b);
}

/* A value written as is (a number, or NULL). */
static void put_lit(struct batch *b, const char *v)
{
	put_s(b, v, strlen(v));
	put_sep(b);
}

static void put_null(struct batch *b)
{
	put_lit(b, b->tsv ? "\\N" : "NULL");
}

static void put_str(struct batch *b, const char *v)
{
	put_quote(b);
	put_s(b, v, strlen(v));
	put_quote(b);
	put_sep(b);
}

/* A random a-string of lo..hi characters (spec 4.3.2.2). */
static void put_astr(struct batch *b, int lo, int hi)
{
	int n = (int)oltp_rand(b->seed, lo, hi);
	put_quote(b);
	while (n > 0) {
		uint64_t r = oltp_rnd(b->seed);
		for (int k = 0; k < 10 && n > 0; k++, n--, r >>= 6)
			put_c(b, oltp_alnum[r & 63]);
	}
	put_quote(b);
	put_sep(b);
}

/* A random n-string of n digits followed by tail. */
static void put_nstr(struct batch *b, int n, const char *tail)
{
	put_quote(b);
	for (int i = 0; i < n; i++)
		put_c(b, (char)('0' + oltp_rnd(b->seed) % 10));
	put_s(b, tail, strlen(tail));
	put_quote(b);
	put_sep(b);
}

/* i_data / s_data: 26..50 characters, 10% with "ORIGINAL" somewhere. */
static void put_data(struct batch *b)
{
	int n = (int)oltp_rand(b->seed, 26, 50);
	size_t at = b->len + (b->tsv ? 0 : 1);
	put_astr(b, n, n);
	if (oltp_rand(b->seed, 1, 10) == 1)
		memcpy(b->buf + at + oltp_rand(b->seed, 0, n - 8), "ORIGINAL", 8);
}

/* street 1, street 2, city, state, zip (spec 4.3.2.7's address) */
static void put_address(struct batch *b)
{
	put_astr(b, 10, 20);
	put_astr(b, 10, 20);
	put_astr(b, 10, 20);
	put_quote(b);
	put_c(b, (char)('A' + oltp_rnd(b->seed) % 26));
	put_c(b, (char)('A' + oltp_rnd(b->seed) % 26));
	put_quote(b);
	put_sep(b);
	put_nstr(b, 4, "11111");
}

/* LOAD DATA LOCAL reads the batch through these instead of a file. */
static int infile_init(void **ptr, const char *name, void *userdata)
{
	(void)name;
	*ptr = userdata;
	return 0;
}

static int infile_read(void *ptr, char *buf, unsigned int n)
{
	struct batch *b = ptr;
	size_t left = b->len - b->pos, k = left < n ? left : n;
	memcpy(buf, b->buf + b->pos, k);
	b->pos += k;
	return (int)k;
}

static void infile_end(void *ptr) { (void)ptr; }

static int infile_error(void *ptr, char *msg, unsigned int n)
{
	(void)ptr;
	snprintf(msg, n, "benchcore's row stream failed");
	return 2000;
}

#define LOAD_RETRIES	5

static int batch_flush(struct batch *b)
{
	struct oltp_load *L = b->L;
	char sql[128];
	int rc;
	if (!b->rows)
		return 0;
	if (!b->tsv)
		b->len -= 2;	/* the last row's "),(" becomes ")" */
	snprintf(sql, sizeof(sql), "LOAD DATA LOCAL INFILE 'benchcore-%s' INTO TABLE %s", b->table, b->table);
	/* Two loader threads filling one table can deadlock inside InnoDB
	   (seen with item's parts: error 1213, the statement rolled back whole);
	   the same rows go again, as the transactions' retries do. */
	for (int attempt = 1;; attempt++) {
		b->pos = 0;
		rc = b->tsv ? mysql_real_query(b->m, sql, strlen(sql)) : mysql_real_query(b->m, b->buf, b->len);
		unsigned e = rc ? mysql_errno(b->m) : 0;
		if (!rc || (e != 1213 && e != 1205) || attempt == LOAD_RETRIES ||
		    __atomic_load_n(&L->stop, __ATOMIC_RELAXED))
			break;
		usleep(10000u * (unsigned)attempt);
	}
	if (rc) {
		pthread_mutex_lock(&L->lock);
		if (!L->err[0])
			snprintf(L->err, sizeof(L->err), "loading %s: %s (error %u)", b->table,
				 mysql_error(b->m), mysql_errno(b->m));
		pthread_mutex_unlock(&L->lock);
		__atomic_store_n(&L->stop, 1, __ATOMIC_RELAXED);
		return -1;
	}
	__atomic_add_fetch(&L->done, b->rows, __ATOMIC_RELAXED);
	b->len = b->head;
	b->rows = 0;
	return __atomic_load_n(&L->stop, __ATOMIC_RELAXED) ? -1 : 0;
}

static void batch_start(struct batch *b, const char *table)
{
	b->table = table;
	b->len = b->tsv ? 0 : (size_t)sprintf(b->buf, "INSERT INTO %s VALUES (", table);
	b->head = b->len;
	b->rows = 0;
}

/* Ends a row (its trailing separator becomes "),(" or a newline), flushing a
   full batch. */
static int batch_row(struct batch *b)
{
	if (b->tsv) {
		b->buf[b->len - 1] = '\n';
	} else {
		b->len--;
		put_s(b, "),(", 3);
	}
	b->rows++;
	return b->len + LOAD_ROW_MAX > LOAD_BATCH_BYTES ? batch_flush(b) : 0;
}

/* ------------------------------------------------------------ the tables */

static int load_items(struct batch *b, unsigned part)
{
	unsigned per = OLTP_ITEMS / ITEM_PARTS;
	batch_start(b, "item");
	for (unsigned i = part * per + 1; i <= (part + 1) * per; i++) {
		put_u(b, i);
		put_u(b, (uint64_t)oltp_rand(b->seed, 1, 10000));
		put_astr(b, 14, 24);
		put_fix(b, oltp_rand(b->seed, 100, 10000), 2);
		put_data(b);
		if (batch_row(b))
			return -1;
	}
	return batch_flush(b);
}

static int load_warehouse(struct batch *b, unsigned w)
{
	batch_start(b, "warehouse");
	put_u(b, w);
	put_astr(b, 6, 10);
	put_address(b);
	put_fix(b, oltp_rand(b->seed, 0, 2000), 4);
	put_fix(b, 30000000, 2);
	if (batch_row(b) || batch_flush(b))
		return -1;
	batch_start(b, "district");
	for (unsigned d = 1; d <= OLTP_DISTRICTS; d++) {
		put_u(b, d);
		put_u(b, w);
		put_astr(b, 6, 10);
		put_address(b);
		put_fix(b, oltp_rand(b->seed, 0, 2000), 4);
		put_fix(b, 3000000, 2);
		put_u(b, OLTP_ORDERS + 1);
		if (batch_row(b))
			return -1;
	}
	return batch_flush(b);
}

static int load_stock(struct batch *b, unsigned w, unsigned part)
{
	unsigned per = OLTP_ITEMS / STOCK_PARTS;
	if (part == 0 && load_warehouse(b, w))
		return -1;
	batch_start(b, "stock");
	for (unsigned i = part * per + 1; i <= (part + 1) * per; i++) {
		put_u(b, i);
		put_u(b, w);
		put_u(b, (uint64_t)oltp_rand(b->seed, 10, 100));
		for (int k = 0; k < 10; k++)
			put_astr(b, 24, 24);
		put_lit(b, "0");
		put_lit(b, "0");
		put_lit(b, "0");
		put_data(b);
		if (batch_row(b))
			return -1;
	}
	return batch_flush(b);
}

static int load_customers(struct batch *b, unsigned w, unsigned d)
{
	struct oltp_load *L = b->L;
	char last[32];
	batch_start(b, "customer");
	for (unsigned c = 1; c <= OLTP_CUSTOMERS; c++) {
		put_u(b, c);
		put_u(b, d);
		put_u(b, w);
		put_astr(b, 8, 16);
		put_str(b, "OE");
		oltp_last_name(last, c <= 1000 ? c - 1
				     : (unsigned)oltp_nurand(b->seed, 255, 0, 999, L->s->c_load.c_last));
		put_str(b, last);
		put_address(b);
		put_nstr(b, 16, "");
		put_str(b, L->date);
		put_str(b, oltp_rand(b->seed, 1, 10) == 1 ? "BC" : "GC");
		put_lit(b, "50000.00");
		put_fix(b, oltp_rand(b->seed, 0, 5000), 4);
		put_lit(b, "-10.00");
		put_lit(b, "10.00");
		put_lit(b, "1");
		put_lit(b, "0");
		put_astr(b, 300, 500);
		if (batch_row(b))
			return -1;
	}
	if (batch_flush(b))
		return -1;
	batch_start(b, "history");
	for (unsigned c = 1; c <= OLTP_CUSTOMERS; c++) {
		put_u(b, c);
		put_u(b, d);
		put_u(b, w);
		put_u(b, d);
		put_u(b, w);
		put_str(b, L->date);
		put_lit(b, "10.00");
		put_astr(b, 12, 24);
		if (batch_row(b))
			return -1;
	}
	return batch_flush(b);
}

/* Orders 1..3000 of a district, their lines, and the undelivered 900 as new orders. */
static int load_orders(struct batch *b, unsigned w, unsigned d)
{
	struct oltp_load *L = b->L;
	unsigned perm[OLTP_ORDERS], cnt[OLTP_ORDERS + 1];
	for (unsigned i = 0; i < OLTP_ORDERS; i++)
		perm[i] = i + 1;
	for (unsigned i = OLTP_ORDERS - 1; i > 0; i--) {	/* o_c_id: a random permutation */
		unsigned j = (unsigned)oltp_rand(b->seed, 0, i), t = perm[i];
		perm[i] = perm[j];
		perm[j] = t;
	}
	batch_start(b, "orders");
	for (unsigned o = 1; o <= OLTP_ORDERS; o++) {
		cnt[o] = (unsigned)oltp_rand(b->seed, 5, 15);
		put_u(b, o);
		put_u(b, d);
		put_u(b, w);
		put_u(b, perm[o - 1]);
		put_str(b, L->date);
		if (o < OLTP_FIRST_NEW_ORDER)
			put_u(b, (uint64_t)oltp_rand(b->seed, 1, 10));
		else
			put_null(b);
		put_u(b, cnt[o]);
		put_lit(b, "1");
		if (batch_row(b))
			return -1;
	}
	if (batch_flush(b))
		return -1;
	batch_start(b, "order_line");
	for (unsigned o = 1; o <= OLTP_ORDERS; o++)
		for (unsigned n = 1; n <= cnt[o]; n++) {
			put_u(b, o);
			put_u(b, d);
			put_u(b, w);
			put_u(b, n);
			put_u(b, (uint64_t)oltp_rand(b->seed, 1, OLTP_ITEMS));
			put_u(b, w);
			if (o < OLTP_FIRST_NEW_ORDER) {
				put_str(b, L->date);
				put_lit(b, "5");
				put_lit(b, "0.00");
			} else {
				put_null(b);
				put_lit(b, "5");
				put_fix(b, oltp_rand(b->seed, 1, 999999), 2);
			}
			put_astr(b, 24, 24);
			if (batch_row(b))
				return -1;
		}
	if (batch_flush(b))
		return -1;
	batch_start(b, "new_orders");
	for (unsigned o = OLTP_FIRST_NEW_ORDER; o <= OLTP_ORDERS; o++) {
		put_u(b, o);
		put_u(b, d);
		put_u(b, w);
		if (batch_row(b))
			return -1;
	}
	return batch_flush(b);
}

/* Job j: items parts first (every thread can start at once), then per
   warehouse its stock parts and, per district, customers and orders. */
static int load_job(struct batch *b, unsigned j)
{
	if (j < ITEM_PARTS)
		return load_items(b, j);
	j -= ITEM_PARTS;
	unsigned per_w = STOCK_PARTS + 2 * OLTP_DISTRICTS, w = j / per_w + 1, k = j % per_w;
	if (k < STOCK_PARTS)
		return load_stock(b, w, k);
	k -= STOCK_PARTS;
	return k % 2 ? load_orders(b, w, k / 2 + 1) : load_customers(b, w, k / 2 + 1);
}

static void *load_thread(void *arg)
{
	struct oltp_load *L = arg;
	oltp_state *s = L->s;
	char err[512];
	const char *hint;
	struct batch b = { .L = L };
	uint64_t seed = s->seed ^ oltp_rnd(&(uint64_t){ (uint64_t)pthread_self() });
	b.seed = &seed;
	mysql_thread_init();
	b.tsv = L->tsv;
	b.m = oltp_connect(s, s->db, L->tsv, err, sizeof(err), &hint);
	if (b.m && b.tsv)
		mysql_set_local_infile_handler(b.m, infile_init, infile_read, infile_end, infile_error, &b);
	b.buf = malloc(LOAD_BATCH_BYTES + LOAD_ROW_MAX);
	if (!b.m || !b.buf || oltp_exec(b.m, "SET SESSION unique_checks = 0, foreign_key_checks = 0",
					err, sizeof(err))) {
		pthread_mutex_lock(&L->lock);
		if (!L->err[0])
			snprintf(L->err, sizeof(L->err), "%s", b.buf ? err : "out of memory");
		pthread_mutex_unlock(&L->lock);
		__atomic_store_n(&L->stop, 1, __ATOMIC_RELAXED);
	}
	while (!__atomic_load_n(&L->stop, __ATOMIC_RELAXED)) {
		unsigned j = __atomic_fetch_add(&L->next_job, 1, __ATOMIC_RELAXED);
		if (j >= L->njobs || load_job(&b, j))
			break;
	}
	free(b.buf);
	if (b.m)
		mysql_close(b.m);
	mysql_thread_end();
	__atomic_add_fetch(&L->finished, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* The database, the marker, the nine tables. *made: 0 nothing created, 1
   the database (empty), 2 the database with its marker. */
static int load_ddl(oltp_state *s, MYSQL *m, int *made, char *err, size_t errn)
{
	char sql[768];
	*made = 0;
	snprintf(sql, sizeof(sql), "CREATE DATABASE `%s`", s->db);
	if (oltp_exec(m, sql, err, errn))
		return -1;
	*made = 1;
	/* the marker first: from here on the database is recognisably ours */
	if (oltp_marker_create(s, m, err, errn))
		return -1;
	*made = 2;
	if (mysql_select_db(m, s->db)) {
		snprintf(err, errn, "%s (error %u)", mysql_error(m), mysql_errno(m));
		return -1;
	}
	snprintf(sql, sizeof(sql), "SET SESSION default_storage_engine = '%s'", s->engine);
	if (oltp_exec(m, sql, err, errn))
		return -1;
	for (const char *const *t = oltp_tables; *t; t++)
		if (oltp_exec(m, *t, err, errn))
			return -1;
	return 0;
}

/* What a failed load left, as a hint that says it truly: asked again on a
   fresh connection (the load's may be the reason it failed). made: as
   load_ddl's. */
static void load_left(oltp_state *s, MYSQL *m, int made, char *hint, size_t n)
{
	char err[256], why[256];
	const char *h;
	if (s->private_server) {
		snprintf(hint, n, "the private server's data directory is removed at the end of the run");
		return;
	}
	if (made == 0) {
		snprintf(hint, n, "nothing was created: database %s was not made", s->db);
		return;
	}
	if (made == 1) {	/* created a moment ago and still empty: ours without a marker */
		if (oltp_drop_if_empty(s, m, err, sizeof(err)) == 0)
			snprintf(hint, n, "the empty database %s it had created was dropped again: nothing is "
				 "left", s->db);
		else
			snprintf(hint, n, "database %s was created but not marked as benchcore's, so benchcore "
				 "never drops it (%s): drop it yourself", s->db, err);
		return;
	}
	MYSQL *c = oltp_connect(s, NULL, 0, err, sizeof(err), &h);
	int mark = c ? oltp_marker_read(s, c, why, sizeof(why)) : -1;
	if (c)
		mysql_close(c);
	if (mark == MARK_NONE)
		snprintf(hint, n, "database %s is gone (dropped): nothing of the load is left", s->db);
	else if (mark == MARK_REDO)
		snprintf(hint, n, "the marker says the load of %s is incomplete: benchcore's cleanup drops it "
			 "at the end of this run; kept (keep = true), the next run drops and reloads it", s->db);
	else if (mark < 0)
		snprintf(hint, n, "benchcore could not see what is left of %s (%s); a database whose marker "
			 "says incomplete is dropped and reloaded by the next run", s->db, c ? why : err);
	else
		snprintf(hint, n, "database %s now holds what benchcore did not create (%s): it is left as "
			 "it is", s->db, why);
}

/* Runs the loader threads and waits for every one of them (the barrier),
   reporting progress meanwhile. */
static int load_parallel(oltp_state *s, struct oltp_load *L)
{
	const bench_host_api_v1 *api = s->api;
	unsigned n = s->load_threads < L->njobs ? s->load_threads : L->njobs, started = 0;
	pthread_t *tid = calloc(n, sizeof(*tid));
	uint64_t total = OLTP_ITEMS + (uint64_t)s->warehouses *
		(1 + OLTP_DISTRICTS + OLTP_ITEMS + OLTP_DISTRICTS * (2 * OLTP_CUSTOMERS + OLTP_ORDERS +
		 OLTP_ORDERS - OLTP_FIRST_NEW_ORDER + 1 + 10 * OLTP_ORDERS));
	for (; tid && started < n; started++)
		if (pthread_create(&tid[started], NULL, load_thread, L))
			break;
	if (started < n) {
		__atomic_store_n(&L->stop, 1, __ATOMIC_RELAXED);
		snprintf(L->err, sizeof(L->err), "cannot start loader threads");
	}
	while (__atomic_load_n(&L->finished, __ATOMIC_ACQUIRE) < started) {
		uint64_t done = __atomic_load_n(&L->done, __ATOMIC_RELAXED);
		api->progress(s->ctx, done, done > total ? done : total, "rows");
		if (api->cancelled(s->ctx))
			__atomic_store_n(&L->stop, 1, __ATOMIC_RELAXED);
		usleep(100000);
	}
	for (unsigned i = 0; i < started; i++)
		pthread_join(tid[i], NULL);
	free(tid);
	api->progress(s->ctx, L->done, L->done, "rows");
	return L->err[0] || L->stop ? -1 : 0;
}

/* Loads a fresh database (the caller dropped any old one of ours). */
int oltp_load(oltp_state *s, MYSQL *m)
{
	struct oltp_load L = { .s = s };
	char err[600] = "";
	time_t now = time(NULL);
	struct tm tm;
	localtime_r(&now, &tm);
	strftime(L.date, sizeof(L.date), "%Y-%m-%d %H:%M:%S", &tm);
	/* LOAD DATA LOCAL costs the server less than parsing INSERTs; it needs
	   the server's local_infile (MariaDB: on by default; MySQL 8: off) */
	int64_t infile = 0;
	L.tsv = oltp_query_int(m, "SELECT @@GLOBAL.local_infile", &infile) == 0 && infile == 1;
	s->api->set_info(s->ctx, "load_method", L.tsv ? "LOAD DATA LOCAL (rows streamed from memory)"
						       : "multi-row INSERT");
	L.njobs = ITEM_PARTS + s->warehouses * (STOCK_PARTS + 2 * OLTP_DISTRICTS);
	pthread_mutex_init(&L.lock, NULL);
	uint64_t t0 = s->api->now_ns();
	int made, rc = load_ddl(s, m, &made, err, sizeof(err));
	if (rc == 0 && (rc = load_parallel(s, &L)))
		snprintf(err, sizeof(err), "%s", L.err[0] ? L.err : "interrupted");
	pthread_mutex_destroy(&L.lock);
	for (const char *const *k = oltp_indexes; rc == 0 && *k; k++)
		rc = oltp_exec(m, *k, err, sizeof(err));
	for (const char *const *f = oltp_fkeys; rc == 0 && s->foreign_keys && *f; f++)
		if (oltp_exec(m, "SET SESSION foreign_key_checks = 0", err, sizeof(err)) ||
		    oltp_exec(m, *f, err, sizeof(err)))
			rc = -1;
	if (rc == 0)
		rc = oltp_exec(m, "ANALYZE TABLE warehouse, district, customer, history, new_orders, orders, "
			       "order_line, item, stock", err, sizeof(err));
	if (rc == 0)
		rc = oltp_marker_complete(s, m, err, sizeof(err));
	if (rc) {
		char hint[768];
		load_left(s, m, made, hint, sizeof(hint));
		if (s->api->cancelled(s->ctx))
			oltp_fail(s, NULL, NULL, hint, "load of %s interrupted", s->db);
		else
			oltp_fail(s, NULL, err, hint, "loading %u warehouses into %s failed", s->warehouses, s->db);
		return BENCH_ERR;
	}
	double secs = (double)(s->api->now_ns() - t0) / 1e9;
	char v[64];
	snprintf(v, sizeof(v), "%.1f", secs);
	s->api->set_info(s->ctx, "load_seconds", v);
	snprintf(v, sizeof(v), "%" PRIu64, L.done);
	s->api->set_info(s->ctx, "load_rows", v);
	s->api->log(s->ctx, BENCH_LOG_INFO, "loaded %u warehouse%s (%" PRIu64 " rows) in %.1f s over %u "
		    "connections", s->warehouses, s->warehouses == 1 ? "" : "s", L.done, secs,
		    s->load_threads);
	return BENCH_OK;
}

/* ------------------------------------------------------- consistency */

static const struct {
	const char *what, *sql;
} oltp_conditions[] = {
	{ "1: W_YTD = sum(D_YTD)",
	  "SELECT COUNT(*) FROM warehouse w WHERE w.w_ytd <> "
	  "(SELECT SUM(d_ytd) FROM district d WHERE d.d_w_id = w.w_id)" },
	{ "2: D_NEXT_O_ID - 1 = max(O_ID) = max(NO_O_ID)",
	  "SELECT COUNT(*) FROM district d WHERE d.d_next_o_id - 1 <> "
	  "(SELECT MAX(o_id) FROM orders WHERE o_w_id = d.d_w_id AND o_d_id = d.d_id) OR "
	  "d.d_next_o_id - 1 <> COALESCE((SELECT MAX(no_o_id) FROM new_orders "
	  "WHERE no_w_id = d.d_w_id AND no_d_id = d.d_id), d.d_next_o_id - 1)" },
	{ "3: max(NO_O_ID) - min(NO_O_ID) + 1 = rows in NEW-ORDER",
	  "SELECT COUNT(*) FROM (SELECT MAX(no_o_id) - MIN(no_o_id) + 1 AS span, COUNT(*) AS n "
	  "FROM new_orders GROUP BY no_w_id, no_d_id) x WHERE span <> n" },
	{ "4: sum(O_OL_CNT) = rows in ORDER-LINE",
	  "SELECT COUNT(*) FROM (SELECT o_w_id, o_d_id, SUM(o_ol_cnt) AS s FROM orders "
	  "GROUP BY o_w_id, o_d_id) a JOIN (SELECT ol_w_id, ol_d_id, COUNT(*) AS n FROM order_line "
	  "GROUP BY ol_w_id, ol_d_id) b ON a.o_w_id = b.ol_w_id AND a.o_d_id = b.ol_d_id WHERE a.s <> b.n" },
};

int oltp_consistency(oltp_state *s, MYSQL *m, char *why, size_t whyn)
{
	(void)s;
	for (size_t i = 0; i < sizeof(oltp_conditions) / sizeof(oltp_conditions[0]); i++) {
		int64_t bad = 0;
		if (oltp_query_int(m, oltp_conditions[i].sql, &bad)) {
			snprintf(why, whyn, "condition %s: %s", oltp_conditions[i].what, mysql_error(m));
			return -1;
		}
		if (bad) {
			snprintf(why, whyn, "condition %s fails in %" PRId64 " place%s", oltp_conditions[i].what,
				 bad, bad == 1 ? "" : "s");
			return -1;
		}
	}
	return 0;
}
