/*
 * parse.c - the pure parts of `memwatchd import`: detection, PDH times and
 * values, counter paths and series keys onto series, and the CSV rows.
 * See import.h for the formats and the mapping.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "import_internal.h"
#include "base/calendar.h"
#include "base/utf8.h"
#include "core/counter_path.h"
#include "base/xalloc.h"
#include "storage/query.h"

/* ---- detection ------------------------------------------------------------- */

enum mw_import_encoding mw_import_detect_encoding(const unsigned char *p, size_t n,
						  size_t *bom_len)
{
	*bom_len = 0;
	if (n >= 3 && p[0] == 0xEF && p[1] == 0xBB && p[2] == 0xBF) {
		*bom_len = 3;
		return MW_ENC_UTF8;
	}
	if (n >= 2 && p[0] == 0xFF && p[1] == 0xFE) {
		*bom_len = 2;
		return MW_ENC_UTF16LE;
	}
	if (n >= 2 && p[0] == 0xFE && p[1] == 0xFF)
		return MW_ENC_UTF16BE;
	/* No BOM: an ASCII first character and a zero byte beside it. */
	if (n >= 2 && p[0] && p[0] < 0x80 && !p[1])
		return MW_ENC_UTF16LE;
	if (n >= 2 && !p[0] && p[1] && p[1] < 0x80)
		return MW_ENC_UTF16BE;
	return MW_ENC_UTF8;
}

enum mw_import_format mw_import_detect_format(const char *p, size_t n)
{
	size_t i = 0;

	while (i < n && (p[i] == ' ' || p[i] == '\t' || p[i] == '\r' || p[i] == '\n'))
		i++;
	if (i == n)
		return MW_IMPORT_UNKNOWN;
	if (p[i] == '{')
		return MW_IMPORT_JSON;
	if (p[i] == '"' || (n - i >= 9 && !memcmp(p + i, "(PDH-CSV ", 9)))
		return MW_IMPORT_CSV;
	return MW_IMPORT_UNKNOWN;
}

/* ---- times and values --------------------------------------------------------- */

int mw_import_pdh_header(const char *cell, int *bias_min, char *zone, size_t zone_size,
			 struct mw_err *err)
{
	const char *p = cell, *z, *ze, *b, *end;
	long bias;
	char *stop;
	size_t n;

	if (strncmp(p, "(PDH-CSV ", 9))
		return mw_error(err, "first cell '%.60s' is not \"(PDH-CSV 4.0) (ZONE)(BIAS)\"", cell);
	p = strchr(p, ')');
	end = cell + strlen(cell);
	if (!p || end - cell < 2 || end[-1] != ')')
		return mw_error(err, "first cell '%.60s': no \"(ZONE)(BIAS)\" after the version",
				cell);
	/* the bias is the last "(...)", the zone the "(...)" before it */
	for (b = end - 1; b > p && *b != '('; b--)
		;
	if (b <= p)
		return mw_error(err, "first cell '%.60s': no \"(BIAS)\"", cell);
	bias = strtol(b + 1, &stop, 10);
	if (stop == b + 1 || stop != end - 1 || bias < -24 * 60 || bias > 24 * 60)
		return mw_error(err, "first cell '%.60s': bias is not a number of minutes", cell);
	for (z = p + 1; z < b && *z == ' '; z++)
		;
	ze = b;
	if (z < ze && *z == '(' && ze[-1] == ')') {
		z++;
		ze--;
	}
	n = (size_t)(ze - z);
	if (zone_size) {
		if (n >= zone_size)
			n = zone_size - 1;
		memcpy(zone, z, n);
		zone[n] = '\0';
	}
	*bias_min = (int)bias;
	return 0;
}

/* min to max digits at *p into *out. */
static int digits(const char **p, const char *end, int min, int max, unsigned *out)
{
	unsigned v = 0;
	int k = 0;

	while (*p < end && **p >= '0' && **p <= '9' && k < max) {
		v = v * 10 + (unsigned)(**p - '0');
		(*p)++;
		k++;
	}
	*out = v;
	return k >= min ? 0 : -1;
}

