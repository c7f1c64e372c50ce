/* A config as values (runset.h): defaults, module entries, freeing. */
#include <stdlib.h>
#include <string.h>
#include "config_model.h"
#include "settings.h"

void bc_config_defaults(bc_config *c)
{
	bc_settings_defaults(c);
}

int bc_is_run_key(const char *key)
{
	const bc_setting *s = bc_setting_find(key);
	return s && s->scope == BC_SCOPE_RUN;
}

bc_modconf *bc_config_add_module(bc_config *c, const char *name, const char *where)
{
	c->mods = bc_xrealloc(c->mods, c->nmods + 1, sizeof(*c->mods));
	bc_modconf *m = &c->mods[c->nmods++];
	memset(m, 0, sizeof(*m));
	m->name = bc_xstrdup(name);
	m->where = bc_xstrdup(where);
	m->enabled = 1;
	m->run = c->run;
	return m;
}

void bc_modconf_give(bc_modconf *m, const char *key, char **texts, const char *where)
{
	for (size_t i = 0; i < m->ngiven; i++)
		if (!strcmp(m->given[i].key, key)) {	/* a later value wins (command line over file) */
			bc_strv_free(m->given[i].texts);
			free(m->given[i].where);
			m->given[i].texts = texts;
			m->given[i].where = bc_xstrdup(where);
			m->given[i].flag = 0;	/* the caller marks a command line's */
			return;
		}
	m->given = bc_xrealloc(m->given, m->ngiven + 1, sizeof(*m->given));
	m->given[m->ngiven++] = (bc_given){ bc_xstrdup(key), texts, bc_xstrdup(where) };
}

bc_given *bc_modconf_given(bc_modconf *m, const char *key)
{
	for (size_t i = 0; i < m->ngiven; i++)
		if (!strcmp(m->given[i].key, key))
			return &m->given[i];
	return NULL;
}

bc_given *bc_mconf_give(bc_mconf *m, const char *key, char **texts, const char *where)
{
	m->set = 1;
	for (size_t i = 0; i < m->ngiven; i++)
		if (!strcmp(m->given[i].key, key)) {	/* a later value wins (command line over file) */
			bc_strv_free(m->given[i].texts);
			free(m->given[i].where);
			m->given[i].texts = texts;
			m->given[i].where = bc_xstrdup(where);
			return &m->given[i];
		}
	m->given = bc_xrealloc(m->given, m->ngiven + 1, sizeof(*m->given));
	m->given[m->ngiven] = (bc_given){ bc_xstrdup(key), texts, bc_xstrdup(where), NULL, NULL };
	return &m->given[m->ngiven++];
}

void bc_mconf_free(bc_mconf *m)
{
	for (size_t j = 0; j < m->ngiven; j++) {
		free(m->given[j].key);
		free(m->given[j].where);
		free(m->given[j].set);
		free(m->given[j].read);
		bc_strv_free(m->given[j].texts);
	}
	free(m->given);
	memset(m, 0, sizeof(*m));
}

void bc_config_free(bc_config *c)
{
	bc_mconf_free(&c->machine);
	for (size_t i = 0; i < c->nmods; i++) {
		bc_modconf *m = &c->mods[i];
		for (size_t j = 0; j < m->ngiven; j++) {
			free(m->given[j].key);
			free(m->given[j].where);
			bc_strv_free(m->given[j].texts);
		}
		free(m->given);
		bc_mconf_free(&m->machine);
		free(m->name);
		free(m->where);
	}
	free(c->mods);
	free(c->file);
	free(c->label);
	free(c->output);
	free(c->csv);
	free(c->report);
	free(c->store);
	free(c->baseline);
	free(c->fail_on);
	bc_strv_free(c->module_path);
	bc_strv_free(c->summary_rows);
	memset(c, 0, sizeof(*c));
}
