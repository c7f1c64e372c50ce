/* Machine settings in the plan (plan.h, docs/machine.md): a module's
   machine group checked against this machine before anything changes, and
   its lists made sweep dimensions multiplied with the options' matrix. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include "plan.h"
#include "mset.h"
#include "fsdev.h"

/* The sysfs dir of the whole block device holding path (a partition's
   parent), or NULL. A device node names itself. */
static char *device_dir(const char *path)
{
	struct stat st;
	if (!path || stat(path, &st))
		return NULL;
	dev_t d = S_ISBLK(st.st_mode) ? st.st_rdev : st.st_dev;
	char *p = bc_xasprintf("/sys/dev/block/%u:%u", major(d), minor(d)), real[PATH_MAX];
	if (!realpath(p, real)) {
		free(p);
		return NULL;
	}
	free(p);
	char *part = bc_xasprintf("%s/partition", real);
	int is_part = access(part, F_OK) == 0;
	free(part);
	if (is_part)
		*strrchr(real, '/') = '\0';
	return bc_xstrdup(real);
}

static const char *module_path(const bc_modplan *p)
{
	const char *name = p->mod->desc.requires.disk_path_option;
	const bench_option_v1 *o = name ? bc_opt_find(p->mod->desc.options, name) : NULL;
	if (o && o->type == BENCH_OPT_STRING && p->nvals[o - p->mod->desc.options])
		return p->vals[o - p->mod->desc.options][0].s;
	return NULL;
}

static int check_dim(bc_modplan *p, const bc_given *gv, bc_err *e)
{
	const bc_mkind *k = bc_mkind_find(gv->key);
	bc_mdim *d = &p->mdims[p->nmdims];
	const char *dot = strchr(gv->key, '.');
	bc_mctx x = { .sub = dot ? dot + 1 : NULL, .device = p->mdevice, .custom_set = gv->set,
		      .custom_read = gv->read, .custom_timeout = gv->timeout };
	memset(d, 0, sizeof(*d));
	d->key = bc_xstrdup(gv->key);
	d->kind = k;
	d->set = gv->set ? bc_xstrdup(gv->set) : NULL;
	d->read = gv->read ? bc_xstrdup(gv->read) : NULL;
	d->timeout = gv->timeout;
	size_t n = bc_strv_len(gv->texts);
	d->vals = bc_xcalloc(n + 1, sizeof(char *));
	d->texts = bc_xcalloc(n + 1, sizeof(char *));
	p->nmdims++;
	for (size_t i = 0; i < n; i++) {
		char out[512];
		bc_err why;
		if (k->check(&x, gv->texts[i], out, sizeof(out), &why)) {
			bc_err_set(e, "%s: machine setting for module \"%s\": %s", gv->where, p->mod->desc.name, why.msg);
			if (why.detail[0])
				bc_err_detail(e, "%s", why.detail);
			if (why.hint[0])
				bc_err_hint(e, "%s", why.hint);
			return -1;
		}
		d->vals[i] = bc_xstrdup(out);
		d->texts[i] = bc_xstrdup(gv->texts[i]);
		d->nvals++;
	}
	return 0;
}

static int check_fs(const bc_modplan *p, bc_err *e);

int bc_plan_machine(bc_modplan *p, const bc_mconf *top, bc_err *e)
{
	const bc_mconf *mc = p->mc->machine.set ? &p->mc->machine : top;
	p->mpoints = 1;
	p->optpoints = p->npoints;
	if (!mc || !mc->ngiven)
		return 0;
	const char *dev = NULL;
	for (size_t i = 0; i < mc->ngiven; i++)
		if (!strcmp(mc->given[i].key, "device"))
			dev = mc->given[i].texts[0];
	if (geteuid() != 0) {
		bc_err_set(e, "%s: machine settings need root: benchcore runs as uid %ld here", mc->given[0].where,
			   (long)geteuid());
		bc_err_hint(e, "run it with sudo, or leave the machine group out");
		return -1;
	}
	p->mdevice = device_dir(dev ? dev : module_path(p));
	if (dev && !p->mdevice) {
		bc_err_set(e, "machine device \"%s\": not a block device (or a file on one) here", dev);
		return -1;
	}
	p->mdims = bc_xcalloc(mc->ngiven, sizeof(*p->mdims));
	for (size_t i = 0; i < mc->ngiven; i++)
		if (strcmp(mc->given[i].key, "device") && check_dim(p, &mc->given[i], e))
			return -1;
	/* the kernel's order: lower ranks first (insertion sort: a few keys) */
	for (size_t i = 1; i < p->nmdims; i++)
		for (size_t j = i; j > 0 && p->mdims[j - 1].kind->rank > p->mdims[j].kind->rank; j--) {
			bc_mdim t = p->mdims[j];
			p->mdims[j] = p->mdims[j - 1];
			p->mdims[j - 1] = t;
		}
	for (size_t i = 0; i < p->nmdims; i++) {
		if (p->mpoints * p->optpoints > SIZE_MAX / 1024 / p->mdims[i].nvals) {
			bc_err_set(e, "module \"%s\": the plan with its machine settings is too large to count",
				   p->mod->desc.name);
			return -1;
		}
		p->mpoints *= p->mdims[i].nvals;
	}
	p->npoints = p->optpoints * p->mpoints;
	return check_fs(p, e);
}

static size_t vidx(const bc_modplan *p, size_t pt, size_t i);

/* Where an image goes by default: the directory the module's files would
   go to (its path option when that is a directory), else /var/tmp. */
static const char *image_dir(const bc_modplan *p)
{
	const char *path = module_path(p);
	struct stat st;
	return path && path[0] == '/' && stat(path, &st) == 0 && S_ISDIR(st.st_mode) ? path : "/var/tmp";
}