int mw_import_pdh_time(const char *s, size_t n, int64_t *ms)
{
	const char *p = s, *end = s + n;
	unsigned mo, d, y, h, mi, se, frac = 0;
	int k = 0;

	while (p < end && *p == ' ')
		p++;
	while (end > p && end[-1] == ' ')
		end--;
	if (digits(&p, end, 1, 2, &mo) || p == end || *p++ != '/' ||
	    digits(&p, end, 1, 2, &d) || p == end || *p++ != '/' ||
	    digits(&p, end, 4, 4, &y) || p == end || *p++ != ' ' ||
	    digits(&p, end, 1, 2, &h) || p == end || *p++ != ':' ||
	    digits(&p, end, 2, 2, &mi) || p == end || *p++ != ':' ||
	    digits(&p, end, 2, 2, &se))
		return -1;
	if (p < end && *p == '.') {
		p++;
		while (p < end && *p >= '0' && *p <= '9') {
			if (k < 3)
				frac = frac * 10 + (unsigned)(*p - '0');
			k++;
			p++;
		}
		if (!k)
			return -1;
		for (; k < 3; k++)
			frac *= 10;
	}
	if (p != end || !mw_date_valid(y, mo, d) || h > 23 || mi > 59 || se > 60)
		return -1;
	*ms = mw_days_from_date(y, mo, d) * MW_MS_PER_DAY +
	      (int64_t)(h * 3600 + mi * 60 + se) * 1000 + frac;
	return 0;
}

static const double pow10_tab[] = {
	1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
};

static bool word_is(const char *s, size_t n, const char *w)
{
	return strlen(w) == n && !strncasecmp(s, w, n);
}

int mw_import_value(const char *s, size_t n, double *v)
{
	const char *p, *end = s + n;
	uint64_t m = 0;
	int sig = 0, fdig = 0, dot = 0;
	bool neg = false, any = false;
	char buf[80], *stop;
	size_t i;

	while (s < end && (*s == ' ' || *s == '\t'))
		s++;
	while (end > s && (end[-1] == ' ' || end[-1] == '\t'))
		end--;
	if (s == end)
		return 0;
	n = (size_t)(end - s);
	/* Fast path: [-]digits[.digits], at most 15 significant digits, so
	 * that mantissa / 10^k is one correctly rounded division. */
	p = s;
	if (*p == '-' || *p == '+')
		neg = *p++ == '-';
	for (; p < end; p++) {
		if (*p >= '0' && *p <= '9') {
			any = true;
			if (m || *p != '0')
				sig++;
			m = m * 10 + (uint64_t)(*p - '0');
			fdig += dot;
			if (sig > 15)
				break;
		} else if ((*p == '.' || *p == ',') && !dot) {
			dot = 1;
		} else {
			break;
		}
	}
	if (p == end && any && fdig <= 22) {
		double d = (double)m / pow10_tab[fdig];

		*v = neg ? -d : d;
		return 1;
	}
	if (word_is(s, n, "NaN") || word_is(s, n, "+NaN") || word_is(s, n, "-NaN")) {
		*v = NAN;
		return 1;
	}
	if (word_is(s, n, "Inf") || word_is(s, n, "+Inf") || word_is(s, n, "Infinity") ||
	    word_is(s, n, "+Infinity")) {
		*v = INFINITY;
		return 1;
	}
	if (word_is(s, n, "-Inf") || word_is(s, n, "-Infinity")) {
		*v = -INFINITY;
		return 1;
	}
	if (n >= sizeof(buf))
		return -1;
	/* strtod: long mantissas and exponents; the C locale's '.'. */
	for (i = 0; i < n; i++) {
		char c = s[i];

		if (!((c >= '0' && c <= '9') || c == '.' || c == ',' || c == '-' || c == '+' ||
		      c == 'e' || c == 'E'))
			return -1;
		buf[i] = c == ',' ? '.' : c;
	}
	buf[n] = '\0';
	if (memchr(s, ',', n) && memchr(s, '.', n))
		return -1;
	*v = strtod(buf, &stop);
	if (stop != buf + n)
		return -1;
	return 1;
}

