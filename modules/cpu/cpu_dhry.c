/* Dhrystone 2.1's main loop and Proc_1 .. Proc_5, written from Weicker's
   published definition ("Dhrystone Benchmark: Rationale for Version 2 and
   Measurement Rules", SIGPLAN Notices 23(8), 1988). The locals are register
   variables, as UnixBench's dhry2reg builds it (-DREG=register). The loop's
   statements are the published ones in the published order; only the
   globals live in g (one copy per thread). */
#include <string.h>
#include "cpu_kernels.h"

static void proc_3(dhry_state *g, dhry_record **ptr_ref)
{
	if (g->ptr_glob != NULL)
		*ptr_ref = g->ptr_glob->ptr_comp;
	cpu_dhry_proc_7(10, g->int_glob, &g->ptr_glob->variant.var_1.int_comp);
}

static void proc_1(dhry_state *g, register dhry_record *ptr_val)
{
	register dhry_record *next = ptr_val->ptr_comp;
	*ptr_val->ptr_comp = *g->ptr_glob;
	ptr_val->variant.var_1.int_comp = 5;
	next->variant.var_1.int_comp = ptr_val->variant.var_1.int_comp;
	next->ptr_comp = ptr_val->ptr_comp;
	proc_3(g, &next->ptr_comp);
	if (next->discr == DHRY_IDENT_1) {
		next->variant.var_1.int_comp = 6;
		cpu_dhry_proc_6(g, ptr_val->variant.var_1.enum_comp, &next->variant.var_1.enum_comp);
		next->ptr_comp = g->ptr_glob->ptr_comp;
		cpu_dhry_proc_7(next->variant.var_1.int_comp, 10, &next->variant.var_1.int_comp);
	} else {
		*ptr_val = *ptr_val->ptr_comp;
	}
}

static void proc_2(dhry_state *g, int *int_ref)
{
	register int int_loc = *int_ref + 10;
	dhry_enum enum_loc = DHRY_IDENT_2;
	do {
		if (g->ch_1_glob == 'A') {
			int_loc -= 1;
			*int_ref = int_loc - g->int_glob;
			enum_loc = DHRY_IDENT_1;
		}
	} while (enum_loc != DHRY_IDENT_1);
}

static void proc_4(dhry_state *g)
{
	register int bool_loc = g->ch_1_glob == 'A';
	g->bool_glob = bool_loc | g->bool_glob;
	g->ch_2_glob = 'B';
}

static void proc_5(dhry_state *g)
{
	g->ch_1_glob = 'A';
	g->bool_glob = 0;
}

void cpu_dhry_init(dhry_state *g)
{
	memset(g, 0, sizeof(*g));
	g->next_ptr_glob = &g->rec[0];
	g->ptr_glob = &g->rec[1];
	g->ptr_glob->ptr_comp = g->next_ptr_glob;
	g->ptr_glob->discr = DHRY_IDENT_1;
	g->ptr_glob->variant.var_1.enum_comp = DHRY_IDENT_3;
	g->ptr_glob->variant.var_1.int_comp = 40;
	strcpy(g->ptr_glob->variant.var_1.str_comp, "DHRYSTONE PROGRAM, SOME STRING");
	strcpy(g->str_1_loc, "DHRYSTONE PROGRAM, 1'ST STRING");
	g->arr_2_glob[8][7] = 10;
}

int cpu_dhry_loops(dhry_state *g, uint64_t n)
{
	int int_1_loc = 0, int_3_loc = 0;	/* their addresses are taken: not register */
	register int int_2_loc = 0;
	register char ch_index;
	dhry_enum enum_loc = DHRY_IDENT_1;
	char str_2_loc[31];
	for (uint64_t k = 0; k < n; k++) {
		long run_index = ++g->run_index;
		proc_5(g);
		proc_4(g);
		int_1_loc = 2;
		int_2_loc = 3;
		strcpy(str_2_loc, "DHRYSTONE PROGRAM, 2'ND STRING");
		enum_loc = DHRY_IDENT_2;
		g->bool_glob = !cpu_dhry_func_2(g, g->str_1_loc, str_2_loc);
		while (int_1_loc < int_2_loc) {
			int_3_loc = 5 * int_1_loc - int_2_loc;
			cpu_dhry_proc_7(int_1_loc, int_2_loc, &int_3_loc);
			int_1_loc += 1;
		}
		cpu_dhry_proc_8(g, g->arr_1_glob, g->arr_2_glob, int_1_loc, int_3_loc);
		proc_1(g, g->ptr_glob);
		for (ch_index = 'A'; ch_index <= g->ch_2_glob; ++ch_index) {
			if (enum_loc == cpu_dhry_func_1(g, ch_index, 'C')) {
				cpu_dhry_proc_6(g, DHRY_IDENT_1, &enum_loc);
				strcpy(str_2_loc, "DHRYSTONE PROGRAM, 3'RD STRING");
				int_2_loc = (int)run_index;
				g->int_glob = (int)run_index;
			}
		}
		int_2_loc = int_2_loc * int_1_loc;
		int_1_loc = int_2_loc / int_3_loc;
		int_2_loc = 7 * (int_2_loc - int_3_loc) - int_1_loc;
		proc_2(g, &int_1_loc);
	}
	/* the values the published program prints as "should be" */
	if (n && (g->int_glob != 5 || !g->bool_glob || g->ch_1_glob != 'A' || g->ch_2_glob != 'B' ||
		  g->arr_1_glob[8] != 7 || int_1_loc != 5 || int_2_loc != 13 || int_3_loc != 7 ||
		  enum_loc != DHRY_IDENT_2 || strcmp(str_2_loc, "DHRYSTONE PROGRAM, 2'ND STRING")))
		return -1;
	return 0;
}
