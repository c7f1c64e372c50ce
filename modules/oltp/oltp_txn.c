/*
 * The five TPC-C transactions (spec 2.4 - 2.8) over prepared statements, and
 * the worker loop: one connection per worker thread.
 *
 * The mix comes from a deck of 23 cards per thread, shuffled each time it is
 * used up: 10 New-Order, 10 Payment, 1 each of Order-Status, Delivery and
 * Stock-Level (43.5 / 43.5 / 4.35 / 4.35 / 4.35 %), as tpcc-mysql deals it.
 * A deck holds the spec's minimums (5.2.3: Payment >= 43 %, the other three
 * >= 4 %) by construction in every 23 transactions, instead of only on
 * average as a weighted draw does; and it is the smallest deck that does so
 * (a 100-card 45/43/4/4/4 deck sits exactly on the minimums, so any window
 * that cuts a deck short can fall under them). New-Order gets the rest.
 *
 * A deadlock (1213), a lock wait timeout (1205) or a snapshot conflict (1020,
 * "Record has changed since last read": MariaDB 11.6 and later, whose
 * innodb_snapshot_isolation is on by default, refuse a locking read of a row
 * changed since the transaction's snapshot) rolls the transaction back and
 * runs it again with the same inputs, up to retries_max times; retries are
 * counted apart (the retries metric; deadlocks, lock waits, conflicts in info),
 * not as errors: a retried transaction that commits is a success, and the
 * host's error budget (max_error_rate) judges failures only. Its latency
 * runs from its first attempt to its commit.
 * Any other server error is a failure (kind "failed"); a lost connection
 * ends the worker. The 1 % of New-Orders that roll back on purpose (an
 * unused item number, 2.4.1.4) are successful transactions by the spec
 * (2.4.2.3) and recorded as such, and counted apart (rollbacks).
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "oltp.h"

enum stmt_id {
	NO_CUST_WH, NO_DIST, NO_DIST_UPD, NO_ORDER_INS, NO_NEW_INS, NO_ITEM, NO_STOCK, NO_STOCK_UPD,
	NO_OL_INS,
	PAY_WH_UPD, PAY_WH, PAY_DIST_UPD, PAY_DIST, CUST_BY_NAME, PAY_CUST, PAY_CUST_DATA,
	PAY_CUST_UPD_BC, PAY_CUST_UPD, PAY_HIST_INS,
	OS_CUST, OS_ORDER, OS_LINES,
	DL_NEW, DL_NEW_DEL, DL_ORDER, DL_ORDER_UPD, DL_LINES_UPD, DL_LINES_SUM, DL_CUST_UPD,
	SL_DIST, SL_COUNT,
	SNAP_NEXT_O_ID,
	ST_N
};

static const char *const oltp_sql[ST_N] = {
	[NO_CUST_WH] = "SELECT c_discount, c_last, c_credit, w_tax FROM customer, warehouse "
		       "WHERE w_id = ? AND c_w_id = w_id AND c_d_id = ? AND c_id = ?",
	[NO_DIST] = "SELECT d_next_o_id, d_tax FROM district WHERE d_w_id = ? AND d_id = ? FOR UPDATE",
	[NO_DIST_UPD] = "UPDATE district SET d_next_o_id = d_next_o_id + 1 WHERE d_w_id = ? AND d_id = ?",
	[NO_ORDER_INS] = "INSERT INTO orders VALUES (?, ?, ?, ?, NOW(), NULL, ?, ?)",
	[NO_NEW_INS] = "INSERT INTO new_orders VALUES (?, ?, ?)",
	[NO_ITEM] = "SELECT i_price, i_name, i_data FROM item WHERE i_id = ?",
	[NO_STOCK] = "SELECT s_quantity, s_data, ELT(?, s_dist_01, s_dist_02, s_dist_03, s_dist_04, "
		     "s_dist_05, s_dist_06, s_dist_07, s_dist_08, s_dist_09, s_dist_10) FROM stock "
		     "WHERE s_i_id = ? AND s_w_id = ? FOR UPDATE",
	[NO_STOCK_UPD] = "UPDATE stock SET s_quantity = ?, s_ytd = s_ytd + ?, s_order_cnt = s_order_cnt + 1, "
			 "s_remote_cnt = s_remote_cnt + ? WHERE s_i_id = ? AND s_w_id = ?",
	[NO_OL_INS] = "INSERT INTO order_line VALUES (?, ?, ?, ?, ?, ?, NULL, ?, ?, ?)",
	[PAY_WH_UPD] = "UPDATE warehouse SET w_ytd = w_ytd + ? WHERE w_id = ?",
	[PAY_WH] = "SELECT w_street_1, w_street_2, w_city, w_state, w_zip, w_name FROM warehouse "
		   "WHERE w_id = ?",
	[PAY_DIST_UPD] = "UPDATE district SET d_ytd = d_ytd + ? WHERE d_w_id = ? AND d_id = ?",
	[PAY_DIST] = "SELECT d_street_1, d_street_2, d_city, d_state, d_zip, d_name FROM district "
		     "WHERE d_w_id = ? AND d_id = ?",
	[CUST_BY_NAME] = "SELECT c_id FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_last = ? "
			 "ORDER BY c_first",
	[PAY_CUST] = "SELECT c_first, c_middle, c_last, c_street_1, c_street_2, c_city, c_state, c_zip, "
		     "c_phone, c_credit, c_credit_lim, c_discount, c_balance, c_since FROM customer "
		     "WHERE c_w_id = ? AND c_d_id = ? AND c_id = ? FOR UPDATE",
	[PAY_CUST_DATA] = "SELECT c_data FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?",
	[PAY_CUST_UPD_BC] = "UPDATE customer SET c_balance = c_balance - ?, c_ytd_payment = c_ytd_payment + ?, "
			    "c_payment_cnt = c_payment_cnt + 1, c_data = ? "
			    "WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?",
	[PAY_CUST_UPD] = "UPDATE customer SET c_balance = c_balance - ?, c_ytd_payment = c_ytd_payment + ?, "
			 "c_payment_cnt = c_payment_cnt + 1 WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?",
	[PAY_HIST_INS] = "INSERT INTO history VALUES (?, ?, ?, ?, ?, NOW(), ?, ?)",
	[OS_CUST] = "SELECT c_balance, c_first, c_middle, c_last FROM customer "
		    "WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?",
	[OS_ORDER] = "SELECT o_id, o_entry_d, o_carrier_id FROM orders "
		     "WHERE o_w_id = ? AND o_d_id = ? AND o_c_id = ? ORDER BY o_id DESC LIMIT 1",
	[OS_LINES] = "SELECT ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_delivery_d FROM order_line "
		     "WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id = ?",
	[DL_NEW] = "SELECT no_o_id FROM new_orders WHERE no_w_id = ? AND no_d_id = ? "
		   "ORDER BY no_o_id LIMIT 1 FOR UPDATE",
	[DL_NEW_DEL] = "DELETE FROM new_orders WHERE no_w_id = ? AND no_d_id = ? AND no_o_id = ?",
	[DL_ORDER] = "SELECT o_c_id FROM orders WHERE o_w_id = ? AND o_d_id = ? AND o_id = ?",
	[DL_ORDER_UPD] = "UPDATE orders SET o_carrier_id = ? WHERE o_w_id = ? AND o_d_id = ? AND o_id = ?",
	[DL_LINES_UPD] = "UPDATE order_line SET ol_delivery_d = NOW() "
			 "WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id = ?",
	[DL_LINES_SUM] = "SELECT SUM(ol_amount) FROM order_line WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id = ?",
	[DL_CUST_UPD] = "UPDATE customer SET c_balance = c_balance + ?, c_delivery_cnt = c_delivery_cnt + 1 "
			"WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?",
	[SL_DIST] = "SELECT d_next_o_id FROM district WHERE d_w_id = ? AND d_id = ?",
	[SL_COUNT] = "SELECT COUNT(DISTINCT s_i_id) FROM order_line, stock WHERE ol_w_id = ? AND ol_d_id = ? "
		     "AND ol_o_id < ? AND ol_o_id >= ? AND s_w_id = ? AND s_i_id = ol_i_id AND s_quantity < ?",
	[SNAP_NEXT_O_ID] = "SELECT SUM(d_next_o_id) FROM district",
};

#define MAX_COLS	16
#define DECK_SIZE	23

/* Spec 5.2.5.7 keying times and 5.2.5.4 mean think times, seconds. */
static const double oltp_keying_s[TX_N] = { 18, 3, 2, 2, 2 };
static const double oltp_think_s[TX_N] = { 12, 12, 10, 5, 5 };

