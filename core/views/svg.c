/* SVG line charts for the report. Server-side rendering keeps the page free
   of JavaScript libraries: the numbers are drawn once, here, and the page
   works offline and in any browser. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "svg.h"

#define W	600
#define H	340
#define ML	78	/* margins around the plot area; the legend is on the right */
#define MR	150
#define MT	34
#define MB	56
#define PW	(W - ML - MR)
#define PH	(H - MT - MB)

static const char *const palette[] = {
	"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf",
};

void bc_html_escape(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&#39;", f); break;
		default: fputc(*s, f);
		}
	}
}

/* A "nice" tick step (1, 2 or 5 times a power of ten) for about n ticks. */
static double nice_step(double range, int n)
{
	double raw = range / n, p, m;

	/* Hostile or degenerate ranges (infinite, denormal) get no ticks
	   rather than a zero step that would never end the tick loop. */
	if (!(raw > 1e-200) || !(raw < 1e200))
		return NAN;
	p = pow(10, floor(log10(raw)));
	m = raw / p;
	return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p;
}

static void fmt_num(char *buf, size_t len, double v)
{
	double a = fabs(v);
	if (a >= 1e9)
		snprintf(buf, len, "%gG", v / 1e9);
	else if (a >= 1e6)
		snprintf(buf, len, "%gM", v / 1e6);
	else if (a >= 1e4)
		snprintf(buf, len, "%gk", v / 1e3);
	else
		snprintf(buf, len, "%g", v);
}

typedef struct { double x0, x1, y0, y1; int logx, clip; } scale;

static double sx(const scale *s, double x)
{
	if (s->x1 == s->x0)
		return ML + PW / 2.0;
	if (s->logx)
		return ML + PW * (log2(x) - log2(s->x0)) / (log2(s->x1) - log2(s->x0));
	return ML + PW * (x - s->x0) / (s->x1 - s->x0);
}

static double sy(const scale *s, double y)
{
	return MT + PH - PH * (y - s->y0) / (s->y1 - s->y0);
}

/* Every value of the chart is >= 0 (a rate, a latency): then an interval
   reaching below zero is drawn to zero, and no axis shows "-50k req/s". */
static int nonneg(const bc_chart *c)
{
	for (size_t i = 0; i < c->ns; i++)
		for (size_t k = 0; k < c->s[i].n; k++)
			if (isfinite(c->s[i].y[k]) && c->s[i].y[k] < 0)
				return 0;
	return 1;
}

/* The lower end of point k's interval, clipped at zero in a nonneg chart. */
static double lo_of(const bc_series *r, size_t k, int clip)
{
	double lo = r->ylo ? r->ylo[k] : r->y[k];
	return clip && lo < 0 ? 0 : lo;
}

static void data_range(const bc_chart *c, scale *s)
{
	int first = 1, clip = nonneg(c);
	double ymax = c->has_ref ? c->ref_y : c->zoom ? -INFINITY : 0, ymin = c->zoom ? INFINITY : 0;

	s->x0 = s->x1 = 0;
	for (size_t i = 0; i < c->ns; i++)
		for (size_t k = 0; k < c->s[i].n; k++) {
			double x = c->s[i].x[k], y = c->s[i].y[k];
			double hi = c->s[i].yhi ? c->s[i].yhi[k] : y, lo = lo_of(&c->s[i], k, clip);
			if (!isfinite(x) || !isfinite(y))
				continue;
			if (first || x < s->x0)
				s->x0 = x;
			if (first || x > s->x1)
				s->x1 = x;
			first = 0;
			ymax = fmax(ymax, isfinite(hi) ? hi : y);
			ymin = fmin(ymin, isfinite(lo) ? lo : y);
		}
	if (c->xcats) {
		s->x0 = -0.5;
		s->x1 = c->ncat - 0.5;
	}
	if (c->xzero && !c->xcats && !first) {	/* from 0 to a round step past the largest x */
		double xs = nice_step(fmax(s->x1, 0) - fmin(s->x0, 0), 6);
		s->x0 = fmin(s->x0, 0);
		s->x1 = isnan(xs) ? fmax(s->x1, 1) : ceil(s->x1 * 1.02 / xs) * xs;
	}
	s->logx = !c->xcats && !c->linear_x && !c->xzero && s->x0 > 0 && s->x1 / s->x0 > 16;
	s->clip = clip;
	if (c->zoom && !(isfinite(ymin) && isfinite(ymax)))
		ymin = ymax = 0;
	if (c->zoom && ymax > ymin) {	/* a margin of a tenth of the span on each side */
		double pad = (ymax - ymin) / 10;
		ymin = clip && ymin - pad < 0 ? 0 : ymin - pad;
		ymax += pad;
	}
	if (!(ymax > ymin))
		ymax = ymin + (ymin ? fabs(ymin) / 10 : 1);
	double step = nice_step(ymax - ymin, 5);
	if (isnan(step)) {
		s->y0 = ymin;
		s->y1 = ymax;
		return;
	}
	s->y0 = floor(ymin / step) * step;
	s->y1 = ceil(ymax * 1.05 / step) * step;
}

