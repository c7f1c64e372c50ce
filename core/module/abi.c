/* Descriptors of other minors (abi.h). Append-only structs make an older
   minor easy (its missing fields read as 0) and a newer one safe only when
   it sets nothing past what this host knows: a field or flag bit the host
   ignored would change what the module means (a BENCH_OPT_LIST read as a
   sweep), so such a module is refused with the field or bit named. */
#include <stdlib.h>
#include <string.h>
#include "abi.h"
#include "options.h"

/* The end of the last field this host knows: bytes past it (the struct's
   tail padding included) belong to a newer minor. */
#if BENCH_ABI_MINOR >= 4
#define MODULE_KNOWN_END	(offsetof(bench_module_v1, host_minor) + sizeof(uint32_t))
#define MODULE_LAST_FIELD	"host_minor"
#else	/* built against an older header: tests/unit/test_oldhost.c's 1.3 host */
#define MODULE_KNOWN_END	(offsetof(bench_module_v1, option_size) + sizeof(uint32_t))
#define MODULE_LAST_FIELD	"option_size"
#endif
#define OPTION_KNOWN_END	(offsetof(bench_option_v1, offset) + sizeof(size_t))
/* bench_option_v1 up to ABI 1.2: everything before offset. */
#define OPTION_V12_SIZE		offsetof(bench_option_v1, offset)
/* A descriptor larger than this is not a newer minor but garbage. */
#define NEWER_SLACK		65536u

static int nonzero_at(const void *p, size_t from, size_t to)
{
	const unsigned char *b = p;
	for (size_t i = from; i < to; i++)
		if (b[i])
			return (int)(i - from);
	return -1;
}

static void newer_hint(bc_err *e, uint32_t minor)
{
	bc_err_hint(e, "rebuild the module against this benchcore's SDK (pkg-config benchcore), or run it "
		    "with a benchcore that speaks ABI %d.%u", BENCH_ABI_MAJOR, minor);
}

/* ABI 1.4: a module that calls a later minor's host API unconditionally
   says so in host_minor; this host refuses it when it speaks an older one
   (a 1.3 host does the same through the unknown-field rule below). */
static int host_minor_check(const char *path, const bench_module_v1 *d, bc_err *e)
{
#if BENCH_ABI_MINOR < 4
	(void)path, (void)d, (void)e;
	return 0;
#else
	int has = d->struct_size >= offsetof(bench_module_v1, host_minor) + sizeof(uint32_t);
	if (!has || d->host_minor <= BENCH_ABI_MINOR)
		return 0;
	bc_err_set(e, "incompatible module \"%s\": it needs a host of ABI %d.%u, this benchcore speaks %d.%d",
		   path, BENCH_ABI_MAJOR, d->host_minor, BENCH_ABI_MAJOR, BENCH_ABI_MINOR);
	bc_err_detail(e, "Its descriptor sets host_minor = %u: it calls host API members of ABI %d.%u without "
		      "testing for them.", d->host_minor, BENCH_ABI_MAJOR, d->host_minor);
	newer_hint(e, d->host_minor);
	return -1;
#endif
}

int bc_abi_check_newer(const char *path, const bench_module_v1 *d, bc_err *e)
{
	/* a minor this host knows is at most this host's struct (older ones
	   are shorter); a later one appends a few fields: more is garbage */
	int known = d->abi_minor <= BENCH_ABI_MINOR;
	if (d->struct_size > sizeof(*d) + (known ? 0 : NEWER_SLACK)) {
		bc_err_set(e, "invalid module \"%s\": descriptor of %u bytes", path, d->struct_size);
		if (known)
			bc_err_detail(e, "ABI %d.%d's bench_module_v1 is %zu bytes; a descriptor of ABI %d.%u is "
				      "at most that, not %u bytes.", BENCH_ABI_MAJOR, BENCH_ABI_MINOR, sizeof(*d),
				      BENCH_ABI_MAJOR, d->abi_minor, d->struct_size);
		else
			bc_err_detail(e, "ABI %d.%d's bench_module_v1 is %zu bytes; a later minor appends a few "
				      "fields, not %u bytes.", BENCH_ABI_MAJOR, BENCH_ABI_MINOR, sizeof(*d),
				      d->struct_size);
		bc_err_hint(e, "set struct_size with BENCH_MODULE_HEADER and rebuild");
		return -1;
	}
	/* up to this minor, bytes past the last field are the struct's tail
	   padding, which a descriptor built at run time may leave unset */
	if (host_minor_check(path, d, e))
		return -1;
	if (known || d->struct_size <= MODULE_KNOWN_END)
		return 0;
	int at = nonzero_at(d, MODULE_KNOWN_END, d->struct_size);
	if (at < 0)
		return 0;	/* a newer minor that uses nothing new: it loads */
	bc_err_set(e, "incompatible module \"%s\": built for ABI %d.%u, it sets a descriptor field at byte %zu, "
		   "which benchcore %d.%d does not know", path, BENCH_ABI_MAJOR, d->abi_minor,
		   MODULE_KNOWN_END + (size_t)at, BENCH_ABI_MAJOR, BENCH_ABI_MINOR);
	bc_err_detail(e, "ABI %d.%d's bench_module_v1 ends with " MODULE_LAST_FIELD " at byte %zu; the module's "
		      "descriptor is %u bytes and uses a field added after %d.%d.", BENCH_ABI_MAJOR,
		      BENCH_ABI_MINOR, MODULE_KNOWN_END, d->struct_size, BENCH_ABI_MAJOR, BENCH_ABI_MINOR);
	newer_hint(e, d->abi_minor);
	return -1;
}

