/* JUnit XML of compare and history (gate.h), as Jenkins and GitLab read it:
   <testsuites> of <testsuite> of <testcase>, a <failure> or <skipped> in a
   testcase that did not pass (tests/junit.xsd is the schema the tests
   validate it with). Every text is escaped for XML 1.0: the markup
   characters as entities, the control characters XML cannot hold as '?'. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gate.h"
#include "hgate.h"
#include "util.h"

static void xml_text(FILE *f, const char *s)
{
	for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++)
		switch (*p) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&apos;", f); break;
		default:
			fputc(*p < 0x20 && *p != '\t' && *p != '\n' ? '?' : *p, f);
		}
}

/* s printed with bc_text_dup's care (valid UTF-8, controls escaped), then as XML. */
static void xml_safe(FILE *f, const char *s)
{
	char *t = bc_text_dup(s ? s : "");
	xml_text(f, t);
	free(t);
}

static const char *pct(char *buf, size_t n, double x)
{
	char v[BC_DOUBLE_TEXT];
	snprintf(buf, n, "%s%%", bc_fmt_fig(x * 100, 1, 1, v, sizeof(v)));
	return buf;
}

/* "ratio 0.5012 [-50.3% .. -49.5%] (80% interval), threshold 2% (default), n=5/5" */
static char *figures(const bc_cmp *c, const bc_cmp_row *r)
{
	char p1[32], p2[32], ratio[32] = "n/a", ci[128] = "no interval";
	if (isfinite(r->ratio))
		snprintf(ratio, sizeof(ratio), "%.4g", r->ratio);
	if (r->has_ci && isfinite(r->ci_lo))
		snprintf(ci, sizeof(ci), "[%s .. %s] (%g%% interval)", pct(p1, sizeof(p1), r->ci_lo),
			 pct(p2, sizeof(p2), r->ci_hi), c->opts.level * 100);
	return bc_xasprintf("ratio %s %s, threshold %g%% (%s), mean %.6g -> %.6g%s%s, n=%zu/%zu", ratio, ci,
			    r->threshold * 100, r->threshold_src, r->sa.mean, r->sb.mean, *r->ma->unit ? " " : "",
			    r->ma->unit, r->sa.n, r->sb.n);
}

static void case_name(FILE *f, const bc_rgroup *g, const char *metric)
{
	xml_safe(f, g->module);
	fputc(' ', f);
	if (*g->params_text) {
		xml_safe(f, g->params_text);
		fputc(' ', f);
	}
	fprintf(f, "threads=%ld", g->threads);
	if (metric) {
		fputc(' ', f);
		xml_safe(f, metric);
	}
}

static void compare_suite(FILE *f, const bc_cmp *c, const bc_gate_opts *g)
{
	size_t tests = c->nrows + c->nonly_b, failures = 0, skipped = 0;
	size_t miss = bc_gate_missing(g, c), extra = miss - (g->allow_missing ? 0 : c->nonly_b);
	tests += extra;
	for (size_t i = 0; i < c->nrows; i++) {
		const bc_cmp_row *r = &c->rows[i];
		if (r->verdict == BC_V_LOSS || bc_gate_row_fails(g, r))
			failures++;
		else if (r->verdict == BC_V_SUSPECT || r->verdict == BC_V_INCONCLUSIVE)
			skipped++;
	}
	if (g->allow_missing)
		skipped += c->nonly_b;
	else
		failures += miss;
	fputs("  <testsuite name=\"", f);
	xml_safe(f, c->b->label);
	fputs(" against ", f);
	xml_safe(f, c->a->label);
	fprintf(f, "\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" skipped=\"%zu\">\n", tests, failures, skipped);
	fputs("    <properties>\n      <property name=\"baseline\" value=\"", f);
	xml_safe(f, c->a->path);
	fputs("\"/>\n      <property name=\"candidate\" value=\"", f);
	xml_safe(f, c->b->path);
	fputs("\"/>\n    </properties>\n", f);
	for (size_t i = 0; i < c->nrows; i++) {
		const bc_cmp_row *r = &c->rows[i];
		fputs("    <testcase classname=\"benchcore.compare.", f);
		xml_safe(f, r->ga->module);
		fputs("\" name=\"", f);
		case_name(f, r->ga, r->ma->name);
		fputs("\">", f);
		char *fig = figures(c, r);
		int fails = r->verdict == BC_V_LOSS || bc_gate_row_fails(g, r);
		if (fails || r->verdict == BC_V_SUSPECT || r->verdict == BC_V_INCONCLUSIVE) {
			fprintf(f, "\n      <%s message=\"", fails ? "failure" : "skipped");
			xml_safe(f, bc_row_verdict(r));
			fputs(": ", f);
			xml_safe(f, fig);
			if (*r->reason) {
				fputs(": ", f);
				xml_safe(f, r->reason);
			}
			if (fails) {
				fprintf(f, "\" type=\"%s\">", r->verdict == BC_V_LOSS ? "loss" :
					r->verdict == BC_V_SUSPECT ? "suspect" : "inconclusive");
				xml_safe(f, fig);
				fputs("</failure>\n    ", f);
			} else {
				fputs("\"/>\n    ", f);
			}
		}
		free(fig);
		fputs("</testcase>\n", f);
	}
	for (size_t i = 0; i < c->nonly_b; i++) {
		fputs("    <testcase classname=\"benchcore.compare.", f);
		xml_safe(f, c->only_b[i]->module);
		fputs("\" name=\"", f);
		case_name(f, c->only_b[i], NULL);
		fprintf(f, "\">\n      <%s message=\"no case in the baseline to compare with\"%s\n    </testcase>\n",
			g->allow_missing ? "skipped" : "failure",
			g->allow_missing ? "/>" : " type=\"missing\">not in the baseline</failure>");
	}
	if (extra) {
		fputs("    <testcase classname=\"benchcore.compare\" name=\"", f);
		xml_safe(f, c->b->label);
		fprintf(f, " cases ok\">\n      <failure message=\"%zu of %zu cases failed, status ", c->b->nfailed,
			c->b->ncases);
		xml_safe(f, c->b->status ? c->b->status : c->b->interrupted ? "interrupted" : "complete");
		fputs("\" type=\"not ok\"/>\n    </testcase>\n", f);
	}
	fputs("  </testsuite>\n", f);
}

