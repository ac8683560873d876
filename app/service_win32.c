/*
 * service_win32.c - the Windows service: install/uninstall through the
 * SCM, running under it, and the Event Log.
 *
 * `service install [OPTIONS]` registers "memwatch" to start automatically
 * as LocalSystem with the command line `"EXE" run OPTIONS` (service_args.c
 * decides the paths: a service starts in System32), and the Event Log
 * source "memwatch".  When the SCM starts the process,
 * StartServiceCtrlDispatcher succeeds and the daemon runs as a service;
 * from a console it fails at once with ERROR_FAILED_SERVICE_CONTROLLER_CONNECT
 * and we run as a console program.
 *
 * Status protocol: mw_cmd_run runs on a worker thread.  The ServiceMain
 * thread reports START_PENDING with a checkpoint every second, RUNNING
 * once storage and web are up (mw_run_set_ready_hook), and STOPPED with
 * ERROR_SERVICE_SPECIFIC_ERROR + the exit code (1 or 2) when the daemon
 * failed.  The control handler reports STOP_PENDING itself before it
 * requests the stop, so the SCM (and ControlService's answer, which it
 * reads once the handler returns) shows STOP_PENDING however fast the
 * daemon then stops; ServiceMain keeps its checkpoint moving.  Both
 * report under status_lock, so a late RUNNING never follows STOP_PENDING.
 * A run that fails before the dispatcher (main.c: a bad option or config
 * file) is reported the same way, its stderr text in the Event Log.
 *
 * Install also sets recovery, description and preshutdown time-out and,
 * with --firewall, the firewall rule (service_setup_win32.c); `service
 * configure` and `service cleanup` are those steps alone, for the MSI's
 * custom actions (packaging/windows/memwatch.wxs).
 */
#include <windows.h>
#include <shellapi.h>
#include <fcntl.h>
#include <io.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "base/utf8_wide.h"
#include "base/fsutf8.h"
#include "base/log.h"
#include "base/private_files.h"
#include "service_args.h"
#include "service_setup.h"
#include "base/stop.h"
#include "collectors/exit_leaks_dbg.h"

#define SERVICE_NAME L"memwatch"
#define SERVICE_DISPLAY L"memwatch memory monitor"
#define EVENT_SOURCE L"memwatch"
#define EVENTLOG_KEY L"SYSTEM\\CurrentControlSet\\Services\\EventLog\\Application\\memwatch"
/* No message table of our own: EventCreate.exe's holds "%1" for every ID
 * from 1 to 1000 (it is what `eventcreate /SO memwatch` itself registers),
 * so Event Viewer shows our text as is. */
#define EVENT_MESSAGE_FILE L"%SystemRoot%\\System32\\EventCreate.exe"
#define EVENT_ID_INFO 1
#define EVENT_ID_WARN 2
#define EVENT_ID_ERROR 3
#define START_WAIT_HINT 10000
#define STOP_WAIT_HINT 30000
#define CMDLINE_MAX 32767	/* CreateProcess's limit, in wide characters */

static SERVICE_STATUS_HANDLE service_handle;
static const struct mw_config *service_cfg;
static int service_exit_code;
static HANDLE event_source;
static HANDLE wake_event;	/* auto-reset: the handler or the ready hook signals */
static volatile LONG ready_flag;
static CRITICAL_SECTION status_lock;	/* guards status_state, status_checkpoint */
static DWORD status_state = SERVICE_START_PENDING, status_checkpoint = 1;

static void eventlog_sink(enum mw_log_level level, const char *line)
{
	WORD type = level == MW_LOG_ERROR ? EVENTLOG_ERROR_TYPE :
		    level == MW_LOG_WARN ? EVENTLOG_WARNING_TYPE : EVENTLOG_INFORMATION_TYPE;
	DWORD id = level == MW_LOG_ERROR ? EVENT_ID_ERROR :
		   level == MW_LOG_WARN ? EVENT_ID_WARN : EVENT_ID_INFO;
	WCHAR wline[1100];
	LPCWSTR strings[1] = { wline };

	/* Errors, and the start/stop lines, go to the Event Log; the rest
	 * would flood it. */
	if (!event_source)
		return;
	if (level != MW_LOG_ERROR && !strstr(line, "started") && !strstr(line, "stopped"))
		return;
	if (!MultiByteToWideChar(CP_UTF8, 0, line, -1, wline, (int)MW_ARRAY_SIZE(wline)) &&
	    !MultiByteToWideChar(CP_ACP, 0, line, -1, wline, (int)MW_ARRAY_SIZE(wline)))
		return;
	ReportEventW(event_source, type, 0, id, NULL, 1, 0, strings, NULL);
}