typedef struct oltp_thread {
	oltp_state *s;
	bench_thread *t;
	MYSQL *m;
	MYSQL_STMT *st[ST_N];
	uint64_t seed;
	unsigned char deck[DECK_SIZE];
	unsigned deck_pos;
	unsigned idx;			/* thread index: the watcher's slot */
	unsigned home_w, home_d;	/* mode = spec */
	int seen_measuring;
	unsigned err_no;		/* of the last failed statement */
	char err[256];
	/* the output columns of the statement last run by stmt_run() */
	MYSQL_BIND out[MAX_COLS];
	unsigned long out_len[MAX_COLS];
	my_bool out_null[MAX_COLS];
	char *out_str[MAX_COLS];
	size_t out_cap[MAX_COLS];
	unsigned nout;
	uint64_t rollbacks, retries, deadlocks, lock_waits, conflicts, failures;
} oltp_thread;

/* ---------------------------------------------------- statement calls */

static void stmt_terminate_strings(oltp_thread *x)
{
	for (unsigned i = 0; i < x->nout; i++)
		if (x->out_str[i]) {
			size_t n = x->out_null[i] ? 0 : x->out_len[i];
			x->out_str[i][n < x->out_cap[i] ? n : x->out_cap[i] - 1] = '\0';
		}
}

