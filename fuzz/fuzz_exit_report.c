/*
 * fuzz_exit_report.c - libFuzzer target for the exit leak report parsers
 * (core/exit_report_lsan.c, exit_report_umdh.c) and the detail record's
 * decoder (core/exit_report.c), which read files a program wrote at exit,
 * files a user imports and the writer's queue.
 *
 * The input is parsed as LeakSanitizer text and as UMDH text (exactly its
 * bytes, no NUL added: the parsers take a length); a report that parses
 * must keep the limits (stacks, frames) and survive encode -> decode
 * unchanged in its figures; the input is also decoded as a record.  Any
 * difference aborts, so the fuzzer reports it like a crash.  Built by
 * scripts/fuzz.sh.
 */
#include "fuzz/fuzz_input.h"

#include "core/exit_report.h"

static void same_after_round_trip(const struct mw_exit_report *r)
{
	struct mw_exit_report d;
	struct mw_err err;
	size_t len, i;
	void *enc;

	if (r->nstacks > MW_EXIT_MAX_STACKS || r->nblocks > MW_EXIT_MAX_BLOCKS)
		abort();
	for (i = 0; i < r->nstacks; i++)
		if (r->stacks[i].frames && strlen(r->stacks[i].frames) > MW_EXIT_MAX_FRAMES_BYTES)
			abort();
	for (i = 1; i < r->nstacks; i++)
		if (r->stacks[i].bytes > r->stacks[i - 1].bytes)
			abort();	/* largest first */
	enc = mw_exit_report_encode(r, &len);
	if (!mw_exit_report_decode(enc, len, &d, &err)) {
		fprintf(stderr, "a parsed report does not decode: %s\n", err.msg);
		abort();
	}
	if (d.bytes != r->bytes || d.leaks != r->leaks || d.nstacks != r->nstacks ||
	    d.complete != r->complete || d.pid != r->pid)
		abort();
	for (i = 0; i < d.nstacks; i++)
		if (d.stacks[i].bytes != r->stacks[i].bytes ||
		    strcmp(d.stacks[i].frames ? d.stacks[i].frames : "",
			   r->stacks[i].frames ? r->stacks[i].frames : ""))
			abort();
	mw_exit_report_release(&d);
	free(enc);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size ? size : 1);	/* exactly size bytes: ASan sees overreads */
	struct mw_exit_report r;
	struct mw_err err;

	if (!text)
		return 0;
	memcpy(text, data, size);
	if (mw_lsan_parse(text, size, &r, &err) == 0) {
		same_after_round_trip(&r);
		mw_exit_report_release(&r);
	}
	if (mw_umdh_parse(text, size, &r, &err) == 0) {
		same_after_round_trip(&r);
		mw_exit_report_release(&r);
	}
	if (mw_exit_report_decode(text, size, &r, &err))
		mw_exit_report_release(&r);
	free(text);
	return 0;
}