/* ---- series ------------------------------------------------------------------ */

void mw_import_series_release(struct mw_import_series *s)
{
	if (!s)
		return;
	mw_labels_release(s->labels, s->nlabels);
	free(s->metric);
	free(s->key);
	free(s->instance);
	free(s->image);
	memset(s, 0, sizeof(*s));
}

void mw_import_series_rekey(struct mw_import_series *s)
{
	size_t n = mw_series_key_format(NULL, 0, s->metric, s->labels, s->nlabels);

	free(s->key);
	s->key = mw_xmalloc(n + 1);
	mw_series_key_format(s->key, n + 1, s->metric, s->labels, s->nlabels);
}

/* Add a label (copied), keeping them sorted; -1 if it is there already. */
static int add_label(struct mw_import_series *s, const char *name, const char *value,
		     size_t vlen)
{
	size_t j;

	if (s->nlabels >= MW_MAX_LABELS)
		return -1;
	for (j = 0; j < s->nlabels; j++)
		if (!strcmp(s->labels[j].name, name))
			return -1;
	j = s->nlabels++;
	while (j > 0 && strcmp(s->labels[j - 1].name, name) > 0) {
		s->labels[j] = s->labels[j - 1];
		j--;
	}
	s->labels[j].name = mw_xstrdup(name);
	s->labels[j].value = mw_xstrndup(value, vlen);
	return 0;
}

static int set_label(struct mw_import_series *s, const char *name, const char *value)
{
	size_t j;

	for (j = 0; j < s->nlabels; j++)
		if (!strcmp(s->labels[j].name, name)) {
			free((char *)s->labels[j].value);
			s->labels[j].value = mw_xstrdup(value);
			return 0;
		}
	return add_label(s, name, value, strlen(value));
}

static const struct {
	const char *object, *counter, *metric;
} counter_map[] = {
	{ "Process", "Private Bytes", "memwatch_process_private_bytes" },
	{ "Process", "Working Set", "memwatch_process_working_set_bytes" },
	{ "Process", "Working Set Peak", "memwatch_process_working_set_peak_bytes" },
	{ "Process", "Virtual Bytes", "memwatch_process_virtual_bytes" },
	{ "Process", "Handle Count", "memwatch_process_handles" },
	{ "Process", "Thread Count", "memwatch_process_threads" },
	{ "Memory", "Available Bytes", "memwatch_system_available_bytes" },
	{ "Memory", "Committed Bytes", "memwatch_system_commit_bytes" },
	{ "Memory", "Commit Limit", "memwatch_system_commit_limit_bytes" },
};

/* "app#12" -> base length 3, index 12; "app" -> 3, 0. */
static size_t instance_base(const char *inst, unsigned long *index)
{
	const char *h = strrchr(inst, '#'), *q;

	*index = 0;
	if (!h || h == inst || !h[1])
		return strlen(inst);
	for (q = h + 1; *q; q++)
		if (*q < '0' || *q > '9')
			return strlen(inst);
	*index = strtoul(h + 1, NULL, 10);
	return (size_t)(h - inst);
}

