/* clock_step.c - see clock_step.h. */
#include "clock_step.h"

#include <pthread.h>
#include <stdio.h>

#include "clock.h"
#include "log.h"
#include "units.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static bool have_prev;
static int64_t prev_wall_ms, prev_elapsed_ns;
static uint64_t nsteps;
static struct mw_clock_step last;

int64_t mw_clock_step_of(int64_t wall_delta_ms, int64_t elapsed_delta_ns)
{
	int64_t elapsed_ms = elapsed_delta_ns / 1000000;
	int64_t diff = wall_delta_ms - elapsed_ms;
	int64_t tolerance = elapsed_ms / 100 > 1000 ? elapsed_ms / 100 : 1000;

	return diff > tolerance || -diff > tolerance ? diff : 0;
}

uint64_t mw_clock_step_poll(void)
{
	int64_t wall = mw_clock_wall_ms(), elapsed = mw_clock_elapsed_ns(), step = 0;
	uint64_t n;

	pthread_mutex_lock(&lock);
	if (have_prev)
		step = mw_clock_step_of(wall - prev_wall_ms, elapsed - prev_elapsed_ns);
	if (step) {
		last = (struct mw_clock_step){
			step, wall, elapsed, wall - (elapsed - prev_elapsed_ns) / 1000000 };
		nsteps++;
	}
	have_prev = true;
	prev_wall_ms = wall;
	prev_elapsed_ns = elapsed;
	n = nsteps;
	pthread_mutex_unlock(&lock);
	if (step) {
		char how[64];

		/* to the second: the step is known to within the polls' jitter */
		mw_format_duration(how, sizeof(how), ((step > 0 ? step : -step) + 500) / 1000 * 1000);
		mw_log_warn("clock: the wall clock stepped %s by %s; samples carry the new time, "
			    "%s", step > 0 ? "forward" : "back", how,
			    step > 0 ? "a leak judgement needs its minimum duration of data "
				       "after the step"
				     : "remote write holds back points stamped after the present "
				       "until their time comes");
	}
	return n;
}

bool mw_clock_step_last(struct mw_clock_step *out)
{
	bool any;

	pthread_mutex_lock(&lock);
	any = nsteps > 0;
	if (any)
		*out = last;
	pthread_mutex_unlock(&lock);
	return any;
}
