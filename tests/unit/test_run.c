/* The runner (core/run/) end to end, in this process and in simulated time
   (core/engine/clock.h): `benchcore run synth ...` with isolate = false
   against tests/modules/synth.c, whose workers sleep through the same clock.
   A 10 s window takes milliseconds and has exactly the operations its
   options say, so the schedule (rounds, the shuffled order, thread sweeps),
   repeat = auto's stopping rules, warmup = auto, the ETA and the results
   document are checked to the figure, not within a loaded machine's noise. */
#include <math.h>
#include "synthrun.h"

static const char *stop_of(json_t *c) { return str(c, "repeat_stop"); }

/* the cases in the order they ran as "point/threads/round " */
static char *order(json_t *d)
{
	char *s = bc_xstrdup("");
	for (size_t i = 0; i < json_array_size(cases(d)); i++) {
		json_t *c = at(d, i);
		char *n = bc_xasprintf("%s%s/%ld/%ld ", s, str(c, "point"), ival(c, "threads"), ival(c, "round"));
		free(s);
		s = n;
	}
	return s;
}

/* A 10 s window at 2 threads x 5000 op/s: exactly 100000 operations, ten
   interval reports of 10000 op/s each, in far less than a second. */
static void test_window_exact(void **st)
{
	(void)st;
	assert_int_equal(bc("w", "ops=5000 --threads 2 --time 10 --warmup 1 --report-interval 1"), 0);
	json_t *d = doc("w"), *c = at(d, 0);
	assert_string_equal(str(c, "status"), "ok");
	assert_true(fabs(num(c, "duration_s") - 10) < 1e-9);
	assert_true(fabs(num(c, "warmup_s") - 1) < 1e-9);
	json_t *ev = json_object_get(json_object_get(c, "ops"), "event");
	assert_int_equal(ival(ev, "count"), 100000);
	assert_true(fabs(headline(c) - 10000) < 1e-6);
	json_t *iv = json_object_get(c, "intervals");
	assert_int_equal(json_array_size(iv), 10);
	for (size_t i = 0; i < 10; i++) {
		assert_true(fabs(num(json_array_get(iv, i), "t") - (double)(i + 1)) < 1e-9);
		assert_true(fabs(num(json_array_get(iv, i), "events_per_sec") - 10000) < 1e-6);
	}
	/* every thread did its share: 50000 each */
	json_t *f = json_object_get(c, "fairness");
	assert_true(fabs(num(f, "events_mean") - 50000) < 1e-9 && num(f, "events_stddev") == 0);
	json_decref(d);
	/* and again: the same figures */
	assert_int_equal(bc("w2", "ops=5000 --threads 2 --time 10 --warmup 1 --report-interval 1"), 0);
	d = doc("w2");
	assert_int_equal(ival(json_object_get(json_object_get(at(d, 0), "ops"), "event"), "count"), 100000);
	json_decref(d);
}

/* An events budget's window ends with the workers' last operation, not
   after their thread_done: a long teardown (done_s = 3, 15 s of this
   test's clock) is not in it (it was: 16 s). 100
   operations at 100 a second: about 1 s. */
static void test_window_events(void **st)
{
	(void)st;
	assert_int_equal(bc("ev", "ops=100 --events 100 --time 0 --warmup 0 done_s=3"), 0);
	json_t *d = doc("ev"), *c = at(d, 0);
	assert_string_equal(str(c, "status"), "ok");
	double dur = num(c, "duration_s");
	if (!(dur > 0.9 && dur < 1.1))
		fail_msg("an events window with a 3 s thread_done lasted %.3f s (about 1 s wanted)", dur);
	json_decref(d);
}

/* Rounds: every (point, threads) once per round, shuffled, reproducible
   from the recorded seed; back_to_back keeps plan order. */
