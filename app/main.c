/*
 * main.c - memwatchd's entry point: pick the command, build the config
 * (defaults, then --config FILE, then the other options), run it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "core/collector.h"
#include "core/config.h"
#include "base/fsutf8.h"
#include "base/log.h"
#include "base/privilege.h"
#include "base/private_files.h"
#include "app/perfdata_cmd.h"

static const char usage[] =
	"usage: memwatchd [COMMAND] [OPTIONS]\n"
	"\n"
	"Samples memory figures of the machine and its processes into SQLite and\n"
	"serves them over HTTP (JSON API, Prometheus /metrics, a chart page).\n"
	"\n"
	"Commands:\n"
	"  run                  sample, store and serve until stopped (the default)\n"
	"  once                 run every enabled collector once, print JSON, exit\n"
	"  config               print the reference config (every option, its default)\n"
	"  check [OPTIONS]      leak verdicts: pass, fail or inconclusive per process, as an\n"
	"                       exit status (see memwatchd check --help)\n"
	"  counters [--all] [DIR]      performance objects and counters with their indexes\n"
	"  perfdata dump DIR    save the raw title database and two performance-data snapshots\n"
	"  perfdata decode DIR [--json]  decode such a recording (on any platform)\n"
	"  diff [OPTIONS]       what changed in a process's working set between two times\n"
	"                       (see memwatchd diff --help)\n"
	"  export [--db PATH] [--match SELECTOR] [--from T] [--to T] [--format csv|json]\n"
	"                       stored points to stdout, as /api/v1/export writes them\n"
	"                       (see memwatchd export --help)\n"
	"  import [--db PATH] [--skip-bad] FILE...  load /api/v1/export files, typeperf/relog CSV\n"
	"  service install [--firewall] [OPTIONS]   install as a Windows service running\n"
	"                       'run OPTIONS' (--firewall: an inbound rule for its port)\n"
	"  service uninstall    remove the Windows service\n"
	"  service configure [--firewall=PORT], service cleanup   what the MSI runs: recovery,\n"
	"                       preshutdown time-out, data folder ACL, firewall rule; undo\n"
	"  version, help\n"
	"\n"
	"Options (run, once, config, service install):\n"
	"  --config FILE        read settings from an INI file (see config/memwatch.ini)\n"
	"  --listen ADDR        HTTP address, HOST:PORT, [IPV6]:PORT or 'off' (127.0.0.1:8080)\n"
	"  --db PATH            SQLite database file (memwatch.db)\n"
	"  --interval DURATION  sampling interval of system and process: 100ms, 1s, 5m (1s)\n"
	"  --watch LIST         processes to watch closely: names (wildcards), pids, self;\n"
	"                       repeat to add (to the config file's list too), --watch \"\" clears\n"
	"  --log-file FILE      log to FILE instead of stderr\n"
	"  --log-level LEVEL    error, warn, info, debug (info)\n"
	"  --set SECTION.KEY=VALUE   any config option, e.g. --set storage.retention_raw=14d\n"
	"  -h, --help           this text\n"
	"  -V, --version        print the version\n"
	"\n"
	"Collectors:\n";

static void print_usage(FILE *f)
{
	size_t i;

	fputs(usage, f);
	for (i = 0; i < mw_ncollectors; i++) {
		const char *s = mw_collectors[i]->summary;
		const char *nl = strchr(s, '\n');
		fprintf(f, "  %-14s %.*s%s\n", mw_collectors[i]->name,
			nl ? (int)(nl - s) : (int)strlen(s), s, nl ? " ..." : "");
	}
}

/* Commands that read their own command line (argv[0] is the command). */
static const struct {
	const char *name;
	int (*run)(int argc, char **argv);
} own_line_commands[] = {
	{ "check", mw_cmd_check }, { "diff", mw_cmd_diff }, { "counters", mw_cmd_counters },
	{ "perfdata", mw_cmd_perfdata }, { "export", mw_cmd_export }, { "import", mw_cmd_import },
};

/* Options that map to one config key each. */
static const struct {
	const char *flag, *section, *key;
} flag_options[] = {
	{ "--listen", "web", "listen" },
	{ "--db", "storage", "db" },
	{ "--interval", "daemon", "interval" },
	{ "--log-file", "daemon", "log_file" },
	{ "--log-level", "daemon", "log_level" },
};

/* Split "--flag=value" or take the next argument as the value. */
static const char *flag_value(int argc, char **argv, int *i, const char *flag)
{
	size_t n = strlen(flag);

	if (argv[*i][n] == '=')
		return argv[*i] + n + 1;
	if (*i + 1 >= argc) {
		fprintf(stderr, "memwatchd: %s needs a value\n", flag);
		return NULL;
	}
	return argv[++*i];
}

static int flag_is(const char *arg, const char *flag)
{
	size_t n = strlen(flag);
	return !strncmp(arg, flag, n) && (arg[n] == '\0' || arg[n] == '=');
}

/* Build cfg from argv[first..]; the config file is read before the other
 * options so that the command line wins, in its order: --set replaces an
 * option (daemon.watch too), --watch appends to the watch list and --watch ""
 * empties it.  Returns 0, or 2 on bad usage. */
