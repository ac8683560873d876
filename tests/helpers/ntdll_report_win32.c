/*
 * ntdll_report_win32.c - a program that prints ntdll's exit leak report
 * (what RtlDetectHeapLeaks prints with ShutdownFlags = 1, which Wine's
 * ntdll does not do) and exits normally, for tests/test_exit_leaks_win32.c.
 *
 *   ntdll_report_win32.exe EXIT_CODE
 *
 * Prints "ready PID" on stdout, waits for a line on stdin (the test says
 * when: after memwatch attached, or after it detached), then sends the
 * report through DbgPrint with ntdll's own calls (the "HEAP[name]: "
 * prefix and each row's "\n" as calls of their own), one unrelated
 * OutputDebugStringA line first, and returns EXIT_CODE from main (a
 * normal exit, ExitProcess).  Before printing it raises an exception of
 * its own that its vectored handler handles: a debugger that swallowed it
 * (continued it as handled) would keep the handler from running, and the
 * helper then exits with 99 instead.  The blocks are fixed so the test knows the
 * exact figures: 3 leaks, 100 + 4096 + 200 = 4396 bytes.
 */
#include <windows.h>
#include <stdio.h>
#include <stdlib.h>

/* ntdll's; MinGW's headers declare it only for drivers */
ULONG __cdecl DbgPrint(const char *format, ...);

static const struct {
	unsigned long long entry, heap, size;
} BLOCKS[] = {
	{ 0x000001F2A3B40010ull, 0x1f2a3b00000ull, 100 },
	{ 0x000001F2A3B40200ull, 0x1f2a3b00000ull, 4096 },
	{ 0x000001F2A3C00050ull, 0x1f2a3c00000ull, 200 },
};

#define OWN_EXCEPTION 0xE0004D57UL

static volatile LONG handled;

static LONG CALLBACK own_handler(EXCEPTION_POINTERS *e)
{
	if (e->ExceptionRecord->ExceptionCode != OWN_EXCEPTION)
		return EXCEPTION_CONTINUE_SEARCH;
	InterlockedIncrement(&handled);
	return EXCEPTION_CONTINUE_EXECUTION;
}

int main(int argc, char **argv)
{
	int code = argc > 1 ? atoi(argv[1]) : 0;
	const char *name = "ntdll_report_win32.exe";
	char line[64];

	printf("ready %lu\n", (unsigned long)GetCurrentProcessId());
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		return 100;
	AddVectoredExceptionHandler(1, own_handler);
	RaiseException(OWN_EXCEPTION, 0, 0, NULL);
	if (handled != 1)
		code = 99;
	OutputDebugStringA("ntdll_report: not a report line\n");
	DbgPrint("HEAP[%s]: ", name);
	DbgPrint("Inspecting leaks at process shutdown ...\n");
	DbgPrint("Below is a list of potentially leaked heap entries \n"
		 "use !heap -i Entry -h Heap for more information\n\n");
	DbgPrint("Entry     Heap              Size       \n");
	DbgPrint("---------------------------------------\n");
	for (size_t i = 0; i < sizeof(BLOCKS) / sizeof(BLOCKS[0]); i++) {
		/* ntdll prints %p, %-16Ix, %Id; the same text for x64 */
		DbgPrint("%016I64X  %-16I64x  %I64u", BLOCKS[i].entry, BLOCKS[i].heap, BLOCKS[i].size);
		DbgPrint("\n");
	}
	DbgPrint("HEAP[%s]: ", name);
	DbgPrint("%ld leaks detected.\n", (long)(sizeof(BLOCKS) / sizeof(BLOCKS[0])));
	printf("printed\n");
	fflush(stdout);
	return code;
}
