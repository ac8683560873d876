/*
 * process.h - the process collector: every process, every tick.
 *
 * Portable logic and the pure parsers live in process.c; the platform
 * reads the whole process table in one go: process_win32.c with one
 * NtQuerySystemInformation(SystemProcessInformation) call per tick,
 * process_linux.c from /proc.  A process is identified by pid plus start
 * time; the `started` label keeps a reused pid from continuing an old
 * process's series.
 */
#ifndef MW_COLLECTORS_PROCESS_H
#define MW_COLLECTORS_PROCESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "daemon/mwerr.h"

#define MW_PROCESS_NAME_MAX 128

struct mw_process_info {
	uint32_t pid;
	uint32_t ppid;
	int64_t start_ms;		/* wall clock, ms since the epoch; 0 unknown */
	char name[MW_PROCESS_NAME_MAX];	/* image name, UTF-8 */
	uint64_t working_set_bytes;
	uint64_t working_set_peak_bytes;
	uint64_t private_bytes;		/* commit charge (Linux: anon resident + swap) */
	uint64_t virtual_bytes;
	uint64_t page_faults;
	uint32_t handles;		/* handles (Windows) / open fds (Linux) */
	uint32_t threads;
	bool has_handles;		/* false: could not count them */
};

struct mw_process_table {
	struct mw_process_info *procs;
	size_t nprocs, cap;
	uint64_t inaccessible;		/* processes that could not be read */
};

void mw_process_table_release(struct mw_process_table *t);
/* Append a zeroed entry and return it. */
struct mw_process_info *mw_process_table_add(struct mw_process_table *t);

/* Platform: the reader keeps buffers between ticks. */
struct mw_process_reader;
struct mw_process_reader *mw_process_reader_new(void);
void mw_process_reader_free(struct mw_process_reader *r);
/* Replace t's contents with the current process table. */
int mw_process_table_read(struct mw_process_reader *r, struct mw_process_table *t,
			  struct mw_err *err);

/* --- pure parsers, tested on constructed input --------------------------- */

/* /proc/PID/stat: pid, comm, ppid, minflt+majflt, threads, starttime
 * (clock ticks since boot, returned in *start_ticks), vsize. */
int mw_proc_parse_stat(const char *text, struct mw_process_info *p,
		       uint64_t *start_ticks, struct mw_err *err);
/* /proc/PID/status: VmHWM, VmRSS, RssAnon, VmSwap (and Name when comm was
 * cut at 15 chars, we keep stat's). */
int mw_proc_parse_status(const char *text, struct mw_process_info *p, struct mw_err *err);

/* SYSTEM_PROCESS_INFORMATION (x64 layout) as NtQuerySystemInformation
 * returns it.  buf_addr is the address the buffer had when it was filled:
 * ImageName.Buffer points into it.  Every offset and length is checked. */
int mw_spi_parse(const unsigned char *buf, size_t len, uint64_t buf_addr,
		 struct mw_process_table *t, struct mw_err *err);

/* UTF-16LE (n code units) to UTF-8, NUL-terminated, cut at out_size;
 * unpaired surrogates become U+FFFD. */
void mw_utf16le_to_utf8(const unsigned char *in, size_t n, char *out, size_t out_size);

/* FILETIME (100 ns since 1601) to ms since the Unix epoch; 0 stays 0. */
int64_t mw_filetime_to_unix_ms(uint64_t ft);

/* SPI layout constants (x64), checked against the SDK in process_win32.c */
#define MW_SPI_NEXT 0x00
#define MW_SPI_THREADS 0x04
#define MW_SPI_CREATE_TIME 0x20
#define MW_SPI_NAME_LEN 0x38
#define MW_SPI_NAME_BUF 0x40
#define MW_SPI_PID 0x50
#define MW_SPI_PPID 0x58
#define MW_SPI_HANDLES 0x60
#define MW_SPI_VIRTUAL 0x78
#define MW_SPI_PAGE_FAULTS 0x80
#define MW_SPI_PEAK_WS 0x88
#define MW_SPI_WS 0x90
#define MW_SPI_PAGEFILE 0xB8
#define MW_SPI_SIZE 0x100

#endif