static int stmt_fail(oltp_thread *x, MYSQL_STMT *st)
{
	x->err_no = mysql_stmt_errno(st);
	snprintf(x->err, sizeof(x->err), "%s", mysql_stmt_error(st));
	return -1;
}

/*
 * Runs statement id. fmt lists the parameters, then '|' and the result
 * columns: 'i' int64_t (int64_t * for a column), 'd' double (double *),
 * 's' a string (const char *; a column takes char *buf, size_t size).
 * A NULL column reads as 0 / "". Returns, for a query, 1 with the first row
 * fetched or 0 for none (stmt_next_row() fetches the next); for other
 * statements the rows affected; -1 on an error (x->err_no, x->err).
 */
static int64_t stmt_run(oltp_thread *x, enum stmt_id id, const char *fmt, ...)
{
	MYSQL_STMT *st = x->st[id];
	MYSQL_BIND in[MAX_COLS];
	int64_t iv[MAX_COLS];
	double dv[MAX_COLS];
	unsigned nin = 0;
	va_list ap;

	memset(in, 0, sizeof(in));
	va_start(ap, fmt);
	for (; *fmt && *fmt != '|'; fmt++, nin++) {
		MYSQL_BIND *b = &in[nin];
		if (*fmt == 'i') {
			iv[nin] = va_arg(ap, int64_t);
			b->buffer_type = MYSQL_TYPE_LONGLONG;
			b->buffer = &iv[nin];
		} else if (*fmt == 'd') {
			dv[nin] = va_arg(ap, double);
			b->buffer_type = MYSQL_TYPE_DOUBLE;
			b->buffer = &dv[nin];
		} else {
			const char *str = va_arg(ap, const char *);
			b->buffer_type = MYSQL_TYPE_STRING;
			b->buffer = (void *)str;
			b->buffer_length = strlen(str);
		}
	}
	x->nout = 0;
	memset(x->out, 0, sizeof(x->out));
	if (*fmt == '|')
		for (fmt++; *fmt; fmt++) {
			unsigned k = x->nout++;
			MYSQL_BIND *b = &x->out[k];
			x->out_str[k] = NULL;
			b->length = &x->out_len[k];
			b->is_null = &x->out_null[k];
			if (*fmt == 'i') {
				b->buffer_type = MYSQL_TYPE_LONGLONG;
				b->buffer = va_arg(ap, int64_t *);
				*(int64_t *)b->buffer = 0;
			} else if (*fmt == 'd') {
				b->buffer_type = MYSQL_TYPE_DOUBLE;
				b->buffer = va_arg(ap, double *);
				*(double *)b->buffer = 0;
			} else {
				x->out_str[k] = va_arg(ap, char *);
				x->out_cap[k] = va_arg(ap, size_t);
				b->buffer_type = MYSQL_TYPE_STRING;
				b->buffer = x->out_str[k];
				b->buffer_length = x->out_cap[k] - 1;
				x->out_str[k][0] = '\0';
			}
		}
	va_end(ap);

	mysql_stmt_free_result(st);
	oltp_watch_sent(x->s, x->idx);	/* the server's part: execute, and the rows stored */
	int bad = (nin && mysql_stmt_bind_param(st, in)) || mysql_stmt_execute(st) ||
		  (x->nout && (mysql_stmt_bind_result(st, x->out) || mysql_stmt_store_result(st)));
	oltp_watch_answered(x->s, x->idx);
	if (bad)
		return stmt_fail(x, st);
	if (!x->nout)
		return (int64_t)mysql_stmt_affected_rows(st);
	int rc = mysql_stmt_fetch(st);
	if (rc == 1)
		return stmt_fail(x, st);
	stmt_terminate_strings(x);
	return rc == MYSQL_NO_DATA ? 0 : 1;
}

/* The next row of the query stmt_run() ran last on id: 1, or 0 at the end. */
static int stmt_next_row(oltp_thread *x, enum stmt_id id)
{
	int rc = mysql_stmt_fetch(x->st[id]);
	if (rc == 1 || rc == MYSQL_NO_DATA)
		return 0;
	stmt_terminate_strings(x);
	return 1;
}

static int64_t stmt_row_count(oltp_thread *x, enum stmt_id id)
{
	return (int64_t)mysql_stmt_num_rows(x->st[id]);
}

/* ------------------------------------------------------------- inputs */