static void test_rounds(void **st)
{
	(void)st;
	assert_int_equal(bc("r1", "ops=1000,2000,3000 --threads 1,2 --repeat 3 --seed 42 --time 0.1 --warmup 0"), 0);
	json_t *d = doc("r1");
	assert_int_equal(json_array_size(cases(d)), 18);
	json_t *sch = json_object_get(d, "schedule");
	assert_string_equal(str(sch, "repeat_order"), "rounds");
	assert_int_equal(ival(sch, "seed"), 42);
	int shuffled = 0;
	for (int r = 0; r < 3; r++) {
		unsigned seen = 0;	/* bit (ops/1000 - 1) * 2 + threads - 1 */
		double prev = 0;
		for (int i = 0; i < 6; i++) {
			json_t *c = at(d, (size_t)(6 * r + i));
			assert_int_equal(ival(c, "round"), r + 1);
			assert_int_equal(ival(c, "repeat"), r + 1);
			double ops = num(json_object_get(c, "params"), "ops");
			long th = ival(c, "threads");
			seen |= 1u << ((unsigned)(ops / 1000 - 1) * 2 + (unsigned)(th - 1));
			/* the headline is what the options say: ops x threads */
			assert_true(fabs(headline(c) - ops * (double)th) < 1e-6);
			double key = ops * 10 + (double)th;
			shuffled |= key < prev;
			prev = key;
		}
		assert_int_equal(seen, 0x3f);
	}
	assert_true(shuffled);
	json_t *g = json_object_get(d, "groups");
	assert_int_equal(json_array_size(g), 6);
	for (size_t i = 0; i < 6; i++)
		assert_int_equal(ival(json_array_get(g, i), "repeats"), 3);
	char *o1 = order(d);
	assert_int_equal(bc("r2", "ops=1000,2000,3000 --threads 1,2 --repeat 3 --seed 42 --time 0.1 --warmup 0"), 0);
	json_t *d2 = doc("r2");
	char *o2 = order(d2);
	assert_string_equal(o1, o2);
	assert_int_equal(bc("r3", "ops=1000,2000,3000 --threads 1,2 --repeat 3 --seed 7 --time 0.1 --warmup 0"), 0);
	json_t *d3 = doc("r3");
	char *o3 = order(d3);
	assert_string_not_equal(o1, o3);
	free(o1);
	free(o2);
	free(o3);
	json_decref(d);
	json_decref(d2);
	json_decref(d3);

	assert_int_equal(bc("b", "ops=1000,2000 --threads 1,2 --repeat 2 --repeat-order back_to_back --time 0.1 "
			      "--warmup 0"), 0);
	d = doc("b");
	assert_int_equal(json_array_size(cases(d)), 8);
	for (size_t i = 0; i < 8; i++) {	/* points, then threads, then repeats */
		json_t *c = at(d, i);
		assert_true(fabs(num(json_object_get(c, "params"), "ops") - (double)(1000 + 1000 * (i / 4))) < 1e-9);
		assert_int_equal(ival(c, "threads"), 1 + (long)(i / 2) % 2);
		assert_int_equal(ival(c, "repeat"), 1 + (long)i % 2);
		assert_int_equal(ival(c, "round"), ival(c, "repeat"));
	}
	json_decref(d);
}

/* Without --seed one is drawn, recorded and named in the plan; given back,
   it reproduces the order. */
static void test_seed_drawn(void **st)
{
	(void)st;
	assert_int_equal(bc("sd1", "ops=1000,2000,3000 --threads 1,2 --repeat 3 --time 0.1 --warmup 0"), 0);
	json_t *d = doc("sd1"), *seed = json_object_get(json_object_get(d, "schedule"), "seed");
	assert_true(json_is_integer(seed));
	json_int_t v = json_integer_value(seed);
	assert_true(v >= 0 && v < 4294967296ll);
	char *err = text("sd1", "err"), *want = bc_xasprintf("plan: repeats in rounds, shuffled with seed %lld (seed = "
							       "%lld reproduces this order)", (long long)v, (long long)v);
	assert_non_null(strstr(err, want));
	char *args = bc_xasprintf("ops=1000,2000,3000 --threads 1,2 --repeat 3 --time 0.1 --warmup 0 --seed %lld",
				  (long long)v);
	assert_int_equal(bc("sd2", args), 0);
	json_t *d2 = doc("sd2");
	char *o1 = order(d), *o2 = order(d2);
	assert_string_equal(o1, o2);
	free(o1);
	free(o2);
	free(args);
	free(err);
	free(want);
	json_decref(d);
	json_decref(d2);
}

