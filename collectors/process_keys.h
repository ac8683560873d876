/*
 * process_keys.h - the process collector's series keys, formatted once
 * per process (pid, start time and name) and kept between ticks, so a
 * tick's samples go into the batch without formatting or sorting a label
 * (mw_batch_add_keyed).  process.c owns one cache per collector; one
 * thread: the collector's.
 */
#ifndef MW_COLLECTORS_PROCESS_KEYS_H
#define MW_COLLECTORS_PROCESS_KEYS_H

#include <stddef.h>
#include <stdint.h>
#include "process.h"
#include "core/batch.h"

/* The kind label of memwatch_process_resident_bytes, in the order of
 * kind_tail. */
extern const char *const mw_process_kind_names[3];

/* One process's keys. */
struct mw_process_key {
	uint32_t pid;		/* first: the cache is kept by pid (mw_pid_index) */
	int64_t start_ms;
	char *block;		/* owns the strings below */
	const char *pid_s, *started_s, *name;	/* the label values */
	const char *tail, *kind_tail[3];	/* `{pid="..",process="..",started=".."}`, and with kind */
	size_t tail_len, kind_len[3];
	uint64_t tail_id;	/* of tail; tail_id + 1 + i of kind_tail[i] */
#define MW_PROCESS_TAIL_IDS 4	/* ids taken per process: tail and 3 kind tails */
};

struct mw_process_key_list {
	struct mw_process_key *v;
	size_t n, cap;
};
struct mw_process_keys {
	struct mw_process_key_list cur;		/* last tick's, by pid */
	struct mw_process_key_list next;	/* this tick's, in table order */
};

/* A tick begins: room for nprocs processes' keys. */
void mw_process_keys_begin(struct mw_process_keys *k, size_t nprocs);
/* p's keys for this tick: last tick's if pid, start and name are the
 * same, else new.  Valid until the next tick's mw_process_keys_done. */
const struct mw_process_key *mw_process_keys_of(struct mw_process_keys *k,
						const struct mw_process_info *p);
/* The tick ends: its keys become the cache, the others are freed, and
 * the series of each process not seen this tick are ended in b
 * (mw_batch_end_tails; b may be NULL). */
void mw_process_keys_done(struct mw_process_keys *k, struct mw_batch *b);
void mw_process_keys_release(struct mw_process_keys *k);

#endif
