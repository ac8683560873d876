/*
 * process_keys.c - the process collector's cache of series keys
 * (process_keys.h).  Why: a process keeps its pid, start and name for
 * life, and formatting and sorting its labels for every sample cost
 * several times what adding the samples does (bench_process: "old
 * emission" against "new emission").
 */
#include "process_keys.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/batch.h"
#include "base/xalloc.h"

const char *const mw_process_kind_names[3] = { "anon", "file", "shmem" };

/* Build k's strings for process p: "pid", "started", the name, the key
 * tail `{pid="..",process="..",started=".."}` and the three with kind. */
static void keys_build(struct mw_process_key *k, const struct mw_process_info *p)
{
	char pid_s[16], started_s[24];
	struct mw_label l[4] = {
		{ "kind", NULL }, { "pid", pid_s }, { "process", p->name }, { "started", started_s },
	};
	size_t len[4], total = 0, i;
	char *at;

	snprintf(pid_s, sizeof(pid_s), "%" PRIu32, p->pid);
	snprintf(started_s, sizeof(started_s), "%" PRId64, p->start_ms / 1000);
	len[0] = strlen(pid_s);
	len[1] = strlen(started_s);
	len[2] = strlen(p->name);
	len[3] = mw_series_key_format(NULL, 0, "", l + 1, 3);
	for (i = 0; i < 4; i++)
		total += len[i] + 1;
	{	/* the kind tails differ only in the kind's length */
		size_t kl[3];

		for (i = 0; i < 3; i++) {
			l[0].value = mw_process_kind_names[i];
			kl[i] = mw_series_key_format(NULL, 0, "", l, 4);
			total += kl[i] + 1;
		}
		free(k->block);
		k->block = at = mw_xmalloc(total);
		k->pid_s = at;
		memcpy(at, pid_s, len[0] + 1);
		at += len[0] + 1;
		k->started_s = at;
		memcpy(at, started_s, len[1] + 1);
		at += len[1] + 1;
		k->name = at;
		memcpy(at, p->name, len[2] + 1);
		at += len[2] + 1;
		k->tail = at;
		k->tail_len = len[3];
		mw_series_key_format(at, len[3] + 1, "", l + 1, 3);
		at += len[3] + 1;
		for (i = 0; i < 3; i++) {
			l[0].value = mw_process_kind_names[i];
			k->kind_tail[i] = at;
			k->kind_len[i] = kl[i];
			mw_series_key_format(at, kl[i] + 1, "", l, 4);
			at += kl[i] + 1;
		}
	}
	k->pid = p->pid;
	k->start_ms = p->start_ms;
	k->tail_id = mw_batch_tail_ids(MW_PROCESS_TAIL_IDS);
}

void mw_process_keys_begin(struct mw_process_keys *k, size_t nprocs)
{
	MW_GROW(k->next.v, k->next.cap, nprocs + 1);
	k->next.n = 0;
}

const struct mw_process_key *mw_process_keys_of(struct mw_process_keys *k,
						const struct mw_process_info *p)
{
	struct mw_process_key *e = &k->next.v[k->next.n++];
	size_t at = mw_pid_index(k->cur.v, k->cur.n, sizeof(*k->cur.v), p->pid);
	struct mw_process_key *old = at < k->cur.n ? &k->cur.v[at] : NULL;

	memset(e, 0, sizeof(*e));
	if (old && old->block && old->start_ms == p->start_ms && !strcmp(old->name, p->name)) {
		*e = *old;
		old->block = NULL;	/* moved */
		return e;
	}
	keys_build(e, p);
	return e;
}

void mw_process_keys_done(struct mw_process_keys *k, struct mw_batch *b)
{
	struct mw_process_key_list old = k->cur;

	for (size_t i = 0; i < old.n; i++) {
		/* not moved to this tick: the process ended (or is a new one
		 * under its pid), so its tails get no more points */
		if (old.v[i].block && b)
			mw_batch_end_tails(b, old.v[i].tail_id, MW_PROCESS_TAIL_IDS);
		free(old.v[i].block);
	}
	mw_pid_sort(k->next.v, k->next.n, sizeof(*k->next.v));
	k->cur = k->next;
	k->next = old;		/* the spare for the next tick */
	k->next.n = 0;
}

void mw_process_keys_release(struct mw_process_keys *k)
{
	for (size_t i = 0; i < k->cur.n; i++)
		free(k->cur.v[i].block);
	free(k->cur.v);
	free(k->next.v);
	memset(k, 0, sizeof(*k));
}
