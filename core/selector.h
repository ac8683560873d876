/*
 * selector.h - Prometheus-style series selectors and the small regular
 * expression matcher behind =~ and !~ (syntax in query.h).
 *
 * Why our own matcher: MinGW has no <regex.h>, and one implementation on
 * both platforms means the same selector selects the same series on
 * Linux and Windows.  Patterns compile to a Thompson NFA program that is
 * simulated state-set by state-set (a Pike VM without captures, RE2's
 * approach), so a match costs at most len(text) x len(program) steps
 * whatever the pattern: `.*.*.*x` cannot blow up.  Patterns are limited
 * to MW_REGEX_MAX_PATTERN bytes and MW_REGEX_MAX_PROG instructions.
 *
 * Pure code, any thread; a parsed selector is read-only while matching.
 */
#ifndef MW_CORE_SELECTOR_H
#define MW_CORE_SELECTOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "core/batch.h"
#include "base/mwerr.h"

struct mw_regex;

#define MW_REGEX_MAX_PATTERN 256
#define MW_REGEX_MAX_PROG 1024

/* Compile a pattern (fully anchored); -1 with a message quoting it. */
int mw_regex_compile(struct mw_regex **out, const char *pattern, struct mw_err *err);
bool mw_regex_match(const struct mw_regex *re, const char *text);
/* The same, adding the work done (instructions visited) to *steps (may be
 * NULL): never more than (strlen(text) + 1) * 2 * program size. */
bool mw_regex_match_steps(const struct mw_regex *re, const char *text, uint64_t *steps);
/* Instructions in the compiled program. */
size_t mw_regex_program_size(const struct mw_regex *re);
void mw_regex_free(struct mw_regex *re);

enum mw_match_op { MW_MATCH_EQ, MW_MATCH_NE, MW_MATCH_RE, MW_MATCH_NRE };

struct mw_matcher {
	char *label;		/* "__name__" matches the metric name */
	char *value;		/* unescaped */
	enum mw_match_op op;
	struct mw_regex *re;	/* for RE and NRE */
};

struct mw_selector {
	char *name;		/* NULL: any metric */
	struct mw_matcher *m;
	size_t n;
};

/* Parse "name{a="x",b=~"y"}"; NULL or "" gives the match-all selector.
 * -1 with a message quoting the text and the offending position. */
int mw_selector_parse(struct mw_selector *sel, const char *text, struct mw_err *err);
void mw_selector_release(struct mw_selector *sel);
/* Does the series (labels sorted or not) match?  A missing label is "". */
bool mw_selector_match(const struct mw_selector *sel, const char *name,
		       const struct mw_label *labels, size_t nlabels);

#endif
