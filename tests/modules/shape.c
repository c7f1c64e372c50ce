/* Test module "shape": a descriptor that changes shape between processes.
 * With BCTEST_SHAPE_DIR set, each load (its constructor) appends a byte to
 * DIR/loads; from the second load on (the case's process, after the probe)
 * option "a" is a STRING where it was an INT, and its op classes and
 * metrics are others. The host must refuse the case: it filled the options
 * struct by the probe's description, and the module would read the host's
 * int as a const char *. Without the variable it is a plain module. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include "benchcore/module.h"

typedef struct shape_opts {
	union {
		int64_t n;		/* first shape: INT */
		const char *s;		/* second shape: STRING */
	} a;
} shape_opts;

static bench_option_v1 shape_options[] = {
	{ .name = "a", .type = BENCH_OPT_INT, .def = "3", .help = "an int (a string when loaded again)",
	  .min = 0, .max = 100, BENCH_OPT_AT(shape_opts, a) },
	{ 0 }
};
static const char *const shape_classes[] = { "tick", NULL };
static const char *const shape_classes2[] = { "tock", "tack", NULL };
static const bench_metric_v1 shape_metrics[] = { { "ticks_per_sec", "ticks/s", 1 }, { NULL, NULL, 0 } };
static const bench_metric_v1 shape_metrics2[] = { { "tocks_per_sec", "tocks/s", 1 }, { NULL, NULL, 0 } };

static int shape_is_string;

static int shape_init(const bench_host_api_v1 *api, bench_ctx *ctx, void **state)
{
	*state = NULL;
	/* never dereferenced: the case says what the module believes it got */
	api->set_info(ctx, "a_read_as", shape_is_string ? "const char *" : "int64_t");
	return BENCH_OK;
}

static int shape_event(void *t, uint64_t *bytes)
{
	(void)t;
	*bytes = 0;
	return BENCH_OK;
}

static bench_module_v1 shape_module = {
	BENCH_MODULE_HEADER,
	.name = "shape",
	.version = "1",
	.summary = "describes itself differently when loaded again (test module)",
	.options = shape_options,
	.opts_size = sizeof(shape_opts),
	.op_classes = shape_classes,
	.metrics = shape_metrics,
	.init = shape_init,
	.event = shape_event,
};

__attribute__((constructor)) static void shape_ctor(void)
{
	const char *dir = getenv("BCTEST_SHAPE_DIR");
	char path[4096];
	struct stat st;
	if (!dir || !*dir)
		return;
	snprintf(path, sizeof(path), "%s/loads", dir);
	int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
	if (fd < 0)
		return;
	if (write(fd, "x", 1) == 1 && fstat(fd, &st) == 0 && st.st_size >= 2) {
		shape_options[0].type = BENCH_OPT_STRING;
		shape_options[0].def = "three";
		shape_options[0].min = shape_options[0].max = 0;
		shape_module.op_classes = shape_classes2;
		shape_module.metrics = shape_metrics2;
		shape_is_string = 1;
	}
	close(fd);
}

BENCH_MODULE(shape_module);