static void set_status(DWORD state, DWORD checkpoint, int exit_code)
{
	SERVICE_STATUS st;

	memset(&st, 0, sizeof(st));
	st.dwServiceType = SERVICE_WIN32_OWN_PROCESS;
	st.dwCurrentState = state;
	st.dwControlsAccepted = state == SERVICE_RUNNING ?
		SERVICE_ACCEPT_STOP | SERVICE_ACCEPT_SHUTDOWN | SERVICE_ACCEPT_PRESHUTDOWN : 0;
	st.dwWin32ExitCode = exit_code ? ERROR_SERVICE_SPECIFIC_ERROR : NO_ERROR;
	st.dwServiceSpecificExitCode = (DWORD)exit_code;
	st.dwCheckPoint = state == SERVICE_START_PENDING || state == SERVICE_STOP_PENDING ?
		checkpoint : 0;
	st.dwWaitHint = state == SERVICE_START_PENDING ? START_WAIT_HINT :
			state == SERVICE_STOP_PENDING ? STOP_WAIT_HINT : 0;
	SetServiceStatus(service_handle, &st);
}

/* Moves to `state` and reports it; STOP_PENDING is never left but for
 * STOPPED.  A repeated pending state only moves its checkpoint on. */
static void report_state(DWORD state)
{
	EnterCriticalSection(&status_lock);
	if (status_state == SERVICE_STOP_PENDING && state != SERVICE_STOPPED)
		state = SERVICE_STOP_PENDING;
	if (state == status_state)
		status_checkpoint++;
	else
		status_checkpoint = 1;
	status_state = state;
	set_status(state, status_checkpoint, state == SERVICE_STOPPED ? service_exit_code : 0);
	LeaveCriticalSection(&status_lock);
}

static DWORD current_state(void)
{
	DWORD state;

	EnterCriticalSection(&status_lock);
	state = status_state;
	LeaveCriticalSection(&status_lock);
	return state;
}

/* Runs on the dispatcher's thread: reports STOP_PENDING, then asks the
 * daemon to stop; the stopping itself happens on the worker. */
static DWORD WINAPI control_handler(DWORD control, DWORD type, LPVOID data, LPVOID ctx)
{
	(void)type;
	(void)data;
	(void)ctx;
	switch (control) {
	case SERVICE_CONTROL_STOP:
	case SERVICE_CONTROL_PRESHUTDOWN:
	case SERVICE_CONTROL_SHUTDOWN:
		if (current_state() != SERVICE_STOP_PENDING)
			report_state(SERVICE_STOP_PENDING);
		mw_stop_request();
		SetEvent(wake_event);
		return NO_ERROR;
	case SERVICE_CONTROL_INTERROGATE:
		return NO_ERROR;
	default:
		return ERROR_CALL_NOT_IMPLEMENTED;
	}
}

static void on_ready(void *arg)
{
	(void)arg;
	InterlockedExchange(&ready_flag, 1);
	SetEvent(wake_event);
}

static DWORD WINAPI run_thread(LPVOID arg)
{
	(void)arg;
	service_exit_code = mw_cmd_run(service_cfg);
	return 0;
}

