/*
 * exit_leaks.c - GET /api/v1/exit-leaks?process=&from=&to=&limit=: the
 * exit leak reports whose run exited in [from, to] (default: all), newest
 * first, limit (default 100, at most 1000):
 *
 *   {"reports":[{"id":7,"process":"app","pid":4242,"started_ms":…|null,
 *     "exited_ms":…,"source":"lsan","complete":true,"leaks":3,"bytes":4396,
 *     "blocks":[{"entry":"0x…","heap":"0x…","size":64},…],
 *     "stacks":[{"bytes":4096,"count":1,"indirect":false,
 *                "frames":["#0 0x… in malloc …",…]},…]}],
 *    "more":false}
 *
 * blocks (ntdll's list) largest first; stacks (LeakSanitizer, UMDH)
 * by bytes, largest first.  Written with base/json_out.h.
 */
#include "exit_leaks.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/params.h"
#include "storage/exit_reports.h"
#include "storage/query.h"
#include "web_internal.h"

#define DEFAULT_LIMIT 100
#define MAX_LIMIT 1000

static void j_hex(struct mw_jbuf *b, uint64_t v)
{
	char hex[24];

	snprintf(hex, sizeof(hex), "0x%" PRIx64, v);
	mw_j_str(b, hex);
}

static int by_size_desc(const void *a, const void *b)
{
	const struct mw_exit_block *x = *(const struct mw_exit_block *const *)a;
	const struct mw_exit_block *y = *(const struct mw_exit_block *const *)b;

	if (x->size != y->size)
		return x->size < y->size ? 1 : -1;
	return x->entry < y->entry ? -1 : x->entry > y->entry;
}

static void j_blocks(struct mw_jbuf *b, const struct mw_exit_report *r)
{
	const struct mw_exit_block **order = NULL;
	size_t i;

	mw_j_lit(b, ",\"blocks\":[");
	if (r->nblocks) {
		order = calloc(r->nblocks, sizeof(*order));
		if (!order)
			abort();
		for (i = 0; i < r->nblocks; i++)
			order[i] = &r->blocks[i];
		qsort(order, r->nblocks, sizeof(*order), by_size_desc);
	}
	for (i = 0; i < r->nblocks; i++) {
		mw_j_lit(b, i ? ",{\"entry\":" : "{\"entry\":");
		j_hex(b, order[i]->entry);
		mw_j_lit(b, ",\"heap\":");
		j_hex(b, order[i]->heap);
		mw_j_lit(b, ",\"size\":");
		mw_j_uint(b, order[i]->size);
		mw_j_char(b, '}');
	}
	free(order);
	mw_j_char(b, ']');
}

static void j_stacks(struct mw_jbuf *b, const struct mw_exit_report *r)
{
	size_t i;

	mw_j_lit(b, ",\"stacks\":[");
	for (i = 0; i < r->nstacks; i++) {
		const struct mw_exit_stack *s = &r->stacks[i];
		const char *p = s->frames ? s->frames : "";
		bool first = true;

		mw_j_lit(b, i ? ",{\"bytes\":" : "{\"bytes\":");
		mw_j_uint(b, s->bytes);
		mw_j_lit(b, ",\"count\":");
		mw_j_uint(b, s->count);
		mw_j_lit(b, ",\"indirect\":");
		mw_j_bool(b, s->indirect);
		mw_j_lit(b, ",\"frames\":[");
		while (*p) {
			size_t n = strcspn(p, "\n");

			if (n) {
				if (!first)
					mw_j_char(b, ',');
				mw_j_strn(b, p, n);
				first = false;
			}
			p += n;
			if (*p)
				p++;
		}
		mw_j_lit(b, "]}");
	}
	mw_j_char(b, ']');
}

static void j_report(struct mw_jbuf *b, const struct mw_exit_report_row *row)
{
	const struct mw_exit_report *r = &row->r;

	mw_j_lit(b, "{\"id\":");
	mw_j_int(b, row->id);
	mw_j_lit(b, ",\"process\":");
	mw_j_str(b, r->process ? r->process : "");
	mw_j_lit(b, ",\"pid\":");
	mw_j_int(b, r->pid);
	mw_j_lit(b, ",\"started_ms\":");
	if (r->started_ms)
		mw_j_int(b, r->started_ms);
	else
		mw_j_null(b);
	mw_j_lit(b, ",\"exited_ms\":");
	mw_j_int(b, r->exited_ms);
	mw_j_lit(b, ",\"source\":");
	mw_j_str(b, mw_exit_source_name(r->source));
	mw_j_lit(b, ",\"complete\":");
	mw_j_bool(b, r->complete);
	mw_j_lit(b, ",\"leaks\":");
	mw_j_uint(b, r->leaks);
	mw_j_lit(b, ",\"bytes\":");
	mw_j_uint(b, r->bytes);
	j_blocks(b, r);
	j_stacks(b, r);
	mw_j_char(b, '}');
}

struct MHD_Response *mw_h_exit_leaks(struct mw_req *r)
{
	struct MHD_Response *resp;
	struct mw_exit_report_list list = { 0 };
	struct mw_err err = { "" };
	struct mw_reader *reader;
	struct mw_jbuf b;
	int64_t from = INT64_MIN, to = INT64_MAX, n;
	size_t limit = DEFAULT_LIMIT, i;
	const char *v, *process = mw_req_arg(r, "process");

	if ((v = mw_req_arg(r, "from")) && mw_param_time(v, r->now_ms, &from, &err))
		return mw_reply_error(r, MHD_HTTP_BAD_REQUEST, "from: %s", err.msg);
	if ((v = mw_req_arg(r, "to")) && mw_param_time(v, r->now_ms, &to, &err))
		return mw_reply_error(r, MHD_HTTP_BAD_REQUEST, "to: %s", err.msg);
	if (from > to)
		return mw_reply_error(r, MHD_HTTP_BAD_REQUEST, "from: is after to");
	if ((v = mw_req_arg(r, "limit"))) {
		if (mw_param_int(v, 1, MAX_LIMIT, &n, &err))
			return mw_reply_error(r, MHD_HTTP_BAD_REQUEST, "limit: %s", err.msg);
		limit = (size_t)n;
	}
	if (process && !*process)
		process = NULL;
	if (!(reader = mw_req_reader(r, &resp)))
		return resp;
	if (mw_reader_exit_reports(reader, process, from, to, limit, &list, &err)) {
		resp = mw_reply_storage_error(r, reader, "process", &err);
		mw_req_reader_put(r, reader);
		return resp;
	}
	mw_req_reader_put(r, reader);
	mw_jbuf_init(&b);
	mw_j_lit(&b, "{\"reports\":[");
	for (i = 0; i < list.n; i++) {
		if (i)
			mw_j_char(&b, ',');
		j_report(&b, &list.items[i]);
	}
	mw_j_lit(&b, "],\"more\":");
	mw_j_bool(&b, list.more);
	mw_j_lit(&b, "}\n");
	resp = mw_reply_json(r, 200, &b);
	mw_jbuf_release(&b);
	mw_exit_report_list_release(&list);
	return resp;
}
