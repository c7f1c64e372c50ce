/* The fingerprint of an ARM (aarch64) machine. Its /proc/cpuinfo has no
   "model name": each processor says "CPU implementer" (who designed the core),
   "CPU part" (which core), "CPU variant" and "CPU revision" (the rNpM of the
   core's documentation). The name comes from those numbers, as lscpu and the
   vendors' technical reference manuals give them; an unknown pair is named by
   its numbers, never guessed. The frequency facts of ACPI CPPC machines
   (cppc_cpufreq: Kunpeng, Altra) are read from cpufreq and acpi_cppc. Every
   file honours the test hooks (BENCHCORE_PROC_CPUINFO, BENCHCORE_SYSFS_CPU). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sysinfo.h"
#include "sysinfo_int.h"

typedef struct { unsigned part; const char *name; } arm_part;

static const arm_part arm_ltd[] = {	/* 0x41 */
	{ 0xd03, "Cortex-A53" }, { 0xd04, "Cortex-A35" }, { 0xd05, "Cortex-A55" }, { 0xd07, "Cortex-A57" },
	{ 0xd08, "Cortex-A72" }, { 0xd09, "Cortex-A73" }, { 0xd0a, "Cortex-A75" }, { 0xd0b, "Cortex-A76" },
	{ 0xd0c, "Neoverse-N1" }, { 0xd0d, "Cortex-A77" }, { 0xd40, "Neoverse-V1" }, { 0xd41, "Cortex-A78" },
	{ 0xd44, "Cortex-X1" }, { 0xd46, "Cortex-A510" }, { 0xd47, "Cortex-A710" }, { 0xd48, "Cortex-X2" },
	{ 0xd49, "Neoverse-N2" }, { 0xd4a, "Neoverse-E1" }, { 0xd4f, "Neoverse-V2" }, { 0xd84, "Neoverse-V3" },
	{ 0xd8e, "Neoverse-N3" }, { 0 }
};
static const arm_part broadcom[] = { { 0x516, "ThunderX2 (Vulcan)" }, { 0 } };	/* 0x42 */
static const arm_part cavium[] = {	/* 0x43 */
	{ 0x0a1, "ThunderX 88XX" }, { 0x0a2, "ThunderX 81XX" }, { 0x0a3, "ThunderX 83XX" },
	{ 0x0af, "ThunderX2 99xx" }, { 0x0b8, "ThunderX3 T110" }, { 0 }
};
static const arm_part fujitsu[] = { { 0x001, "A64FX" }, { 0 } };	/* 0x46 */
static const arm_part hisilicon[] = {	/* 0x48 */
	{ 0xd01, "Kunpeng-920 (TaiShan v110)" }, { 0xd02, "TaiShan v120" }, { 0xd40, "Cortex-A76" },
	{ 0xd41, "Cortex-A77" }, { 0 }
};
static const arm_part nvidia[] = { { 0x003, "Denver 2" }, { 0x004, "Carmel" }, { 0 } };	/* 0x4e */
static const arm_part apm[] = { { 0x000, "X-Gene" }, { 0 } };	/* 0x50 */
static const arm_part qualcomm[] = {	/* 0x51 */
	{ 0x001, "Oryon" }, { 0x800, "Kryo 2XX Gold" }, { 0x801, "Kryo 2XX Silver" }, { 0xc00, "Falkor" },
	{ 0xc01, "Saphira" }, { 0 }
};
static const arm_part apple[] = {	/* 0x61 */
	{ 0x022, "M1 Icestorm" }, { 0x023, "M1 Firestorm" }, { 0x032, "M2 Blizzard" }, { 0x033, "M2 Avalanche" },
	{ 0 }
};
static const arm_part microsoft[] = { { 0xd49, "Azure Cobalt 100 (Neoverse-N2)" }, { 0 } };	/* 0x6d */
static const arm_part ampere[] = { { 0xac3, "AmpereOne" }, { 0xac4, "AmpereOne A" }, { 0 } };	/* 0xc0 */