/* The module's step through options[]: option_size (1.3 on), else 1.2's. */
static int option_stride(const char *path, const bench_module_v1 *d, size_t *stride, bc_err *e)
{
	int has = d->struct_size >= offsetof(bench_module_v1, option_size) + sizeof(uint32_t);
	*stride = has ? d->option_size : OPTION_V12_SIZE;
	if (*stride >= OPTION_V12_SIZE && *stride % _Alignof(bench_option_v1) == 0 &&
	    *stride <= sizeof(bench_option_v1) + NEWER_SLACK)
		return 0;
	bc_err_set(e, "invalid module \"%s\": option_size is %zu bytes", path, *stride);
	bc_err_detail(e, "ABI %d.%d's bench_option_v1 is %zu bytes (%zu up to 1.2); options[] is read "
		      "with the size the module was built with.", BENCH_ABI_MAJOR, BENCH_ABI_MINOR,
		      sizeof(bench_option_v1), (size_t)OPTION_V12_SIZE);
	bc_err_hint(e, "start the descriptor with BENCH_MODULE_HEADER, which sets option_size");
	return -1;
}

/* A newer minor's option entry that sets bytes past the ones known here. */
static int option_tail(const char *path, const bench_module_v1 *d, const bench_option_v1 *host,
		       const unsigned char *raw, size_t stride, bc_err *e)
{
	int at = d->abi_minor > BENCH_ABI_MINOR && stride > OPTION_KNOWN_END ?
		 nonzero_at(raw, OPTION_KNOWN_END, stride) : -1;
	if (at < 0)
		return 0;
	bc_err_set(e, "incompatible module \"%s\": built for ABI %d.%u, option \"%s\" sets a field at byte %zu "
		   "of its entry, which benchcore %d.%d does not know", path, BENCH_ABI_MAJOR, d->abi_minor,
		   host->name ? host->name : "?", OPTION_KNOWN_END + (size_t)at, BENCH_ABI_MAJOR, BENCH_ABI_MINOR);
	bc_err_detail(e, "ABI %d.%d's bench_option_v1 is %zu bytes; the module's option_size is %zu.",
		      BENCH_ABI_MAJOR, BENCH_ABI_MINOR, sizeof(bench_option_v1), stride);
	newer_hint(e, d->abi_minor);
	return -1;
}

int bc_abi_host_options(const char *path, const bench_module_v1 *d, bench_option_v1 **out, bc_err *e)
{
	size_t stride, n = 0;
	*out = NULL;
	if (!d->options)
		return 0;
	if (option_stride(path, d, &stride, e))
		return -1;
	const unsigned char *base = (const unsigned char *)d->options;
	size_t keep = stride < sizeof(bench_option_v1) ? stride : sizeof(bench_option_v1);
	for (;; n++) {
		const char *name;
		if (n == BC_ABI_TABLE_CAP) {
			bc_err_set(e, "invalid module \"%s\": options table has no terminator within %d entries",
				   path, BC_ABI_TABLE_CAP);
			bc_err_hint(e, "end options[] with { 0 }; build with BENCH_MODULE_HEADER so option_size is right");
			return -1;
		}
		memcpy(&name, base + n * stride, sizeof(name));
		if (!name)
			break;
	}
	bench_option_v1 *o = bc_xcalloc(n + 1, sizeof(*o));
	for (size_t i = 0; i < n; i++) {
		memcpy(&o[i], base + i * stride, keep);	/* 1.2 entries: offset stays 0 */
		if (option_tail(path, d, &o[i], base + i * stride, stride, e)) {
			free(o);
			return -1;
		}
	}
	*out = o;
	return 0;
}