typedef struct tx_in {
	int w, d, c_w, c_d, c_id, by_name;
	char c_last[20];
	/* new order */
	int ol_cnt, all_local, i_id[15], supply_w[15], qty[15];
	/* payment: amount in cents; delivery: carrier; stock level: threshold */
	int64_t amount;
	int carrier, threshold;
} tx_in;

static int other_warehouse(oltp_thread *x, int w)
{
	unsigned n = x->s->warehouses;
	if (n < 2)
		return w;
	int o = (int)oltp_rand(&x->seed, 1, n - 1);
	return o >= w ? o + 1 : o;
}

static void customer_pick(oltp_thread *x, tx_in *in)
{
	in->by_name = oltp_rand(&x->seed, 1, 100) <= 60;
	if (in->by_name)
		oltp_last_name(in->c_last, (unsigned)oltp_nurand(&x->seed, 255, 0, 999, x->s->c_run.c_last));
	else
		in->c_id = (int)oltp_nurand(&x->seed, 1023, 1, OLTP_CUSTOMERS, x->s->c_run.c_id);
}

static void draw_inputs(oltp_thread *x, int type, tx_in *in)
{
	const oltp_state *s = x->s;
	uint64_t *r = &x->seed;
	memset(in, 0, sizeof(*in));
	in->w = s->mode == MODE_SPEC ? (int)x->home_w : (int)oltp_rand(r, 1, s->warehouses);
	in->d = (int)oltp_rand(r, 1, OLTP_DISTRICTS);
	switch (type) {
	case TX_NEW_ORDER: {
		int rbk = oltp_rand(r, 1, 100) == 1;
		in->c_id = (int)oltp_nurand(r, 1023, 1, OLTP_CUSTOMERS, s->c_run.c_id);
		in->ol_cnt = (int)oltp_rand(r, 5, 15);
		in->all_local = 1;
		for (int i = 0; i < in->ol_cnt; i++) {
			in->i_id[i] = (int)oltp_nurand(r, 8191, 1, OLTP_ITEMS, s->c_run.ol_i_id);
			in->supply_w[i] = oltp_rand(r, 1, 100) == 1 ? other_warehouse(x, in->w) : in->w;
			in->qty[i] = (int)oltp_rand(r, 1, 10);
			in->all_local &= in->supply_w[i] == in->w;
		}
		if (rbk)
			in->i_id[in->ol_cnt - 1] = OLTP_ITEMS + 1;	/* unused: rolls back */
		break;
	}
	case TX_PAYMENT:
		if (oltp_rand(r, 1, 100) <= 85) {
			in->c_w = in->w;
			in->c_d = in->d;
		} else {
			in->c_w = other_warehouse(x, in->w);
			in->c_d = (int)oltp_rand(r, 1, OLTP_DISTRICTS);
		}
		customer_pick(x, in);
		in->amount = oltp_rand(r, 100, 500000);
		break;
	case TX_ORDER_STATUS:
		customer_pick(x, in);
		break;
	case TX_DELIVERY:
		in->carrier = (int)oltp_rand(r, 1, 10);
		break;
	case TX_STOCK_LEVEL:
		if (s->mode == MODE_SPEC)
			in->d = (int)x->home_d;	/* a terminal's own district (2.8.1.1) */
		in->threshold = (int)oltp_rand(r, 10, 20);
		break;
	}
}

/* ------------------------------------------------------- transactions */

/* Each returns 0 (ready to commit), 1 (rolled back by design) or -1 (a
   statement failed; the caller rolls back). */

