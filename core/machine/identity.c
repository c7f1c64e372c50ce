/* Run id and host identity (identity.h). */
#include <openssl/evp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/utsname.h>
#include <unistd.h>
#include "identity.h"
#include "util.h"

static void hex(const unsigned char *b, size_t n, char *out)
{
	for (size_t i = 0; i < n; i++)
		snprintf(out + 2 * i, 3, "%02x", b[i]);
}

void bc_run_id_new(char out[BC_ID_HEX])
{
	unsigned char b[16];
	if (getrandom(b, sizeof(b), GRND_NONBLOCK) != (ssize_t)sizeof(b)) {
		uint64_t a = bc_now_ns(), c = (uint64_t)getpid() * 0x9e3779b97f4a7c15ull ^ (uint64_t)time(NULL);
		memcpy(b, &a, 8);
		memcpy(b + 8, &c, 8);
	}
	hex(b, sizeof(b), out);
}

/* The machine-id's 32 hex digits, or "" when the system has none. */
static void machine_id(char *buf, size_t n)
{
	static const char *const paths[] = { "/etc/machine-id", "/var/lib/dbus/machine-id" };
	buf[0] = '\0';
	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]) && !buf[0]; i++) {
		FILE *f = fopen(paths[i], "re");
		if (!f)
			continue;
		if (fgets(buf, (int)n, f))
			buf[strcspn(buf, " \t\r\n")] = '\0';
		else
			buf[0] = '\0';
		fclose(f);
	}
}

void bc_host_id(char out[BC_ID_HEX])
{
	char mid[128];
	struct utsname u;
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0;
	machine_id(mid, sizeof(mid));
	if (uname(&u) != 0)
		u.nodename[0] = '\0';
	/* NUL-separated: "ab" + "c" and "a" + "bc" are different hosts */
	char text[512];
	int len = snprintf(text, sizeof(text), "benchcore host id%c%s%c%s", 0, mid, 0, u.nodename);
	if (len < 0 || (size_t)len >= sizeof(text))
		len = (int)sizeof(text) - 1;
	if (!EVP_Digest(text, (size_t)len, md, &mdlen, EVP_sha256(), NULL) || mdlen < 16)
		memset(md, 0, 16);
	hex(md, 16, out);
}
