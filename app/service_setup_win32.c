/*
 * service_setup_win32.c - recovery, description and preshutdown time-out
 * of the memwatch service, and its firewall rule (see service_setup.h).
 *
 * The firewall rule goes through netsh, run by CreateProcess from the
 * system folder, rather than INetFwPolicy2 over COM: it is the command an
 * administrator can read in docs/windows.md, repeat or undo by hand, it
 * needs no COM apartment in a command that otherwise has none, and its
 * failure (the firewall service stopped, a policy that forbids local rules)
 * comes with netsh's own explanation on the console.  Wine's netsh is a
 * stub that accepts any command; its hnetcfg has no rule collection either.
 */
#include <windows.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "service_setup.h"
#include "service_args.h"
#include "base/utf8_wide.h"

#define NETSH_WAIT_MS 60000
#define NETSH_LINE_MAX 8192

int mw_service_setup(void)
{
	SC_ACTION restart[3] = {
		{ SC_ACTION_RESTART, 5000 },
		{ SC_ACTION_RESTART, 10000 },
		{ SC_ACTION_RESTART, 60000 },
	};
	SERVICE_FAILURE_ACTIONSW failure = { MW_RECOVERY_RESET_S, NULL, NULL, 3, restart };
	/* A stop with an exit code (a database it cannot open, a port taken)
	 * counts as a failure, not only a crash. */
	SERVICE_FAILURE_ACTIONS_FLAG non_crash = { TRUE };
	SERVICE_PRESHUTDOWN_INFO preshutdown = { MW_PRESHUTDOWN_MS };
	SERVICE_DESCRIPTIONW description = { (LPWSTR)L"" MW_SERVICE_DESCRIPTION };
	SC_HANDLE scm, svc;
	int rc = 0;

	scm = OpenSCManagerW(NULL, NULL, SC_MANAGER_CONNECT);
	if (!scm) {
		fprintf(stderr, "memwatchd: cannot open the service manager: error %lu "
				"(run as Administrator)\n", GetLastError());
		return -1;
	}
	/* SERVICE_START: a restart action needs it on the handle */
	svc = OpenServiceW(scm, L"" MW_SERVICE_NAME, SERVICE_CHANGE_CONFIG | SERVICE_START);
	if (!svc) {
		fprintf(stderr, "memwatchd: no service '" MW_SERVICE_NAME "': error %lu\n",
			GetLastError());
		CloseServiceHandle(scm);
		return -1;
	}
	if (!ChangeServiceConfig2W(svc, SERVICE_CONFIG_DESCRIPTION, &description)) {
		fprintf(stderr, "memwatchd: cannot set the service's description: error %lu\n",
			GetLastError());
		rc = -1;
	}
	if (!ChangeServiceConfig2W(svc, SERVICE_CONFIG_FAILURE_ACTIONS, &failure)) {
		fprintf(stderr, "memwatchd: cannot set the service's recovery (restart on "
				"failure): error %lu\n", GetLastError());
		rc = -1;
	}
	/* Windows has it since Vista; Wine's SCM does not know the level
	 * (ERROR_INVALID_LEVEL): a restart after a crash still stands. */
	if (!ChangeServiceConfig2W(svc, SERVICE_CONFIG_FAILURE_ACTIONS_FLAG, &non_crash))
		fprintf(stderr, "memwatchd: warning: a stop with an error code will not restart "
				"the service, only a crash will: error %lu\n", GetLastError());
	if (!ChangeServiceConfig2W(svc, SERVICE_CONFIG_PRESHUTDOWN_INFO, &preshutdown)) {
		fprintf(stderr, "memwatchd: cannot set the service's preshutdown time-out: "
				"error %lu\n", GetLastError());
		rc = -1;
	}
	if (!rc)
		printf("recovery: restart after 5 s, 10 s, 60 s (count reset after a day); "
		       "preshutdown time-out %d s\n", MW_PRESHUTDOWN_MS / 1000);
	CloseServiceHandle(svc);
	CloseServiceHandle(scm);
	return rc;
}

/* Run netsh with the arguments in line (UTF-8, already quoted).  quiet:
 * its output goes to NUL.  Returns its exit code, or -1 (with *why) when it
 * could not be run or did not finish. */