/* repeats of one group, sorted by repeat */
static size_t reps(json_t *d, double cv, json_t **out, size_t cap)
{
	size_t n = 0;
	for (size_t i = 0; i < json_array_size(cases(d)); i++) {
		json_t *c = at(d, i);
		if (cv >= 0 && fabs(num(json_object_get(c, "params"), "cv") - cv) > 1e-12)
			continue;
		if (n < cap)
			out[n++] = c;
	}
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && ival(out[j - 1], "repeat") > ival(out[j], "repeat"); j--) {
			json_t *t = out[j];
			out[j] = out[j - 1];
			out[j - 1] = t;
		}
	return n;
}

/* Only the last repeat says why the case stopped; the earlier ones nothing. */
static void stopped(json_t **t, size_t n, const char *why)
{
	for (size_t i = 0; i + 1 < n; i++)
		assert_null(stop_of(t[i]));
	assert_non_null(stop_of(t[n - 1]));
	assert_string_equal(stop_of(t[n - 1]), why);
}

/* repeat = auto's stopping rules on spreads known exactly (synth's step:
   factors 1, 1+s, 1-s in turn): the answers are the rules', to the repeat. */
static void test_repeat_auto(void **st)
{
	(void)st;
	json_t *t[32];
	char *a = bc_xasprintf("step=0.012 count_file=%s/c1 --time 1 --warmup 0 --repeat auto --min-repeat 3 "
			       "--max-repeat 8", dir);
	assert_int_equal(bc("s1", a), 0);
	free(a);
	json_t *d = doc("s1");
	size_t n = reps(d, -1, t, 32);
	assert_int_equal(n, 4);		/* 1.2%: the interval inside 2% after 4 */
	stopped(t, n, "precise");
	assert_int_equal(ival(json_array_get(json_object_get(d, "groups"), 0), "repeats"), 4);
	json_decref(d);

	a = bc_xasprintf("step=0.03 count_file=%s/c2 --time 1 --warmup 0 --repeat auto --min-repeat 3 --max-repeat 7", dir);
	assert_int_equal(bc("s2", a), 0);
	free(a);
	d = doc("s2");
	n = reps(d, -1, t, 32);
	assert_int_equal(n, 7);		/* 3%: needs 9 to 12, within 2 x 7: runs to max_repeat */
	stopped(t, n, "max_repeat");
	json_decref(d);

	a = bc_xasprintf("step=0.2 count_file=%s/c3 --time 1 --warmup 0 --repeat auto --min-repeat 3 --max-repeat 12", dir);
	assert_int_equal(bc("s3", a), 0);
	free(a);
	d = doc("s3");
	n = reps(d, -1, t, 32);
	assert_int_equal(n, 3);		/* 20%: beyond 2 x 12 repeats: futile at min_repeat */
	stopped(t, n, "futile");
	json_t *ra = json_object_get(json_array_get(json_object_get(json_object_get(d, "config"), "modules"), 0),
				     "repeat_auto");
	assert_int_equal(ival(ra, "min_repeat"), 3);
	assert_int_equal(ival(ra, "max_repeat"), 12);
	json_decref(d);

	/* a tight case (cv 0) and a noisy one (cv 0.3) in one run */
	assert_int_equal(bc("tn", "cv=0,0.3 --time 1 --warmup 0 --repeat auto --min-repeat 3 --max-repeat 8"), 0);
	d = doc("tn");
	n = reps(d, 0, t, 32);
	assert_int_equal(n, 3);
	stopped(t, n, "precise");
	for (size_t i = 0; i < n; i++)
		assert_true(fabs(headline(t[i]) - 10000) < 1e-6);
	n = reps(d, 0.3, t, 32);
	assert_true(n >= 3 && n <= 8);
	assert_non_null(stop_of(t[n - 1]));
	json_decref(d);

	/* time_budget: 2 s budget, cases of 1 s: a new round only while within it */
	a = bc_xasprintf("step=0.02 count_file=%s/c4 --time 1 --warmup 0 --repeat auto --min-repeat 2 --max-repeat 20 "
			 "--time-budget 2.5", dir);
	assert_int_equal(bc("tb", a), 0);
	free(a);
	d = doc("tb");
	n = reps(d, -1, t, 32);
	assert_int_equal(n, 3);
	stopped(t, n, "budget");
	json_decref(d);
}