int mw_import_map_counter(const char *path, struct mw_import_series *out, struct mw_err *err)
{
	struct mw_perf_path pp;
	const char *object = pp.object, *counter = pp.counter, *instance = pp.instance;
	bool has_instance;
	size_t k;

	memset(out, 0, sizeof(*out));
	if (mw_perf_path_parse(path, &pp, err))
		return -1;
	has_instance = pp.has_instance;

	for (k = 0; k < MW_ARRAY_SIZE(counter_map); k++) {
		bool is_proc = !strcmp(counter_map[k].object, "Process");

		if (strcasecmp(object, counter_map[k].object) ||
		    strcasecmp(counter, counter_map[k].counter))
			continue;
		if (is_proc && (!has_instance || !instance[0] || !strcmp(instance, "*") ||
				!strcasecmp(instance, "_Total")))
			break;	/* not one process: a perf value */
		if (!is_proc && has_instance)
			break;
		out->metric = mw_xstrdup(counter_map[k].metric);
		if (is_proc) {
			unsigned long index;
			size_t base = instance_base(instance, &index);
			char pid[32], *image = mw_xmalloc(base + 5);

			memcpy(image, instance, base);
			image[base] = '\0';
			if (base < 4 || strcasecmp(image + base - 4, ".exe"))
				strcat(image, ".exe");
			snprintf(pid, sizeof(pid), "#%lu", index);
			add_label(out, "process", image, strlen(image));
			add_label(out, "pid", pid, strlen(pid));
			out->is_process = true;
			out->instance = mw_xstrdup(instance);
			out->image = image;
		}
		mw_import_series_rekey(out);
		return 0;
	}
	out->metric = mw_xstrdup("memwatch_perf_value");
	add_label(out, "object", object, strlen(object));
	add_label(out, "counter", counter, strlen(counter));
	add_label(out, "instance", instance, strlen(instance));
	if (!strcasecmp(object, "Process") && !strcasecmp(counter, "ID Process") &&
	    has_instance) {
		out->is_id_process = true;
		out->instance = mw_xstrdup(instance);
	}
	mw_import_series_rekey(out);
	return 0;
}

static bool name_char(char c, bool first, bool metric)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
	       (metric && c == ':') || (!first && c >= '0' && c <= '9');
}

int mw_import_parse_key(const char *text, struct mw_import_series *out, struct mw_err *err)
{
	const char *p = text;
	char name[256], *val = NULL;
	size_t n, vcap = 0, vlen;

	memset(out, 0, sizeof(*out));
	for (n = 0; name_char(p[n], n == 0, true); n++)
		;
	if (!n)
		return mw_error(err, "series '%.80s' does not start with a metric name", text);
	out->metric = mw_xstrndup(p, n);
	p += n;
	if (*p == '{') {
		p++;
		while (*p != '}') {
			for (n = 0; name_char(p[n], n == 0, false); n++)
				;
			if (!n || n >= sizeof(name) || p[n] != '=' || p[n + 1] != '"') {
				mw_error(err, "series '%.80s': expected label=\"value\" at '%.20s'",
					 text, p);
				goto fail;
			}
			memcpy(name, p, n);
			name[n] = '\0';
			p += n + 2;
			vlen = 0;
			for (;;) {
				char c = *p++;

				if (!c) {
					mw_error(err, "series '%.80s': unterminated label value", text);
					goto fail;
				}
				if (c == '"')
					break;
				if (c == '\\') {
					c = *p++;
					if (c == 'n')
						c = '\n';
					else if (c != '\\' && c != '"') {
						mw_error(err, "series '%.80s': bad escape in label '%s'",
							 text, name);
						goto fail;
					}
				}
				MW_GROW(val, vcap, vlen + 2);
				val[vlen++] = c;
			}
			if (add_label(out, name, val ? val : "", vlen)) {
				mw_error(err, "series '%.80s': label '%s' twice or more than %d labels",
					 text, name, MW_MAX_LABELS);
				goto fail;
			}
			if (*p == ',')
				p++;
			else if (*p != '}') {
				mw_error(err, "series '%.80s': expected ',' or '}' at '%.20s'", text, p);
				goto fail;
			}
		}
		p++;
	}
	if (*p) {
		mw_error(err, "series '%.80s': unexpected '%.20s' after the labels", text, p);
		goto fail;
	}
	free(val);
	mw_import_series_rekey(out);
	return 0;
fail:
	free(val);
	mw_import_series_release(out);
	return -1;
}

int mw_import_series_add_label(struct mw_import_series *s, const char *name, const char *value,
			       struct mw_err *err)
{
	size_t n;