static int tx_new_order(oltp_thread *x, const tx_in *in)
{
	double disc, w_tax, d_tax, price, total = 0;
	int64_t next_o, s_qty;
	char c_last[20], credit[4], i_name[32], i_data[64], s_data[64], dist[32], amount[32];
	if (stmt_run(x, NO_CUST_WH, "iii|dssd", (int64_t)in->w, (int64_t)in->d, (int64_t)in->c_id, &disc,
	      c_last, sizeof(c_last), credit, sizeof(credit), &w_tax) < 0 ||
	    stmt_run(x, NO_DIST, "ii|id", (int64_t)in->w, (int64_t)in->d, &next_o, &d_tax) < 0 ||
	    stmt_run(x, NO_DIST_UPD, "ii", (int64_t)in->w, (int64_t)in->d) < 0 ||
	    stmt_run(x, NO_ORDER_INS, "iiiiii", next_o, (int64_t)in->d, (int64_t)in->w, (int64_t)in->c_id,
	      (int64_t)in->ol_cnt, (int64_t)in->all_local) < 0 ||
	    stmt_run(x, NO_NEW_INS, "iii", next_o, (int64_t)in->d, (int64_t)in->w) < 0)
		return -1;
	for (int i = 0; i < in->ol_cnt; i++) {
		int64_t found = stmt_run(x, NO_ITEM, "i|dss", (int64_t)in->i_id[i], &price, i_name, sizeof(i_name),
				  i_data, sizeof(i_data));
		if (found < 0)
			return -1;
		if (!found)
			return 1;	/* the unused item: roll back (2.4.2.3) */
		if (stmt_run(x, NO_STOCK, "iii|iss", (int64_t)in->d, (int64_t)in->i_id[i], (int64_t)in->supply_w[i],
		      &s_qty, s_data, sizeof(s_data), dist, sizeof(dist)) <= 0)
			return -1;
		s_qty = s_qty >= in->qty[i] + 10 ? s_qty - in->qty[i] : s_qty - in->qty[i] + 91;
		double ol_amount = in->qty[i] * price;
		/* brand-generic (2.4.2.2): computed as the spec says, shown to nobody */
		int brand = strstr(i_data, "ORIGINAL") && strstr(s_data, "ORIGINAL");
		(void)brand;
		total += ol_amount;
		snprintf(amount, sizeof(amount), "%.2f", ol_amount);
		if (stmt_run(x, NO_STOCK_UPD, "iiiii", s_qty, (int64_t)in->qty[i],
		      (int64_t)(in->supply_w[i] != in->w), (int64_t)in->i_id[i], (int64_t)in->supply_w[i]) < 0 ||
		    stmt_run(x, NO_OL_INS, "iiiiiiiss", next_o, (int64_t)in->d, (int64_t)in->w, (int64_t)(i + 1),
		      (int64_t)in->i_id[i], (int64_t)in->supply_w[i], (int64_t)in->qty[i], amount, dist) < 0)
			return -1;
	}
	total *= (1 - disc) * (1 + w_tax + d_tax);
	(void)total;
	return 0;
}

/* Customer by last name: the one at n/2 rounded up in c_first order (2.5.2.2). */
static int customer_by_name(oltp_thread *x, int w, int d, const char *last, int *c_id)
{
	int64_t id;
	int64_t got = stmt_run(x, CUST_BY_NAME, "iis|i", (int64_t)w, (int64_t)d, last, &id);
	if (got <= 0) {
		if (got == 0) {
			x->err_no = 0;
			snprintf(x->err, sizeof(x->err), "no customer named %s in %d/%d", last, w, d);
		}
		return -1;
	}
	for (int64_t k = 1, mid = (stmt_row_count(x, CUST_BY_NAME) + 1) / 2; k < mid; k++)
		stmt_next_row(x, CUST_BY_NAME);
	*c_id = (int)id;
	return 0;
}

static int tx_payment(oltp_thread *x, const tx_in *in)
{
	char amount[32], w_name[16], d_name[16], a[5][32], credit[4], c[9][32], bal[32];
	char hist[32], lim[32], since[32], disc[16], data[1100];
	int c_id = in->c_id;
	snprintf(amount, sizeof(amount), "%lld.%02lld", (long long)(in->amount / 100),
		 (long long)(in->amount % 100));
	if (stmt_run(x, PAY_WH_UPD, "si", amount, (int64_t)in->w) < 0 ||
	    stmt_run(x, PAY_WH, "i|ssssss", (int64_t)in->w, a[0], sizeof(a[0]), a[1], sizeof(a[1]), a[2],
	      sizeof(a[2]), a[3], sizeof(a[3]), a[4], sizeof(a[4]), w_name, sizeof(w_name)) <= 0 ||
	    stmt_run(x, PAY_DIST_UPD, "sii", amount, (int64_t)in->w, (int64_t)in->d) < 0 ||
	    stmt_run(x, PAY_DIST, "ii|ssssss", (int64_t)in->w, (int64_t)in->d, a[0], sizeof(a[0]), a[1],
	      sizeof(a[1]), a[2], sizeof(a[2]), a[3], sizeof(a[3]), a[4], sizeof(a[4]), d_name,
	      sizeof(d_name)) <= 0)
		return -1;
	if (in->by_name && customer_by_name(x, in->c_w, in->c_d, in->c_last, &c_id))
		return -1;
	if (stmt_run(x, PAY_CUST, "iii|ssssssssssssss", (int64_t)in->c_w, (int64_t)in->c_d, (int64_t)c_id,
	      c[0], sizeof(c[0]), c[1], sizeof(c[1]), c[2], sizeof(c[2]), c[3], sizeof(c[3]), c[4],
	      sizeof(c[4]), c[5], sizeof(c[5]), c[6], sizeof(c[6]), c[7], sizeof(c[7]), c[8], sizeof(c[8]),
	      credit, sizeof(credit), lim, sizeof(lim), disc, sizeof(disc), bal, sizeof(bal), since,
	      sizeof(since)) <= 0)
		return -1;
	if (!strcmp(credit, "BC")) {	/* bad credit: the payment goes into c_data (2.5.2.2) */
		char old[512];
		if (stmt_run(x, PAY_CUST_DATA, "iii|s", (int64_t)in->c_w, (int64_t)in->c_d, (int64_t)c_id, old,
		      sizeof(old)) <= 0)
			return -1;
		snprintf(data, sizeof(data), "%d %d %d %d %d %s|%s", c_id, in->c_d, in->c_w, in->d, in->w,
			 amount, old);
		data[500] = '\0';
		if (stmt_run(x, PAY_CUST_UPD_BC, "sssiii", amount, amount, data, (int64_t)in->c_w, (int64_t)in->c_d,
		      (int64_t)c_id) < 0)
			return -1;
	} else if (stmt_run(x, PAY_CUST_UPD, "ssiii", amount, amount, (int64_t)in->c_w, (int64_t)in->c_d,
		     (int64_t)c_id) < 0) {
		return -1;
	}
	snprintf(hist, sizeof(hist), "%.10s    %.10s", w_name, d_name);
	return stmt_run(x, PAY_HIST_INS, "iiiiiss", (int64_t)c_id, (int64_t)in->c_d, (int64_t)in->c_w,
		 (int64_t)in->d, (int64_t)in->w, amount, hist) < 0 ? -1 : 0;
}