/* More distinct x values than BC_SVG_XTICKS (a series of runs): x ticks
   at round steps instead of at every x (which would also cost n^2 to
   deduplicate). Stops counting past the bound. */
static int many_x(const bc_chart *c)
{
	double seen[BC_SVG_XTICKS + 1];
	size_t n = 0;
	for (size_t i = 0; i < c->ns; i++)
		for (size_t k = 0; k < c->s[i].n; k++) {
			size_t j = 0;
			while (j < n && seen[j] != c->s[i].x[k])
				j++;
			if (j == n && isfinite(c->s[i].x[k])) {
				if (n == BC_SVG_XTICKS)
					return 1;
				seen[n++] = c->s[i].x[k];
			}
		}
	return 0;
}

static void round_xticks(FILE *f, const scale *s)
{
	double step = s->logx ? NAN : nice_step(s->x1 - s->x0, 8);
	char buf[64];
	if (isnan(step))
		return;
	int nt = 0;
	for (double x = ceil(s->x0 / step) * step; x <= s->x1 + step / 1e6 && nt < 40; x += step, nt++) {
		fmt_num(buf, sizeof(buf), x);
		fprintf(f, "<line x1='%.1f' x2='%.1f' y1='%d' y2='%d' stroke='#999'/>"
			"<text x='%.1f' y='%d' text-anchor='middle' class='tick'>%s</text>\n",
			sx(s, x), sx(s, x), MT + PH, MT + PH + 4, sx(s, x), MT + PH + 16, buf);
	}
}

/* The chart's vertical marks (change points), dashed, labelled at the top. */
static void marks(FILE *f, const bc_chart *c, const scale *s)
{
	for (size_t i = 0; i < c->nmarks; i++) {
		if (!isfinite(c->marks[i]) || c->marks[i] < s->x0 || c->marks[i] > s->x1)
			continue;
		double x = sx(s, c->marks[i]);
		fprintf(f, "<line class='mark' x1='%.1f' x2='%.1f' y1='%d' y2='%d' stroke='#c62828' "
			"stroke-dasharray='5 3'/>", x, x, MT, MT + PH);
		if (c->mark_labels && c->mark_labels[i]) {
			fprintf(f, "<text x='%.1f' y='%d' class='tick' fill='#c62828'>", x + 3, MT + 12 + 12 * (int)(i % 3));
			bc_html_escape(f, c->mark_labels[i]);
			fputs("</text>", f);
		}
		fputc('\n', f);
	}
}

/* name cut to max code points (the last one an ellipsis when cut), never
   inside a UTF-8 sequence; returns the code points of out. */
static size_t legend_cut(char *out, size_t cap, const char *name, size_t max)
{
	size_t chars = 0, i = 0, cut = 0;
	for (; name[i]; i++) {
		if (((unsigned char)name[i] & 0xc0) == 0x80)
			continue;
		if (++chars == max)
			cut = i;	/* where the ellipsis goes if there is more */
		if (chars > max)
			break;
	}
	if (chars <= max || cut + 4 > cap) {
		snprintf(out, cap, "%s", chars <= max ? name : "...");
		return chars <= max ? chars : 3;
	}
	memcpy(out, name, cut);
	memcpy(out + cut, "\xe2\x80\xa6", 4);	/* U+2026 and the terminator */
	return max;
}

/* A slanted category label past this many characters is cut; the chart
   grows below the plot to hold that many at -35 degrees (chart_height). */
#define TILT_CHARS	24

/* Category labels side by side only when the longest fits its slot (about
   6.5 px a character); else slanted. */
static int tilted(const bc_chart *c)
{
	if (!c->xcats)
		return 0;
	double slot = (double)PW / (double)(c->ncat ? c->ncat : 1);
	size_t longest = 0;
	for (size_t i = 0; i < c->ncat; i++)
		longest = strlen(c->xcats[i]) > longest ? strlen(c->xcats[i]) : longest;
	return c->ncat > 6 || 6.5 * (double)longest > slot - 4;
}

static int chart_height(const bc_chart *c);

