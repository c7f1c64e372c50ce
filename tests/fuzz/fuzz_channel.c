/* libFuzzer target for the case channel's decoder (core/run/channel.c): the
   bytes a lying case (a module writing to a descriptor it did not open) can
   put on benchcore's channel, split into lines as the runner splits them.
   Each line is decoded or refused with a reason, never a crash, leak or
   undefined behaviour; a decoded message is encoded again and must decode
   to the same kind and payload (the round trip both ends rely on). Built
   and run by tests/fuzz/run_fuzz.sh channel. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "channel.h"

/* m, sent again through a pipe and read back, decodes to the same message. */
static void round_trip(const bc_msg *m)
{
	int p[2];
	if (pipe(p) != 0)
		return;
	char back[16384];
	ssize_t got = 0;
	if (bc_msg_send(p[1], m->kind, m->payload) != 0)
		abort();	/* the pipe holds 64 KiB, a line is at most max_len */
	close(p[1]);
	for (ssize_t r; got < (ssize_t)sizeof(back) && (r = read(p[0], back + got, sizeof(back) - (size_t)got)) > 0;)
		got += r;
	close(p[0]);
	bc_msg again;
	const char *why;
	if (got < 1 || back[got - 1] != '\n' || bc_msg_decode(back, (size_t)got - 1, &again, &why) != 0 ||
	    again.kind != m->kind || again.len != m->len || memcmp(again.payload, m->payload, m->len) ||
	    (m->kind == BC_MSG_PHASE && again.phase != m->phase) || again.pid != m->pid)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size + 1);	/* + the NUL the runner keeps after what it read */
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	buf[size] = '\0';
	for (size_t at = 0; at < size;) {
		char *nl = memchr(buf + at, '\n', size - at);
		size_t n = nl ? (size_t)(nl - (buf + at)) : size - at;
		bc_msg m;
		const char *why = NULL;
		char *line = buf + at;
		if (bc_msg_decode(line, n, &m, &why) != 0) {
			if (!why || !*why)
				abort();	/* a refusal always says why */
		} else {
			if (m.payload < line || m.payload + m.len > line + n || m.payload[m.len] ||
			    strlen(m.payload) != m.len || (unsigned)m.kind >= BC_MSG_NKINDS)
				abort();
			round_trip(&m);
		}
		at += n + 1;
	}
	free(buf);
	return 0;
}
