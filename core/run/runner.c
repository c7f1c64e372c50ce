/* The runner's lifecycle (runner.h): init, resume, record, write, free.
 * Its results document is one JSON object for the whole run, rewritten after
 * each case: the header as the run document (rundoc.h: typed, small), each
 * finished case as the text it has in the document, made once when it ends
 * (a tree of a case of 300 intervals is ~600 KB, its text ~40 KB), spliced
 * into the header by the run document's writer, with the cases also kept as
 * structs (bc_case_result) for the summary, the CSV and the grouping that
 * repeat = auto decides by. Main thread. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>
#include "runner.h"
#include "identity.h"
#include "output.h"
#include "resume.h"
#include "sysinfo.h"

static void now_iso(char *buf, size_t n)
{
	time_t t = time(NULL);
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(buf, n, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static uint32_t random_seed(void)
{
	uint32_t s;
	if (getrandom(&s, sizeof(s), GRND_NONBLOCK) != (ssize_t)sizeof(s))
		s = (uint32_t)(bc_now_ns() ^ ((uint64_t)getpid() << 16));
	return s;
}

void bc_runner_init(bc_runner *r, const bc_config *cfg, json_t *config_json, const char *io_path)
{
	char ts[32], host[256] = "";
	now_iso(ts, sizeof(ts));
	gethostname(host, sizeof(host) - 1);
	r->cfg = cfg;
	r->next_id = 1;
	r->cases = NULL;
	r->case_text = NULL;
	r->ncases = r->ccases = 0;
	bc_results_init(&r->groups, "run");
	r->text = stdout;
	r->seed = cfg->run.seed_set ? cfg->run.seed : random_seed();
	char run_id[BC_ID_HEX], host_id[BC_ID_HEX];
	bc_run_id_new(run_id);
	bc_host_id(host_id);
	/* "running" (and interrupted) until the last write: a file whose run
	   was killed outright must not read as a whole one */
	bc_rundoc_new(&r->doc, run_id, host_id, ts, cfg->label ? cfg->label : host, bc_sysinfo_host(io_path),
		      config_json, json_pack("{s:s, s:I}", "repeat_order", cfg->run.back_to_back ? "back_to_back" :
					     "rounds", "seed", (json_int_t)r->seed));
	/* the run so far as compare will read its file: repeat = auto's judge
	   needs its host (one machine?) and config (busy_threshold) */
	json_decref(r->groups.host);
	r->groups.host = json_incref(r->doc.host);
	r->groups.config = json_incref(r->doc.config);
	size_t i;
	json_t *w;
	json_array_foreach(json_object_get(r->doc.host, "warnings"), i, w)
		bc_warn("%s", json_string_value(w));	/* e.g. the governor: say it before measuring */
}

/* The struct moves into r->cases, grouped on the way, its text (the run
   document's bc_rundoc_case_text of json) beside it; its intervals are in
   the text now: the summary and CSV do not need them. json is the caller's. */
static void keep_case(bc_runner *r, bc_case_result *cr, json_t *json)
{
	bc_results_add_case(&r->groups, cr);
	bc_case_drop_intervals(cr);
	if (r->ncases == r->ccases) {
		r->ccases = r->ccases ? 2 * r->ccases : 16;
		r->cases = bc_xrealloc(r->cases, r->ccases, sizeof(*r->cases));
		r->case_text = bc_xrealloc(r->case_text, r->ccases, sizeof(*r->case_text));
	}
	r->case_text[r->ncases] = bc_rundoc_case_text(json);
	r->cases[r->ncases++] = *cr;
}

int bc_runner_resume(bc_runner *r, const char *path, const bc_modplan *plans, size_t n, bc_err *e)
{
	bc_resume *rs = bc_xcalloc(1, sizeof(*rs));
	if (bc_resume_open(path, r->doc.config, r->doc.host, plans, n, rs, e)) {
		free(rs);
		return -1;
	}
	char ts[32];
	bc_err ce;
	size_t i;
	json_t *c;
	now_iso(ts, sizeof(ts));
	/* the file ends as if the run had not stopped: its start, its order */
	if (rs->doc.started_at)
		bc_rundoc_set(&r->doc, "started_at", json_string(rs->doc.started_at));
	if (rs->doc.run_id)	/* one run, resumed: one id */
		bc_rundoc_set(&r->doc, "run_id", json_string(rs->doc.run_id));
	if (!r->cfg->run.seed_set) {
		r->seed = rs->seed;
		json_object_set_new(json_object_get(r->doc.root, "schedule"), "seed", json_integer(r->seed));
	}
	bc_rundoc_set(&r->doc, "resumed", bc_resume_record(rs, ts));
	json_array_foreach(rs->kept, i, c) {
		bc_case_result cr;
		if (bc_case_from_json(c, i, &cr, &ce)) {
			bc_err_set(e, "cannot resume from \"%s\": %s", path, ce.msg);
			bc_resume_free(rs);
			free(rs);
			return -1;
		}
		keep_case(r, &cr, c);
		if (!strcmp(cr.status, "failed"))
			r->failed = 1;
	}
	r->next_id = rs->max_id + 1;
	r->resume = rs;
	return 0;
}

void bc_runner_free(bc_runner *r)
{
	if (r->resume) {
		bc_resume_free(r->resume);
		free(r->resume);
		r->resume = NULL;
	}
	if (r->json_out)
		fclose(r->json_out);
	r->json_out = NULL;
	bc_rundoc_free(&r->doc);
	for (size_t i = 0; i < r->ncases; i++) {
		bc_case_free(&r->cases[i]);
		free(r->case_text[i]);
	}
	free(r->cases);
	free(r->case_text);
	r->cases = NULL;
	r->case_text = NULL;
	r->ncases = r->ccases = 0;
	bc_results_free(&r->groups);
}

