/*
 * process_spi.c - the pure parser of Windows's process list: the
 * SYSTEM_PROCESS_INFORMATION entries NtQuerySystemInformation returns
 * (process.h), with the UTF-16 image names (base/utf16.c) and FILETIME start
 * times in them.  process_win32.c makes the call; the parser is portable so tests
 * run it on constructed buffers on every platform (test_process_parse).
 */
#include "process.h"
#include "base/utf16.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint32_t rd32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t rd64(const unsigned char *p)
{
	return (uint64_t)rd32(p) | (uint64_t)rd32(p + 4) << 32;
}

static uint16_t rd16(const unsigned char *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

/* Divided first, in unsigned: any 64 bits a buffer holds convert without
 * overflow (fuzz_os_text: a FILETIME of 2^63 or more was undefined
 * behaviour); the epoch's offset is a whole number of milliseconds. */
int64_t mw_filetime_to_unix_ms(uint64_t ft)
{
	if (!ft)
		return 0;
	return (int64_t)(ft / 10000) - 11644473600000LL;
}

int mw_spi_parse(const unsigned char *buf, size_t len, uint64_t buf_addr,
		 struct mw_process_table *t, struct mw_err *err)
{
	size_t off = 0;
	size_t count = 0;

	t->nprocs = 0;
	for (;;) {
		const unsigned char *e = buf + off;
		struct mw_process_info *p;
		uint32_t next, name_len;
		uint64_t name_ptr, pid;

		if (len < MW_SPI_SIZE || off > len - MW_SPI_SIZE)
			return mw_error(err, "process entry %zu at offset %zu runs past the "
					"%zu-byte buffer", count, off, len);
		next = rd32(e + MW_SPI_NEXT);
		pid = rd64(e + MW_SPI_PID);
		if (pid > UINT32_MAX)
			return mw_error(err, "process entry %zu has an impossible pid %" PRIu64,
					count, pid);
		/* PID 0 entries without threads are ghosts, not the idle process. */
		if (pid != 0 || rd32(e + MW_SPI_THREADS) != 0) {
			p = mw_process_table_add(t);
			p->pid = (uint32_t)pid;
			p->ppid = (uint32_t)rd64(e + MW_SPI_PPID);
			p->threads = rd32(e + MW_SPI_THREADS);
			p->start_ms = mw_filetime_to_unix_ms(rd64(e + MW_SPI_CREATE_TIME));
			p->handles = rd32(e + MW_SPI_HANDLES);
			p->has_handles = true;
			p->virtual_bytes = rd64(e + MW_SPI_VIRTUAL);
			p->page_faults = rd32(e + MW_SPI_PAGE_FAULTS);
			p->working_set_peak_bytes = rd64(e + MW_SPI_PEAK_WS);
			p->working_set_bytes = rd64(e + MW_SPI_WS);
			p->private_bytes = rd64(e + MW_SPI_PAGEFILE);
			/* WorkingSetPrivateSize: a process with a working set has
			 * private pages (its stacks, its PEB); 0 beside a non-zero
			 * working set is a kernel that does not fill it (Wine). */
			p->private_ws_bytes = rd64(e + MW_SPI_PRIVATE_WS);
			p->has_private_ws = p->private_ws_bytes > 0 || p->working_set_bytes == 0;
			p->has_shareable_ws = p->has_private_ws &&
					      p->working_set_bytes >= p->private_ws_bytes;
			p->shareable_ws_bytes = p->has_shareable_ws ?
						p->working_set_bytes - p->private_ws_bytes : 0;
			name_len = rd16(e + MW_SPI_NAME_LEN);
			name_ptr = rd64(e + MW_SPI_NAME_BUF);
			if (name_len == 0 || name_ptr == 0) {
				snprintf(p->name, sizeof(p->name), "%s",
					 pid == 0 ? "Idle" : pid == 4 ? "System" : "");
			} else {
				uint64_t name_off = name_ptr - buf_addr;

				if (name_ptr < buf_addr || name_off > len || name_len > len - name_off ||
				    (name_len & 1))
					return mw_error(err, "process %" PRIu64 ": image name (%u bytes at "
							"0x%" PRIx64 ") lies outside the buffer",
							pid, name_len, name_ptr);
				mw_utf16le_decode(buf + name_off, name_len / 2, p->name,
						   sizeof(p->name));
			}
		}
		count++;
		if (next == 0)
			break;
		if (next < MW_SPI_SIZE)
			return mw_error(err, "process entry %zu: next offset %u is shorter than an "
					"entry", count - 1, next);
		off += next;
	}
	return 0;
}