static void WINAPI service_main(DWORD argc, LPWSTR *argv)
{
	HANDLE worker, waits[2];

	(void)argc;
	(void)argv;
	mw_stop_set_service_mode(true);
	InitializeCriticalSection(&status_lock);
	wake_event = CreateEventW(NULL, FALSE, FALSE, NULL);
	service_handle = RegisterServiceCtrlHandlerExW(SERVICE_NAME, control_handler, NULL);
	if (!service_handle || !wake_event) {
		service_exit_code = 1;
		return;
	}
	set_status(SERVICE_START_PENDING, 1, 0);
	event_source = RegisterEventSourceW(NULL, EVENT_SOURCE);
	mw_log_set_sink(eventlog_sink);
	mw_run_set_ready_hook(on_ready, NULL);
	worker = CreateThread(NULL, 0, run_thread, NULL, 0, NULL);
	if (!worker) {
		mw_log_error("service: cannot start the daemon thread: error %lu", GetLastError());
		service_exit_code = 1;
	} else {
		waits[0] = worker;
		waits[1] = wake_event;
		for (;;) {
			DWORD w = WaitForMultipleObjects(2, waits, FALSE, 1000);
			DWORD state = current_state();

			if (w == WAIT_OBJECT_0 || w == WAIT_FAILED)
				break;	/* mw_cmd_run returned */
			if (state == SERVICE_START_PENDING &&
			    InterlockedCompareExchange(&ready_flag, 0, 0))
				report_state(SERVICE_RUNNING);
			else if (state != SERVICE_RUNNING)
				report_state(state);	/* still making progress */
		}
		WaitForSingleObject(worker, INFINITE);
		CloseHandle(worker);
	}
	mw_run_set_ready_hook(NULL, NULL);
	mw_log_set_sink(NULL);
	if (event_source)
		DeregisterEventSource(event_source);
	event_source = NULL;
	report_state(SERVICE_STOPPED);
}

/* A console program has a console; a service has none (nor standard
 * handles).  Checking first saves the dispatcher's connection attempt on
 * every console start. */
static bool maybe_service(void)
{
	return GetConsoleWindow() == NULL && GetStdHandle(STD_INPUT_HANDLE) == NULL;
}

/* --- a start that fails before the dispatcher ----------------------------
 * A service has no stderr: what main.c prints about a bad option or config
 * file would be lost, and the SCM would only see the process end.  From
 * mw_service_early_errors_begin to the dispatcher, fd 2 is a temporary file
 * (deleted on close); mw_service_start_failed sends what it holds to the
 * Event Log and reports the start as failed with the exit code, as a
 * failure after the dispatcher is.  Only when there is no stderr to begin
 * with (no handle, or one of no known type). */
static bool early_capturing;

/* fd 2 becomes handle h (owned by the call).  msvcrt may have given stderr
 * no descriptor at all (-2, Wine's msvcrt and the UCRT do for a process
 * without standard handles), and freopen refuses such a stream: it is
 * pointed at fd 2, which is what msvcrt.dll itself sets up when a handle
 * is there. */
static int stderr_to_handle(HANDLE h)
{
	int fd = _open_osfhandle((intptr_t)h, _O_RDWR | _O_BINARY);

	if (fd < 0) {
		CloseHandle(h);
		return -1;
	}
	if (fd != 2) {
		if (_dup2(fd, 2)) {
			_close(fd);
			return -1;
		}
		_close(fd);	/* fd 2 holds its own duplicate */
	}
	if (_fileno(stderr) < 0)
		stderr->_file = 2;
	return 0;
}

void mw_service_early_errors_begin(void)
{
	WCHAR dir[MAX_PATH + 1], path[MAX_PATH + 16];
	HANDLE h = GetStdHandle(STD_ERROR_HANDLE);

	if (!maybe_service() || early_capturing ||
	    (_fileno(stderr) >= 0 && h && h != INVALID_HANDLE_VALUE &&
	     GetFileType(h) != FILE_TYPE_UNKNOWN))
		return;
	if (!GetTempPathW(MW_ARRAY_SIZE(dir), dir) || !GetTempFileNameW(dir, L"mwe", 0, path))
		return;
	h = CreateFileW(path, GENERIC_READ | GENERIC_WRITE, FILE_SHARE_READ | FILE_SHARE_DELETE,
			NULL, CREATE_ALWAYS, FILE_ATTRIBUTE_TEMPORARY | FILE_FLAG_DELETE_ON_CLOSE,
			NULL);
	if (h == INVALID_HANDLE_VALUE) {
		DeleteFileW(path);
		return;
	}
	early_capturing = !stderr_to_handle(h);
}

