/* conn_guard.c - see conn_guard.h. */
#include "conn_guard.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include "base/clock.h"
#include "base/log.h"
#include "base/socket_end.h"
#include "base/worker.h"
#include "base/xalloc.h"
#include "base/thread_name.h"

/* The sweep sleeps until the first waiting head is due (and a little
 * past it, so one pass finds it due); with none waiting, until a
 * connection starts to wait, or IDLE_MS at the most.  It used to wake
 * every 500 ms whether or not anyone was connected: 2 % of the daemon's
 * CPU beside 300 processes, for nothing. */
#define SLACK_MS 5
#define IDLE_MS 60000

struct tracked {
	struct tracked *prev, *next;
	MHD_socket fd;
	int64_t head_since_ns;	/* waiting for a request head since; 0: not waiting */
	bool shut;
};

struct mw_conn_guard {
	struct mw_worker w;	/* its lock guards the list too */
	const struct mw_mhd_api *mhd;
	int64_t timeout_ns;
	struct tracked *list;
	uint64_t closed;
};

static struct tracked *tracked_of(struct mw_conn_guard *g, struct MHD_Connection *conn)
{
	const union MHD_ConnectionInfo *ci =
		g->mhd->get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);

	return ci ? ci->socket_context : NULL;
}

void mw_conn_guard_notify(void *cls, struct MHD_Connection *conn, void **socket_context,
			  enum MHD_ConnectionNotificationCode code)
{
	struct mw_conn_guard *g = cls;
	struct tracked *t;

	if (!g)
		return;
	if (code == MHD_CONNECTION_NOTIFY_STARTED) {
		const union MHD_ConnectionInfo *ci =
			g->mhd->get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);

		t = mw_xcalloc(1, sizeof(*t));
		t->fd = ci ? ci->connect_fd : MHD_INVALID_SOCKET;
		t->head_since_ns = mw_clock_mono_ns();
		pthread_mutex_lock(&g->w.lock);
		t->next = g->list;
		if (g->list)
			g->list->prev = t;
		g->list = t;
		mw_worker_wake(&g->w);	/* its deadline may be the first */
		pthread_mutex_unlock(&g->w.lock);
		*socket_context = t;
		return;
	}
	/* MHD_CONNECTION_NOTIFY_CLOSED: before MHD closes the socket, so the
	 * sweep never shuts down a descriptor that was reused. */
	t = *socket_context;
	if (!t)
		return;
	pthread_mutex_lock(&g->w.lock);
	if (t->prev)
		t->prev->next = t->next;
	else
		g->list = t->next;
	if (t->next)
		t->next->prev = t->prev;
	pthread_mutex_unlock(&g->w.lock);
	free(t);
	*socket_context = NULL;
}

void mw_conn_guard_head_done(struct mw_conn_guard *g, struct MHD_Connection *conn)
{
	struct tracked *t;

	if (!g || !(t = tracked_of(g, conn)))
		return;
	pthread_mutex_lock(&g->w.lock);
	t->head_since_ns = 0;
	pthread_mutex_unlock(&g->w.lock);
}

void mw_conn_guard_request_done(struct mw_conn_guard *g, struct MHD_Connection *conn)
{
	struct tracked *t;

	if (!g || !(t = tracked_of(g, conn)))
		return;
	pthread_mutex_lock(&g->w.lock);
	t->head_since_ns = mw_clock_mono_ns();
	mw_worker_wake(&g->w);
	pthread_mutex_unlock(&g->w.lock);
}

uint64_t mw_conn_guard_closed(struct mw_conn_guard *g)
{
	uint64_t n;

	if (!g)
		return 0;
	pthread_mutex_lock(&g->w.lock);
	n = g->closed;
	pthread_mutex_unlock(&g->w.lock);
	return n;
}

static void *sweep_main(void *arg)
{
	struct mw_conn_guard *g = arg;

	mw_thread_set_name("mw-connguard");
	pthread_mutex_lock(&g->w.lock);
	while (!g->w.stopping) {
		int64_t now = mw_clock_mono_ns(), next = INT64_MAX;
		struct tracked *t;

		for (t = g->list; t; t = t->next) {
			if (t->shut || !t->head_since_ns || t->fd == MHD_INVALID_SOCKET)
				continue;
			if (now - t->head_since_ns < g->timeout_ns) {
				if (t->head_since_ns + g->timeout_ns < next)
					next = t->head_since_ns + g->timeout_ns;
				continue;
			}
			/* MHD sees end of file and closes the connection itself. */
			mw_socket_end((uintptr_t)t->fd);
			t->shut = true;
			g->closed++;
		}
		mw_worker_wait(&g->w, next == INT64_MAX ? IDLE_MS :
				      (next - now) / 1000000 + SLACK_MS);
	}
	pthread_mutex_unlock(&g->w.lock);
	return NULL;
}

struct mw_conn_guard *mw_conn_guard_start(int64_t header_timeout_ms,
					  const struct mw_mhd_api *mhd)
{
	struct mw_conn_guard *g = mw_xcalloc(1, sizeof(*g));

	g->mhd = mhd;
	g->timeout_ns = header_timeout_ms * 1000000;
	if (mw_worker_start(&g->w, sweep_main, g)) {
		mw_log_error("web: cannot start the slow-client guard thread");
		mw_conn_guard_stop(g);
		return NULL;
	}
	return g;
}

void mw_conn_guard_stop(struct mw_conn_guard *g)
{
	struct tracked *t, *next;

	if (!g)
		return;
	mw_worker_stop(&g->w);
	for (t = g->list; t; t = next) {
		next = t->next;
		free(t);
	}
	free(g);
}
