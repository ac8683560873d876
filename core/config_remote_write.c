/*
 * config_remote_write.c - the [remote_write.NAME] sections: one typed
 * table (option.h) of the keys each destination of the forwarder
 * (forward/forwarder.h) takes, their checks (URL, selector list, labels),
 * and the sections themselves, created by name with the defaults.
 */
#include "config_internal.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "selector.h"
#include "base/xalloc.h"
#include "core/metric_catalog.h"

#define DAY (86400000LL)

#define RWOFF(f) offsetof(struct mw_rw_config, f)

/* The default selection: the watched processes' series (the process,
 * heap, vmmap and workingset figures of the [daemon] watch list), the
 * system figures, the leak verdicts and the daemon's own health -- not
 * every short-lived process of a build agent. */
#define RW_DEFAULT_MATCH MW_METRIC_FORWARD_DEFAULT	/* core/metric_catalog.h */

static bool rw_name_ok(const char *name)
{
	const char *p;

	if (!*name || strlen(name) > 63)
		return false;
	for (p = name; *p; p++)
		if (!isalnum((unsigned char)*p) && *p != '_' && *p != '-')
			return false;
	return true;
}

int mw_config_split_match(const char *list, int (*fn)(void *arg, const char *item, size_t len),
			  void *arg)
{
	const char *p = list, *start = list;
	int depth = 0, rc;
	bool quoted = false;

	for (;; p++) {
		if (quoted) {
			if (*p == '\\' && p[1])
				p++;
			else if (*p == '"')
				quoted = false;
			else if (!*p)
				break;
			continue;
		}
		if (*p == '"')
			quoted = true;
		else if (*p == '{')
			depth++;
		else if (*p == '}' && depth > 0)
			depth--;
		else if ((*p == ',' && depth == 0) || !*p) {
			const char *a = start, *b = p;

			while (a < b && isspace((unsigned char)*a))
				a++;
			while (b > a && isspace((unsigned char)b[-1]))
				b--;
			if (b > a && (rc = fn(arg, a, (size_t)(b - a))))
				return rc;
			if (!*p)
				return 0;
			start = p + 1;
		}
	}
	/* unterminated quote: hand the rest over as one item */
	while (start < p && isspace((unsigned char)*start))
		start++;
	return p > start ? fn(arg, start, (size_t)(p - start)) : 0;
}

struct match_check {
	struct mw_err *err;
	size_t n;
};

static int check_match_item(void *arg, const char *item, size_t len)
{
	struct match_check *mc = arg;
	struct mw_selector sel;
	char *text = mw_xstrndup(item, len);
	int rc = 0;

	mc->n++;
	if (strcmp(text, "watched")) {
		if (mw_selector_parse(&sel, text, mc->err))
			rc = -1;
		else
			mw_selector_release(&sel);
	}
	free(text);
	return rc;
}

static bool label_name_ok(const char *s, size_t n)
{
	size_t i;

	if (!n || (n >= 2 && s[0] == '_' && s[1] == '_'))
		return false;
	for (i = 0; i < n; i++)
		if (!(isalpha((unsigned char)s[i]) || s[i] == '_' ||
		      (i > 0 && isdigit((unsigned char)s[i]))))
			return false;
	return true;
}

int mw_config_parse_labels(const char *list,
			   void (*fn)(void *arg, const char *name, size_t nlen,
				      const char *value, size_t vlen),
			   void *arg, struct mw_err *err)
{
	const char *p = list;

	while (p && *p) {
		const char *end = strchr(p, ',');
		const char *stop = end ? end : p + strlen(p);
		const char *a = p, *b = stop, *eq;

		while (a < b && isspace((unsigned char)*a))
			a++;
		while (b > a && isspace((unsigned char)b[-1]))
			b--;
		if (b > a) {
			const char *n1, *v0;

			eq = memchr(a, '=', (size_t)(b - a));
			if (!eq)
				return mw_error(err, "'%.*s' is not name=value", (int)(b - a), a);
			n1 = eq;
			while (n1 > a && isspace((unsigned char)n1[-1]))
				n1--;
			v0 = eq + 1;
			while (v0 < b && isspace((unsigned char)*v0))
				v0++;
			if (!label_name_ok(a, (size_t)(n1 - a)))
				return mw_error(err, "'%.*s' is not a label name (letters, digits, '_'; "
						"not starting with a digit or '__')", (int)(n1 - a), a);
			if (v0 == b)
				return mw_error(err, "label '%.*s' has an empty value", (int)(n1 - a), a);
			if (fn)
				fn(arg, a, (size_t)(n1 - a), v0, (size_t)(b - v0));
		}
		p = end ? end + 1 : NULL;
	}
	return 0;
}


static int url_check(const char *value, struct mw_err *err)
{
	if (*value && strncmp(value, "http://", 7) && strncmp(value, "https://", 8))
		return mw_error(err, "'%s' is not an http:// or https:// URL", value);
	if (*value && !value[strncmp(value, "http://", 7) ? 8 : 7])
		return mw_error(err, "'%s' has no host", value);
	return 0;
}

