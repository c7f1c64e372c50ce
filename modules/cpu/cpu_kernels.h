/* cpu: the kernels beside the prime loop (cpu.c). Each keeps its state in
   a struct of its own per worker thread, where the published programs keep
   globals: N threads are N copies that share nothing, as UnixBench's -c N
   runs N processes. */
#ifndef CPU_KERNELS_H
#define CPU_KERNELS_H
#include <stdint.h>

/* Dhrystone 2.1 (Weicker, 1988): the state its globals held. */
typedef enum { DHRY_IDENT_1, DHRY_IDENT_2, DHRY_IDENT_3, DHRY_IDENT_4, DHRY_IDENT_5 } dhry_enum;

typedef struct dhry_record {
	struct dhry_record *ptr_comp;
	dhry_enum discr;
	union {
		struct { dhry_enum enum_comp; int int_comp; char str_comp[31]; } var_1;
		struct { dhry_enum e_comp_2; char str_2_comp[31]; } var_2;
		struct { char ch_1_comp, ch_2_comp; } var_3;
	} variant;
} dhry_record;

typedef struct dhry_state {
	dhry_record *ptr_glob, *next_ptr_glob;
	dhry_record rec[2];
	int int_glob;
	int bool_glob;
	char ch_1_glob, ch_2_glob;
	int arr_1_glob[50];
	int arr_2_glob[50][50];
	char str_1_loc[31];
	long run_index;
} dhry_state;

void cpu_dhry_init(dhry_state *g);
/* n loops of Dhrystone's main loop; 0, or -1 when a check of its final
   values fails (the compiler dropped work, or memory is broken). */
int cpu_dhry_loops(dhry_state *g, uint64_t n);
/* dhry_2's procedures, in a file of their own as in the published
   program (two compilation units: no inlining across them). */
void cpu_dhry_proc_6(dhry_state *g, dhry_enum enum_val, dhry_enum *enum_ref);
void cpu_dhry_proc_7(int int_1, int int_2, int *int_ref);
void cpu_dhry_proc_8(dhry_state *g, int arr_1[50], int arr_2[50][50], int int_1, int int_2);
dhry_enum cpu_dhry_func_1(dhry_state *g, char ch_1, char ch_2);
int cpu_dhry_func_2(dhry_state *g, const char *str_1, const char *str_2);
int cpu_dhry_func_3(dhry_enum enum_val);

/* Whetstone (Curnow and Wichmann, 1976), double precision: one call is one
   pass at I = 10, one million Whetstone instructions. */
typedef struct whet_state {
	double e1[4], x, y, z;
	double sink;
} whet_state;
void cpu_whet_pass(whet_state *w, long i);
#endif
