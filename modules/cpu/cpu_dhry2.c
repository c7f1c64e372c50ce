/* Dhrystone 2.1's second file: Proc_6 .. Proc_8 and Func_1 .. Func_3, from
   Weicker's published definition (see cpu_dhry.c). A compilation unit of its
   own, as published, so the compiler cannot inline them into the loop. */
#include <string.h>
#include "cpu_kernels.h"

int cpu_dhry_func_3(dhry_enum enum_val)
{
	register dhry_enum enum_loc = enum_val;
	return enum_loc == DHRY_IDENT_3;
}

void cpu_dhry_proc_6(dhry_state *g, dhry_enum enum_val, dhry_enum *enum_ref)
{
	*enum_ref = enum_val;
	if (!cpu_dhry_func_3(enum_val))
		*enum_ref = DHRY_IDENT_4;
	switch (enum_val) {
	case DHRY_IDENT_1: *enum_ref = DHRY_IDENT_1; break;
	case DHRY_IDENT_2: *enum_ref = g->int_glob > 100 ? DHRY_IDENT_1 : DHRY_IDENT_4; break;
	case DHRY_IDENT_3: *enum_ref = DHRY_IDENT_2; break;
	case DHRY_IDENT_4: break;
	case DHRY_IDENT_5: *enum_ref = DHRY_IDENT_3; break;
	}
}

void cpu_dhry_proc_7(int int_1, int int_2, int *int_ref)
{
	register int int_loc = int_1 + 2;
	*int_ref = int_2 + int_loc;
}

void cpu_dhry_proc_8(dhry_state *g, int arr_1[50], int arr_2[50][50], int int_1, int int_2)
{
	register int int_index, int_loc = int_1 + 5;
	arr_1[int_loc] = int_2;
	arr_1[int_loc + 1] = arr_1[int_loc];
	arr_1[int_loc + 30] = int_loc;
	for (int_index = int_loc; int_index <= int_loc + 1; ++int_index)
		arr_2[int_loc][int_index] = int_loc;
	arr_2[int_loc][int_loc - 1] += 1;
	arr_2[int_loc + 20][int_loc] = arr_1[int_loc];
	g->int_glob = 5;
}

dhry_enum cpu_dhry_func_1(dhry_state *g, char ch_1, char ch_2)
{
	register char ch_1_loc = ch_1, ch_2_loc = ch_1_loc;
	if (ch_2_loc != ch_2)
		return DHRY_IDENT_1;
	g->ch_1_glob = ch_1_loc;
	return DHRY_IDENT_2;
}

int cpu_dhry_func_2(dhry_state *g, const char *str_1, const char *str_2)
{
	register int int_loc = 2;
	register char ch_loc = 0;
	while (int_loc <= 2)
		if (cpu_dhry_func_1(g, str_1[int_loc], str_2[int_loc + 1]) == DHRY_IDENT_1) {
			ch_loc = 'A';
			int_loc += 1;
		}
	if (ch_loc >= 'W' && ch_loc < 'Z')
		int_loc = 7;
	if (ch_loc == 'R')
		return 1;
	if (strcmp(str_1, str_2) > 0) {
		int_loc += 7;
		g->int_glob = int_loc;
		return 1;
	}
	return 0;
}
