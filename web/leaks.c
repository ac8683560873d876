/*
 * leaks.c - GET /api/v1/leaks and /api/v1/check: the leak report of
 * analysis/leak_report.c over HTTP.  /api/v1/leaks always answers 200
 * with the report; /api/v1/check answers the same body with a status a
 * build agent's `curl --fail-with-body` acts on: 200 pass, 412 fail, 409
 * inconclusive (200 with inconclusive=pass), and 400 with a JSON error
 * when match or process selects nothing, also with inconclusive=pass.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/leak_report.h"
#include "base/cpu_count.h"
#include "storage/query.h"
#include "web_internal.h"

/* The query parameters that are leak options (router.c lists them). */
static const char *const leak_options[] = {
	"match", "from", "to", "warmup", "min_duration", "max_growth", "horizon", "limit",
	"inconclusive", "process", "max_count_growth", "exit_max_bytes",
};

static struct MHD_Response *leak_report(struct mw_req *r, bool as_check)
{
	struct MHD_Response *resp = NULL;
	struct mw_leak_query q;
	struct mw_err err = { "" };
	struct mw_reader *reader;
	struct mw_jbuf report;
	enum mw_verdict verdict = MW_VERDICT_INCONCLUSIVE;
	size_t i;
	unsigned status = 200;

	mw_jbuf_init(&report);
	mw_leak_query_init(&q);
	q.params = r->web->leak_params;
	q.threads = mw_cpu_count();	/* the page waits on it: every processor */
	for (i = 0; i < MW_ARRAY_SIZE(leak_options); i++) {
		const char *v = mw_req_arg(r, leak_options[i]);

		if (v && mw_leak_query_set(&q, leak_options[i], v, r->now_ms, &err)) {
			resp = mw_reply_error(r, MHD_HTTP_BAD_REQUEST, "%s: %s", leak_options[i],
					      err.msg);
			goto out;
		}
	}
	if (q.from_ms != INT64_MIN && q.to_ms != INT64_MAX && q.from_ms > q.to_ms) {
		resp = mw_reply_error(r, MHD_HTTP_BAD_REQUEST, "from: is after to");
		goto out;
	}
	if (!(reader = mw_req_reader(r, &resp)))
		goto out;
	if (mw_leak_report(reader, &q, &report, &verdict, &err)) {
		struct mw_err bare;
		const char *what = "match", *msg = err.msg;

		/* mw_reply_storage_error names the parameter itself, and tells
		 * a bad or empty selection (400) from a deadline or a storage
		 * fault (503) */
		if (!strncmp(msg, "match: ", 7)) {
			msg += 7;
		} else if (!strncmp(msg, "process: ", 9)) {
			what = "process";
			msg += 9;
		}
		snprintf(bare.msg, sizeof(bare.msg), "%s", msg);
		resp = mw_reply_storage_error(r, reader, what, &bare);
		mw_req_reader_put(r, reader);
		goto out;
	}
	mw_req_reader_put(r, reader);
	if (as_check) {
		switch (mw_leak_verdict_gate(verdict, q.inconclusive_passes)) {
		case MW_VERDICT_PASS:
			status = 200;
			break;
		case MW_VERDICT_FAIL:
			status = MHD_HTTP_PRECONDITION_FAILED;
			break;
		case MW_VERDICT_INCONCLUSIVE:
			status = MHD_HTTP_CONFLICT;
			break;
		}
	}
	mw_j_char(&report, '\n');
	resp = mw_reply_json(r, status, &report);
out:
	mw_jbuf_release(&report);
	mw_leak_query_release(&q);
	return resp;
}

struct MHD_Response *mw_h_leaks(struct mw_req *r)
{
	return leak_report(r, false);
}

struct MHD_Response *mw_h_check(struct mw_req *r)
{
	return leak_report(r, true);
}