/* A baseline decides sooner: +30% against a case known to +-1%. The
   windows are simulated, the CPU accounting beside them real: what other
   tests take of this machine's CPUs in those milliseconds is no
   interference of the simulated case (busy_threshold 100 weighs none). */
static void test_baseline(void **st)
{
	(void)st;
	json_t *t[32];
	assert_int_equal(bc("base", "cv=0.01 --time 1 --warmup 0 --repeat auto --min-repeat 3 --max-repeat 12 "
			    "--busy-threshold 100"), 0);
	char *a = bc_xasprintf("cv=0.01 ops=13000 --time 1 --warmup 0 --repeat auto --min-repeat 3 --max-repeat 12 "
			       "--busy-threshold 100 --baseline %s/base.json", dir);
	assert_int_equal(bc("cand", a), 0);
	free(a);
	json_t *d = doc("cand");
	size_t n = reps(d, -1, t, 32);
	assert_int_equal(n, 3);
	stopped(t, n, "decided");
	json_t *cfg = json_object_get(d, "config");
	assert_non_null(strstr(str(cfg, "baseline"), "base.json"));
	assert_int_equal(strlen(str(cfg, "baseline_sha256")), 64);
	json_decref(d);
}

/* One judge: a case repeat = auto called decided against its baseline is
   a win, loss or tie when compare reads the two files (+10% at 0.5%, 3%
   and 20% noise, 1 and 2 threads). */
static void test_one_judge(void **st)
{
	(void)st;
	const char *common = "cv=0.005,0.03,0.2 --threads 1,2 --repeat auto --min-repeat 3 --max-repeat 6 --time 0.2 "
			     "--warmup 0 --busy-threshold 100";
	char *a = bc_xasprintf("ops=10000 %s", common), *b = bc_xasprintf("ops=11000 %s --baseline %s/ja.json", common,
									  dir);
	assert_int_equal(bc("ja", a), 0);
	assert_int_equal(bc("jb", b), 0);
	char *line = bc_xasprintf("compare --json %s/ja.json %s/jb.json", dir, dir);
	assert_int_equal(run_cmd(bc_cmd_compare, "jc", line) & ~1, 0);	/* 1: a loss found */
	char *p = bc_xasprintf("%s/jc.out", dir);
	json_t *cmp = json_load_file(p, 0, NULL);
	assert_non_null(cmp);
	json_t *rows = json_object_get(json_array_get(json_object_get(cmp, "comparisons"), 0), "rows"), *d = doc("jb");
	unsigned decided = 0;
	for (size_t i = 0; i < json_array_size(cases(d)); i++) {
		json_t *c = at(d, i);
		if (!stop_of(c) || strcmp(stop_of(c), "decided"))
			continue;
		decided++;
		const char *verdict = NULL;
		for (size_t j = 0; j < json_array_size(rows); j++) {
			json_t *r = json_array_get(rows, j);
			if (!json_is_true(json_object_get(r, "headline")) || ival(r, "threads") != ival(c, "threads") ||
			    fabs(num(json_object_get(r, "params"), "cv") - num(json_object_get(c, "params"), "cv")) > 1e-12)
				continue;
			verdict = str(r, "verdict");
		}
		if (!verdict || (strcmp(verdict, "win") && strcmp(verdict, "loss") && strcmp(verdict, "tie")))
			fail_msg("cv %g at %ld threads: decided, and compare says %s", num(json_object_get(c, "params"), "cv"),
				 ival(c, "threads"), verdict ? verdict : "nothing");
	}
	assert_true(decided >= 1);
	json_decref(d);
	json_decref(cmp);
	free(p);
	free(line);
	free(a);
	free(b);
}

/* warmup = auto: a 1 s ramp is steady once the window (0.5 s) holds none
   of it; a wobble never settles and runs to max_warmup, saying so. */