/* Stop capturing; with text (size bytes), what was written, NUL-ended.
 * fd 2 is NUL from here on: as good as the none it had, and no file
 * opened later can become fd 2 by chance. */
static void early_errors_end(char *text, size_t size)
{
	HANDLE h;
	DWORD got = 0;

	if (text)
		text[0] = '\0';
	if (!early_capturing)
		return;
	fflush(stderr);
	h = (HANDLE)_get_osfhandle(2);
	if (text && h != INVALID_HANDLE_VALUE &&
	    SetFilePointer(h, 0, NULL, FILE_BEGIN) != INVALID_SET_FILE_POINTER &&
	    ReadFile(h, text, (DWORD)size - 1, &got, NULL))
		text[got] = '\0';
	h = CreateFileW(L"NUL", GENERIC_WRITE, FILE_SHARE_READ | FILE_SHARE_WRITE, NULL,
			OPEN_EXISTING, 0, NULL);
	if (h == INVALID_HANDLE_VALUE || stderr_to_handle(h))
		_close(2);
	early_capturing = false;
}

static int early_exit_code;

static void WINAPI failed_service_main(DWORD argc, LPWSTR *argv)
{
	(void)argc;
	(void)argv;
	service_handle = RegisterServiceCtrlHandlerExW(SERVICE_NAME, control_handler, NULL);
	if (service_handle)
		set_status(SERVICE_STOPPED, 0, early_exit_code);
}

int mw_service_start_failed(int exit_code)
{
	static char text[4096];
	SERVICE_TABLE_ENTRYW table[] = {
		{ (LPWSTR)SERVICE_NAME, failed_service_main },
		{ NULL, NULL },
	};
	char *end;

	early_errors_end(text, sizeof(text));
	if (!maybe_service())
		return 0;	/* a console start: stderr said it */
	end = text + strlen(text);
	while (end > text && (end[-1] == '\n' || end[-1] == '\r'))
		*--end = '\0';
	if (!*text)
		snprintf(text, sizeof(text), "memwatchd: cannot start (exit code %d)", exit_code);
	early_exit_code = exit_code;
	/* Started by the SCM: it gets STOPPED with the exit code, as for a
	 * failure after the start; otherwise (no console, but no service
	 * either) stderr was all there was. */
	event_source = RegisterEventSourceW(NULL, EVENT_SOURCE);
	eventlog_sink(MW_LOG_ERROR, text);
	if (event_source)
		DeregisterEventSource(event_source);
	event_source = NULL;
	return StartServiceCtrlDispatcherW(table) ? 1 : 0;
}

int mw_service_try_dispatch(const struct mw_config *cfg, int *exit_code)
{
	SERVICE_TABLE_ENTRYW table[] = {
		{ (LPWSTR)SERVICE_NAME, service_main },
		{ NULL, NULL },
	};

	early_errors_end(NULL, 0);
	if (!maybe_service())
		return 0;
	service_cfg = cfg;
	if (!StartServiceCtrlDispatcherW(table))
		return 0;	/* ERROR_FAILED_SERVICE_CONTROLLER_CONNECT: console */
	*exit_code = service_exit_code;
	return 1;
}

/* --- install ------------------------------------------------------------ */

/* UTF-8 <-> UTF-16 with the length checked: NULL when it does not fit. */
static char *to_utf8(const WCHAR *w)
{
	int n = WideCharToMultiByte(CP_UTF8, 0, w, -1, NULL, 0, NULL, NULL);
	char *s;

	if (n <= 0 || !(s = malloc((size_t)n)))
		return NULL;
	if (!WideCharToMultiByte(CP_UTF8, 0, w, -1, s, n, NULL, NULL)) {
		free(s);
		return NULL;
	}
	return s;
}