static int tx_order_status(oltp_thread *x, const tx_in *in)
{
	char bal[32], first[20], middle[4], last[20], entry[32], amount[32], deliv[32];
	int64_t o_id, carrier, i_id, supply, qty;
	int c_id = in->c_id;
	if (in->by_name && customer_by_name(x, in->w, in->d, in->c_last, &c_id))
		return -1;
	if (stmt_run(x, OS_CUST, "iii|ssss", (int64_t)in->w, (int64_t)in->d, (int64_t)c_id, bal, sizeof(bal),
	      first, sizeof(first), middle, sizeof(middle), last, sizeof(last)) <= 0)
		return -1;
	int64_t got = stmt_run(x, OS_ORDER, "iii|isi", (int64_t)in->w, (int64_t)in->d, (int64_t)c_id, &o_id, entry,
			sizeof(entry), &carrier);
	if (got <= 0)
		return (int)got;	/* a customer without orders: nothing more to show */
	if (stmt_run(x, OS_LINES, "iii|iiiss", (int64_t)in->w, (int64_t)in->d, o_id, &i_id, &supply, &qty, amount,
	      sizeof(amount), deliv, sizeof(deliv)) < 0)
		return -1;
	while (stmt_next_row(x, OS_LINES))
		;
	return 0;
}

static int tx_delivery(oltp_thread *x, const tx_in *in)
{
	int64_t w = in->w, o_id, c_id;
	char sum[32];
	for (int64_t d = 1; d <= OLTP_DISTRICTS; d++) {
		int64_t got = stmt_run(x, DL_NEW, "ii|i", w, d, &o_id);
		if (got < 0)
			return -1;
		if (!got)
			continue;	/* no undelivered order in this district (2.7.4.2) */
		got = stmt_run(x, DL_NEW_DEL, "iii", w, d, o_id);
		if (got < 0)
			return -1;
		if (!got)
			continue;
		if (stmt_run(x, DL_ORDER, "iii|i", w, d, o_id, &c_id) <= 0 ||
		    stmt_run(x, DL_ORDER_UPD, "iiii", (int64_t)in->carrier, w, d, o_id) < 0 ||
		    stmt_run(x, DL_LINES_UPD, "iii", w, d, o_id) < 0 ||
		    stmt_run(x, DL_LINES_SUM, "iii|s", w, d, o_id, sum, sizeof(sum)) <= 0 ||
		    stmt_run(x, DL_CUST_UPD, "siii", sum[0] ? sum : "0", w, d, c_id) < 0)
			return -1;
	}
	return 0;
}

static int tx_stock_level(oltp_thread *x, const tx_in *in)
{
	int64_t next_o, low;
	if (stmt_run(x, SL_DIST, "ii|i", (int64_t)in->w, (int64_t)in->d, &next_o) <= 0 ||
	    stmt_run(x, SL_COUNT, "iiiiii|i", (int64_t)in->w, (int64_t)in->d, next_o, next_o - 20, (int64_t)in->w,
	      (int64_t)in->threshold, &low) < 0)
		return -1;
	return 0;
}

static int (*const oltp_tx_fn[TX_N])(oltp_thread *, const tx_in *) = {
	tx_new_order, tx_payment, tx_order_status, tx_delivery, tx_stock_level,
};

/* ---------------------------------------------------------- the runner */

/* Errors of the client library (2000..2999) other than a bad statement: the
   connection is gone, and the worker with it. */
static int oltp_fatal(unsigned e)
{
	return e == 2006 || e == 2013 || e == 2055 || e == 2002 || e == 2003 || e == 2026;
}

/* COMMIT or ROLLBACK, watched like a statement: nonzero on an error. */
static int tx_end(oltp_thread *x, int commit)
{
	oltp_watch_sent(x->s, x->idx);
	int rc = commit ? mysql_commit(x->m) : mysql_rollback(x->m);
	oltp_watch_answered(x->s, x->idx);
	return rc;
}

