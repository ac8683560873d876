/* counter_path.c - see counter_path.h. */
#include "counter_path.h"

#include <string.h>

int mw_perf_path_parse(const char *text, struct mw_perf_path *p, struct mw_err *err)
{
	const char *s = text, *obj_end, *ctr;
	size_t n;

	memset(p, 0, sizeof(*p));
	if (s[0] == '\\' && s[1] == '\\') {	/* \\machine\... : skip the machine */
		s = strchr(s + 2, '\\');
		if (!s)
			return mw_error(err, "counter path '%s': no object after the machine", text);
	}
	if (*s != '\\')
		return mw_error(err, "counter path '%s' does not start with '\\'", text);
	s++;
	ctr = strrchr(s, '\\');
	if (!ctr || ctr == s || !ctr[1])
		return mw_error(err, "counter path '%s' is not \\Object\\Counter", text);
	obj_end = ctr;
	if (ctr[-1] == ')') {
		const char *open = NULL, *q;

		for (q = s; q < ctr; q++)
			if (*q == '(') {
				open = q;
				break;
			}
		if (!open)
			return mw_error(err, "counter path '%s': ')' without '('", text);
		n = (size_t)(ctr - 1 - open - 1);
		if (n >= sizeof(p->instance))
			return mw_error(err, "counter path '%s': instance too long", text);
		memcpy(p->instance, open + 1, n);
		p->instance[n] = '\0';
		p->has_instance = true;
		{
			const char *slash = strchr(p->instance, '/');

			if (slash) {	/* "parent/instance#n" (Thread: "notepad/0") */
				memcpy(p->parent, p->instance, (size_t)(slash - p->instance));
				p->parent[slash - p->instance] = '\0';
			}
		}
		obj_end = open;
	}
	n = (size_t)(obj_end - s);
	if (n == 0 || n >= sizeof(p->object))
		return mw_error(err, "counter path '%s': bad object name", text);
	memcpy(p->object, s, n);
	p->object[n] = '\0';
	if (strlen(ctr + 1) >= sizeof(p->counter))
		return mw_error(err, "counter path '%s': counter name too long", text);
	strcpy(p->counter, ctr + 1);
	return 0;
}
