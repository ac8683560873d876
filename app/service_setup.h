/*
 * service_setup.h - what the memwatch service gets beyond CreateService,
 * and what goes away with it (service_setup_win32.c; Windows only, used by
 * service_win32.c for `service install`, `service configure`, `service
 * uninstall` and `service cleanup`; the MSI runs the last two as custom
 * actions, see packaging/windows/memwatch.wxs):
 *   - recovery: restart 5 s, 10 s and 60 s after a failure, the count reset
 *     after a day, a non-zero exit code counting as a failure too;
 *   - a description;
 *   - the preshutdown time-out (30 s), so the final flush runs before
 *     Windows shuts down (the plain shutdown notice allows a few seconds);
 *   - optionally an inbound firewall rule "memwatch" for the port.
 */
#ifndef MW_APP_SERVICE_SETUP_H
#define MW_APP_SERVICE_SETUP_H

#define MW_SERVICE_NAME "memwatch"
#define MW_SERVICE_DESCRIPTION \
	"Samples the memory of the machine and its processes into SQLite and " \
	"serves it over HTTP (JSON API, Prometheus /metrics, a chart page)."
#define MW_PRESHUTDOWN_MS 30000
#define MW_RECOVERY_RESET_S 86400
#define MW_FIREWALL_RULE "memwatch"

/* Recovery, description and preshutdown time-out on the installed service.
 * Prints what failed; returns 0 or -1. */
int mw_service_setup(void);

/* Replace the inbound rule "memwatch" by one allowing TCP port for exe,
 * through netsh.  A firewall that cannot be reached (netsh missing,
 * failing) is a warning on stderr, not a failure: returns 0 when the rule
 * was added, 1 when only warned. */
int mw_firewall_allow(const char *exe, unsigned port);
/* Delete the rule "memwatch" if there is one; quiet when there is none. */
void mw_firewall_remove(void);

#endif
