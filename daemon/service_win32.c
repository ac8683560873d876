/*
 * service_win32.c - the Windows service: install/uninstall through the
 * SCM, running under it, and the Event Log.
 *
 * `service install [OPTIONS]` registers "memwatch" to start automatically
 * as LocalSystem with the command line `"EXE" run OPTIONS`, with --config
 * and --db made absolute (a service starts in System32).  When the SCM
 * starts the process, StartServiceCtrlDispatcher succeeds and the daemon
 * runs as a service; from a console it fails at once with
 * ERROR_FAILED_SERVICE_CONTROLLER_CONNECT and we run as a console program.
 */
#include <windows.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "log.h"
#include "stop.h"

#define SERVICE_NAME L"memwatch"
#define SERVICE_DISPLAY L"memwatch memory monitor"
#define EVENT_SOURCE L"memwatch"

static SERVICE_STATUS_HANDLE service_handle;
static SERVICE_STATUS service_status;
static const struct mw_config *service_cfg;
static int service_exit_code;
static HANDLE event_source;

static void eventlog_sink(enum mw_log_level level, const char *line)
{
	WORD type = level == MW_LOG_ERROR ? EVENTLOG_ERROR_TYPE :
		    level == MW_LOG_WARN ? EVENTLOG_WARNING_TYPE : EVENTLOG_INFORMATION_TYPE;
	const char *strings[1] = { line };

	/* Errors, and the start/stop lines, go to the Event Log; the rest
	 * would flood it. */
	if (!event_source)
		return;
	if (level == MW_LOG_ERROR || strstr(line, "started") || strstr(line, "stopped"))
		ReportEventA(event_source, type, 0, 1, NULL, 1, 0, strings, NULL);
}

static void report_status(DWORD state, DWORD exit_code)
{
	service_status.dwServiceType = SERVICE_WIN32_OWN_PROCESS;
	service_status.dwCurrentState = state;
	service_status.dwControlsAccepted =
		state == SERVICE_RUNNING ? SERVICE_ACCEPT_STOP | SERVICE_ACCEPT_SHUTDOWN : 0;
	service_status.dwWin32ExitCode = exit_code;
	service_status.dwWaitHint = state == SERVICE_RUNNING ? 0 : 30000;
	SetServiceStatus(service_handle, &service_status);
}

static DWORD WINAPI control_handler(DWORD control, DWORD type, LPVOID data, LPVOID ctx)
{
	(void)type;
	(void)data;
	(void)ctx;
	switch (control) {
	case SERVICE_CONTROL_STOP:
	case SERVICE_CONTROL_SHUTDOWN:
		report_status(SERVICE_STOP_PENDING, NO_ERROR);
		mw_stop_request();
		return NO_ERROR;
	case SERVICE_CONTROL_INTERROGATE:
		return NO_ERROR;
	default:
		return ERROR_CALL_NOT_IMPLEMENTED;
	}
}

static void WINAPI service_main(DWORD argc, LPWSTR *argv)
{
	(void)argc;
	(void)argv;
	service_handle = RegisterServiceCtrlHandlerExW(SERVICE_NAME, control_handler, NULL);
	if (!service_handle)
		return;
	report_status(SERVICE_START_PENDING, NO_ERROR);
	event_source = RegisterEventSourceW(NULL, EVENT_SOURCE);
	mw_log_set_sink(eventlog_sink);
	report_status(SERVICE_RUNNING, NO_ERROR);
	service_exit_code = mw_cmd_run(service_cfg);
	mw_log_set_sink(NULL);
	if (event_source)
		DeregisterEventSource(event_source);
	report_status(SERVICE_STOPPED, service_exit_code ? ERROR_SERVICE_SPECIFIC_ERROR : NO_ERROR);
}

int mw_service_try_dispatch(const struct mw_config *cfg, int *exit_code)
{
	SERVICE_TABLE_ENTRYW table[] = {
		{ (LPWSTR)SERVICE_NAME, service_main },
		{ NULL, NULL },
	};

	/* A console program has a console; a service has none.  Checking
	 * first saves the dispatcher's connection attempt on every start. */
	if (GetConsoleWindow() != NULL || GetStdHandle(STD_INPUT_HANDLE) != NULL)
		return 0;
	service_cfg = cfg;
	if (!StartServiceCtrlDispatcherW(table))
		return 0;	/* ERROR_FAILED_SERVICE_CONTROLLER_CONNECT: console */
	*exit_code = service_exit_code;
	return 1;
}

