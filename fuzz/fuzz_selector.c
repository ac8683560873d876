/*
 * fuzz_selector.c - libFuzzer target for the series selector and its
 * regular expressions (core/selector.c), which read what a client puts in
 * ?match= and what a config file says in [remote_write] match.
 *
 * The whole input is parsed as a selector; one that parses is matched
 * against a few series.  The input is also split at its first newline into
 * a pattern and a text: a pattern that compiles is matched against the
 * text and must keep the documented bound on its work (instructions
 * visited <= (strlen(text) + 1) * 2 * program size); breaking it aborts,
 * so the fuzzer reports it like a crash.  Built by scripts/fuzz.sh.
 */
#include "fuzz/fuzz_input.h"

#include "core/selector.h"

static void match_series(const struct mw_selector *sel)
{
	static const struct mw_label some[] = {
		{ "pid", "42" }, { "process", "memwatchd.exe" }, { "started", "1700000000000" },
	};
	static const struct mw_label odd[] = { { "", "" }, { "process", "a\"b\\c{d}" } };

	(void)mw_selector_match(sel, "memwatch_process_private_bytes", some, 3);
	(void)mw_selector_match(sel, "", odd, 2);
	(void)mw_selector_match(sel, "x", NULL, 0);
}

static void regex_bounded(const char *input)
{
	const char *nl = strchr(input, '\n');
	char *pattern = nl ? strndup(input, (size_t)(nl - input)) : strdup(input);
	const char *text = nl ? nl + 1 : "";
	struct mw_regex *re;
	struct mw_err err;
	uint64_t steps = 0;

	if (pattern && mw_regex_compile(&re, pattern, &err) == 0) {
		(void)mw_regex_match_steps(re, text, &steps);
		if (steps > (uint64_t)(strlen(text) + 1) * 2 * mw_regex_program_size(re)) {
			fprintf(stderr, "regex work %llu over its bound for /%s/ on %zu bytes\n",
				(unsigned long long)steps, pattern, strlen(text));
			abort();
		}
		mw_regex_free(re);
	}
	free(pattern);
}

/* A selector that parses is matched against a few series. */
static void selector_matches(const char *input)
{
	struct mw_selector sel;
	struct mw_err err;

	if (mw_selector_parse(&sel, input, &err) == 0) {
		match_series(&sel);
		mw_selector_release(&sel);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *input = fuzz_string(data, size);

	if (input) {
		selector_matches(input);
		regex_bounded(input);
	}
	free(input);
	return 0;
}
