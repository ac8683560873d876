/*
 * stepper_linux.h - what the Linux step-on-command helpers share
 * (heaphog_linux.c, wsdemo_linux.c): a program that reads one step a line
 * from stdin, answers each with a line on stdout, and keeps the threads
 * it starts parked until the end.  Header-only: each helper is built
 * alone as one program.
 */
#ifndef MW_TESTS_HELPERS_STEPPER_LINUX_H
#define MW_TESTS_HELPERS_STEPPER_LINUX_H

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A started thread posts this once it holds what it was started for. */
static sem_t started;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t quit_cond = PTHREAD_COND_INITIALIZER;
static int quitting;
/* Reads land here so the compiler keeps them. */
static volatile unsigned char sink;

/* The step failed: say so on stdout (the caller reads it) and exit 1. */
static void die(const char *what)
{
	fprintf(stdout, "error %s: %s\n", what, strerror(errno));
	fflush(stdout);
	exit(1);
}

/* A started thread parks here until stepper_quit. */
static void wait_quit(void)
{
	pthread_mutex_lock(&lock);
	while (!quitting)
		pthread_cond_wait(&quit_cond, &lock);
	pthread_mutex_unlock(&lock);
}

/* Wake every parked thread (the caller then joins them). */
static void stepper_quit(void)
{
	pthread_mutex_lock(&lock);
	quitting = 1;
	pthread_cond_broadcast(&quit_cond);
	pthread_mutex_unlock(&lock);
}

typedef const char *(*zlib_version_fn)(void);

/* Load libz.so.1 and call zlibVersion, so a shared library's pages are
 * mapped and touched.  zlibVersion, or NULL with why ("dlopen: REASON" or
 * "dlsym: zlibVersion") in why. */
static zlib_version_fn stepper_dlopen_zlib(char *why, size_t size)
{
	void *h = dlopen("libz.so.1", RTLD_NOW);
	zlib_version_fn ver;

	if (!h) {
		snprintf(why, size, "dlopen: %s", dlerror());
		return NULL;
	}
	*(void **)&ver = dlsym(h, "zlibVersion");
	if (!ver) {
		snprintf(why, size, "dlsym: zlibVersion");
		return NULL;
	}
	sink = (unsigned char)ver()[0];
	return ver;
}

#endif