static void test_warmup_auto(void **st)
{
	(void)st;
	assert_int_equal(bc("wa", "ramp_s=1 --time 0.5 --warmup auto --max-warmup 6 --warmup-window 0.5"), 0);
	json_t *d = doc("wa"), *c = at(d, 0);
	assert_true(json_is_true(json_object_get(c, "warmup_steady")));
	double w = num(c, "warmup_s");
	assert_true(w >= 1.0 && w < 2.0);
	json_t *wa = json_object_get(json_array_get(json_object_get(json_object_get(d, "config"), "modules"), 0),
				     "warmup_auto");
	assert_true(fabs(num(wa, "max_warmup") - 6) < 1e-12);
	assert_true(fabs(num(wa, "warmup_window") - 0.5) < 1e-12);
	json_decref(d);
	/* the same run again: the same warmup, to the nanosecond */
	assert_int_equal(bc("wa2", "ramp_s=1 --time 0.5 --warmup auto --max-warmup 6 --warmup-window 0.5"), 0);
	d = doc("wa2");
	assert_true(num(at(d, 0), "warmup_s") == w);
	json_decref(d);

	assert_int_equal(bc("ww", "wobble=0.3 --time 0.5 --warmup auto --max-warmup 1.5 --warmup-window 0.5"), 0);
	d = doc("ww");
	c = at(d, 0);
	assert_true(json_is_false(json_object_get(c, "warmup_steady")));
	assert_true(fabs(num(c, "warmup_s") - 1.5) < 1e-9);
	char *warn = json_dumps(json_object_get(c, "warnings"), 0);
	assert_non_null(strstr(warn, "no steady state"));
	free(warn);
	json_decref(d);

	/* bursts of +-30% every 150 ms settle over blocks of steps */
	assert_int_equal(bc("wb", "wobble=0.3 --time 0.5 --warmup auto --max-warmup 12 --warmup-window 0.5"), 0);
	d = doc("wb");
	assert_true(json_is_true(json_object_get(at(d, 0), "warmup_steady")));
	assert_true(num(at(d, 0), "warmup_s") < 8);
	json_decref(d);
}

/* warmup = auto on the shapes test_auto once warmed up live (3 to 12 s of
   warmup each): +-60% bursts settle later than +-30%, bursts on a 3 s ramp
   only after the ramp, warmup_window is a duration whatever the
   report_interval, a longer window waits until it holds no part of a ramp. */
static void test_warmup_shapes(void **st)
{
	(void)st;
	double w[5];
	const char *args[5] = {
		"wobble=0.3 --time 0.3 --warmup auto --max-warmup 12 --warmup-window 0.5",
		"wobble=0.6 --time 0.3 --warmup auto --max-warmup 12 --warmup-window 0.5",
		"wobble=0.3 ramp_s=3 --time 0.3 --warmup auto --max-warmup 15 --warmup-window 0.5",
		"--time 0.3 --warmup auto --max-warmup 20 --warmup-window 1 --report-interval 5",
		"ramp_s=1 --time 0.3 --warmup auto --max-warmup 10 --warmup-window 3",
	};
	for (int i = 0; i < 5; i++) {
		char name[16];
		snprintf(name, sizeof(name), "ws%d", i);
		assert_int_equal(bc(name, args[i]), 0);
		json_t *d = doc(name), *c = at(d, 0);
		if (!json_is_true(json_object_get(c, "warmup_steady")))
			fail_msg("%s: never steady (warmup %.2f s)", args[i], num(c, "warmup_s"));
		w[i] = num(c, "warmup_s");
		json_decref(d);
	}
	assert_true(w[0] >= 1.0 && w[0] < 8.0);		/* +-30%: steady over blocks of steps */
	assert_true(w[1] > w[0] && w[1] < 11.0);	/* +-60%: longer blocks, later */
	assert_true(w[2] >= 3.0 && w[2] < 12.0);	/* the blocks do not hide the ramp */
	assert_true(w[3] >= 1.0 && w[3] < 1.5);		/* a 1 s window, not 5 s reports */
	assert_true(w[4] >= 3.0 && w[4] < 6.0);		/* a 3 s window past a 1 s ramp */
}

/* The ETA after each case: from the pace so far and the cases left, likely
   never above at most, and going down. Simulated seconds: exact. */
