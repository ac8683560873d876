/*
 * mapped_name.h - the file behind a mapped or image allocation as a DOS
 * path, pure: GetMappedFileNameW's NT path ("\Device\HarddiskVolume3\x")
 * turned into "C:\x" through a table of mounts, and the name read with a
 * buffer grown until it is whole.  workingset_win32.c builds the table
 * and makes the calls; tests/test_mapped_name.c feeds constructed tables
 * and fake calls.
 *
 * Which device map: the mount manager's (FindFirstVolumeW, QueryDosDeviceW
 * of the volume name, GetVolumePathNamesForVolumeNameW), which is the same
 * for every logon session.  QueryDosDeviceW of each drive letter answers
 * from the caller's session's DosDevices first: a drive a user mapped or
 * defined (net use, subst, DefineDosDevice) exists only in that session,
 * so the service (session 0) and a console daemon would name one file
 * differently, or a per-session letter would name a volume the service
 * cannot see.  Network files ("\Device\Mup\srv\share\x", or through the
 * redirector's per-session "\;Z:..." component) become UNC paths
 * ("\\srv\share\x"), which mean the same in every session.
 */
#ifndef MW_COLLECTORS_MAPPED_NAME_H
#define MW_COLLECTORS_MAPPED_NAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One mounted volume: its NT device ("\Device\HarddiskVolume3") and
 * where it is mounted ("C:\", or a folder "C:\mnt\data\"). */
struct mw_dos_mount {
	const char *device;
	const char *root;
};

/* nt as a DOS path into out (at most size bytes): "\??\C:\x", "\\?\C:\x"
 * and "\DosDevices\C:\x" lose their prefix; Mup and redirector paths
 * become UNC; otherwise the mount whose device is the longest
 * whole-component prefix of nt (case-insensitive) gives its root.
 * false (out unchanged) when nothing matches or out is too small. */
bool mw_nt_path_to_dos(const char *nt, const struct mw_dos_mount *mounts, size_t n, char *out,
		       size_t size);

/* Of a volume's mount points (GetVolumePathNamesForVolumeNameW's list,
 * UTF-8, each NUL-terminated, an empty one last), the one to name it by:
 * the first drive letter ("D:\"), else the first folder; NULL when none. */
const char *mw_volume_root_choice(const char *paths);

/* A name read with a buffer grown until it fits.  get(ctx, buf, cap)
 * fills buf (cap 16-bit units) and returns the length it copied, 0 when
 * it failed.  A result of cap - 1 or more may be cut short (Windows
 * truncates to the buffer; Wine returns the whole length and
 * ERROR_INSUFFICIENT_BUFFER), so the call is made again with twice the
 * buffer, up to MW_NAME_MAX_UNITS.  *buf / *cap: the caller's buffer,
 * grown here (free it).  Returns the length (units, no NUL; buf
 * terminated), 0 on failure; *truncated when even the largest buffer was
 * full: the name in buf is cut and must not be stored as if whole. */
#define MW_NAME_FIRST_UNITS 260
#define MW_NAME_MAX_UNITS 32768	/* the longest NT path (UNICODE_STRING) */
size_t mw_read_grown_name(size_t (*get)(void *ctx, void *buf, size_t cap), void *ctx,
			  void **buf, size_t *cap, bool *truncated);

/* Marked so a cut name is never taken for a whole one. */
#define MW_NAME_TRUNCATED_MARK " (name truncated)"

/* --- Windows (mapped_name_win32.c) ------------------------------------- */

/* The mount manager's volumes: device and chosen root of each (owned). */
struct mw_mount_table {
	struct mw_dos_mount *m;
	size_t n, cap;
};
/* Fill t (replacing it): every volume FindFirstVolumeW lists, its device
 * from QueryDosDeviceW("Volume{...}") and its root from
 * GetVolumePathNamesForVolumeNameW; when the volume list cannot be read,
 * QueryDosDeviceW("Global\X:") of each letter (the global namespace, not
 * the caller's session). */
void mw_mount_table_read(struct mw_mount_table *t);
void mw_mount_table_release(struct mw_mount_table *t);
/* The file mapped at addr in process (a HANDLE with QUERY_INFORMATION),
 * UTF-8, as a DOS path when t knows its volume, else as GetMappedFileNameW
 * gave it; a name cut even at the largest buffer ends in
 * MW_NAME_TRUNCATED_MARK.  Allocated (free it); NULL when none. */
char *mw_mapped_file_name(void *process, uint64_t addr, const struct mw_mount_table *t);

#endif
