/* rw_proxy_auth.c - see rw_proxy_auth.h. */
#include "forward/rw_proxy_auth.h"

#include <stdio.h>
#include <string.h>

#include "forward/rw_transport_util.h"

void mw_rw_proxy_auth_message(const char *proxy, const char *scheme, char *out, size_t size)
{
	char who[256] = "the proxy", how[64] = "";

	if (proxy && *proxy) {
		char p[200];

		mw_rw_printable(proxy, strlen(proxy), p, sizeof(p));
		snprintf(who, sizeof(who), "the proxy %s", p);
	}
	if (scheme && *scheme) {
		size_t n = strcspn(scheme, " ,");	/* the scheme's name, not its realm */

		mw_rw_printable(scheme, n, how, sizeof(how));
	}
	snprintf(out, size,
		 "%s asks for a logon (HTTP 407 Proxy Authentication Required%s%s); memwatch "
		 "does not log on to proxies: let it reach the receiver directly (add the "
		 "receiver's host to the proxy bypass list: netsh winhttp set proxy "
		 "proxy-server=PROXY bypass-list=HOST, or the system's proxy settings) or use a "
		 "proxy that lets it through without a logon",
		 who, *how ? ", scheme " : "", how);
}