	for (n = 0; name_char(name[n], n == 0, false); n++)
		;
	if (!n || name[n])
		return mw_error(err, "label name '%.60s' is not [a-zA-Z_][a-zA-Z0-9_]*", name);
	if (add_label(s, name, value, strlen(value)))
		return mw_error(err, "label '%.60s' twice or more than %d labels", name,
				MW_MAX_LABELS);
	return 0;
}

int mw_import_series_check(const struct mw_import_series *s, struct mw_err *err)
{
	size_t i;

	for (i = 0; i < s->nlabels; i++)
		if (!mw_utf8_valid(s->labels[i].value))
			return mw_error(err, "label '%s' of %s is not valid UTF-8 (save the file as "
					"UTF-8 or UTF-16LE)", s->labels[i].name, s->metric);
	return 0;
}

int mw_import_time_check(int64_t ts, int64_t not_after_ms, struct mw_err *err)
{
	char at[40], limit[40];

	if (ts < MW_TIME_MIN || ts > MW_TIME_MAX)
		return mw_error(err, "time %lld ms lies outside years 0001 to 9999", (long long)ts);
	if (not_after_ms && ts > not_after_ms) {
		mw_time_human(at, sizeof(at), ts);
		mw_time_human(limit, sizeof(limit), not_after_ms);
		return mw_error(err, "time %s is in the future (after %s, now + --max-future): "
				"a clock-skewed recording? nothing of this file was stored; "
				"--allow-future stores it as it is", at, limit);
	}
	return 0;
}

int mw_import_metric_name_ok(const char *name)
{
	size_t n;

	for (n = 0; name_char(name[n], n == 0, true); n++)
		;
	return n && !name[n];
}

/* ---- CSV ---------------------------------------------------------------------- */

void mw_csv_import_init(struct mw_csv_import *c, mw_import_point_fn point, void *ctx)
{
	memset(c, 0, sizeof(*c));
	c->point = point;
	c->ctx = ctx;
	c->st.first_ts = INT64_MAX;
	c->st.last_ts = INT64_MIN;
}

void mw_csv_import_release(struct mw_csv_import *c)
{
	size_t i;

	for (i = 0; i < c->ncols; i++)
		mw_import_series_release(&c->cols[i].s);
	free(c->cols);
	free(c->vals);
	free(c->state);
	free(c->cellbuf);
	c->cols = NULL;
	c->vals = NULL;
	c->state = NULL;
	c->cellbuf = NULL;
	c->ncols = 0;
}

/* The next cell of [*pp, end): 1 with the cell (quotes removed, "" made
 * one " in c->cellbuf when needed), 0 at the end of the line, -1 on an
 * unterminated quote.  *more says whether a comma followed. */
static int next_cell(struct mw_csv_import *c, const char **pp, const char *end, bool *more,
		     const char **cell, size_t *len)
{
	const char *p = *pp, *q;

	if (!*more)
		return 0;
	if (p < end && *p == '"') {
		p++;
		q = memchr(p, '"', (size_t)(end - p));
		if (!q)
			return -1;
		if (q + 1 < end && q[1] == '"') {	/* escaped quotes: copy */
			size_t n = 0;

			for (;;) {
				if (p >= end)
					return -1;
				if (*p == '"') {
					if (p + 1 < end && p[1] == '"') {
						p++;
					} else {
						break;
					}
				}
				MW_GROW(c->cellbuf, c->cellbuf_cap, n + 2);
				c->cellbuf[n++] = *p++;
			}
			c->cellbuf[n] = '\0';
			*cell = c->cellbuf;
			*len = n;
			q = p;
		} else {
			*cell = p;
			*len = (size_t)(q - p);
		}
		p = q + 1;
		while (p < end && *p == ' ')
			p++;
		if (p < end && *p != ',')
			return -1;
	} else {
		q = memchr(p, ',', (size_t)(end - p));
		if (!q)
			q = end;
		*cell = p;
		*len = (size_t)(q - p);
		p = q;
	}
	*more = p < end;
	*pp = p < end ? p + 1 : p;
	return 1;
}

/* ---- the header's checks, linear in its columns: open addressing --------------- */