static void test_eta(void **st)
{
	(void)st;
	assert_int_equal(bc("eta", "cv=0,0.2 --time 2 --warmup 0 --repeat auto --min-repeat 3 --max-repeat 6"), 0);
	char *s = text("eta", "out");
	unsigned lines = 0, first_most = 0, last_most = 0, fewer = 0;
	for (char *p = strstr(s, "eta: about "); p; p = strstr(p + 1, "eta: about ")) {
		unsigned secs, likely, most;
		/* "1 case likely" or "2 cases likely" (how many depends on cv
		   0.2's draw, which follows the pid) */
		assert_int_equal(sscanf(p, "eta: about %u s left, %u case%*[s ]likely, %u at most", &secs, &likely,
					&most), 3);
		assert_true(likely <= most);
		/* each case takes exactly 2 s here: the ETA is 2 s a case likely */
		assert_int_equal(secs, 2 * likely);
		fewer |= likely < most;
		if (!lines++)
			first_most = most;
		last_most = most;
	}
	assert_true(lines >= 3);
	assert_true(fewer);
	assert_true(first_most > last_most);
	free(s);
}

/* needs(): a case that needs more memory than the machine has is skipped
   with the figures, before anything of it runs; the plan counts it; the
   cases that fit run. */
static void test_needs(void **st)
{
	(void)st;
	assert_int_equal(bc("nd", "need_mib=1,100000000 --threads 1,2 --time 0.1 --warmup 0"), 0);
	json_t *d = doc("nd");
	assert_int_equal(json_array_size(cases(d)), 4);
	unsigned skipped = 0;
	for (size_t i = 0; i < 4; i++) {
		json_t *c = at(d, i);
		int big = num(json_object_get(c, "params"), "need_mib") > 1;
		assert_string_equal(str(c, "status"), big ? "skipped" : "ok");
		if (big) {
			skipped++;
			assert_non_null(strstr(str(c, "reason"), "need_mib per thread"));
			assert_non_null(strstr(str(c, "reason"), "synth needs"));
			assert_int_equal(json_object_size(json_object_get(c, "ops")), 0);	/* nothing ran */
			/* per thread: twice the figure at 2 threads */
			assert_non_null(strstr(str(c, "reason"), ival(c, "threads") == 2 ? "190.7 TiB" : "95.4 TiB"));
		}
	}
	assert_int_equal(skipped, 2);
	json_decref(d);
	char *err = text("nd", "err");
	assert_non_null(strstr(err, "plan: 2 cases to run, 2 skipped (said above)"));
	free(err);
}

/* status and reason of each case, in order, as "status:reason|..." */
static char *verdicts(json_t *d)
{
	char *s = bc_xstrdup("");
	for (size_t i = 0; i < json_array_size(cases(d)); i++) {
		const char *r = str(at(d, i), "reason");
		char *n = bc_xasprintf("%s%s:%s|", s, str(at(d, i), "status"), r ? r : "");
		free(s);
		s = n;
	}
	return s;
}

/* needs() against the memory BENCHCORE_MEMAVAIL says there is: 128 MiB a
   thread fits 200 MiB at 1 thread, not at 2; --force-module runs it
   anyway; a figure that is not a size is refused before anything runs. */
static void test_needs_memory(void **st)
{
	(void)st;
	setenv("BENCHCORE_MEMAVAIL", "200M", 1);
	assert_int_equal(bc("nm", "need_mib=64,128 --threads 1,2 --time 0.1 --warmup 0"), 0);
	json_t *d = doc("nm");
	char *v = verdicts(d);
	assert_string_equal(v, "ok:|ok:|ok:|skipped:synth needs 256.0 MiB of memory (need_mib per thread), "
			    "200.0 MiB available|");
	assert_int_equal(json_object_size(json_object_get(at(d, 3), "ops")), 0);
	free(v);
	json_decref(d);
	char *err = text("nm", "err");
	assert_non_null(strstr(err, "plan: synth: 1 of them skipped, this machine cannot give what they need (first: "
				    "synth needs 256.0 MiB of memory"));
	assert_non_null(strstr(err, "plan: 3 cases to run, 1 skipped (said above)"));
	free(err);
	assert_int_equal(bc("nf", "need_mib=128 --threads 2 --time 0.1 --warmup 0 --force-module"), 0);
	d = doc("nf");
	assert_string_equal(str(at(d, 0), "status"), "ok");
	json_decref(d);
	setenv("BENCHCORE_MEMAVAIL", "lots", 1);
	assert_int_equal(bc("nb", "--time 0.1 --warmup 0"), 2);
	err = text("nb", "err");
	assert_non_null(strstr(err, "benchcore: error: BENCHCORE_MEMAVAIL=\"lots\" is not a size"));
	assert_non_null(strstr(err, "HINT: give bytes (209715200) or a size (200M)"));
	free(err);
	unsetenv("BENCHCORE_MEMAVAIL");
}