static const struct { unsigned id; const char *vendor; const arm_part *parts; } implementers[] = {
	{ 0x41, "ARM", arm_ltd }, { 0x42, "Broadcom", broadcom }, { 0x43, "Cavium", cavium },
	{ 0x46, "Fujitsu", fujitsu }, { 0x48, "HiSilicon", hisilicon }, { 0x4e, "NVIDIA", nvidia },
	{ 0x50, "APM", apm }, { 0x51, "Qualcomm", qualcomm }, { 0x61, "Apple", apple },
	{ 0x6d, "Microsoft", microsoft }, { 0xc0, "Ampere", ampere },
};

int bc_arm_cpu_name(unsigned implementer, unsigned part, int variant, int revision, char *buf, size_t len)
{
	const char *vendor = NULL, *name = NULL;
	for (size_t i = 0; i < sizeof(implementers) / sizeof(implementers[0]); i++)
		if (implementers[i].id == implementer) {
			vendor = implementers[i].vendor;
			for (const arm_part *p = implementers[i].parts; p->name; p++)
				if (p->part == part)
					name = p->name;
		}
	int n;
	if (vendor && name)
		n = snprintf(buf, len, "%s %s", vendor, name);
	else if (vendor)
		n = snprintf(buf, len, "%s part 0x%03x", vendor, part);
	else
		n = snprintf(buf, len, "implementer 0x%02x part 0x%03x", implementer, part);
	if (variant >= 0 && revision >= 0 && n >= 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, " r%dp%d", variant, revision);
	return vendor && name ? 0 : -1;
}

/* "CPU part\t: 0xd01" -> 0xd01; -1 when line is not key's. */
static long hex_field(const char *line, const char *key)
{
	size_t k = strlen(key);
	if (strncmp(line, key, k) || (line[k] != ' ' && line[k] != '\t' && line[k] != ':'))
		return -1;
	const char *c = strchr(line + k, ':');
	if (!c)
		return -1;
	char *end;
	long v = strtol(c + 1, &end, 0);
	return end == c + 1 ? -1 : v;
}

int bc_si_arm_model(json_t *h)
{
	FILE *f = bc_si_open_cpuinfo();
	char line[1024], name[128];
	long impl = -1, part = -1, var = -1, rev = -1, v;
	while (f && fgets(line, sizeof(line), f)) {
		if (line[0] == '\n' && impl >= 0)
			break;		/* the first processor's block */
		if ((v = hex_field(line, "CPU implementer")) >= 0 && impl < 0)
			impl = v;
		else if ((v = hex_field(line, "CPU part")) >= 0 && part < 0)
			part = v;
		else if ((v = hex_field(line, "CPU variant")) >= 0 && var < 0)
			var = v;
		else if ((v = hex_field(line, "CPU revision")) >= 0 && rev < 0)
			rev = v;
	}
	if (f)
		fclose(f);
	if (impl < 0 || part < 0)
		return -1;
	bc_arm_cpu_name((unsigned)impl, (unsigned)part, (int)var, (int)rev, name, sizeof(name));
	bc_si_set_str(h, "cpu_model", name);
	return 0;
}

/* cpu0's ACPI CPPC performance levels and the policy's limits, for a
   cppc_cpufreq machine (the frequency study's Kunpeng: cpupower
   frequency-set moves scaling_max_freq within the hardware's range). */
void bc_si_freq_policy(json_t *m)
{
	static const struct { const char *file, *key; int khz; } rows[] = {
		{ "cpu0/cpufreq/scaling_min_freq", "policy_min", 1 },
		{ "cpu0/cpufreq/scaling_max_freq", "policy_max", 1 },
		{ "cpu0/acpi_cppc/highest_perf", "cppc_highest_perf", 0 },
		{ "cpu0/acpi_cppc/nominal_perf", "cppc_nominal_perf", 0 },
		{ "cpu0/acpi_cppc/lowest_perf", "cppc_lowest_perf", 0 },
		{ "cpu0/acpi_cppc/nominal_freq", "cppc_nominal_mhz", 0 },
		{ "cpu0/acpi_cppc/lowest_freq", "cppc_lowest_mhz", 0 },
	};
	char buf[64];
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		char *end;
		if (bc_si_read_cpu_file(rows[i].file, buf, sizeof(buf)))
			continue;
		double v = strtod(buf, &end);
		if (end == buf || v < 0)
			continue;
		json_object_set_new(m, rows[i].key, json_real(rows[i].khz ? v / 1000.0 : v));
	}
}