int bc_plan_fsspec(const bc_modplan *p, size_t pt, bc_fs_spec *s)
{
	const char *type = bc_plan_mvalue(p, pt, "fs");
	if (!type)
		return 0;
	const char *dev = bc_plan_mvalue(p, pt, "fs_device"), *wipe = bc_plan_mvalue(p, pt, "wipe_device");
	const char *mk = bc_plan_mvalue(p, pt, "mkfs_options"), *mo = bc_plan_mvalue(p, pt, "mount_options");
	memset(s, 0, sizeof(*s));
	snprintf(s->type, sizeof(s->type), "%s", type);
	snprintf(s->wipe, sizeof(s->wipe), "%s", wipe ? wipe : "");
	snprintf(s->mkfs_options, sizeof(s->mkfs_options), "%s", mk ? mk : "");
	snprintf(s->mount_options, sizeof(s->mount_options), "%s", mo ? mo : "");
	char dir[PATH_MAX], size[64] = "";
	if (dev && !bc_fs_image_parts(dev, dir, sizeof(dir), size, sizeof(size))) {
		snprintf(s->device, sizeof(s->device), "%s", dev);
		return 1;
	}
	if (!size[0]) {	/* sparse: room for the module's files (its needs(), else 3G) */
		unsigned long long need = p->disk_need > p->mod->desc.requires.min_disk ? p->disk_need :
					  p->mod->desc.requires.min_disk;
		bc_format_size(bc_fs_image_size(type, need ? need : 3ull << 30), size, sizeof(size));
	}
	snprintf(s->device, sizeof(s->device), "image:%.*s:%s", PATH_MAX - 80, dev ? dir : image_dir(p), size);
	return 1;
}

char *bc_plan_fsdir(const bc_modplan *p, size_t pt)
{
	bc_fs_spec s;
	char dir[PATH_MAX], size[64];
	if (!bc_plan_fsspec(p, pt, &s))
		return NULL;
	if (!bc_fs_image_parts(s.device, dir, sizeof(dir), size, sizeof(size)))
		snprintf(dir, sizeof(dir), "/run/benchcore");
	return bc_xasprintf("%s/.benchcore-fs.%ld.0/mnt", strcmp(dir, "/") ? dir : "", (long)getpid());
}

/* Every combination's file system checked whole (the device against the
   wipe, the image's directory and size), before anything changes. */
static int check_fs(const bc_modplan *p, bc_err *e)
{
	for (size_t c = 0; c < p->mpoints; c++) {
		bc_fs_spec s;
		bc_err why;
		if (bc_plan_fsspec(p, c * p->optpoints, &s) && bc_fs_check(&s, &why)) {
			bc_err_set(e, "machine setting for module \"%s\": %s", p->mod->desc.name, why.msg);
			if (why.detail[0])
				bc_err_detail(e, "%s", why.detail);
			if (why.hint[0])
				bc_err_hint(e, "%s", why.hint);
			return -1;
		}
	}
	return 0;
}

/* Index of dim i's value at point pt (the last dim varies fastest). */
static size_t vidx(const bc_modplan *p, size_t pt, size_t i)
{
	size_t c = pt / (p->optpoints ? p->optpoints : 1);
	for (size_t j = p->nmdims; j-- > i + 1;)
		c /= p->mdims[j].nvals;
	return c % p->mdims[i].nvals;
}

const char *bc_plan_mvalue(const bc_modplan *p, size_t pt, const char *key)
{
	for (size_t i = 0; i < p->nmdims; i++)
		if (!strcmp(p->mdims[i].key, key))
			return p->mdims[i].vals[vidx(p, pt, i)];
	return NULL;
}

int bc_plan_mwrites(const bc_modplan *p, size_t pt, bc_mwrites *ws, bc_err *e)
{
	const char *oc = bc_plan_mvalue(p, pt, "online_cpus");
	for (size_t i = 0; i < p->nmdims; i++) {
		const bc_mdim *d = &p->mdims[i];
		const char *dot = strchr(d->key, '.');
		bc_mctx x = { .sub = dot ? dot + 1 : NULL, .device = p->mdevice, .custom_set = d->set,
			      .custom_read = d->read, .custom_timeout = d->timeout, .online_cpus = oc ? atoi(oc) : 0 };
		if (d->kind->plan(&x, d->vals[vidx(p, pt, i)], ws, e))
			return -1;
	}
	return 0;
}

json_t *bc_plan_mjson(const bc_modplan *p, size_t pt)
{
	if (!p->nmdims)
		return NULL;
	json_t *o = json_object();
	for (size_t i = 0; i < p->nmdims; i++)
		json_object_set_new(o, p->mdims[i].key, json_string(p->mdims[i].texts[vidx(p, pt, i)]));
	return o;
}

void bc_plan_mfree(bc_modplan *p)
{
	for (size_t i = 0; i < p->nmdims; i++) {
		bc_mdim *d = &p->mdims[i];
		free(d->key);
		bc_strv_free(d->vals);
		bc_strv_free(d->texts);
		free(d->set);
		free(d->read);
	}
	free(p->mdims);
	free(p->mdevice);
}

char *bc_plan_mlabel(const bc_modplan *p, size_t pt)
{
	char *s = bc_xstrdup("");
	for (size_t i = 0; i < p->nmdims; i++) {
		if (p->mdims[i].nvals < 2)
			continue;	/* only what varies tells cases apart */
		char *t = bc_xasprintf("%s%smachine.%s=%s", s, *s ? " " : "", p->mdims[i].key,
				       p->mdims[i].texts[vidx(p, pt, i)]);
		free(s);
		s = t;
	}
	return s;
}