static void axes(FILE *f, const bc_chart *c, const scale *s)
{
	double step = nice_step(s->y1 - s->y0, 5);
	char buf[64];

	fprintf(f, "<rect x='%d' y='%d' width='%d' height='%d' fill='#fff' stroke='#999'/>\n",
		ML, MT, PW, PH);
	int nt = 0;
	for (double y = s->y0; !isnan(step) && y <= s->y1 + step / 2 && nt < 40; y += step, nt++) {
		fmt_num(buf, sizeof(buf), fabs(y) < step / 1e6 ? 0 : y);
		fprintf(f, "<line x1='%d' x2='%d' y1='%.1f' y2='%.1f' stroke='#e5e5e5'/>"
			"<text x='%d' y='%.1f' text-anchor='end' class='tick'>%s</text>\n",
			ML, ML + PW, sy(s, y), sy(s, y), ML - 6, sy(s, y) + 4, buf);
	}
	/* x ticks: categories, or the x values that occur (thread counts) */
	if (c->xcats) {
		/* labels side by side only when the longest fits its slot (about 6.5 px a
		   character); else slanted, and cut to what the bottom margin holds (the
		   whole label on hover) */
		int tilt = tilted(c);
		for (size_t i = 0; i < c->ncat; i++) {
			char cut[TILT_CHARS * 4 + 4];
			size_t n = legend_cut(cut, sizeof(cut), c->xcats[i], tilt ? TILT_CHARS : 1000);
			(void)n;
			if (tilt)
				fprintf(f, "<text transform='translate(%.1f,%d) rotate(-35)' text-anchor='end' "
					"class='tick'>", sx(s, (double)i), MT + PH + 12);
			else
				fprintf(f, "<text x='%.1f' y='%d' text-anchor='middle' class='tick'>",
					sx(s, (double)i), MT + PH + 16);
			if (strcmp(cut, c->xcats[i])) {
				fputs("<title>", f);
				bc_html_escape(f, c->xcats[i]);
				fputs("</title>", f);
			}
			bc_html_escape(f, cut);
			fputs("</text>\n", f);
		}
	} else if (many_x(c) || c->xzero) {
		round_xticks(f, s);
	} else {
		double drawn[BC_SVG_XTICKS];	/* pixel positions of the labels drawn */
		size_t nd = 0;
		for (size_t i = 0; i < c->ns; i++)
			for (size_t k = 0; k < c->s[i].n; k++) {				double x = c->s[i].x[k];
				int dup = 0;
				for (size_t j = 0; j <= i && !dup; j++)
					for (size_t q = 0; q < (j == i ? k : c->s[j].n) && !dup; q++)
						dup = c->s[j].x[q] == x;
				if (dup || !isfinite(x))
					continue;
				fmt_num(buf, sizeof(buf), x);
				/* a label is drawn only where it clears the others (3.48 and 3.50
				   GHz 5 px apart would print over each other) */
				double px = sx(s, x), room = 7.0 * (double)strlen(buf) + 6;
				for (size_t q = 0; q < nd && !dup; q++)
					dup = fabs(drawn[q] - px) < room;
				if (dup)
					continue;
				if (nd < BC_SVG_XTICKS)
					drawn[nd++] = px;
				fprintf(f, "<line x1='%.1f' x2='%.1f' y1='%d' y2='%d' stroke='#999'/>"
					"<text x='%.1f' y='%d' text-anchor='middle' class='tick'>%s</text>\n",
					sx(s, x), sx(s, x), MT + PH, MT + PH + 4, sx(s, x), MT + PH + 16, buf);
			}
	}
	fprintf(f, "<text x='%d' y='%d' text-anchor='middle' class='axis'>", ML + PW / 2, chart_height(c) - 12);
	bc_html_escape(f, c->xlabel);
	fprintf(f, "%s</text>\n<text transform='translate(16,%d) rotate(-90)' text-anchor='middle' class='axis'>",
		s->logx ? " (log scale)" : "", MT + PH / 2);
	bc_html_escape(f, c->ylabel);
	fprintf(f, "</text>\n<text x='%d' y='20' class='title'>", ML);
	bc_html_escape(f, c->title);
	fputs("</text>\n", f);
}

