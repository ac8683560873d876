/*
 * service_args.c - see service_args.h.
 */
#include "service_args.h"

#include <stdio.h>
#include <string.h>

static bool is_sep(char c)
{
	return c == '\\' || c == '/';
}

bool mw_path_is_absolute(const char *p)
{
	if (is_sep(p[0]))
		return true;	/* \x, /x, \\server\share, \\?\ */
	return ((p[0] >= 'A' && p[0] <= 'Z') || (p[0] >= 'a' && p[0] <= 'z')) && p[1] == ':';
}

int mw_path_join(char *out, size_t size, const char *dir, const char *path)
{
	size_t dl = strlen(dir), pl = strlen(path);
	int sep;

	if (mw_path_is_absolute(path) || !*dir) {
		if (pl + 1 > size)
			return -1;
		memcpy(out, path, pl + 1);
		return 0;
	}
	/* ".\x" is "x" */
	while (path[0] == '.' && is_sep(path[1])) {
		path += 2;
		pl -= 2;
	}
	sep = !is_sep(dir[dl - 1]);
	if (dl + (size_t)sep + pl + 1 > size)
		return -1;
	memmove(out, dir, dl);
	if (sep)
		out[dl] = '\\';
	memcpy(out + dl + (size_t)sep, path, pl + 1);
	return 0;
}

int mw_path_dirname(char *out, size_t size, const char *file)
{
	const char *p, *last = NULL;
	size_t n;

	for (p = file; *p; p++)
		if (is_sep(*p))
			last = p;
	if (!last) {
		if (size < 2)
			return -1;
		strcpy(out, ".");
		return 0;
	}
	n = (size_t)(last - file);
	if (n == 0 || (n == 2 && file[1] == ':'))
		n++;	/* keep the root: "\", "C:\" */
	if (n + 1 > size)
		return -1;
	memmove(out, file, n);
	out[n] = '\0';
	return 0;
}

int mw_cmdline_append(char *cmd, size_t size, const char *s)
{
	size_t n = strlen(cmd), start = n;
	const char *p;

#define PUT(c) do { if (n + 1 >= size) goto too_long; cmd[n++] = (c); } while (0)
	PUT(' ');
	PUT('"');
	for (p = s;; p++) {
		size_t bs = 0, k;
		while (p[bs] == '\\')
			bs++;
		if (p[bs] == '"' || p[bs] == '\0') {
			/* backslashes before a quote (or the closing quote) double */
			for (k = 0; k < bs * 2; k++)
				PUT('\\');
			p += bs;
			if (!*p)
				break;
			PUT('\\');
			PUT('"');
		} else {
			for (k = 0; k <= bs; k++)
				PUT(p[k]);
			p += bs;
		}
	}
	PUT('"');
#undef PUT
	cmd[n] = '\0';
	return 0;
too_long:
	cmd[start] = '\0';
	return -1;
}

/* "--flag VALUE" or "--flag=VALUE": the value (and *i moved past it), or NULL. */
static const char *flag_value(const char *const *args, int nargs, int *i, const char *flag)
{
	size_t n = strlen(flag);
	const char *a = args[*i];

	if (strncmp(a, flag, n))
		return NULL;
	if (a[n] == '=')
		return a + n + 1;
	if (a[n] == '\0' && *i + 1 < nargs)
		return args[++*i];
	return NULL;
}

const char *mw_service_config_arg(const char *const *args, int nargs)
{
	const char *found = NULL, *v;
	int i;

	for (i = 0; i < nargs; i++)
		if ((v = flag_value(args, nargs, &i, "--config")))
			found = v;	/* the last one wins, as in main.c */
	return found;
}

const char *mw_service_listen_arg(const char *const *args, int nargs)
{
	const char *found = NULL, *v;
	int i;

	for (i = 0; i < nargs; i++) {
		if ((v = flag_value(args, nargs, &i, "--listen")))
			found = v;
		else if ((v = flag_value(args, nargs, &i, "--set")) &&
			 !strncmp(v, "web.listen=", 11))
			found = v + 11;
	}
	return found;
}

int mw_listen_port(const char *listen, unsigned *port, bool *loopback)
{
	const char *colon = strrchr(listen, ':'), *p;
	unsigned long n = 0;
	size_t hl;

	if (!colon || !colon[1] || strlen(colon + 1) > 5)
		return -1;
	for (p = colon + 1; *p; p++) {
		if (*p < '0' || *p > '9')
			return -1;
		n = n * 10 + (unsigned long)(*p - '0');
	}
	if (n == 0 || n > 65535)
		return -1;
	*port = (unsigned)n;
	hl = (size_t)(colon - listen);
	*loopback = (hl >= 4 && !strncmp(listen, "127.", 4)) ||
		    (hl == 9 && !strncmp(listen, "localhost", 9)) ||
		    (hl == 5 && !strncmp(listen, "[::1]", 5));
	return 0;
}