static int build_config(struct mw_config *cfg, int argc, char **argv, int first)
{
	struct mw_err err = { "" };
	const char *config_path = NULL;
	int i, pass;

	mw_config_init(cfg);
	for (pass = 0; pass < 2; pass++) {
		for (i = first; i < argc; i++) {
			const char *arg = argv[i], *v;
			size_t k;
			int known = 0;

			if (flag_is(arg, "--config")) {
				if (!(v = flag_value(argc, argv, &i, "--config")))
					return 2;
				config_path = v;
				continue;
			}
			/* --watch adds to the list (the config file's too), as
			 * curl's and ps's list options do; --watch "" clears it. */
			if (flag_is(arg, "--watch")) {
				if (!(v = flag_value(argc, argv, &i, "--watch")))
					return 2;
				if (pass == 1)
					mw_config_add_watch(cfg, v);
				continue;
			}
			for (k = 0; k < MW_ARRAY_SIZE(flag_options); k++) {
				if (!flag_is(arg, flag_options[k].flag))
					continue;
				known = 1;
				if (!(v = flag_value(argc, argv, &i, flag_options[k].flag)))
					return 2;
				if (pass == 1 && mw_config_set(cfg, flag_options[k].section,
							       flag_options[k].key, v,
							       flag_options[k].flag, &err)) {
					fprintf(stderr, "memwatchd: %s\n", err.msg);
					return 2;
				}
			}
			if (known)
				continue;
			if (flag_is(arg, "--set")) {
				char section[128], *dot, *eq;

				if (!(v = flag_value(argc, argv, &i, "--set")))
					return 2;
				eq = strchr(v, '=');
				dot = eq ? memchr(v, '.', (size_t)(eq - v)) : NULL;
				/* collector.NAME.key: the section is up to the last dot */
				if (eq) {
					char *p;
					for (p = (char *)v; p < eq; p++)
						if (*p == '.')
							dot = p;
				}
				if (!eq || !dot || (size_t)(dot - v) >= sizeof(section)) {
					fprintf(stderr, "memwatchd: --set '%s': expected SECTION.KEY=VALUE\n", v);
					return 2;
				}
				memcpy(section, v, (size_t)(dot - v));
				section[dot - v] = '\0';
				if (pass == 1) {
					char key[128];
					snprintf(key, sizeof(key), "%.*s", (int)(eq - dot - 1), dot + 1);
					if (mw_config_set(cfg, section, key, eq + 1, "--set", &err)) {
						fprintf(stderr, "memwatchd: %s\n", err.msg);
						return 2;
					}
				}
				continue;
			}
			fprintf(stderr, "memwatchd: unknown option '%s' (see memwatchd --help)\n", arg);
			return 2;
		}
		if (pass == 0 && config_path && mw_config_load_file(cfg, config_path, &err)) {
			fprintf(stderr, "memwatchd: %s\n", err.msg);
			return 2;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *cmd = "run";
	struct mw_config cfg;
	struct mw_err err = { "" };
	int first = 1, rc, i;

	/* UTF-8 arguments on Windows too (paths outside the ANSI code page). */
	mw_utf8_argv(&argc, &argv);
	/* Before any file is made: the database, its WAL and lock, the log. */
	mw_files_private();

	/* check, diff, export and import have a help of their own (and their
	 * own options). */
	for (i = 1; i < argc && !(argc > 1 && (!strcmp(argv[1], "check") ||
					      !strcmp(argv[1], "diff") ||
					      !strcmp(argv[1], "export") ||
					      !strcmp(argv[1], "import"))); i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			print_usage(stdout);
			return 0;
		}
		if (!strcmp(argv[i], "-V") || !strcmp(argv[i], "--version")) {
			printf("memwatchd %s\n", MW_VERSION);
			return 0;
		}
	}
	if (argc > 1 && argv[1][0] != '-') {
		cmd = argv[1];
		first = 2;
	}
	if (!strcmp(cmd, "help")) {
		print_usage(stdout);
		return 0;
	}
	if (!strcmp(cmd, "version")) {
		printf("memwatchd %s\n", MW_VERSION);
		return 0;
	}
	for (size_t k = 0; k < MW_ARRAY_SIZE(own_line_commands); k++)
		if (!strcmp(cmd, own_line_commands[k].name))
			return own_line_commands[k].run(argc - 1, argv + 1);
	if (!strcmp(cmd, "service")) {
		if (argc < 3) {
			fprintf(stderr, "memwatchd: service needs 'install' or 'uninstall'\n");
			return 2;
		}
		if (!strcmp(argv[2], "install")) {
			/* Validate the options now rather than at the service's start
			 * (install's own --firewall, first, is not one of them). */
			rc = build_config(&cfg, argc, argv,
					  3 + (argc > 3 && !strcmp(argv[3], "--firewall")));
			mw_config_release(&cfg);
			if (rc)
				return rc;
		}
		return mw_cmd_service(argc - 2, argv + 2, (const char *const *)argv + 3,
				      argc - 3);
	}
	if (strcmp(cmd, "run") && strcmp(cmd, "once") && strcmp(cmd, "config")) {
		fprintf(stderr, "memwatchd: unknown command '%s' (see memwatchd --help)\n", cmd);
		return 2;
	}
	if (!strcmp(cmd, "run"))
		mw_service_early_errors_begin();
	rc = build_config(&cfg, argc, argv, first);
	if (rc) {
		mw_service_start_failed(rc);
		mw_config_release(&cfg);
		return rc;
	}
	if (!strcmp(cmd, "config")) {
		mw_config_write_reference(&cfg, stdout);
		mw_config_release(&cfg);
		return 0;
	}
	if (mw_log_open(cfg.log_file, (enum mw_log_level)cfg.log_level, &err)) {
		fprintf(stderr, "memwatchd: %s\n", err.msg);
		mw_service_start_failed(2);
		mw_config_release(&cfg);
		return 2;
	}
	if (mw_enable_debug_privilege(&err))
		mw_log_info("%s; processes it cannot open are counted as inaccessible", err.msg);
	if (!strcmp(cmd, "once")) {
		rc = mw_cmd_once(&cfg);
	} else if (!mw_service_try_dispatch(&cfg, &rc)) {
		rc = mw_cmd_run(&cfg);
	}
	mw_log_close();
	mw_config_release(&cfg);
	return rc;
}
