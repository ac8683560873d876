/* listen_addr.c - see listen_addr.h. */
#include "listen_addr.h"

#include <ctype.h>
#include <string.h>

#define LISTEN_WANT "(want HOST:PORT, [V6]:PORT or off)"

int mw_listen_addr_parse(const char *s, struct mw_listen_addr *out, struct mw_err *err)
{
	const char *colon, *host = s, *p;
	size_t hl;
	unsigned long port = 0;

	memset(out, 0, sizeof(*out));
	if (!*s || !strcmp(s, "off")) {
		out->off = true;
		return 0;
	}
	if (s[0] == '[') {
		const char *close = strchr(s, ']');

		if (!close || close[1] != ':')
			return mw_error(err, "'%s' is not an address " LISTEN_WANT, s);
		host = s + 1;
		hl = (size_t)(close - host);
		colon = close + 1;
		out->v6 = true;
	} else {
		colon = strrchr(s, ':');
		if (!colon)
			return mw_error(err, "'%s' has no port " LISTEN_WANT, s);
		hl = (size_t)(colon - s);
	}
	if (hl >= sizeof(out->host))
		return mw_error(err, "'%s': the host is too long", s);
	/* Digits only: no sign, no blank, at most 65535. */
	for (p = colon + 1; isdigit((unsigned char)*p) && port <= 65535; p++)
		port = port * 10 + (unsigned long)(*p - '0');
	if (!colon[1] || *p || port > 65535)
		return mw_error(err, "'%s': port '%s' is not a number from 0 to 65535", s, colon + 1);
	memcpy(out->host, host, hl);
	out->host[hl] = '\0';
	out->port = (unsigned)port;
	return 0;
}