/* The memory a cgroup leaves (BENCHCORE_CGROUP_DIR: one directory with
   v1's files): its limit less its usage, the inactive page cache counted
   free: 400 MiB, 323 in use, 10 of it reclaimable: 87 MiB. */
static void test_needs_cgroup(void **st)
{
	(void)st;
	char *cg = bc_xasprintf("%s/cg", dir);
	mkdir(cg, 0755);
	const char *files[][2] = { { "memory.limit_in_bytes", "419430400\n" }, { "memory.usage_in_bytes", "338690048\n" },
				   { "memory.stat", "cache 62914560\ninactive_file 0\ntotal_inactive_file 10485760\n"
						    "total_active_file 52428800\n" } };
	for (size_t i = 0; i < 3; i++) {
		char *p = bc_xasprintf("%s/%s", cg, files[i][0]);
		FILE *f = fopen(p, "w");
		assert_non_null(f);
		fputs(files[i][1], f);
		fclose(f);
		free(p);
	}
	setenv("BENCHCORE_CGROUP_DIR", cg, 1);
	assert_int_equal(bc("ncg", "need_mib=32,250 --time 0.1 --warmup 0"), 0);
	unsetenv("BENCHCORE_CGROUP_DIR");
	json_t *d = doc("ncg");
	char *v = verdicts(d), *want = bc_xasprintf("ok:|skipped:synth needs 250.0 MiB of memory (need_mib per thread), "
						  "87.0 MiB available (the cgroup %s: limit 400.0 MiB, 323.0 MiB in "
						  "use, 10.0 MiB of it reclaimable page cache)|", cg);
	assert_string_equal(v, want);
	assert_int_equal(ival(json_object_get(d, "host"), "memory_limit_bytes"), 400l << 20);
	free(v);
	free(want);
	free(cg);
	json_decref(d);
}

/* Disk at a path (the file system's real free space: 1 MiB fits, a
   billion MiB does not) and usable CPUs (this process's affinity). */
static void test_needs_disk_cpus(void **st)
{
	(void)st;
	char *a = bc_xasprintf("need_disk_mib=1,1e9 disk_path=%s --time 0.1 --warmup 0", dir);
	assert_int_equal(bc("ndk", a), 0);
	free(a);
	json_t *d = doc("ndk");
	assert_string_equal(str(at(d, 0), "status"), "ok");
	assert_string_equal(str(at(d, 1), "status"), "skipped");
	char *want = bc_xasprintf("synth needs 953.7 TiB at %s (need_disk_mib), ", dir);
	const char *r = str(at(d, 1), "reason");
	assert_true(!strncmp(r, want, strlen(want)) && strstr(r, " free"));
	free(want);
	json_decref(d);
	assert_int_equal(bc("ncp", "need_cpus=1,100000 --time 0.1 --warmup 0"), 0);
	d = doc("ncp");
	assert_string_equal(str(at(d, 0), "status"), "ok");
	assert_string_equal(str(at(d, 1), "status"), "skipped");
	const char *cpus = "synth needs 100000 CPUs, this process may use ";
	assert_true(!strncmp(str(at(d, 1), "reason"), cpus, strlen(cpus)));
	json_decref(d);
}

/* The results document: schema, the run's schedule and config as given,
   the summary grouping every repeat, written whole after the run. */
