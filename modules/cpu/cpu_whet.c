/* Whetstone, double precision, written from Curnow and Wichmann's published
   definition ("A synthetic benchmark", The Computer Journal 19(1), 1976):
   the modules with a non-zero weight, each repeated its weight times I
   (N2 = 12, N3 = 14, N4 = 345, N6 = 210, N7 = 32, N8 = 899, N9 = 616,
   N11 = 93), with the published constants. At I = 10 one pass is one
   million Whetstone instructions, so passes per second are MWIPS. Each
   module starts from the published initial values; the results go to a
   sink the caller reads, so no module can be dropped as dead code. The
   arrays are 1-based in the definition: e1[0] here is E1(1). */
#include <math.h>
#include "cpu_kernels.h"

#define WHET_T	0.499975
#define WHET_T1	0.50025
#define WHET_T2	2.0

/* module 3's procedure PA: six updates of the array it is given */
static void __attribute__((noinline)) whet_pa(double e[4])
{
	for (int j = 0; j < 6; j++) {
		e[0] = (e[0] + e[1] + e[2] - e[3]) * WHET_T;
		e[1] = (e[0] + e[1] - e[2] + e[3]) * WHET_T;
		e[2] = (e[0] - e[1] + e[2] + e[3]) * WHET_T;
		e[3] = (-e[0] + e[1] + e[2] + e[3]) / WHET_T2;
	}
}

/* module 8's procedure P3 */
static void __attribute__((noinline)) whet_p3(double x, double y, double *z)
{
	double x1 = x, y1 = y;
	x1 = WHET_T * (x1 + y1);
	y1 = WHET_T * (x1 + y1);
	*z = (x1 + y1) / WHET_T2;
}

/* module 9's procedure P0 */
static void __attribute__((noinline)) whet_p0(double e[4], int j, int k, int l)
{
	e[j - 1] = e[k - 1];
	e[k - 1] = e[l - 1];
	e[l - 1] = e[j - 1];
}

static void whet_arrays(whet_state *w, long i)
{
	double *e = w->e1;
	e[0] = 1.0, e[1] = e[2] = e[3] = -1.0;
	for (long n = 0; n < 12 * i; n++) {	/* module 2: array elements */
		e[0] = (e[0] + e[1] + e[2] - e[3]) * WHET_T;
		e[1] = (e[0] + e[1] - e[2] + e[3]) * WHET_T;
		e[2] = (e[0] - e[1] + e[2] + e[3]) * WHET_T;
		e[3] = (-e[0] + e[1] + e[2] + e[3]) * WHET_T;
	}
	for (long n = 0; n < 14 * i; n++)	/* module 3: array as parameter */
		whet_pa(e);
}

static long whet_jumps_ints(whet_state *w, long i)
{
	int j = 1, k, l;
	for (long n = 0; n < 345 * i; n++) {	/* module 4: conditional jumps */
		j = j == 1 ? 2 : 3;
		j = j > 2 ? 0 : 1;
		j = j < 1 ? 1 : 0;
	}
	j = 1, k = 2, l = 3;
	for (long n = 0; n < 210 * i; n++) {	/* module 6: integer arithmetic */
		j = j * (k - j) * (l - k);
		k = l * k - (l - j) * k;
		l = (l - k) * (k + j);
		w->e1[l - 2] = j + k + l;
		w->e1[k - 2] = j * k * l;
	}
	return j + k + l;
}

void cpu_whet_pass(whet_state *w, long i)
{
	double x, y, z;
	whet_arrays(w, i);
	long ints = whet_jumps_ints(w, i);
	x = y = 0.5;
	for (long n = 0; n < 32 * i; n++) {	/* module 7: trigonometric functions */
		x = WHET_T * atan(WHET_T2 * sin(x) * cos(x) / (cos(x + y) + cos(x - y) - 1.0));
		y = WHET_T * atan(WHET_T2 * sin(y) * cos(y) / (cos(x + y) + cos(x - y) - 1.0));
	}
	double trig = x + y;	/* to the sink: module 8 starts x and y afresh */
	x = y = z = 1.0;
	for (long n = 0; n < 899 * i; n++)	/* module 8: procedure calls */
		whet_p3(x, y, &z);
	w->e1[0] = 1.0, w->e1[1] = 2.0, w->e1[2] = 3.0;
	for (long n = 0; n < 616 * i; n++)	/* module 9: array references */
		whet_p0(w->e1, 1, 2, 3);
	double s = 0.75;
	for (long n = 0; n < 93 * i; n++)	/* module 11: standard functions */
		s = sqrt(exp(log(s) / WHET_T1));
	w->x = x, w->y = y, w->z = z;
	w->sink = x + y + z + s + trig + (double)ints + w->e1[0] + w->e1[1] + w->e1[2] + w->e1[3];
}