static int write_out(const char *cmd, const char *path, char *buf, size_t len, int rc)
{
	bc_err e;
	if (rc < 0)
		fprintf(stderr, "benchcore %s: --junit %s: the XML could not be built\n", cmd, path);
	else if (bc_write_atomic(path, buf, len, &e) < 0) {
		fprintf(stderr, "benchcore %s: --junit %s: not written: %s\n", cmd, path, e.msg);
		rc = -1;
	}
	free(buf);
	return rc;
}

int bc_junit_compare(const char *cmd, const char *path, const bc_results *res, int n,
		     const bc_cmp_opts *o, const bc_gate_opts *g)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f) {
		fprintf(stderr, "benchcore %s: --junit %s: out of memory\n", cmd, path);
		return -1;
	}
	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"benchcore compare\">\n", f);
	for (int i = 1; i < n; i++) {
		bc_cmp c;
		bc_compare_pair(&res[0], &res[i], o, &c);
		compare_suite(f, &c, g);
		bc_cmp_free(&c);
	}
	fputs("</testsuites>\n", f);
	int rc = fclose(f) ? -1 : 0;
	return write_out(cmd, path, buf, len, rc);
}

/* One host's series as a testsuite. */
static void history_suite(FILE *f, const bc_history *h, size_t from, size_t to)
{
	size_t fails = 0;
	for (size_t i = from; i < to; i++)
		fails += bc_history_new_worse(&h->series[i], &h->cp) >= 0;
	fputs("  <testsuite name=\"history of ", f);
	xml_safe(f, *h->series[from].run[0]->host ? h->series[from].run[0]->host : "(no host name)");
	fprintf(f, "\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" skipped=\"0\">\n", to - from, fails);
	for (size_t i = from; i < to; i++) {
		const bc_hseries *s = &h->series[i];
		const bc_hpoint *p = s->run[s->n - 1];
		long k = bc_history_new_worse(s, &h->cp);
		fputs("    <testcase classname=\"benchcore.history.", f);
		xml_safe(f, p->module);
		fputs("\" name=\"", f);
		xml_safe(f, p->module);
		fputc(' ', f);
		if (*p->params_text) {
			xml_safe(f, p->params_text);
			fputc(' ', f);
		}
		fprintf(f, "threads=%ld ", p->threads);
		xml_safe(f, p->metric);
		fputs("\">", f);
		if (k >= 0) {
			const bc_hchange *ch = &s->ch[k];
			char p1[32], p2[32], p3[32];
			char *facts = ch->facts ? bc_strv_join(ch->facts, "; ") :
				      bc_xstrdup("no fact changed: the software or the machine's neighbours");
			char *msg = bc_xasprintf("change for the worse at run %zu of %zu (run_id %s): %s [%s .. %s] "
				"(95%% interval), p=%.3g; changed: %s", ch->cp.at + 1, s->n, s->run[ch->cp.at]->run_id,
				pct(p1, sizeof(p1), ch->cp.change), pct(p2, sizeof(p2), ch->cp.change_lo),
				pct(p3, sizeof(p3), ch->cp.change_hi), ch->cp.p, facts);
			fputs("\n      <failure message=\"", f);
			xml_safe(f, msg);
			fputs("\" type=\"change\">", f);
			xml_safe(f, msg);
			fputs("</failure>\n    ", f);
			free(msg);
			free(facts);
		}
		fputs("</testcase>\n", f);
	}
	fputs("  </testsuite>\n", f);
}

int bc_junit_history(const char *cmd, const char *path, const bc_history *h)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f) {
		fprintf(stderr, "benchcore %s: --junit %s: out of memory\n", cmd, path);
		return -1;
	}
	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"benchcore history\">\n", f);
	for (size_t i = 0; i < h->nseries;) {
		size_t j = i + 1;
		while (j < h->nseries && !strcmp(h->series[j].run[0]->host, h->series[i].run[0]->host))
			j++;
		history_suite(f, h, i, j);
		i = j;
	}
	fputs("</testsuites>\n", f);
	int rc = fclose(f) ? -1 : 0;
	return write_out(cmd, path, buf, len, rc);
}
