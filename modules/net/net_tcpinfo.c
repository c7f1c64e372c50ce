/* net: TCP_INFO through the kernel's own struct (linux/tcp.h), which has
 * tcpi_bytes_acked; glibc's netinet/tcp.h copy stops before it. Kept in its
 * own file because the two headers cannot be included together. */
#include <string.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <linux/tcp.h>
#include "net.h"

int net_tcp_info(int fd, net_tcpi *out)
{
	struct tcp_info ti;
	socklen_t len = sizeof(ti);
	memset(&ti, 0, sizeof(ti));
	memset(out, 0, sizeof(*out));
	if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len) != 0)
		return -1;
	out->total_retrans = ti.tcpi_total_retrans;
	out->rtt_us = ti.tcpi_rtt;
	out->snd_cwnd = ti.tcpi_snd_cwnd;
	/* an older kernel fills less: the missing fields stay 0 */
	if (len >= offsetof(struct tcp_info, tcpi_bytes_acked) + sizeof(ti.tcpi_bytes_acked))
		out->bytes_acked = ti.tcpi_bytes_acked;
	if (len >= offsetof(struct tcp_info, tcpi_bytes_received) + sizeof(ti.tcpi_bytes_received))
		out->bytes_received = ti.tcpi_bytes_received;
	return 0;
}
