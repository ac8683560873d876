/*
 * process.h - the process collector: every process, every tick.
 *
 * The collector and its samples live in process.c, its PSS scheduler in
 * process_pss.c, its series keys in process_keys.c, the table in
 * process_table.c; the platform reads the whole process table in one go:
 * process_win32.c with one NtQuerySystemInformation
 * (SystemProcessInformation) call per tick, parsed by the pure
 * process_spi.c, and process_linux.c from /proc, parsed by the pure
 * process_procfs.c.  A process is identified by pid plus start
 * time; the `started` label keeps a reused pid from continuing an old
 * process's series.
 *
 * Cadences on Linux (process_linux.c; Windows has every figure every tick
 * from its one call):
 *   every tick         working set, private working set (RssAnon), private
 *                      bytes' anon part, virtual size, threads, page
 *                      faults, resident anon and file+shmem together
 *                      (stat and statm, through descriptors kept open)
 *   status_interval    (10 s) VmHWM, VmSwap, the file/shmem split; carried
 *                      forward between reads (the peak also rises with
 *                      every resident figure seen)
 *   handles_interval   (30 s) the open-fd count
 *   pss_interval       PSS/USS on their time budget (process_pss.c)
 * A process seen for the first time gets everything read at once.
 */
#ifndef MW_COLLECTORS_PROCESS_H
#define MW_COLLECTORS_PROCESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "base/mwerr.h"

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
	/* Resident memory by kind (Linux /proc/PID/status RssAnon, RssFile,
	 * RssShmem) and swap (VmSwap); has_kinds / has_swap false: the lines
	 * were missing (kernel thread, kernel before 4.5), not zero. */
	uint64_t rss_anon_bytes, rss_file_bytes, rss_shmem_bytes;
	uint64_t swap_bytes;
	bool has_kinds, has_swap;
	/* Private working set: Windows WorkingSetPrivateSize (Task Manager's
	 * "Memory (private working set)"); Linux RssAnon. */
	uint64_t private_ws_bytes;
	bool has_private_ws;
	/* Windows: the working set less its private part, the shareable
	 * pages resident (images, mapped files, pagefile-backed sections):
	 * where a shared-memory leak shows (has_shareable_ws with
	 * has_private_ws; Linux has RssShmem by kind instead). */
	uint64_t shareable_ws_bytes;
	bool has_shareable_ws;
	/* PSS / USS (Linux smaps_rollup), filled by the collector from its
	 * budgeted reads; has_pss false: not read (yet). */
	uint64_t pss_bytes, uss_bytes;
	bool has_pss;
	/* Linux: the private writable address space (statm's data: data,
	 * heap, anonymous mappings, stacks), which resident private memory
	 * can only fill (analysis/leak_bound.c); has_data false: not read. */
	uint64_t data_bytes;
	bool has_data;
	uint64_t start_ticks;		/* Linux: stat's starttime (identity with pid) */
};

struct mw_process_table {
	struct mw_process_info *procs;
	size_t nprocs, cap;
	uint64_t inaccessible;		/* processes that could not be read */
};

void mw_process_table_release(struct mw_process_table *t);
/* Append a zeroed entry and return it. */
struct mw_process_info *mw_process_table_add(struct mw_process_table *t);

/* Arrays kept by pid (the collector's PSS scheduler and key cache):
 * entries of stride bytes, each beginning with its uint32_t pid.
 * mw_pid_index: where pid is in v (sorted by pid), or n when absent.
 * mw_pid_sort: sort v by pid (cheap when it already is). */
size_t mw_pid_index(const void *v, size_t n, size_t stride, uint32_t pid);
void mw_pid_sort(void *v, size_t n, size_t stride);

/* Platform: the reader keeps buffers (and, on Linux, the names it found
 * per pid and start time) between ticks. */
struct mw_process_reader;
struct mw_process_reader *mw_process_reader_new(void);
/* Linux: read a /proc-like tree at proc_root (tests, benchmarks); NULL or
 * other platforms: the real one. */
struct mw_process_reader *mw_process_reader_new_at(const char *proc_root);
void mw_process_reader_free(struct mw_process_reader *r);
/* Replace t's contents with the current process table. */
int mw_process_table_read(struct mw_process_reader *r, struct mw_process_table *t,
			  struct mw_err *err);
/* The same at a given monotonic time (tests drive the cadences). */
int mw_process_table_read_at(struct mw_process_reader *r, struct mw_process_table *t,
			     int64_t now_ns, struct mw_err *err);
/* Linux: how often status and the open-fd count are read per process,
 * and stat at the least when statm did not move (ms; 0: every read).
 * Defaults 10 s, 30 s and 10 s.  No-op elsewhere. */
void mw_process_reader_set_cadence(struct mw_process_reader *r, int64_t status_ms,
				   int64_t handles_ms, int64_t stat_ms);
/* Linux: at most this many processes keep descriptors open (tests; the
 * default follows the descriptor limit).  No-op elsewhere. */
void mw_process_reader_set_fd_cap(struct mw_process_reader *r, size_t max_procs);
/* What the last read did (Linux; zeros elsewhere). */
struct mw_process_read_stats {
	size_t kept;		/* processes holding descriptors now */
	size_t opened;		/* processes whose descriptors were opened */
	size_t status_reads;	/* status files read */
	size_t status_still;	/* status due, put off: statm as at its last read */
	size_t stat_reads;	/* stat files read */
	size_t stat_skipped;	/* processes whose statm had not moved: stat carried */
	size_t handle_counts;	/* open-fd counts taken */
	bool scanned;		/* /proc was listed (else: no new pid since) */
};
void mw_process_reader_stats(const struct mw_process_reader *r,
			     struct mw_process_read_stats *out);
