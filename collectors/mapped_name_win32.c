/*
 * mapped_name_win32.c - the Win32 calls behind mapped_name.h: the mount
 * manager's volume table and the mapped file's name with a growing buffer
 * (NtQueryVirtualMemory's MemoryMappedFilenameInformation, the call
 * GetMappedFileNameW makes, because it says when the name did not fit).
 * The workingset reader (workingset_win32.c) names image and mapped
 * allocations with these; the translation itself is mapped_name.c's.
 */
#include "mapped_name.h"

#include <windows.h>
#include <winternl.h>
#include <psapi.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"

/* UTF-16 (n units, or -1: NUL-terminated) to allocated UTF-8; NULL on failure. */
static char *to_utf8(const WCHAR *w, int n)
{
	int len = WideCharToMultiByte(CP_UTF8, 0, w, n, NULL, 0, NULL, NULL);
	char *s;

	if (len <= 0)
		return NULL;
	s = mw_xmalloc((size_t)len + 1);
	if (!WideCharToMultiByte(CP_UTF8, 0, w, n, s, len, NULL, NULL)) {
		free(s);
		return NULL;
	}
	s[len] = '\0';
	return s;
}

static void add(struct mw_mount_table *t, char *device, char *root)
{
	MW_GROW(t->m, t->cap, t->n + 1);
	t->m[t->n].device = device;
	t->m[t->n++].root = root;
}

/* The root to name one volume by ("\\?\Volume{...}\"), UTF-8; NULL when
 * it is not mounted anywhere. */
static char *volume_root(const WCHAR *vol)
{
	DWORD need = 0;
	WCHAR *paths;
	char *u, *root = NULL;
	const char *choice;
	size_t len = 0;

	if (GetVolumePathNamesForVolumeNameW(vol, NULL, 0, &need) || need == 0 ||
	    GetLastError() != ERROR_MORE_DATA)
		return NULL;
	paths = mw_xcalloc(need + 1, sizeof(WCHAR));
	if (GetVolumePathNamesForVolumeNameW(vol, paths, need, &need)) {
		/* the list is NUL-separated, an empty string last */
		while (len + 1 < need && (paths[len] || paths[len + 1]))
			len++;
		u = to_utf8(paths, (int)len + 2);
		if (u && (choice = mw_volume_root_choice(u)) != NULL)
			root = mw_xstrdup(choice);
		free(u);
	}
	free(paths);
	return root;
}

void mw_mount_table_read(struct mw_mount_table *t)
{
	WCHAR vol[MAX_PATH], dev[MAX_PATH];
	HANDLE f;

	mw_mount_table_release(t);
	f = FindFirstVolumeW(vol, MAX_PATH);
	if (f != INVALID_HANDLE_VALUE) {
		do {
			size_t n = wcslen(vol);
			char *root;

			/* "\\?\Volume{...}\": QueryDosDeviceW wants "Volume{...}" */
			if (n < 6 || vol[n - 1] != L'\\')
				continue;
			root = volume_root(vol);
			vol[n - 1] = 0;
			if (root && QueryDosDeviceW(vol + 4, dev, MAX_PATH)) {
				char *d = to_utf8(dev, -1);

				if (d) {
					add(t, d, root);
					root = NULL;
				}
			}
			free(root);
		} while (FindNextVolumeW(f, vol, MAX_PATH));
		FindVolumeClose(f);
	}
	if (t->n)
		return;
	/* No volume list (restricted token, odd system): the drive letters
	 * of the global namespace, never the session's own. */
	for (int i = 0; i < 26; i++) {
		WCHAR name[10] = L"Global\\X:";
		char root[4] = { (char)('A' + i), ':', '\\', 0 }, *d;

		name[7] = (WCHAR)(L'A' + i);
		if (QueryDosDeviceW(name, dev, MAX_PATH) && (d = to_utf8(dev, -1)) != NULL)
			add(t, d, mw_xstrdup(root));
	}
}

void mw_mount_table_release(struct mw_mount_table *t)
{
	for (size_t i = 0; i < t->n; i++) {
		free((char *)t->m[i].device);
		free((char *)t->m[i].root);
	}
	free(t->m);
	memset(t, 0, sizeof(*t));
}

struct name_call {
	HANDLE h;
	LPVOID addr;
};

typedef LONG(NTAPI *query_vm_fn)(HANDLE, PVOID, int, PVOID, SIZE_T, PSIZE_T);
#define MEMORY_MAPPED_FILENAME_INFORMATION 2
#define STATUS_BUFFER_OVERFLOW_ ((LONG)0x80000005)

/* The name through NtQueryVirtualMemory(MemoryMappedFilenameInformation),
 * which GetMappedFileNameW wraps: it answers STATUS_BUFFER_OVERFLOW when
 * the name does not fit, where GetMappedFileNameW cuts it silently
 * (Windows) or fails at every buffer size past about MAX_PATH (Wine 8:
 * ERROR_MORE_DATA).  Full: returns cap, so the buffer is grown. */
static size_t get_name_nt(query_vm_fn q, struct name_call *c, void *buf, size_t cap)
{
	size_t bytes = sizeof(UNICODE_STRING) + cap * sizeof(WCHAR);
	unsigned char *raw = mw_xmalloc(bytes);
	SIZE_T ret = 0;
	LONG st = q(c->h, c->addr, MEMORY_MAPPED_FILENAME_INFORMATION, raw, bytes, &ret);
	size_t len = 0;

	if (st == STATUS_BUFFER_OVERFLOW_) {
		len = cap;
	} else if (st >= 0) {
		const UNICODE_STRING *u = (const UNICODE_STRING *)raw;

		len = u->Length / sizeof(WCHAR);
		if (len >= cap)
			len = cap;	/* cannot happen: asked again, larger */
		else
			memcpy(buf, u->Buffer, len * sizeof(WCHAR));
		((WCHAR *)buf)[len < cap ? len : cap - 1] = 0;
	}
	free(raw);
	return len;
}

static size_t get_name(void *ctx, void *buf, size_t cap)
{
	static query_vm_fn q;
	static bool looked;

	if (!looked) {	/* only the collector thread names files */
		q = (query_vm_fn)(void (*)(void))GetProcAddress(GetModuleHandleA("ntdll.dll"),
								 "NtQueryVirtualMemory");
		looked = true;
	}
	if (q)
		return get_name_nt(q, ctx, buf, cap);
	return GetMappedFileNameW(((struct name_call *)ctx)->h, ((struct name_call *)ctx)->addr, buf,
				  (DWORD)cap);
}

char *mw_mapped_file_name(void *process, uint64_t addr, const struct mw_mount_table *t)
{
	struct name_call c = { process, (LPVOID)(uintptr_t)addr };
	void *buf = NULL;
	size_t cap = 0, len;
	bool cut;
	char *nt, *out = NULL;

	len = mw_read_grown_name(get_name, &c, &buf, &cap, &cut);
	nt = len ? to_utf8(buf, (int)len) : NULL;
	free(buf);
	if (!nt)
		return NULL;
	if (cut) {
		/* never a cut path as if whole: marked, and not translated */
		out = mw_xmalloc(strlen(nt) + sizeof(MW_NAME_TRUNCATED_MARK));
		strcpy(out, nt);
		strcat(out, MW_NAME_TRUNCATED_MARK);
	} else {
		size_t size = strlen(nt) + MAX_PATH * 3;

		out = mw_xmalloc(size);
		if (!mw_nt_path_to_dos(nt, t ? t->m : NULL, t ? t->n : 0, out, size))
			strcpy(out, nt);
	}
	free(nt);
	return out;
}