static void series(FILE *f, const bc_series *r, const scale *s, int idx)
{
	const char *col = palette[idx % 8];
	const char *dash = idx >= 8 ? " stroke-dasharray='6 3'" : "";
	int pen = 0;

	fprintf(f, "<g class='series'><path fill='none' stroke='%s' stroke-width='2'%s d='", col, dash);
	for (size_t k = 0; k < r->n; k++) {
		if (!isfinite(r->x[k]) || !isfinite(r->y[k]))
			continue;
		fprintf(f, "%s%.1f %.1f", pen ? " L" : "M", sx(s, r->x[k]), sy(s, r->y[k]));
		pen = 1;
	}
	fputs("'/>\n", f);
	char short_name[48];
	size_t cut = strlen(r->name);
	if (cut >= sizeof(short_name) - 4) {
		cut = sizeof(short_name) - 4;
		while (cut && ((unsigned char)r->name[cut] & 0xc0) == 0x80)
			cut--;	/* not inside a UTF-8 sequence */
	}
	snprintf(short_name, sizeof(short_name), "%.*s%s", (int)cut, r->name, cut < strlen(r->name) ? "..." : "");
	for (size_t k = 0; k < r->n; k++) {
		if (!isfinite(r->x[k]) || !isfinite(r->y[k]))
			continue;
		if (r->ylo && r->yhi && isfinite(r->ylo[k]) && isfinite(r->yhi[k]) && r->yhi[k] > r->ylo[k])
			fprintf(f, "<line class='interval' x1='%.1f' x2='%.1f' y1='%.1f' y2='%.1f' stroke='%s'/>",
				sx(s, r->x[k]), sx(s, r->x[k]), sy(s, lo_of(r, k, s->clip)), sy(s, r->yhi[k]), col);
		fprintf(f, "<circle cx='%.1f' cy='%.1f' r='3.5' fill='%s'><title>", sx(s, r->x[k]),
			sy(s, r->y[k]), col);
		bc_html_escape(f, short_name);	/* each point: not the whole label again */
		fprintf(f, ": %g</title></circle>\n", r->y[k]);
	}
	fputs("</g>\n", f);
}

/* Series idx of ns as bars: each category's slot split between the series. */
static void bars(FILE *f, const bc_series *r, const scale *s, int idx, size_t ns, size_t ncat)
{
	double slot = (double)PW / (double)(ncat ? ncat : 1), w = slot * 0.8 / (double)(ns ? ns : 1);
	fputs("<g class='series'>", f);
	for (size_t k = 0; k < r->n; k++) {
		if (!isfinite(r->x[k]) || !isfinite(r->y[k]))
			continue;
		double x = sx(s, r->x[k]) - slot * 0.4 + w * idx, y = sy(s, r->y[k]), y0 = sy(s, fmax(s->y0, 0));
		fprintf(f, "<rect x='%.1f' y='%.1f' width='%.1f' height='%.1f' fill='%s'><title>", x, fmin(y, y0),
			w, fabs(y0 - y), palette[idx % 8]);
		bc_html_escape(f, r->name);
		fprintf(f, ": %g</title></rect>", r->y[k]);
		if (r->ylo && r->yhi && isfinite(r->ylo[k]) && isfinite(r->yhi[k]) && r->yhi[k] > r->ylo[k])
			fprintf(f, "<line class='interval' x1='%.1f' x2='%.1f' y1='%.1f' y2='%.1f' stroke='#333'/>",
				x + w / 2, x + w / 2, sy(s, lo_of(r, k, s->clip)), sy(s, r->yhi[k]));
	}
	fputs("</g>\n", f);
}

#define LEGEND_STEP	18

/* The chart's height: the plot's, or more when the legend needs it (every
   series is listed: 19 redis tests do not fit beside a 250 px plot). */
static int chart_height(const bc_chart *c)
{
	int need = MT + 10 + LEGEND_STEP * (int)(c->ns + (c->has_ref ? 1 : 0)) + 10;
	if (tilted(c)) {	/* the slanted labels' depth (sin 35 x 6.5 px a character), then the axis name */
		size_t longest = 0;
		for (size_t i = 0; i < c->ncat; i++) {
			size_t l = strlen(c->xcats[i]);
			longest = l > longest ? l : longest;
		}
		int depth = (int)(0.574 * 6.5 * (double)(longest < TILT_CHARS ? longest : TILT_CHARS)) + 8;
		int below = MT + PH + 12 + depth + 22;
		need = below > need ? below : need;
	}
	return need > H ? need : H;
}

/* Right of the plot at the legend's 11 px: LEGEND_PX for the name. Past
   LEGEND_FIT characters a name (of 6 to 10 px each) is squeezed into it
   (textLength); past LEGEND_CHARS it is cut, the whole name in its title. */
#define LEGEND_PX	(W - (ML + PW + 14 + 28) - 4)
#define LEGEND_FIT	14
#define LEGEND_CHARS	18