/* PSS and USS of one process (Linux /proc/PID/smaps_rollup; Windows
 * QueryWorkingSet, each page over its share count).  0: read;
 * 1: not available (gone, not permitted, no smaps_rollup, QueryWorkingSet
 * refused, as under Wine) - absent, not an error. */
int mw_process_pss_read(struct mw_process_reader *r, uint32_t pid, uint64_t *pss,
			uint64_t *uss);
/* What mw_process_pss_read reads, for the status line: "smaps_rollup",
 * "QueryWorkingSet". */
const char *mw_process_pss_source(void);

/* What the process collector's PSS reads cost on its last tick. */
struct mw_process_pss_stats {
	size_t read;		/* smaps_rollup files read */
	size_t unchanged;	/* due, but their resident set did not move */
	size_t waiting;		/* due, but the budget ran out */
	size_t paused;		/* left out for a while: their read was slow */
	size_t slow;		/* reads this tick over the slow limit */
	size_t known;		/* processes with PSS figures */
	int64_t spent_ns;	/* time the reads took */
};

/* The process collector's tick (mw_collector_process.sample) at a given
 * monotonic time: benchmarks drive the cadences with it. */
struct mw_sample_ctx;
int mw_process_sample_at(void *state, struct mw_sample_ctx *ctx, int64_t now_ns);
/* Its samples for a given table, without reading one (no PSS either):
 * the part both platforms share, for benchmarks and tests. */
int mw_process_sample_table(void *state, struct mw_sample_ctx *ctx,
			    const struct mw_process_table *t);

/* --- pure parsers, tested on constructed input --------------------------- */

/* /proc/PID/stat: pid, comm, ppid, minflt+majflt, threads, starttime
 * (clock ticks since boot, returned in *start_ticks), vsize. */
int mw_proc_parse_stat(const char *text, struct mw_process_info *p,
		       uint64_t *start_ticks, struct mw_err *err);
/* /proc/PID/status: VmHWM, VmRSS, RssAnon, RssFile, RssShmem, VmSwap,
 * VmData + VmStk (the data figure statm has). */
int mw_proc_parse_status(const char *text, struct mw_process_info *p, struct mw_err *err);
/* /proc/PID/statm: the first three fields (size, resident, shared), and
 * the sixth (data) into *data (0 when the line stops before it), in pages. */
int mw_proc_parse_statm(const char *text, uint64_t *size, uint64_t *resident,
			uint64_t *shared, uint64_t *data, struct mw_err *err);
/* This tick's statm figures (bytes) over p, which holds the last status
 * read's: resident is the working set (the peak rises to it); resident -
 * shared is RssAnon (the kernel's shared is RssFile + RssShmem), so the
 * private working set and private bytes (anon + the carried VmSwap) are
 * exact; shared is split between file and shmem keeping the last shmem
 * figure (at most shared).  data (0: unknown) is the private writable
 * address space. */
void mw_proc_apply_statm(struct mw_process_info *p, uint64_t resident, uint64_t shared,
			 uint64_t data);
/* /proc/PID/smaps_rollup: Pss, and USS = Private_Clean + Private_Dirty.
 * -1 without a Pss line. */
int mw_proc_parse_smaps_rollup(const char *text, uint64_t *pss, uint64_t *uss,
			       struct mw_err *err);
/* The image name from /proc/PID/exe's target: its basename, less the
 * kernel's " (deleted)" suffix.  false: nothing usable (also a program run
 * from a memfd, "/memfd:LABEL (deleted)": its argv[0] names it). */
bool mw_proc_exe_name(const char *target, char *out, size_t size);
/* The image name from /proc/PID/cmdline (len bytes, NUL-separated): the
 * basename of argv[0], used only if it agrees with comm (starts with it;
 * comm is the first 15 bytes of the name exec gave) - a process that
 * rewrote its argv (setproctitle: "sshd: user@pts/0") keeps comm - or if
 * comm is a memfd's ("memfd:LABEL": the program was run from one).
 * Returns true if argv[0] was used, false if out got comm. */
bool mw_proc_cmdline_name(const char *cmdline, size_t len, const char *comm, char *out,
			  size_t size);

/* SYSTEM_PROCESS_INFORMATION (x64 layout) as NtQuerySystemInformation
 * returns it.  buf_addr is the address the buffer had when it was filled:
 * ImageName.Buffer points into it.  Every offset and length is checked. */
int mw_spi_parse(const unsigned char *buf, size_t len, uint64_t buf_addr,
		 struct mw_process_table *t, struct mw_err *err);

/* FILETIME (100 ns since 1601) to ms since the Unix epoch; 0 stays 0. */
int64_t mw_filetime_to_unix_ms(uint64_t ft);

/* SPI layout constants (x64), checked against the SDK in process_win32.c */
#define MW_SPI_NEXT 0x00
#define MW_SPI_THREADS 0x04
#define MW_SPI_PRIVATE_WS 0x08	/* WorkingSetPrivateSize (Vista+; SDK: Reserved[0]) */
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