static void test_document(void **st)
{
	(void)st;
	assert_int_equal(bc("doc", "ops=2000 cv=0 --threads 1,2 --repeat 2 --time 1 --warmup 0 --seed 3"), 0);
	json_t *d = doc("doc");
	assert_string_equal(str(d, "schema"), "benchcore/1");
	assert_true(json_is_false(json_object_get(d, "interrupted")));
	assert_non_null(str(d, "run_id"));
	assert_non_null(str(d, "host_id"));
	assert_int_equal(json_array_size(cases(d)), 4);
	json_t *g = json_object_get(d, "groups");
	assert_int_equal(json_array_size(g), 2);
	for (size_t i = 0; i < 2; i++) {
		json_t *gi = json_array_get(g, i);
		assert_int_equal(ival(gi, "repeats"), 2);
		json_t *v = json_object_get(json_object_get(json_object_get(gi, "metrics"), "events_per_sec"), "values");
		assert_int_equal(json_array_size(v), 2);
		double want = 2000.0 * (double)ival(gi, "threads");
		assert_true(fabs(json_number_value(json_array_get(v, 0)) - want) < 1e-6);
		assert_true(fabs(json_number_value(json_array_get(v, 1)) - want) < 1e-6);
	}
	/* ids are 1..n in the order run */
	for (size_t i = 0; i < 4; i++)
		assert_int_equal(ival(at(d, i), "id"), (long)i + 1);
	json_decref(d);
	/* an existing file is never overwritten without --force: here stderr
	   is a file (a pipeline), so the run is refused before it starts and
	   the old document stays whole (a terminal's new name: test_core.sh) */
	assert_int_equal(bc("doc", "--time 0.1 --warmup 0"), 2);
	d = doc("doc");
	assert_int_equal(json_array_size(cases(d)), 4);
	json_decref(d);
	char *err = text("doc", "err");
	assert_non_null(strstr(err, "exists; nothing was run"));
	free(err);
	assert_int_equal(bc("doc", "--time 0.1 --warmup 0 --force"), 0);
	d = doc("doc");
	assert_int_equal(json_array_size(cases(d)), 1);
	json_decref(d);
}

/* The run's text (each case's lines, the ETA, the summary table) is a human
   output: in simulated time every figure in it is exact, so it is checked
   whole against tests/golden/run.txt, less the lines of the machine (CPU
   time, the measured clock). BC_GOLDEN_UPDATE=1 rewrites the file. */
static void test_text_golden(void **st)
{
	(void)st;
	assert_int_equal(bc("gold", "ops=1000,2500 --threads 1,2 --repeat 2 --seed 42 --time 1 --warmup 0.5 "
				  "--report-interval 0.5"), 0);
	char *s = text("gold", "out"), *got = bc_xstrdup("");
	for (char *line = strtok(s, "\n"); line; line = strtok(NULL, "\n")) {
		if (!strncmp(line, "    cpu: ", 9) || !strncmp(line, "    clock: ", 11))
			continue;
		char *n = bc_xasprintf("%s%s\n", got, line);
		free(got);
		got = n;
	}
	free(s);
	const char *golden = "tests/golden/run.txt";
	if (getenv("BC_GOLDEN_UPDATE")) {
		FILE *f = fopen(golden, "w");
		assert_non_null(f);
		fputs(got, f);
		fclose(f);
	}
	char *want = NULL;
	size_t n = 0;
	if (slurp(golden, &want, &n))
		fail_msg("%s: cannot read it (run from the repository's root)", golden);
	if (strcmp(got, want)) {
		fprintf(stderr, "the run's text differs from %s; it is now:\n%s", golden, got);
		fail_msg("the run's text is not %s (BC_GOLDEN_UPDATE=1 rewrites it)", golden);
	}
	free(got);
	free(want);
}

/* synth's workers record every 2 ms; here every 10 ms (synth counts what
   it owes from the clock, so the figures are the same, with a fifth of the
   steps): every duration and interval below is a multiple of 10 ms */
static void synth_sleep(uint64_t ns)
{
	bc_clock_sleep_ns(5 * ns);
}

static int setup(void **st)
{
	(void)st;
	return synthrun_setup("run", synth_sleep);
}

static int teardown(void **st)
{
	(void)st;
	return synthrun_teardown();
}

int main(void)
{
	alarm(120);	/* a clock that stopped moving would hang here: fail instead */
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_window_exact),
		cmocka_unit_test(test_window_events),
		cmocka_unit_test(test_rounds),
		cmocka_unit_test(test_seed_drawn),
		cmocka_unit_test(test_repeat_auto),
		cmocka_unit_test(test_baseline),
		cmocka_unit_test(test_one_judge),
		cmocka_unit_test(test_warmup_auto),
		cmocka_unit_test(test_warmup_shapes),
		cmocka_unit_test(test_eta),
		cmocka_unit_test(test_needs),
		cmocka_unit_test(test_needs_memory),
		cmocka_unit_test(test_needs_cgroup),
		cmocka_unit_test(test_needs_disk_cpus),
		cmocka_unit_test(test_document),
		cmocka_unit_test(test_text_golden),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