size_t bc_opt_member_size(bench_opt_type t)
{
	switch (t) {
	case BENCH_OPT_BOOL:
	case BENCH_OPT_ENUM:
		return sizeof(int);
	case BENCH_OPT_INT:
	case BENCH_OPT_SIZE:
		return sizeof(int64_t);
	case BENCH_OPT_DOUBLE:
		return sizeof(double);
	case BENCH_OPT_STRING:
		return sizeof(const char *);
	}
	return 0;
}

static int check_flags(const char *path, const bench_module_v1 *d, const bench_option_v1 *o, bc_err *e)
{
	unsigned unknown = o->flags & ~BENCH_OPT_KNOWN_FLAGS;
	if (!unknown)
		return 0;
	unsigned bit = unknown & -unknown;	/* the lowest one: a message names one */
	if (d->abi_minor > BENCH_ABI_MINOR) {
		bc_err_set(e, "incompatible module \"%s\": built for ABI %d.%u, it sets option flag 0x%x on option "
			   "\"%s\", which benchcore %d.%d does not know", path, BENCH_ABI_MAJOR, d->abi_minor, bit,
			   o->name, BENCH_ABI_MAJOR, BENCH_ABI_MINOR);
		bc_err_detail(e, "ABI %d.%d's option flags are 0x%x (BENCH_OPT_KNOWN_FLAGS); ignoring one would "
			      "change what the option means.", BENCH_ABI_MAJOR, BENCH_ABI_MINOR, BENCH_OPT_KNOWN_FLAGS);
		newer_hint(e, d->abi_minor);
	} else {
		bc_err_set(e, "invalid module \"%s\": option \"%s\" sets unknown flag 0x%x", path, o->name, bit);
		bc_err_detail(e, "ABI %d.%d's option flags are 0x%x (BENCH_OPT_*).", BENCH_ABI_MAJOR,
			      BENCH_ABI_MINOR, BENCH_OPT_KNOWN_FLAGS);
		bc_err_hint(e, "set only BENCH_OPT_* flags");
	}
	return -1;
}

static int bad_offset(const char *path, const bench_module_v1 *d, const bench_option_v1 *o, bc_err *e)
{
	size_t sz = bc_opt_member_size(o->type);
	if (o->offset % sz == 0 && o->offset <= d->opts_size && d->opts_size - o->offset >= sz)
		return 0;
	bc_err_set(e, "invalid module \"%s\": option \"%s\" has offset %zu, outside its options struct or "
		   "misaligned", path, o->name, o->offset);
	bc_err_detail(e, "Option \"%s\" (%s) is held in a member of %zu bytes at a multiple of %zu; "
		      "opts_size is %zu.", o->name, bc_opt_type_name(o->type), sz, sz, d->opts_size);
	bc_err_hint(e, "set each option's offset with BENCH_OPT_AT(struct, member) and opts_size with "
		    "sizeof(struct)");
	return -1;
}

/* Two options writing the same bytes would read back each other's values. */
static int overlap(const char *path, const bench_option_v1 *opts, const bench_option_v1 *o, bc_err *e)
{
	size_t a = o->offset, az = bc_opt_member_size(o->type);
	for (const bench_option_v1 *p = opts; p < o; p++) {
		size_t b = p->offset, bz = bc_opt_member_size(p->type);
		if (a < b + bz && b < a + az) {
			bc_err_set(e, "invalid module \"%s\": options \"%s\" and \"%s\" share bytes of the options "
				   "struct (offsets %zu and %zu)", path, p->name, o->name, b, a);
			bc_err_hint(e, "give every option a member of its own: BENCH_OPT_AT(struct, member)");
			return -1;
		}
	}
	return 0;
}

int bc_abi_check_options(const char *path, const bench_module_v1 *d, bc_err *e)
{
	if (d->opts_size > BC_OPTS_SIZE_MAX) {
		bc_err_set(e, "invalid module \"%s\": opts_size is %zu bytes, more than %u", path, d->opts_size,
			   BC_OPTS_SIZE_MAX);
		bc_err_hint(e, "set opts_size with sizeof(your options struct)");
		return -1;
	}
	for (const bench_option_v1 *o = d->options; o && o->name; o++)
		if (check_flags(path, d, o, e) ||
		    (d->opts_size && (bad_offset(path, d, o, e) || overlap(path, d->options, o, e))))
			return -1;
	return 0;
}
