/*
 * select.h - which stored series a remote-write destination sends: its
 * `match` list (core/config.c) turned into selectors for the reader
 * (storage/query.h), with the keyword `watched` expanded from the
 * [daemon] watch list.
 *
 * `watched` becomes one selector per watch entry that finds a superset
 * through the label index ({pid="N"} for pids and self, a case-insensitive
 * {process=~"..."} for image names), and each series found is then
 * checked exactly with mw_watch_match(), as the detail collectors select
 * processes.  A pid entry (and self) follows the pid: after a restart the
 * daemon's own process series of the previous run are no longer selected
 * by `self`.
 *
 * Owned by the forwarder (forward/).  Pure apart from mw_self_pid().
 */
#ifndef MW_FORWARD_SELECT_H
#define MW_FORWARD_SELECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "core/watch.h"
#include "base/mwerr.h"
#include "storage/query.h"

struct mw_rw_select {
	char **selectors;	/* for mw_reader_find */
	bool *watched;		/* per selector: filter with the watch list */
	size_t n, cap;
	struct mw_watch watch;
	uint32_t self_pid;
};

/* -1 with a message on a bad selector or watch entry. */
int mw_rw_select_init(struct mw_rw_select *s, const char *match, const char *const *watch,
		      size_t nwatch, uint32_t self_pid, struct mw_err *err);
void mw_rw_select_release(struct mw_rw_select *s);
/* Does series `info`, found by selector i, belong to the selection? */
bool mw_rw_select_keep(const struct mw_rw_select *s, size_t i, const struct mw_series_info *info);

/* A regular expression (query.h syntax, no backslashes) matching at least
 * every image name the glob selects case-insensitively, also with a
 * suffix (".exe").  Malloc'd. */
char *mw_rw_glob_regex(const char *glob);

#endif