static uint64_t hash_text(const char *s, bool fold)
{
	uint64_t h = 1469598103934665603ULL;	/* FNV-1a */

	for (; *s; s++) {
		unsigned char b = (unsigned char)*s;

		if (fold && b >= 'A' && b <= 'Z')
			b = (unsigned char)(b + 32);
		h = (h ^ b) * 1099511628211ULL;
	}
	return h;
}

/* The slot of table (mask + 1 slots holding column + 1, 0 empty) where
 * a column with text t is, or the empty slot where it would go.  fold:
 * ASCII case-insensitive (perfmon instances). */
static size_t table_slot(struct mw_csv_import *c, const size_t *table, size_t mask,
			 const char *t, const char *(*text)(const struct mw_csv_col *), bool fold)
{
	size_t i = (size_t)hash_text(t, fold) & mask;

	for (;; i = (i + 1) & mask) {
		const char *there;

		c->header_probes++;
		if (!table[i])
			return i;
		there = text(&c->cols[table[i] - 1]);
		if (fold ? !strcasecmp(there, t) : !strcmp(there, t))
			return i;
	}
}

static const char *col_key(const struct mw_csv_col *col)
{
	return col->s.key;
}

static const char *col_instance(const struct mw_csv_col *col)
{
	return col->s.instance;
}

/* Two columns onto one series would interleave two recordings: refused.
 * Process gauges take their pid from the same instance's ID Process
 * column (the last of that instance). */
static int header_links(struct mw_csv_import *c, struct mw_err *err)
{
	size_t size = 16, mask, i, slot, *keys, *ids;
	int rc = 0;

	while (size < 2 * c->ncols)
		size *= 2;
	mask = size - 1;
	keys = mw_xcalloc(size, sizeof(*keys));
	ids = mw_xcalloc(size, sizeof(*ids));
	for (i = 0; i < c->ncols && !rc; i++) {
		slot = table_slot(c, keys, mask, c->cols[i].s.key, col_key, false);
		if (keys[slot])
			rc = mw_error(err, "header: columns %zu and %zu are both %s "
				      "(several machines in one file?)", keys[slot] + 1, i + 2,
				      c->cols[i].s.key);
		keys[slot] = i + 1;
		if (c->cols[i].s.is_id_process)
			ids[table_slot(c, ids, mask, c->cols[i].s.instance, col_instance, true)] = i + 1;
	}
	for (i = 0; i < c->ncols && !rc; i++) {
		if (!c->cols[i].s.is_process)
			continue;
		slot = table_slot(c, ids, mask, c->cols[i].s.instance, col_instance, true);
		if (ids[slot])
			c->cols[i].pid_col = (long)(ids[slot] - 1);
	}
	free(keys);
	free(ids);
	return rc;
}

static int csv_header(struct mw_csv_import *c, const char *line, size_t len,
		      struct mw_err *err)
{
	const char *p = line, *end = line + len, *cell;
	bool more = true;
	size_t clen, cap = 0;
	char *text;
	int rc;

	rc = next_cell(c, &p, end, &more, &cell, &clen);
	if (rc <= 0)
		return mw_error(err, "header: not a PDH CSV header");
	text = mw_xstrndup(cell, clen);
	rc = mw_import_pdh_header(text, &c->bias_min, c->zone, sizeof(c->zone), err);
	free(text);
	if (rc)
		return mw_error_prefix(err, "header");
	while ((rc = next_cell(c, &p, end, &more, &cell, &clen)) == 1) {
		struct mw_csv_col *col;

		MW_GROW(c->cols, cap, c->ncols + 1);
		col = &c->cols[c->ncols];
		memset(col, 0, sizeof(*col));
		col->pid_col = -1;
		col->cur_pid = NAN;
		text = mw_xstrndup(cell, clen);
		if (!clen)
			rc = mw_error(err, "column %zu has no name", c->ncols + 2);
		else if (memchr(cell, '\0', clen))
			rc = mw_error(err, "the name '%.80s' holds a NUL byte", text);
		else if (text[0] == '\\')
			rc = mw_import_map_counter(text, &col->s, err);
		else
			rc = mw_import_parse_key(text, &col->s, err);
		if (!rc && mw_import_series_check(&col->s, err))
			rc = -1;
		free(text);
		if (rc)
			mw_import_series_release(&col->s);
		if (rc)
			return mw_error_prefix(err, "header, column %zu", c->ncols + 2);
		c->ncols++;
	}
	if (rc < 0)
		return mw_error(err, "header: unterminated quote");
	if (!c->ncols)
		return mw_error(err, "header: no columns after the time");
	if (header_links(c, err))
		return -1;
	c->vals = mw_xcalloc(c->ncols, sizeof(*c->vals));
	c->state = mw_xcalloc(c->ncols, sizeof(*c->state));
	c->have_header = true;
	return 0;
}

