/*
 * fuzz_params.c - libFuzzer target for the value parsers every HTTP query
 * argument and config value goes through: times (core/params.c: epoch
 * ms, RFC 3339, "now-15m"), durations, integers, the raw-value check, and
 * base/units.c's sizes, growth budgets and shares.  Whatever a client
 * puts in ?from= or ?max_growth= gets a value or an error that says why
 * (a message, never a crash, overflow or undefined behaviour).
 *
 * The input is checked as a raw value, then parsed whole by each parser;
 * a budget or share that parses must format back to text that parses to
 * the same value.  Built by scripts/fuzz.sh.
 */
#include <math.h>

#include "fuzz/fuzz_input.h"

#include "base/units.h"
#include "core/params.h"

/* -1 must come with a message */
static void said_why(int rc, const struct mw_err *err)
{
	if (rc != 0 && !err->msg[0])
		abort();
}

static void budget_round_trip(const char *s)
{
	struct mw_err err = { "" };
	double bph, rel, bph2, rel2;
	char text[64];

	if (mw_parse_growth_budget(s, &bph, &rel, &err) != 0) {
		said_why(-1, &err);
		return;
	}
	mw_format_growth_budget(text, sizeof(text), bph, rel);
	if (mw_parse_growth_budget(text, &bph2, &rel2, &err) != 0)
		abort();
	/* the format keeps a few digits: within 0.1 % */
	if (fabs(bph2 - bph) > 1e-3 * fabs(bph) + 1.0 || fabs(rel2 - rel) > 1e-3 * fabs(rel) + 1e-9)
		abort();
}

static void share_round_trip(const char *s)
{
	struct mw_err err = { "" };
	double share, again;
	char text[64];

	if (mw_parse_share(s, &share, &err) != 0) {
		said_why(-1, &err);
		return;
	}
	if (!(share >= 0.0 && share <= 1.0))
		abort();
	mw_format_share(text, sizeof(text), share);
	if (mw_parse_share(text, &again, &err) != 0 || fabs(again - share) > 1e-3 * share + 1e-9)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_string(data, size);
	struct mw_err err = { "" };
	int64_t v;
	uint64_t bytes;

	if (!s)
		return 0;
	said_why(mw_param_check((const char *)data, size, 4096, &err), &err);
	err.msg[0] = '\0';
	said_why(mw_param_time(s, 1700000000000LL, &v, &err), &err);
	err.msg[0] = '\0';
	said_why(mw_param_duration(s, &v, &err), &err);
	err.msg[0] = '\0';
	said_why(mw_param_int(s, -1000, INT64_MAX, &v, &err), &err);
	err.msg[0] = '\0';
	said_why(mw_parse_duration_ms(s, &v, &err), &err);
	err.msg[0] = '\0';
	said_why(mw_parse_size(s, &bytes, &err), &err);
	budget_round_trip(s);
	share_round_trip(s);
	free(s);
	return 0;
}