static int match_check(const char *value, struct mw_err *err)
{
	struct match_check mc = { err, 0 };

	if (mw_config_split_match(value, check_match_item, &mc))
		return -1;
	if (!mc.n)
		return mw_error(err, "no selector (the default is '%s')", RW_DEFAULT_MATCH);
	return 0;
}

static int labels_check(const char *value, struct mw_err *err)
{
	return mw_config_parse_labels(value, NULL, NULL, err);
}

const struct mw_option mw_rw_options[] = {
	{ MW_OPTION(NULL, "url", MW_OPT_STRING, RWOFF(url), "", 0, 0,
	  "Remote-write endpoint (required): http://HOST:PORT/api/v1/write (Prometheus with\n"
	  "--web.enable-remote-write-receiver, VictoriaMetrics, Mimir, Thanos receive ...)."),
	  .check = url_check, .example = "http://prometheus.example:9090/api/v1/write" },
	{ MW_OPTION(NULL, "bearer_token", MW_OPT_STRING, RWOFF(bearer_token), "", 0, 0,
	  "Sent as 'Authorization: Bearer TOKEN'; empty: none."),
	  .flags = MW_OPT_SECRET },
	{ MW_OPTION(NULL, "bearer_token_file", MW_OPT_STRING, RWOFF(bearer_token_file), "", 0, 0,
	  "File holding the bearer token (read at start, surrounding blanks removed).") },
	{ MW_OPTION(NULL, "basic_user", MW_OPT_STRING, RWOFF(basic_user), "", 0, 0,
	  "HTTP basic authentication user; empty: none.") },
	{ MW_OPTION(NULL, "basic_password", MW_OPT_STRING, RWOFF(basic_password), "", 0, 0,
	  "HTTP basic authentication password."),
	  .flags = MW_OPT_SECRET },
	{ MW_OPTION(NULL, "ca_file", MW_OPT_STRING, RWOFF(ca_file), "", 0, 0,
	  "PEM file of the CA(s) that sign the receiver's certificate; empty: the system's.") },
	{ MW_OPTION(NULL, "tls_verify", MW_OPT_BOOL, RWOFF(tls_verify), "true", 0, 0,
	  "Verify the receiver's certificate and host name (https).") },
	{ MW_OPTION(NULL, "match", MW_OPT_STRING, RWOFF(match), RW_DEFAULT_MATCH, 0, 0,
	  "Series to send: selectors separated by commas (a series matching any is sent);\n"
	  "'watched' stands for every series of the processes the [daemon] watch list\n"
	  "selects.  Everything: {__name__=~\".+\"}"),
	  .check = match_check },
	{ MW_OPTION(NULL, "labels", MW_OPT_STRING, RWOFF(labels), "", 0, 0,
	  "Labels added to every series sent (a series' own label of the same name wins):\n"
	  "instance=lab-12,lab=soak"),
	  .check = labels_check },
	{ MW_OPTION(NULL, "batch_size", MW_OPT_INT, RWOFF(batch_size), "2000", 1, 100000,
	  "Samples per request.") },
	{ MW_OPTION(NULL, "max_age", MW_OPT_DURATION, RWOFF(max_age_ms), "0s", 0, 100 * 365 * DAY,
	  "Points older than this are not sent (after an outage, or for a new destination);\n"
	  "0s: everything still stored ([storage] retention_raw).") },
	{ MW_OPTION(NULL, "timeout", MW_OPT_DURATION, RWOFF(timeout_ms), "30s", 100, 3600000,
	  "One request (connect, send, answer) taking longer fails and is retried.") },
	{ MW_OPTION(NULL, "max_backoff", MW_OPT_DURATION, RWOFF(max_backoff_ms), "30s", 100, DAY,
	  "Longest wait between retries of a failed request (doubling from 250ms, jittered).") },
};

const size_t mw_rw_noptions = MW_ARRAY_SIZE(mw_rw_options);

struct mw_rw_config *mw_config_remote_write(struct mw_config *cfg, const char *name)
{
	struct mw_rw_config *rc;
	size_t i;

	if (!rw_name_ok(name))
		return NULL;
	for (i = 0; i < cfg->nremote_write; i++)
		if (!strcmp(cfg->remote_write[i].name, name))
			return &cfg->remote_write[i];
	MW_GROW(cfg->remote_write, cfg->remote_write_cap, cfg->nremote_write + 1);
	rc = &cfg->remote_write[cfg->nremote_write++];
	memset(rc, 0, sizeof(*rc));
	rc->name = mw_xstrdup(name);
	mw_options_defaults(mw_rw_options, mw_rw_noptions, rc);
	return rc;
}

void mw_config_rw_release(struct mw_rw_config *rc)
{
	mw_options_release(mw_rw_options, mw_rw_noptions, rc);
	free(rc->name);
	rc->name = NULL;
}
