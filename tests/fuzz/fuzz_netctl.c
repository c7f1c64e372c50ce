/* libFuzzer target for the net module's control-message parser: the bytes a
   hostile client or server can put on the control connection. The first 4
   bytes are the length prefix (checked against the limit), the rest a body:
   either parsed or refused with a message, never a crash, leak or undefined
   behaviour. A parsed message is encoded again and must parse to the same
   type (the round trip both peers rely on). Built and run by
   tests/fuzz/run_fuzz.sh netctl from modules/net/net_proto.c alone. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "net_proto.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[256];
	net_msg m, again;
	uint32_t len;
	if (size >= 4) {
		int ok = net_frame_len(data, &len) == 0;
		if (ok != (len >= 1 && len <= NET_MAX_MSG))
			abort();
		data += 4;
		size -= 4;
	}
	if (net_msg_parse((const char *)data, size, &m, err, sizeof(err)) != 0) {
		if (!err[0] || !memchr(err, '\0', sizeof(err)))
			abort();	/* a refusal always says why */
		return 0;
	}
	size_t n = 0;
	char *body = net_msg_encode(&m, &n);
	if (!body)
		return 0;
	if (net_msg_parse(body, n, &again, err, sizeof(err)) != 0 || again.type != m.type ||
	    (m.type == NET_M_TEST && memcmp(&again.p, &m.p, sizeof(m.p))) ||
	    (m.type == NET_M_READY && again.mark != m.mark))
		abort();
	free(body);
	return 0;
}