/* Append s to cmd, quoted the way CommandLineToArgvW splits it back. */
static void append_arg(char *cmd, size_t size, const char *s)
{
	size_t n = strlen(cmd);
	const char *p;

	if (n + 3 >= size)
		return;
	cmd[n++] = ' ';
	cmd[n++] = '"';
	for (p = s; *p && n + 3 < size; p++) {
		size_t bs = 0;
		while (p[bs] == '\\')
			bs++;
		if (p[bs] == '"' || p[bs] == '\0') {
			/* backslashes before a quote (or the closing quote) double */
			size_t k;
			for (k = 0; k < bs * 2 && n + 3 < size; k++)
				cmd[n++] = '\\';
			p += bs;
			if (!*p)
				break;
			cmd[n++] = '\\';
			cmd[n++] = '"';
		} else {
			cmd[n++] = *p;
		}
	}
	cmd[n++] = '"';
	cmd[n] = '\0';
}

static int install(const char *const *args, int nargs)
{
	char exe[MAX_PATH], cmd[8192], full[MAX_PATH];
	SC_HANDLE scm, svc;
	int i, have_db = 0;

	if (!GetModuleFileNameA(NULL, exe, sizeof(exe))) {
		fprintf(stderr, "memwatchd: cannot find own path: error %lu\n", GetLastError());
		return 1;
	}
	snprintf(cmd, sizeof(cmd), "\"%s\" run", exe);
	for (i = 0; i < nargs; i++) {
		const char *a = args[i];
		/* Paths become absolute: the service starts in System32. */
		if ((!strcmp(a, "--config") || !strcmp(a, "--db") || !strcmp(a, "--log-file")) &&
		    i + 1 < nargs) {
			have_db |= !strcmp(a, "--db");
			append_arg(cmd, sizeof(cmd), a);
			if (!GetFullPathNameA(args[++i], sizeof(full), full, NULL))
				snprintf(full, sizeof(full), "%s", args[i]);
			append_arg(cmd, sizeof(cmd), full);
			continue;
		}
		append_arg(cmd, sizeof(cmd), a);
	}
	if (!have_db) {
		/* Default database beside the executable, not in System32. */
		char *slash = strrchr(exe, '\\');
		if (slash)
			snprintf(slash + 1, sizeof(exe) - (size_t)(slash + 1 - exe), "memwatch.db");
		append_arg(cmd, sizeof(cmd), "--db");
		append_arg(cmd, sizeof(cmd), exe);
	}
	scm = OpenSCManagerW(NULL, NULL, SC_MANAGER_CREATE_SERVICE);
	if (!scm) {
		fprintf(stderr, "memwatchd: cannot open the service manager: error %lu "
				"(run as Administrator)\n", GetLastError());
		return 1;
	}
	svc = CreateServiceA(scm, "memwatch", "memwatch memory monitor", SERVICE_ALL_ACCESS,
			     SERVICE_WIN32_OWN_PROCESS, SERVICE_AUTO_START, SERVICE_ERROR_NORMAL,
			     cmd, NULL, NULL, NULL, NULL, NULL);
	if (!svc) {
		DWORD e = GetLastError();
		fprintf(stderr, "memwatchd: cannot create service 'memwatch': error %lu%s\n", e,
			e == ERROR_SERVICE_EXISTS ? " (already installed; uninstall first)" : "");
		CloseServiceHandle(scm);
		return 1;
	}
	printf("installed service 'memwatch': %s\nstart it with: sc start memwatch\n", cmd);
	CloseServiceHandle(svc);
	CloseServiceHandle(scm);
	return 0;
}

static int uninstall(void)
{
	SC_HANDLE scm, svc;
	SERVICE_STATUS st;

	scm = OpenSCManagerW(NULL, NULL, SC_MANAGER_CONNECT);
	if (!scm) {
		fprintf(stderr, "memwatchd: cannot open the service manager: error %lu\n",
			GetLastError());
		return 1;
	}
	svc = OpenServiceW(scm, SERVICE_NAME, SERVICE_STOP | DELETE | SERVICE_QUERY_STATUS);
	if (!svc) {
		fprintf(stderr, "memwatchd: no service 'memwatch': error %lu\n", GetLastError());
		CloseServiceHandle(scm);
		return 1;
	}
	ControlService(svc, SERVICE_CONTROL_STOP, &st);
	if (!DeleteService(svc)) {
		fprintf(stderr, "memwatchd: cannot delete service 'memwatch': error %lu\n",
			GetLastError());
		CloseServiceHandle(svc);
		CloseServiceHandle(scm);
		return 1;
	}
	printf("removed service 'memwatch'\n");
	CloseServiceHandle(svc);
	CloseServiceHandle(scm);
	return 0;
}

int mw_cmd_service(int argc, char **argv, const char *const *run_args, int nrun_args)
{
	(void)argc;
	if (!strcmp(argv[0], "install"))
		return install(run_args, nrun_args);
	if (!strcmp(argv[0], "uninstall"))
		return uninstall();
	fprintf(stderr, "memwatchd: unknown service command '%s' (install, uninstall)\n", argv[0]);
	return 2;
}
