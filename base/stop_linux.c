/*
 * stop_linux.c - stop.h with a self-pipe: a signal handler may only
 * write(), and poll() on the read end wakes any waiting thread at once.
 * The pipe is never drained, so every waiter sees the stop.
 */
#include "stop.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

static int stop_pipe[2] = { -1, -1 };
static atomic_bool stop_flag;

static void on_signal(int sig)
{
	int saved = errno;

	(void)sig;
	mw_stop_request();
	errno = saved;
}

int mw_stop_init(void)
{
	struct sigaction sa;

	if (stop_pipe[0] < 0) {
		if (pipe(stop_pipe))
			return -1;
		fcntl(stop_pipe[0], F_SETFD, FD_CLOEXEC);
		fcntl(stop_pipe[1], F_SETFD, FD_CLOEXEC);
		fcntl(stop_pipe[1], F_SETFL, O_NONBLOCK);
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);	/* a closed HTTP peer must not kill us */
	return 0;
}

void mw_stop_request(void)
{
	if (!atomic_exchange(&stop_flag, true) && stop_pipe[1] >= 0) {
		ssize_t r = write(stop_pipe[1], "x", 1);
		(void)r;
	}
}

bool mw_stop_requested(void)
{
	return atomic_load(&stop_flag);
}

bool mw_stop_wait(int64_t timeout_ms)
{
	struct pollfd pfd;

	if (atomic_load(&stop_flag))
		return true;
	if (stop_pipe[0] < 0)
		return false;
	pfd.fd = stop_pipe[0];
	pfd.events = POLLIN;
	if (timeout_ms > 1000000000)
		timeout_ms = 1000000000;
	if (timeout_ms < 0)
		timeout_ms = 0;
	(void)poll(&pfd, 1, (int)timeout_ms);
	return atomic_load(&stop_flag);
}

void mw_stop_reset(void)
{
	char buf[16];

	atomic_store(&stop_flag, false);
	if (stop_pipe[0] >= 0) {
		int fl = fcntl(stop_pipe[0], F_GETFL);
		fcntl(stop_pipe[0], F_SETFL, fl | O_NONBLOCK);
		while (read(stop_pipe[0], buf, sizeof(buf)) > 0)
			;
		fcntl(stop_pipe[0], F_SETFL, fl);
	}
}

void mw_stop_finished(void)
{
}

void mw_stop_set_service_mode(bool on)
{
	(void)on;
}