/* GetFullPathNameW on UTF-8 paths; -1 when the result does not fit. */
static int full_path(const char *in, char *out, size_t size)
{
	WCHAR *win = mw_utf8_to_wide(in), *wout;
	DWORD n;
	char *u;
	int rc = -1;

	if (!win)
		return -1;
	n = GetFullPathNameW(win, 0, NULL, NULL);
	if (n && (wout = malloc((size_t)n * sizeof(WCHAR)))) {
		DWORD got = GetFullPathNameW(win, n, wout, NULL);
		if (got && got < n && (u = to_utf8(wout))) {
			if (strlen(u) < size) {
				strcpy(out, u);
				rc = 0;
			}
			free(u);
		}
		free(wout);
	}
	free(win);
	return rc;
}

/* The full path of this executable, however long. */
static WCHAR *own_path(void)
{
	DWORD size = MAX_PATH, n;
	WCHAR *w = NULL;

	for (;;) {
		WCHAR *grown = realloc(w, size * sizeof(WCHAR));
		if (!grown) {
			free(w);
			return NULL;
		}
		w = grown;
		n = GetModuleFileNameW(NULL, w, size);
		if (n == 0) {
			free(w);
			return NULL;
		}
		if (n < size)
			return w;	/* not truncated */
		if (size >= 32768) {
			free(w);
			SetLastError(ERROR_FILENAME_EXCED_RANGE);
			return NULL;
		}
		size *= 2;
	}
}

/* Read [storage] db, [daemon] log_file and [web] listen from the config
 * file, opened by its wide-character name.  *db stays NULL when the file
 * sets none; *listen is the default when it sets none. */
static int read_config_paths(const char *path, char **db, char **log_file, char **listen)
{
	WCHAR *wpath = mw_utf8_to_wide(path);
	struct mw_config cfg;
	struct mw_err err = { "" };
	FILE *f = wpath ? _wfopen(wpath, L"rb") : NULL;
	char *text = NULL;
	size_t len = 0, cap = 0, n;
	int rc;

	free(wpath);
	if (!f) {
		fprintf(stderr, "memwatchd: cannot read config file '%s'\n", path);
		return -1;
	}
	for (;;) {
		if (len + 4097 > cap) {
			char *g = realloc(text, cap = len + 65536);
			if (!g) {
				free(text);
				fclose(f);
				return -1;
			}
			text = g;
		}
		n = fread(text + len, 1, 4096, f);
		len += n;
		if (n < 4096)
			break;
	}
	fclose(f);
	text[len] = '\0';
	mw_config_init(&cfg);
	free(cfg.db_path);
	cfg.db_path = NULL;	/* NULL afterwards: the file sets no database */
	rc = mw_config_load_string(&cfg, path, text, &err);
	free(text);
	if (rc) {
		fprintf(stderr, "memwatchd: %s\n", err.msg);
		mw_config_release(&cfg);
		return -1;
	}
	*db = cfg.db_path ? _strdup(cfg.db_path) : NULL;
	*log_file = cfg.log_file && *cfg.log_file ? _strdup(cfg.log_file) : NULL;
	*listen = cfg.listen ? _strdup(cfg.listen) : NULL;
	mw_config_release(&cfg);
	return 0;
}

static int register_event_source(void)
{
	HKEY key;
	DWORD types = EVENTLOG_ERROR_TYPE | EVENTLOG_WARNING_TYPE | EVENTLOG_INFORMATION_TYPE;
	LONG e = RegCreateKeyExW(HKEY_LOCAL_MACHINE, EVENTLOG_KEY, 0, NULL, 0, KEY_SET_VALUE,
				 NULL, &key, NULL);

	if (e != ERROR_SUCCESS) {
		fprintf(stderr, "memwatchd: cannot register the Event Log source 'memwatch': "
				"error %ld\n", e);
		return -1;
	}
	e = RegSetValueExW(key, L"EventMessageFile", 0, REG_EXPAND_SZ,
			   (const BYTE *)EVENT_MESSAGE_FILE, sizeof(EVENT_MESSAGE_FILE));
	if (e == ERROR_SUCCESS)
		e = RegSetValueExW(key, L"TypesSupported", 0, REG_DWORD, (const BYTE *)&types,
				   sizeof(types));
	RegCloseKey(key);
	if (e != ERROR_SUCCESS) {
		fprintf(stderr, "memwatchd: cannot register the Event Log source 'memwatch': "
				"error %ld\n", e);
		return -1;
	}
	return 0;
}

