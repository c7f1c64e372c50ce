/*
 * Redis Cluster: the slot of a key (CRC16 of its hash tag or whole name,
 * mod 16384) and the slot map from CLUSTER SLOTS.
 */
#include <stdio.h>
#include <string.h>
#include <hiredis/hiredis.h>

#include "redis.h"

/* CRC16-CCITT (XModem), the one Redis Cluster uses, bit by bit: keys are
   routed only when cluster = true. */
static uint16_t rd_crc16(const char *buf, size_t len)
{
	uint16_t crc = 0;
	for (size_t i = 0; i < len; i++) {
		crc ^= (uint16_t)((unsigned char)buf[i] << 8);
		for (int b = 0; b < 8; b++)
			crc = (uint16_t)(crc & 0x8000 ? (crc << 1) ^ 0x1021 : crc << 1);
	}
	return crc;
}

unsigned rd_key_slot(const char *key, size_t len)
{
	const char *open = memchr(key, '{', len);
	if (open) {
		const char *close = memchr(open + 1, '}', len - (size_t)(open + 1 - key));
		if (close && close > open + 1)
			return rd_crc16(open + 1, (size_t)(close - open - 1)) & 16383;
	}
	return rd_crc16(key, len) & 16383;
}

int rd_cluster_map(rd_state *s, rd_sock *k)
{
	(void)k;
	s->api->error(s->ctx, NULL, "redis: cluster mode is not implemented yet", NULL,
		      "point server= at one node without cluster = true");
	return -1;
}