static long run_netsh(const char *line, int quiet, DWORD *why)
{
	WCHAR sysdir[MAX_PATH], app[MAX_PATH + 16], *wline, *cmd;
	STARTUPINFOW si;
	PROCESS_INFORMATION pi;
	SECURITY_ATTRIBUTES inherit = { sizeof(inherit), NULL, TRUE };
	HANDLE nul = INVALID_HANDLE_VALUE;
	DWORD flags = 0, code = 0;
	UINT n = GetSystemDirectoryW(sysdir, MAX_PATH);
	size_t len;
	BOOL ok;

	*why = 0;
	memset(&si, 0, sizeof(si));
	si.cb = sizeof(si);
	if (!n || n >= MAX_PATH) {
		*why = GetLastError();
		return -1;
	}
	/* From the system folder by its full name: never a netsh.exe that
	 * happens to sit in the current folder or on PATH. */
	swprintf(app, MW_ARRAY_SIZE(app), L"%ls\\netsh.exe", sysdir);
	if (!(wline = mw_utf8_to_wide(line))) {
		*why = ERROR_INVALID_PARAMETER;
		return -1;
	}
	len = wcslen(app) + wcslen(wline) + 4;
	cmd = malloc(len * sizeof(WCHAR));
	if (!cmd) {
		free(wline);
		*why = ERROR_OUTOFMEMORY;
		return -1;
	}
	swprintf(cmd, len, L"\"%ls\" %ls", app, wline);
	free(wline);
	if (quiet) {
		nul = CreateFileW(L"NUL", GENERIC_READ | GENERIC_WRITE, 0, &inherit,
				  OPEN_EXISTING, 0, NULL);
		si.dwFlags = STARTF_USESTDHANDLES;
		si.hStdInput = si.hStdOutput = si.hStdError = nul;
	}
	/* Without a console of ours (the MSI's custom action), no window. */
	if (quiet || !GetConsoleWindow())
		flags |= CREATE_NO_WINDOW;
	ok = CreateProcessW(app, cmd, NULL, NULL, TRUE, flags, NULL, NULL, &si, &pi);
	if (!ok)
		*why = GetLastError();
	free(cmd);
	if (nul != INVALID_HANDLE_VALUE)
		CloseHandle(nul);
	if (!ok)
		return -1;
	if (WaitForSingleObject(pi.hProcess, NETSH_WAIT_MS) != WAIT_OBJECT_0) {
		TerminateProcess(pi.hProcess, 1);
		*why = WAIT_TIMEOUT;
		code = (DWORD)-1;
	} else if (!GetExitCodeProcess(pi.hProcess, &code)) {
		*why = GetLastError();
		code = (DWORD)-1;
	}
	CloseHandle(pi.hThread);
	CloseHandle(pi.hProcess);
	return code == (DWORD)-1 ? -1 : (long)code;
}

void mw_firewall_remove(void)
{
	DWORD why;

	/* exit code 1 and "No rules match" when there is none: nothing to say */
	run_netsh("advfirewall firewall delete rule name=" MW_FIREWALL_RULE, 1, &why);
}

int mw_firewall_allow(const char *exe, unsigned port)
{
	static char line[NETSH_LINE_MAX];
	char arg[64 + MAX_PATH * 3];
	DWORD why;
	long rc;

	/* netsh adds a second rule of the same name: replace instead */
	mw_firewall_remove();
	snprintf(line, sizeof(line), "advfirewall firewall add rule name=" MW_FIREWALL_RULE
		 " dir=in action=allow protocol=TCP localport=%u profile=any", port);
	snprintf(arg, sizeof(arg), "program=%s", exe);
	if (mw_cmdline_append(line, sizeof(line), arg) ||
	    mw_cmdline_append(line, sizeof(line), "description=memwatch HTTP API and /metrics")) {
		fprintf(stderr, "memwatchd: warning: no firewall rule: the path '%s' is too long\n",
			exe);
		return 1;
	}
	rc = run_netsh(line, 0, &why);
	if (rc == 0) {
		printf("firewall: inbound TCP port %u allowed for %s (rule '" MW_FIREWALL_RULE
		       "')\n", port, exe);
		return 0;
	}
	if (rc < 0)
		fprintf(stderr, "memwatchd: warning: no firewall rule: cannot run netsh: error "
				"%lu; allow TCP port %u inbound by hand if the firewall is on\n",
			why, port);
	else
		fprintf(stderr, "memwatchd: warning: no firewall rule: netsh failed with exit "
				"code %ld (is the Windows Defender Firewall service running?); "
				"allow TCP port %u inbound by hand if the firewall is on\n", rc, port);
	return 1;
}