static void csv_pid(struct mw_csv_col *col, double pid)
{
	char buf[32];

	if (pid == col->cur_pid)
		return;
	col->cur_pid = pid;
	snprintf(buf, sizeof(buf), "%.0f", pid);
	set_label(&col->s, "pid", buf);
	mw_import_series_rekey(&col->s);
	col->used = false;
}

int mw_csv_import_line(struct mw_csv_import *c, const char *line, size_t len,
		       struct mw_err *err)
{
	const char *p = line, *end, *cell;
	bool more = true;
	size_t clen, n = 0, i;
	uint64_t before;
	int64_t ts;
	int rc;

	if (len && line[len - 1] == '\r')
		len--;
	end = line + len;
	c->st.lines++;
	if (!c->have_header)
		return csv_header(c, line, len, err);
	if (!len)
		return 0;	/* a blank line (the end of a file) */
	rc = next_cell(c, &p, end, &more, &cell, &clen);
	if (rc <= 0)
		return mw_error(err, "unterminated quote");
	if (mw_import_pdh_time(cell, clen, &ts))
		return mw_error(err, "time '%.*s' is not MM/DD/YYYY hh:mm:ss.fff",
				(int)(clen > 40 ? 40 : clen), cell);
	ts += (int64_t)c->bias_min * 60000;
	if (mw_import_time_check(ts, c->not_after_ms, err)) {
		c->st.future = true;
		return -1;
	}
	while ((rc = next_cell(c, &p, end, &more, &cell, &clen)) == 1) {
		if (n >= c->ncols)
			return mw_error(err, "more cells than the header's %zu columns",
					c->ncols + 1);
		rc = mw_import_value(cell, clen, &c->vals[n]);
		if (rc < 0)
			return mw_error(err, "column %zu (%.200s): '%.*s' is not a number", n + 2,
					c->cols[n].s.key, (int)(clen > 40 ? 40 : clen), cell);
		c->state[n++] = (signed char)rc;
	}
	if (rc < 0)
		return mw_error(err, "unterminated quote in column %zu", n + 2);
	if (n < c->ncols)
		return mw_error(err, "%zu cells, the header has %zu (a cut-off line?)", n + 1,
				c->ncols + 1);
	before = c->st.points;
	for (i = 0; i < c->ncols; i++) {
		struct mw_csv_col *col = &c->cols[i];

		if (!c->state[i]) {
			c->st.gaps++;
			continue;
		}
		if (col->pid_col >= 0 && c->state[col->pid_col] && c->vals[col->pid_col] >= 0 &&
		    c->vals[col->pid_col] < 4294967296.0)
			csv_pid(col, floor(c->vals[col->pid_col]));
		if (!col->used) {
			col->used = true;
			c->st.series++;
		}
		c->point(c->ctx, col->s.key, col->s.metric, col->s.labels, col->s.nlabels, ts,
			 c->vals[i]);
		c->st.points++;
	}
	if (c->st.points > before && ts < c->st.first_ts)
		c->st.first_ts = ts;
	if (c->st.points > before && ts > c->st.last_ts)
		c->st.last_ts = ts;
	return 0;
}