/* The database the service command line cmd names: its --db or --set
 * storage.db= (the last wins), else the config file's (absolute: the
 * line leaves it out).  Copied into out; -1 when there is none. */
static int service_db(const char *cmd, const char *config_db, char *out, size_t size)
{
	WCHAR *w = mw_utf8_to_wide(cmd), **argv;
	const char *db = config_db;
	char *found = NULL, *a;
	int argc = 0, i;

	argv = w ? CommandLineToArgvW(w, &argc) : NULL;
	for (i = 1; argv && i + 1 < argc; i++) {
		if (!(a = to_utf8(argv[i])))
			continue;
		if (!strcmp(a, "--db") || !strcmp(a, "--set")) {
			char *v = to_utf8(argv[i + 1]);

			if (v && (!strcmp(a, "--db") || !strncmp(v, "storage.db=", 11))) {
				free(found);
				found = _strdup(a[2] == 'd' ? v : v + 11);
			}
			free(v);
			i++;
		}
		free(a);
	}
	if (found)
		db = found;
	i = db && (size_t)snprintf(out, size, "%s", db) < size ? 0 : -1;
	free(found);
	if (argv)
		LocalFree(argv);
	free(w);
	return i;
}

/* The database's folder readable by the administrators and the service
 * (SYSTEM) only: the database holds what other users may not see (every
 * process's mapped-file paths). */
static int private_data_folder(const char *cmd, const char *config_db)
{
	char db[MAX_PATH * 3], dir[MAX_PATH * 3];
	struct mw_err err;

	if (service_db(cmd, config_db, db, sizeof(db)) ||
	    mw_path_dirname(dir, sizeof(dir), db)) {
		fprintf(stderr, "memwatchd: service install: cannot tell the database's folder\n");
		return -1;
	}
	if (mw_mkdir(dir)) {
		fprintf(stderr, "memwatchd: service install: cannot create the folder '%s'\n", dir);
		return -1;
	}
	if (mw_folder_private(dir, &err)) {
		fprintf(stderr, "memwatchd: service install: %s\n", err.msg);
		return -1;
	}
	printf("data folder %s: Administrators and SYSTEM only (the database, its log\n"
	       "and what it holds about every process)\n", dir);
	return 0;
}

/* The port the service will listen on (its --listen, else the config
 * file's or the default) gets an inbound rule; a loopback address needs
 * none.  Never fails the install: a missing firewall is a warning. */
static void firewall_for(const char *exe, const char *const *args, int nargs,
			 const char *config_listen)
{
	const char *listen = mw_service_listen_arg(args, nargs);
	struct mw_config defaults;
	unsigned port;
	bool loopback;

	mw_config_init(&defaults);
	if (!listen)
		listen = config_listen ? config_listen : defaults.listen;
	if (mw_listen_port(listen, &port, &loopback))
		printf("firewall: no rule: the service listens on '%s'\n", listen);
	else if (loopback)
		printf("firewall: no rule: '%s' is reachable from this machine only\n", listen);
	else
		mw_firewall_allow(exe, port);
	mw_config_release(&defaults);
}

/* `service install [--firewall] OPTIONS`: --firewall first (main.c keeps
 * it out of the run options it checks). */