/* One transaction of type, retried on deadlock, lock wait timeout and
   snapshot conflict.
   0 done (committed, rolled back by design, or failed and counted), -1 the
   worker must stop. */
static int run_tx(oltp_thread *x, int type)
{
	const bench_host_api_v1 *api = x->s->api;
	bench_thread *t = x->t;
	tx_in in;
	draw_inputs(x, type, &in);
	uint64_t t0 = api->now_ns();
	for (int attempt = 0;; attempt++) {
		int rc = oltp_tx_fn[type](x, &in);
		if (rc == 0 && tx_end(x, 1)) {
			x->err_no = mysql_errno(x->m);
			snprintf(x->err, sizeof(x->err), "commit: %s", mysql_error(x->m));
			rc = -1;
		}
		if (rc >= 0) {
			if (rc == 1)
				tx_end(x, 0);
			api->record(t, (unsigned)type, api->now_ns() - t0, 0);
			if (rc == 1 && api->measuring(t))
				x->rollbacks++;
			return 0;
		}
		unsigned e = x->err_no;
		if (oltp_fatal(e)) {
			oltp_fail(x->s, t, x->err, "is the server still running?",
				  "lost the connection to the server (error %u)", e);
			return -1;
		}
		tx_end(x, 0);
		int measuring = api->measuring(t);
		if ((e == 1213 || e == 1205 || e == 1020) && attempt < x->s->retries_max) {
			if (measuring) {
				x->retries++;
				*(e == 1213 ? &x->deadlocks : e == 1205 ? &x->lock_waits : &x->conflicts) += 1;
			}
			continue;
		}
		api->record_error(t, (unsigned)type, "failed");
		if (measuring && x->failures++ == 0)
			api->log(x->s->ctx, BENCH_LOG_WARN, "thread %u: a transaction failed: %s (error %u)",
				 api->thread_index(t), x->err, e);
		return 0;
	}
}

/* The next card of the thread's deck (shuffled anew when used up). */
static int next_card(oltp_thread *x)
{
	if (x->deck_pos == 0)
		for (unsigned i = DECK_SIZE - 1; i > 0; i--) {
			unsigned j = (unsigned)oltp_rand(&x->seed, 0, i);
			unsigned char c = x->deck[i];
			x->deck[i] = x->deck[j];
			x->deck[j] = c;
		}
	int card = x->deck[x->deck_pos];
	x->deck_pos = (x->deck_pos + 1) % DECK_SIZE;
	return card;
}

/* Sleeps seconds (keying or think time) unless the case stops; 1 if it did. */
static int oltp_sleep(oltp_thread *x, double seconds)
{
	const bench_host_api_v1 *api = x->s->api;
	uint64_t end = api->now_ns() + (uint64_t)(seconds * 1e9);
	for (;;) {
		if (api->stopping(x->t))
			return 1;
		uint64_t now = api->now_ns();
		if (now >= end)
			return 0;
		uint64_t step = end - now < 100000000u ? end - now : 100000000u;
		struct timespec ts = { (time_t)(step / 1000000000u), (long)(step % 1000000000u) };
		nanosleep(&ts, NULL);
	}
}

/* A nopm snapshot (0 before, 1 after): the first worker to get here sums
   the districts' next order ids and notes when. */
