/*
 * wsdemo_win32.c - a process whose working set changes one step per line
 * read on stdin, for the Wine end-to-end test of the workingset collector.
 *
 *   wsdemo_win32.exe [dir]      (dir: where the mapped file goes; default .)
 *
 * Prints "ready PID" at start, then for each line:
 *   "dll"      LoadLibrary("dbghelp.dll")          -> "dll 0xBASE PATH"
 *   "map"      creates DIR\wsdemo-PID.bin (1 MB), CreateFileMapping +
 *              MapViewOfFile, touches every page   -> "map 0xVIEW PATH"
 *   "threads"  4 threads that wait on one event    -> "threads 4"
 *   "heap"     HeapCreate + 4000 x 1 KB HeapAlloc, and 2000 x 1 KB from
 *              the process heap, all written       -> "heap 0xHEAP N"
 * Unknown lines: "unknown LINE".  At end of input it sets the event,
 * joins the threads, unmaps and deletes the file, and exits.  The test
 * waits for each answer: no sleeps as synchronisation.
 */
#include <windows.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NTHREADS 4

static HANDLE stop_event;

static DWORD WINAPI blocked(LPVOID arg)
{
	(void)arg;
	WaitForSingleObject(stop_event, INFINITE);
	return 0;
}

int main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : ".";
	char line[64], path[MAX_PATH] = "";
	HANDLE threads[NTHREADS], file = INVALID_HANDLE_VALUE, map = NULL;
	int nthreads = 0, i;
	void *view = NULL;

	stop_event = CreateEventA(NULL, TRUE, FALSE, NULL);
	printf("ready %lu\n", (unsigned long)GetCurrentProcessId());
	fflush(stdout);
	while (fgets(line, sizeof(line), stdin)) {
		line[strcspn(line, "\r\n")] = '\0';
		if (!strcmp(line, "dll")) {
			HMODULE m = LoadLibraryA("dbghelp.dll");
			char p[MAX_PATH] = "";

			if (m)
				GetModuleFileNameA(m, p, sizeof(p));
			printf("dll %p %s\n", (void *)m, p);
		} else if (!strcmp(line, "map") && !view) {
			DWORD w;
			static char page[4096];

			snprintf(path, sizeof(path), "%s\\wsdemo-%lu.bin", dir,
				 (unsigned long)GetCurrentProcessId());
			file = CreateFileA(path, GENERIC_READ | GENERIC_WRITE, 0, NULL, CREATE_ALWAYS,
					   FILE_ATTRIBUTE_TEMPORARY, NULL);
			memset(page, 'w', sizeof(page));
			for (i = 0; file != INVALID_HANDLE_VALUE && i < 256; i++)
				WriteFile(file, page, sizeof(page), &w, NULL);
			if (file != INVALID_HANDLE_VALUE)
				map = CreateFileMappingA(file, NULL, PAGE_READWRITE, 0, 0, NULL);
			if (map)
				view = MapViewOfFile(map, FILE_MAP_WRITE, 0, 0, 0);
			for (i = 0; view && i < 256; i++)
				((volatile char *)view)[i * 4096] += 1;
			if (!GetFullPathNameA(path, sizeof(path), path, NULL))
				path[0] = '\0';
			printf("map %p %s\n", view, path);
		} else if (!strcmp(line, "threads")) {
			while (nthreads < NTHREADS &&
			       (threads[nthreads] = CreateThread(NULL, 0, blocked, NULL, 0, NULL)))
				nthreads++;
			printf("threads %d\n", nthreads);
		} else if (!strcmp(line, "heap")) {
			HANDLE h = HeapCreate(0, 0, 0);
			HANDLE ph = GetProcessHeap();
			int n = 0;

			for (i = 0; h && i < 4000; i++) {
				char *p = HeapAlloc(h, 0, 1024);

				if (p) {
					memset(p, 'h', 1024);
					n++;
				}
			}
			for (i = 0; i < 2000; i++) {
				char *p = HeapAlloc(ph, 0, 1024);

				if (p) {
					memset(p, 'p', 1024);
					n++;
				}
			}
			printf("heap %p %d\n", (void *)h, n);
		} else {
			printf("unknown %s\n", line);
		}
		fflush(stdout);
	}
	SetEvent(stop_event);
	WaitForMultipleObjects((DWORD)nthreads, threads, TRUE, 10000);
	if (view)
		UnmapViewOfFile(view);
	if (map)
		CloseHandle(map);
	if (file != INVALID_HANDLE_VALUE) {
		CloseHandle(file);
		DeleteFileA(path);
	}
	return 0;
}