#define PATH_MAX_UTF8 (32768 * 3)

int mw_service_cmdline(const struct mw_service_install *in, char *out, size_t size,
		       struct mw_err *err)
{
	static const struct {
		const char *flag, *set_key;
	} path_flags[] = {
		{ "--config", NULL },
		{ "--db", "storage.db=" },
		{ "--log-file", "daemon.log_file=" },
	};
	static char abs[PATH_MAX_UTF8], joined[PATH_MAX_UTF8], dir[PATH_MAX_UTF8];
	const char *config = NULL;
	bool have_db = false, have_log = false;
	int i;
	size_t k;

	if (strlen(in->exe) + 7 > size)
		return mw_error(err, "the executable path is too long");
	out[0] = '\0';
	if (mw_cmdline_append(out, size, in->exe))
		return mw_error(err, "the executable path is too long");
	memmove(out, out + 1, strlen(out));	/* no leading space */
	strcat(out, " run");
	for (i = 0; i < in->nargs; i++) {
		const char *a = in->args[i], *v = NULL;
		int j = i;

		for (k = 0; k < MW_ARRAY_SIZE(path_flags); k++) {
			j = i;
			if ((v = flag_value(in->args, in->nargs, &j, path_flags[k].flag)))
				break;
		}
		if (v) {
			if (in->abspath(v, abs, sizeof(abs)))
				return mw_error(err, "%s: path too long: '%.200s'", path_flags[k].flag, v);
			if (k == 0)
				config = NULL;	/* set below from abs */
			if (mw_cmdline_append(out, size, path_flags[k].flag) ||
			    mw_cmdline_append(out, size, abs))
				goto too_long;
			if (k == 0) {
				if (mw_path_dirname(dir, sizeof(dir), abs))
					return mw_error(err, "--config: path too long");
				config = dir;
			}
			have_db |= k == 1;
			have_log |= k == 2;
			i = j;
			continue;
		}
		/* --set storage.db=PATH / daemon.log_file=PATH */
		j = i;
		if ((v = flag_value(in->args, in->nargs, &j, "--set"))) {
			for (k = 1; k < MW_ARRAY_SIZE(path_flags); k++) {
				size_t kl = strlen(path_flags[k].set_key);
				if (strncmp(v, path_flags[k].set_key, kl) || !v[kl])
					continue;
				if (in->abspath(v + kl, abs, sizeof(abs)) ||
				    strlen(abs) + kl + 1 > sizeof(joined))
					return mw_error(err, "--set %.*s: path too long", (int)kl - 1, v);
				snprintf(joined, sizeof(joined), "%s%s", path_flags[k].set_key, abs);
				if (mw_cmdline_append(out, size, "--set") ||
				    mw_cmdline_append(out, size, joined))
					goto too_long;
				have_db |= k == 1;
				have_log |= k == 2;
				break;
			}
			if (k < MW_ARRAY_SIZE(path_flags)) {
				i = j;
				continue;
			}
		}
		if (mw_cmdline_append(out, size, a))
			goto too_long;
	}
	/* Relative paths inside the config file: against its folder. */
	if (!have_db && config && in->config_db && *in->config_db) {
		if (!mw_path_is_absolute(in->config_db)) {
			if (mw_path_join(joined, sizeof(joined), config, in->config_db))
				return mw_error(err, "[storage] db: path too long");
			if (mw_cmdline_append(out, size, "--db") ||
			    mw_cmdline_append(out, size, joined))
				goto too_long;
		}
		have_db = true;	/* absolute: the file's value stands */
	}
	if (!have_log && config && in->config_log && *in->config_log &&
	    !mw_path_is_absolute(in->config_log)) {
		if (mw_path_join(joined, sizeof(joined), config, in->config_log))
			return mw_error(err, "[daemon] log_file: path too long");
		if (mw_cmdline_append(out, size, "--log-file") ||
		    mw_cmdline_append(out, size, joined))
			goto too_long;
	}
	if (!have_db) {
		/* No database anywhere: beside the executable, not in System32. */
		if (mw_path_dirname(dir, sizeof(dir), in->exe) ||
		    mw_path_join(joined, sizeof(joined), dir, "memwatch.db"))
			return mw_error(err, "the executable path is too long");
		if (mw_cmdline_append(out, size, "--db") || mw_cmdline_append(out, size, joined))
			goto too_long;
	}
	return 0;
too_long:
	return mw_error(err, "the service command line would be longer than %zu bytes", size - 1);
}
