/*
 * forwarder.h - send the stored points to Prometheus remote-write
 * receivers ([remote_write.NAME] sections), from a durable cursor.
 *
 * One thread per destination, each with its own read-only storage
 * connection (storage/query.h), its own small read-write connection for
 * the cursor table (cursor.h) and its own HTTP client (rw_transport.h):
 * sampling and the writer never wait for it, and one slow receiver never
 * holds up another.  Memory per destination: one batch of `batch_size`
 * samples and the list of selected series, whatever the backlog.
 *
 * What is sent: the raw points of the selected series (select.h) newer
 * than each series' cursor, oldest first across series (a time window at
 * a time, so receivers that refuse samples older than their head see the
 * backlog in order), as committed by the writer.  Why a cursor per series
 * and no global time watermark: a point reaches the database up to a flush
 * interval (and a sampling round) after its timestamp, and series appear
 * at any time; per series, the writer appends in timestamp order, so a
 * point committed later is always newer than the series' cursor -- a late
 * point or a late series is never skipped.  (A wall clock stepped back
 * gives a series points older than its cursor: those are not sent, as a
 * receiver would refuse them as out of order anyway.)
 *
 * After a request: 2xx advances the cursors of its series; 5xx, 429, no
 * answer and endpoint errors (401, 403, 404 ...) retry the same batch with
 * backoff and jitter (backoff.h), the cursor staying; other 4xx log the
 * receiver's message, count the batch as skipped and advance.  Status per
 * destination goes to the status table (core/status.h).
 *
 * Owned by the forwarder (forward/).
 */
#ifndef MW_FORWARD_FORWARDER_H
#define MW_FORWARD_FORWARDER_H

#include <stddef.h>

#include "core/config.h"
#include "base/mwerr.h"
#include "core/status.h"

struct mw_forwarder;

/* Check every [remote_write.NAME] of cfg and start one thread each; *out
 * is NULL when there is none.  -1 with a message naming
 * remote_write.NAME.key for a setting that cannot work (no url, a token
 * file that cannot be read, token and basic user both set, a bad URL).
 * The database must exist (start the writer first). */
int mw_forwarder_start(struct mw_forwarder **out, const struct mw_config *cfg,
		       struct mw_status_table *status, struct mw_err *err);
/* Stop the threads (a request in flight ends at its timeout) and free.
 * NULL is allowed. */
void mw_forwarder_stop(struct mw_forwarder *f);

/* Tests only: every request goes to hook instead of the network (set
 * before mw_forwarder_start, cleared after mw_forwarder_stop).  It gets the
 * batch as series (encoded too, but not sent) and returns the HTTP status
 * to act on (0: no answer), with res->message filled as the transport would. */
struct mw_rw_series;
struct mw_rw_result;
typedef int (*mw_rw_post_hook)(void *arg, const char *destination,
			       const struct mw_rw_series *series, size_t n,
			       struct mw_rw_result *res);
void mw_forwarder_set_post_hook(mw_rw_post_hook hook, void *arg);

#endif
