/* prom.c - Prometheus text exposition helpers; see metrics.h. */
#include "metrics.h"

#include <string.h>

#include "base/mwerr.h"
#include "base/utf8.h"

void mw_prom_utf8(struct mw_jbuf *b, const char *s)
{
	size_t n = strlen(s), ok;

	while (n) {
		ok = mw_utf8_valid_prefix(s, n);
		mw_j_raw(b, s, ok);
		s += ok;
		n -= ok;
		if (n) {
			mw_j_lit(b, "\xEF\xBF\xBD");
			s++;
			n--;
		}
	}
}

void mw_prom_family(struct mw_jbuf *b, const char *name, const char *type, const char *help)
{
	mw_j_lit(b, "# HELP ");
	mw_j_lit(b, name);
	mw_j_char(b, ' ');
	for (; *help; help++) {
		if (*help == '\\')
			mw_j_lit(b, "\\\\");
		else if (*help == '\n')
			mw_j_lit(b, "\\n");
		else
			mw_j_char(b, *help);
	}
	mw_j_lit(b, "\n# TYPE ");
	mw_j_lit(b, name);
	mw_j_char(b, ' ');
	mw_j_lit(b, type);
	mw_j_char(b, '\n');
}

static void value_line_end(struct mw_jbuf *b, double v)
{
	char num[40];

	mw_j_char(b, ' ');
	mw_j_raw(b, num, mw_fmt_double(num, v));
	mw_j_char(b, '\n');
}

void mw_prom_sample_labels(struct mw_jbuf *b, const char *name, const char *const *kv,
			   size_t nlabels, double v)
{
	struct mw_jbuf esc;
	const char *p;
	size_t i;

	mw_j_lit(b, name);
	for (i = 0; i < nlabels; i++) {
		mw_jbuf_init(&esc);
		for (p = kv[2 * i + 1]; *p; p++) {
			if (*p == '\\' || *p == '"')
				mw_j_char(&esc, '\\');
			if (*p == '\n')
				mw_j_lit(&esc, "\\n");
			else
				mw_j_char(&esc, *p);
		}
		mw_j_char(b, i ? ',' : '{');
		mw_j_lit(b, kv[2 * i]);
		mw_j_lit(b, "=\"");
		mw_prom_utf8(b, esc.p);
		mw_j_char(b, '"');
		mw_jbuf_release(&esc);
	}
	if (nlabels)
		mw_j_char(b, '}');
	value_line_end(b, v);
}

void mw_prom_sample(struct mw_jbuf *b, const char *name, const char *label,
		    const char *value, double v)
{
	const char *kv[2] = { label, value };

	mw_prom_sample_labels(b, name, kv, label ? 1 : 0, v);
}

const char *mw_prom_type(const char *name)
{
	size_t n = strlen(name);

	return n > 6 && !strcmp(name + n - 6, "_total") ? "counter" : "gauge";
}

const char *mw_prom_help(const char *name)
{
	static const struct { const char *name, *help; } helps[] = {
		{ "memwatch_system_physical_bytes", "Installed memory the OS manages." },
		{ "memwatch_system_available_bytes", "Memory available without paging." },
		{ "memwatch_system_commit_bytes", "System commit charge." },
		{ "memwatch_system_commit_limit_bytes", "System commit limit." },
		{ "memwatch_process_working_set_bytes", "Resident set of the process." },
		{ "memwatch_process_working_set_peak_bytes", "Peak resident set of the process." },
		{ "memwatch_process_private_bytes", "Commit charge (private bytes) of the process." },
		{ "memwatch_process_virtual_bytes", "Virtual size of the process." },
		{ "memwatch_process_handles", "Open handles (Linux: open fds) of the process." },
		{ "memwatch_process_threads", "Threads of the process." },
		{ "memwatch_process_page_faults_total", "Page faults of the process." },
	};
	size_t i;

	for (i = 0; i < MW_ARRAY_SIZE(helps); i++)
		if (!strcmp(helps[i].name, name))
			return helps[i].help;
	return "memwatch metric.";
}