int bc_runner_write(bc_runner *r, int final)
{
	char ts[32];
	bc_err e;
	int rc = 0;
	now_iso(ts, sizeof(ts));
	/* finished_at and the end's status only at the end: until then the run
	   may still be killed between two writes */
	if (final) {
		bc_rundoc_set(&r->doc, "status", json_string(r->interrupted ? "interrupted" :
							      r->stopped ? "stopped" : "complete"));
		bc_rundoc_set(&r->doc, "finished_at", json_string(ts));
	} else {
		bc_rundoc_set(&r->doc, "status", json_string("running"));
		bc_rundoc_set(&r->doc, "finished_at", NULL);
	}
	bc_rundoc_set(&r->doc, "interrupted", json_boolean(!final || r->interrupted));
	/* groups[]: the cases grouped by the one rule compare and report use */
	bc_results_done(&r->groups);
	bc_rundoc_set(&r->doc, "groups", bc_groups_json(&r->groups));
	if (r->out_json && !strcmp(r->out_json, "-")) {
		if (final) {	/* stdout takes one document, at the end */
			char *head;
			size_t n;
			struct iovec *v = bc_rundoc_pieces(&r->doc, r->case_text, r->ncases, &head, &n);
			FILE *o = r->json_out ? r->json_out : stdout;
			for (size_t i = 0; i < n; i++)
				fwrite(v[i].iov_base, 1, v[i].iov_len, o);
			fputc('\n', o);
			free(head);
			free(v);
			if (r->json_out && (fflush(o) != 0 || ferror(o))) {
				fprintf(stderr, "benchcore: error: run: could not write the results to stdout: %s\n",
					strerror(errno));
				rc = -1;
			} else if (!r->json_out) {
				rc = bc_stdout_done("run");
			}
		}
	} else if (r->out_json) {
		char *head;
		size_t n;
		struct iovec *v = bc_rundoc_pieces(&r->doc, r->case_text, r->ncases, &head, &n);
		if (bc_write_atomic_v(r->out_json, v, n, &e)) {
			bc_err_print(&e);
			rc = -1;
		}
		free(head);
		free(v);
	}
	if (r->out_csv) {
		char *s = bc_csv(r->cases, r->ncases, &r->groups);
		if (bc_write_atomic(r->out_csv, s, strlen(s), &e)) {
			bc_err_print(&e);
			rc = -1;
		}
		free(s);
	}
	return rc;
}

/* A long case's interval series goes to OUT.intervals.jsonl (one line per
   case, written and synced as the case ends) instead of staying in memory
   and in every rewrite of OUT: a 1800-interval case is ~3 MB of JSON. The
   case keeps intervals_file and intervals_count; short series stay inline. */
#define INLINE_INTERVALS 300

static void spill_intervals(bc_runner *r, bc_case_result *cr)
{
	if (!r->out_json || !strcmp(r->out_json, "-") || cr->nintervals <= INLINE_INTERVALS)
		return;
	json_t *iv = bc_case_intervals_json(cr);
	char *path = bc_xasprintf("%s.intervals.jsonl", r->out_json);
	/* the first case of this run starts the file afresh: a series of an
	   earlier run under this name is not this run's */
	int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW | (r->spilled ? 0 : O_TRUNC),
		      0644);
	r->spilled = 1;
	json_t *line = json_pack("{s:I, s:o}", "case", (json_int_t)cr->id, "intervals", iv);
	char *text = line ? json_dumps(line, JSON_COMPACT) : NULL;
	int ok = fd >= 0 && text;
	if (ok) {
		size_t len = strlen(text), off = 0;
		while (ok && off < len) {
			ssize_t w = write(fd, text + off, len - off);
			ok = w > 0 || (w < 0 && errno == EINTR);
			off += w > 0 ? (size_t)w : 0;
		}
		ok = ok && write(fd, "\n", 1) == 1 && fsync(fd) == 0;
	}
	if (ok) {
		const char *base = strrchr(path, '/');
		bc_case_set_str(&cr->intervals_file, base ? base + 1 : path);
		cr->intervals_count = (long)cr->nintervals;
		bc_case_drop_intervals(cr);
	} else {
		bc_warn("could not write %s (%s): the intervals stay in %s", path, strerror(errno), r->out_json);
	}
	if (fd >= 0)
		close(fd);
	free(text);
	json_decref(line);
	free(path);
}

void bc_runner_record(bc_runner *r, bc_case_result *cr, const char *label, const char *point, unsigned round)
{
	/* the swept parameters as written: what tells this case from its siblings */
	bc_case_set_str(&cr->point, point);
	cr->round = round;
	if (!strcmp(cr->status, "failed"))
		r->failed = 1;
	if (!strcmp(cr->status, "interrupted"))
		r->interrupted = 1;
	bc_print_case(r->text, cr, label);
	fflush(r->text);
	spill_intervals(r, cr);
	json_t *json = bc_case_to_json(cr);
	keep_case(r, cr, json);
	json_decref(json);
	memset(cr, 0, sizeof(*cr));
	r->write_failed = bc_runner_write(r, 0) != 0;
}

void bc_runner_repeat_stop(bc_runner *r, size_t i, const char *why)
{
	bc_case_set_str(&r->cases[i].repeat_stop, why);
	/* appended to the case's JSON as written (after its other keys, as
	   ever): its text read back, the key added, the text made again */
	json_t *c = json_loads(r->case_text[i], 0, NULL);
	if (!c)
		abort();	/* our own dump: cannot happen */
	json_object_set_new(c, "repeat_stop", json_string(why));
	free(r->case_text[i]);
	r->case_text[i] = bc_rundoc_case_text(c);
	json_decref(c);
}