static void oltp_snapshot(oltp_thread *x, int which)
{
	struct oltp_snap *sn = &x->s->snap[which];
	int want = 0;
	if (!__atomic_compare_exchange_n(&sn->state, &want, 1, 0, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
		return;
	const bench_host_api_v1 *api = x->s->api;
	tx_end(x, 1);	/* a fresh read view: the snapshot sees every commit so far */
	uint64_t a = api->now_ns();
	int64_t sum;
	int ok = stmt_run(x, SNAP_NEXT_O_ID, "|i", &sum) > 0;
	tx_end(x, 1);
	sn->sum = sum;
	sn->ns = a + (api->now_ns() - a) / 2;
	__atomic_store_n(&sn->state, ok ? 2 : -1, __ATOMIC_RELEASE);
}

int oltp_thread_run(void *tstate)
{
	oltp_thread *x = tstate;
	const bench_host_api_v1 *api = x->s->api;
	int spec = x->s->mode == MODE_SPEC, rc = BENCH_OK;
	while (!api->should_stop(x->t)) {
		if (!x->seen_measuring && api->measuring(x->t)) {
			x->seen_measuring = 1;
			oltp_snapshot(x, 0);
		}
		int type = next_card(x);
		if (spec && oltp_sleep(x, oltp_keying_s[type]))
			break;
		if (run_tx(x, type)) {
			rc = BENCH_ERR;
			break;
		}
		if (spec) {
			double mean = oltp_think_s[type], u = (double)(oltp_rnd(&x->seed) >> 11) / 9007199254740992.0;
			double think = -log(u > 0 ? u : 1e-300) * mean;
			if (oltp_sleep(x, think < 10 * mean ? think : 10 * mean))
				break;
		}
	}
	if (rc == BENCH_OK && x->seen_measuring)
		oltp_snapshot(x, 1);
	return rc;
}

int oltp_thread_init(void *state, bench_thread *t, void **tstate)
{
	oltp_state *s = state;
	const bench_host_api_v1 *api = s->api;
	oltp_thread *x = calloc(1, sizeof(*x));
	char err[512], sql[128];
	const char *hint;
	unsigned i = api->thread_index(t);
	*tstate = x;
	if (!x)
		return BENCH_ERR;
	x->s = s;
	x->t = t;
	x->idx = i;
	x->seed = s->seed ^ (0x9e3779b97f4a7c15ull * (i + 1)) ^ api->now_ns();
	for (int k = 0; k < DECK_SIZE; k++)
		x->deck[k] = k < 10 ? TX_NEW_ORDER : k < 20 ? TX_PAYMENT : (unsigned char)(TX_N - (DECK_SIZE - k));
	x->home_w = i % s->warehouses + 1;
	x->home_d = (i / s->warehouses) % OLTP_DISTRICTS + 1;
	mysql_thread_init();
	x->m = oltp_connect(s, s->db, 0, err, sizeof(err), &hint);
	if (!x->m) {
		oltp_fail(s, t, err, hint, "connection %u failed", i);
		goto fail;
	}
	oltp_watch_conn(s, i, x->m);
	snprintf(sql, sizeof(sql), "SET SESSION TRANSACTION ISOLATION LEVEL %s", s->isolation);
	if (oltp_exec(x->m, sql, err, sizeof(err)) || mysql_autocommit(x->m, 0)) {
		oltp_fail(s, t, err, NULL, "connection %u: cannot set the isolation level", i);
		goto fail;
	}
	for (int k = 0; k < ST_N; k++) {
		x->st[k] = mysql_stmt_init(x->m);
		if (!x->st[k] || mysql_stmt_prepare(x->st[k], oltp_sql[k], strlen(oltp_sql[k]))) {
			unsigned e = x->st[k] ? mysql_stmt_errno(x->st[k]) : 0;
			oltp_fail(s, t, x->st[k] ? mysql_stmt_error(x->st[k]) : "out of memory",
				  e == 1461 ? "raise the server's max_prepared_stmt_count (each connection "
					      "prepares 32 statements)" : NULL,
				  "connection %u: cannot prepare statement %d", i, k);
			goto fail;
		}
	}
	return BENCH_OK;
fail:
	oltp_thread_done(x);	/* the host calls thread_done only after a successful init */
	*tstate = NULL;
	return BENCH_ERR;
}

void oltp_thread_done(void *tstate)
{
	oltp_thread *x = tstate;
	if (!x)
		return;
	oltp_state *s = x->s;
	__atomic_add_fetch(&s->rollbacks, x->rollbacks, __ATOMIC_RELAXED);
	__atomic_add_fetch(&s->retries, x->retries, __ATOMIC_RELAXED);
	__atomic_add_fetch(&s->deadlocks, x->deadlocks, __ATOMIC_RELAXED);
	__atomic_add_fetch(&s->lock_waits, x->lock_waits, __ATOMIC_RELAXED);
	__atomic_add_fetch(&s->conflicts, x->conflicts, __ATOMIC_RELAXED);
	__atomic_add_fetch(&s->failures, x->failures, __ATOMIC_RELAXED);
	oltp_watch_conn(s, x->idx, NULL);	/* before the close: the watcher never sees a reused number */
	for (int k = 0; k < ST_N; k++)
		if (x->st[k])
			mysql_stmt_close(x->st[k]);
	if (x->m)
		mysql_close(x->m);
	mysql_thread_end();
	free(x);
}

/* Spec 2.1.6.1: C_run for C_LAST differs from C_load by 65..119, not 96 or
   112; C_ID's and OL_I_ID's run values are free. */
void oltp_draw_c_run(oltp_state *s)
{
	uint64_t r = s->seed ^ s->api->now_ns();
	unsigned delta;
	do
		delta = (unsigned)oltp_rand(&r, 65, 119);
	while (delta == 96 || delta == 112);
	int up = s->c_load.c_last + delta <= 255 ? 1 : 0;
	if (s->c_load.c_last < delta)
		up = 1;
	s->c_run.c_last = up ? s->c_load.c_last + delta : s->c_load.c_last - delta;
	s->c_run.c_id = (unsigned)oltp_rand(&r, 0, 1023);
	s->c_run.ol_i_id = (unsigned)oltp_rand(&r, 0, 8191);
}