static int install(const char *const *ansi_args, int nargs)
{
	static char cmd[CMDLINE_MAX * 3 + 1];
	struct mw_service_install in;
	struct mw_err err = { "" };
	WCHAR *wexe = NULL, *wcmd = NULL, **wargv;
	char **args = NULL, *exe = NULL, *config_db = NULL, *config_log = NULL;
	char *config_listen = NULL;
	const char *config;
	const char *const *run_args;
	SC_HANDLE scm = NULL, svc = NULL;
	int wargc = 0, i, rc = 1, firewall, nrun;

	/* The run options as typed, in UTF-16: argv is in the ANSI code page,
	 * which cannot hold every folder name. */
	wargv = CommandLineToArgvW(GetCommandLineW(), &wargc);
	args = calloc((size_t)nargs + 1, sizeof(*args));
	if (!args)
		goto out;
	for (i = 0; i < nargs; i++) {
		args[i] = wargv && wargc == nargs + 3 ? to_utf8(wargv[i + 3]) : _strdup(ansi_args[i]);
		if (!args[i])
			goto out;
	}
	if (!(wexe = own_path()) || !(exe = to_utf8(wexe))) {
		fprintf(stderr, "memwatchd: cannot find own path: error %lu\n", GetLastError());
		goto out;
	}
	firewall = nargs > 0 && !strcmp(args[0], "--firewall");
	run_args = (const char *const *)args + firewall;
	nrun = nargs - firewall;
	config = mw_service_config_arg(run_args, nrun);
	if (config && read_config_paths(config, &config_db, &config_log, &config_listen))
		goto out;
	in.exe = exe;
	in.args = run_args;
	in.nargs = nrun;
	in.config_db = config_db;
	in.config_log = config_log;
	in.abspath = full_path;
	if (mw_service_cmdline(&in, cmd, sizeof(cmd), &err)) {
		fprintf(stderr, "memwatchd: service install: %s\n", err.msg);
		goto out;
	}
	if (!(wcmd = mw_utf8_to_wide(cmd)) || wcslen(wcmd) >= CMDLINE_MAX) {
		fprintf(stderr, "memwatchd: service install: the command line is longer than "
				"%d characters\n", CMDLINE_MAX - 1);
		goto out;
	}
	if (private_data_folder(cmd, config_db))
		goto out;
	scm = OpenSCManagerW(NULL, NULL, SC_MANAGER_CREATE_SERVICE);
	if (!scm) {
		fprintf(stderr, "memwatchd: cannot open the service manager: error %lu "
				"(run as Administrator)\n", GetLastError());
		goto out;
	}
	svc = CreateServiceW(scm, SERVICE_NAME, SERVICE_DISPLAY, SERVICE_ALL_ACCESS,
			     SERVICE_WIN32_OWN_PROCESS, SERVICE_AUTO_START, SERVICE_ERROR_NORMAL,
			     wcmd, NULL, NULL, NULL, NULL, NULL);
	if (!svc) {
		DWORD e = GetLastError();
		fprintf(stderr, "memwatchd: cannot create service 'memwatch': error %lu%s\n", e,
			e == ERROR_SERVICE_EXISTS ? " (already installed; uninstall first)" : "");
		goto out;
	}
	if (register_event_source()) {
		DeleteService(svc);
		goto out;
	}
	printf("installed service 'memwatch': %s\n", cmd);
	/* Without recovery and the preshutdown time-out the service would
	 * neither come back after a failure nor get its final flush in at
	 * shutdown: an install without them is not done. */
	if (mw_service_setup()) {
		DeleteService(svc);
		RegDeleteKeyW(HKEY_LOCAL_MACHINE, EVENTLOG_KEY);
		fprintf(stderr, "memwatchd: service install: undone\n");
		goto out;
	}
	if (firewall)
		firewall_for(exe, run_args, nrun, config_listen);
	printf("start it with: sc start memwatch\n");
	rc = 0;
out:
	if (svc)
		CloseServiceHandle(svc);
	if (scm)
		CloseServiceHandle(scm);
	if (args)
		for (i = 0; i < nargs; i++)
			free(args[i]);
	free(args);
	if (wargv)
		LocalFree(wargv);
	free(wexe);
	free(exe);
	free(wcmd);
	free(config_db);
	free(config_log);
	free(config_listen);
	return rc;
}

/* What install or the service added outside the SCM: the firewall rule,
 * and the exit leak check memwatch turned on ([exit_leaks] images), which
 * goes back to what it was.  `service cleanup` alone is the MSI's
 * uninstall step (the MSI removes the service and the Event Log source). */
static int cleanup(void)
{
	int restored;

	mw_firewall_remove();
	restored = mw_exit_leaks_restore_all();
	if (restored > 0)
		printf("put back the former ShutdownFlags of %d image(s)\n", restored);
	return 0;
}