static size_t legend_name(char *out, size_t cap, const char *name)
{
	return legend_cut(out, cap, name, LEGEND_CHARS);
}

static void legend(FILE *f, const bc_chart *c)
{
	int x = ML + PW + 14, y = MT + 10;

	for (size_t i = 0; i < c->ns; i++, y += LEGEND_STEP) {
		char name[LEGEND_CHARS * 4 + 4];
		size_t chars = legend_name(name, sizeof(name), c->s[i].name ? c->s[i].name : "");
		fprintf(f, "<line x1='%d' x2='%d' y1='%d' y2='%d' stroke='%s' stroke-width='3'%s/>"
			"<text x='%d' y='%d' class='legend'", x, x + 22, y, y, palette[i % 8],
			i >= 8 ? " stroke-dasharray='6 3'" : "", x + 28, y + 4);
		if (chars > LEGEND_FIT)
			fprintf(f, " textLength='%d' lengthAdjust='spacingAndGlyphs'", LEGEND_PX);
		fputc('>', f);
		if (strcmp(name, c->s[i].name ? c->s[i].name : "")) {	/* shortened: the whole name on hover */
			fputs("<title>", f);
			bc_html_escape(f, c->s[i].name);
			fputs("</title>", f);
		}
		bc_html_escape(f, name);
		fputs("</text>\n", f);
	}
	if (c->has_ref) {
		fprintf(f, "<line x1='%d' x2='%d' y1='%d' y2='%d' stroke='#555' stroke-dasharray='4 4'/>"
			"<text x='%d' y='%d' class='legend'>", x, x + 22, y, y, x + 28, y + 4);
		bc_html_escape(f, c->ref_label);
		fputs("</text>\n", f);
	}
}

/* A line chart whose every series has one point says nothing as lines: the
   points become bars in one category (the x value), with their intervals. */
static int one_point(const bc_chart *c)
{
	const bc_series *first = NULL;
	if (c->xcats || !c->ns)
		return 0;
	for (size_t i = 0; i < c->ns; i++) {
		if (c->s[i].n > 1)
			return 0;
		if (c->s[i].n == 1 && !first)
			first = &c->s[i];
		else if (c->s[i].n == 1 && c->s[i].x[0] != first->x[0])
			return 0;
	}
	return first != NULL;
}

static void chart(FILE *f, const bc_chart *c);

void bc_svg_chart(FILE *f, const bc_chart *c)
{
	if (!one_point(c)) {
		chart(f, c);
		return;
	}
	char cat[64], label[160];
	const char *cats[1] = { cat };
	static const double zero = 0;
	bc_series *ss = calloc(c->ns, sizeof(*ss));
	if (!ss) {
		chart(f, c);
		return;
	}
	size_t at = 0;
	while (c->s[at].n == 0)
		at++;
	fmt_num(cat, sizeof(cat), c->s[at].x[0]);
	snprintf(label, sizeof(label), "%s %s", c->xlabel ? c->xlabel : "", cat);
	cats[0] = label;
	bc_chart b = *c;
	for (size_t i = 0; i < c->ns; i++) {
		ss[i] = c->s[i];
		ss[i].x = &zero;
	}
	b.s = ss;
	b.xcats = cats;
	b.ncat = 1;
	b.bars = 1;
	chart(f, &b);
	free(ss);
}

static void chart(FILE *f, const bc_chart *c)
{
	scale s;

	data_range(c, &s);
	fprintf(f, "<figure><svg class='chart' xmlns='http://www.w3.org/2000/svg' width='%d' height='%d' "
		"viewBox='0 0 %d %d' role='img' aria-label='", W, chart_height(c), W, chart_height(c));
	bc_html_escape(f, c->title);
	fputs("'>\n", f);
	axes(f, c, &s);
	if (c->has_ref)
		fprintf(f, "<line x1='%d' x2='%d' y1='%.1f' y2='%.1f' stroke='#555' stroke-dasharray='4 4'/>\n",
			ML, ML + PW, sy(&s, c->ref_y), sy(&s, c->ref_y));
	marks(f, c, &s);
	for (size_t i = 0; i < c->ns; i++)
		if (c->bars && c->xcats)
			bars(f, &c->s[i], &s, (int)i, c->ns, c->ncat);
		else
			series(f, &c->s[i], &s, (int)i);
	legend(f, c);
	fputs("</svg>", f);
	if (c->note) {
		fputs("<figcaption>", f);
		bc_html_escape(f, c->note);
		fputs("</figcaption>", f);
	}
	fputs("</figure>\n", f);
}