/* The database folder the installed service's command line names (its
 * --db), readable by the administrators and SYSTEM only, as install makes
 * it.  A line without --db (the database comes from a config file) is
 * left to `service install`'s own check. */
static int private_folder_of_service(void)
{
	SC_HANDLE scm = OpenSCManagerW(NULL, NULL, SC_MANAGER_CONNECT), svc = NULL;
	QUERY_SERVICE_CONFIGW *qc = NULL;
	DWORD need = 0;
	char db[MAX_PATH * 3], *cmd = NULL;
	int rc = -1;

	if (scm)
		svc = OpenServiceW(scm, SERVICE_NAME, SERVICE_QUERY_CONFIG);
	if (svc && !QueryServiceConfigW(svc, NULL, 0, &need) &&
	    GetLastError() == ERROR_INSUFFICIENT_BUFFER && (qc = malloc(need)) &&
	    QueryServiceConfigW(svc, qc, need, &need) && (cmd = to_utf8(qc->lpBinaryPathName)))
		rc = service_db(cmd, NULL, db, sizeof(db)) ? 0 : private_data_folder(cmd, NULL);
	else
		fprintf(stderr, "memwatchd: cannot read the service's command line: error %lu\n",
			GetLastError());
	free(cmd);
	free(qc);
	if (svc)
		CloseServiceHandle(svc);
	if (scm)
		CloseServiceHandle(scm);
	return rc;
}

/* `service configure [--firewall=PORT]`: recovery, description, the
 * preshutdown time-out and the data folder's ACL on a service installed by
 * other means (the MSI's ServiceInstall), and its firewall rule. */
static int configure(int argc, char **argv)
{
	WCHAR *wexe;
	char *exe, listen[32];
	unsigned port = 0;
	bool loopback;
	int i;

	/* Checked before anything changes: a bad option changes nothing. */
	for (i = 1; i < argc; i++) {
		if (strncmp(argv[i], "--firewall=", 11)) {
			fprintf(stderr, "memwatchd: service configure: unknown option '%s' "
					"(--firewall=PORT)\n", argv[i]);
			return 2;
		}
		/* the port alone: an address with no host */
		snprintf(listen, sizeof(listen), ":%.20s", argv[i] + 11);
		if (mw_listen_port(listen, &port, &loopback)) {
			fprintf(stderr, "memwatchd: service configure: --firewall=PORT: no port in "
					"'%s'\n", argv[i] + 11);
			return 2;
		}
	}
	if (mw_service_setup() || private_folder_of_service())
		return 1;
	if (!port)
		return 0;
	if (!(wexe = own_path()) || !(exe = to_utf8(wexe))) {
		free(wexe);
		fprintf(stderr, "memwatchd: cannot find own path: error %lu\n", GetLastError());
		return 1;
	}
	mw_firewall_allow(exe, port);	/* a missing firewall only warns */
	free(exe);
	free(wexe);
	return 0;
}

static int uninstall(void)
{
	SC_HANDLE scm, svc;
	SERVICE_STATUS st;
	LONG e;

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
	e = RegDeleteKeyW(HKEY_LOCAL_MACHINE, EVENTLOG_KEY);
	if (e != ERROR_SUCCESS && e != ERROR_FILE_NOT_FOUND)
		fprintf(stderr, "memwatchd: cannot remove the Event Log source 'memwatch': "
				"error %ld\n", e);
	printf("removed service 'memwatch'\n");
	CloseServiceHandle(svc);
	CloseServiceHandle(scm);
	return cleanup();
}

int mw_cmd_service(int argc, char **argv, const char *const *run_args, int nrun_args)
{
	if (!strcmp(argv[0], "install"))
		return install(run_args, nrun_args);
	if (!strcmp(argv[0], "uninstall"))
		return uninstall();
	if (!strcmp(argv[0], "configure"))
		return configure(argc, argv);
	if (!strcmp(argv[0], "cleanup"))
		return cleanup();
	fprintf(stderr, "memwatchd: unknown service command '%s' (install, uninstall, configure, "
			"cleanup)\n", argv[0]);
	return 2;
}
