/*
 * exit_report_ntdll.c - the parser of ntdll's exit leak report (the
 * ShutdownFlags check, RtlDetectHeapLeaks), one line at a time: the
 * Windows capture (collectors/exit_leaks_win32.c) feeds it the debugger's
 * OUTPUT_DEBUG_STRING_EVENT text split into lines, import/ a saved
 * debugger log.
 *
 * What ntdll prints (each DbgPrint call is one debug string; the name is
 * the image's base name, or plain "HEAP: " before the loader is up):
 *
 *     HEAP[app.exe]: Inspecting leaks at process shutdown ...
 *     Below is a list of potentially leaked heap entries
 *     use !heap -i Entry -h Heap for more information
 *     Entry     Heap              Size
 *     ---------------------------------------
 *     000001F2A3B40000  1f2a3b00000       100          ("%p  %-16Ix  %Id")
 *     HEAP[app.exe]: 3 leaks detected.                  (or "No leaks detected.")
 *
 * The count on the closing line is ntdll's own; the rows may be fewer (a
 * lost string, or a leak callback registered instead of the listing), so
 * leaks is taken from the closing line and bytes is the sum of the rows.
 * Nothing in the text is trusted: numbers are bounded, the name is made
 * valid UTF-8, rows beyond MW_EXIT_MAX_BLOCKS are only summed.
 */
#include "exit_report.h"

#include <stdlib.h>
#include <string.h>

#include "base/utf8.h"
#include "base/xalloc.h"

#define NAME_MAX_BYTES 260	/* MAX_PATH: longer is not an image name */
#define FIRST_BLOCKS 16

static const char START_MSG[] = "Inspecting leaks at process shutdown";
static const char LEAKS_MSG[] = "leaks detected.";
static const char NONE_MSG[] = "No leaks detected.";

/* A line as text without its line end and trailing blanks (CRLF logs,
 * ntdll's padded header). */
static size_t trim_end(const char *s, size_t n)
{
	while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == '\r' || s[n - 1] == ' ' ||
			 s[n - 1] == '\t'))
		n--;
	return n;
}

static bool starts_with(const char *s, size_t n, const char *prefix)
{
	size_t k = strlen(prefix);

	return n >= k && memcmp(s, prefix, k) == 0;
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* The name between "HEAP[" and "]: " as valid UTF-8 (ntdll prints it in
 * the ANSI code page: a byte that is not UTF-8 becomes '?'). */
static char *name_copy(const char *s, size_t n)
{
	char *out = mw_xmalloc(n + 1);
	size_t i = 0, o = 0;

	while (i < n) {
		size_t k = mw_utf8_char_len((const unsigned char *)s + i, n - i);

		if (k == 0 || (k == 1 && (unsigned char)s[i] < 0x20)) {
			out[o++] = '?';
			i++;
			continue;
		}
		memcpy(out + o, s + i, k);
		o += k;
		i += k;
	}
	out[o] = '\0';
	return out;
}

/*
 * A "HEAP[name]: message" or "HEAP: message" line: the message and the
 * name's span (name_len 0 and *name NULL for "HEAP: ").  False for any
 * other line, or a name longer than a path.
 */
static bool split_heap_line(const char *s, size_t n, const char **name, size_t *name_len,
			    const char **msg, size_t *msg_len)
{
	size_t i;

	if (starts_with(s, n, "HEAP: ")) {
		*name = NULL;
		*name_len = 0;
		*msg = s + 6;
		*msg_len = n - 6;
		return true;
	}
	if (n == 5 && memcmp(s, "HEAP:", 5) == 0) {
		*name = NULL;	/* the prefix alone, its blank trimmed */
		*name_len = 0;
		*msg = s + 5;
		*msg_len = 0;
		return true;
	}
	if (!starts_with(s, n, "HEAP["))
		return false;
	/* "]: " ends the name; "]:" may end the line (the prefix alone) */
	for (i = 5; i + 1 < n && i - 5 <= NAME_MAX_BYTES; i++)
		if (s[i] == ']' && s[i + 1] == ':' && (i + 2 == n || s[i + 2] == ' '))
			break;
	if (i + 1 >= n || i - 5 > NAME_MAX_BYTES || i == 5)
		return false;
	*name = s + 5;
	*name_len = i - 5;
	*msg = s + (i + 2 == n ? n : i + 3);
	*msg_len = n - (size_t)(*msg - s);
	while (*msg_len > 0 && is_blank(**msg)) {
		(*msg)++;
		(*msg_len)--;
	}
	return true;
}

/* One hex number of 1..16 digits (an optional 0x, as a hand-written log
 * may have); the position after it, or NULL. */
static const char *parse_hex(const char *s, const char *end, uint64_t *out)
{
	uint64_t v = 0;
	size_t digits = 0;

	if (end - s > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	for (; s < end && !is_blank(*s); s++, digits++) {
		int d;

		if (*s >= '0' && *s <= '9')
			d = *s - '0';
		else if (*s >= 'a' && *s <= 'f')
			d = *s - 'a' + 10;
		else if (*s >= 'A' && *s <= 'F')
			d = *s - 'A' + 10;
		else
			return NULL;
		if (digits == 16)
			return NULL;
		v = v << 4 | (uint64_t)d;
	}
	if (digits == 0)
		return NULL;
	*out = v;
	return s;
}

/* A decimal number up to max; the position after it, or NULL (not
 * digits, or more than max: an absurd figure is no figure). */
static const char *parse_dec(const char *s, const char *end, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;
	size_t digits = 0;

	for (; s < end && !is_blank(*s); s++, digits++) {
		uint64_t d;

		if (*s < '0' || *s > '9')
			return NULL;
		d = (uint64_t)(*s - '0');
		if (v > (max - d) / 10)
			return NULL;
		v = v * 10 + d;
	}
	if (digits == 0)
		return NULL;
	*out = v;
	return s;
}

static const char *skip_blanks(const char *s, const char *end)
{
	while (s < end && is_blank(*s))
		s++;
	return s;
}

/* A block row: exactly entry (hex), heap (hex), size (decimal). */
static bool parse_row(const char *s, size_t n, struct mw_exit_block *b)
{
	const char *end = s + n, *p = skip_blanks(s, end);

	p = parse_hex(p, end, &b->entry);
	if (!p || p == end || !is_blank(*p))
		return false;
	p = parse_hex(skip_blanks(p, end), end, &b->heap);
	if (!p || p == end || !is_blank(*p))
		return false;
	/* %Id of a SIZE_T: never negative, at most what an address space holds */
	p = parse_dec(skip_blanks(p, end), end, INT64_MAX, &b->size);
	return p && skip_blanks(p, end) == end;
}

static void add_block(struct mw_exit_report *r, const struct mw_exit_block *b)
{
	/* every row counts, while reading, in leaks (the closing line's
	 * count replaces it) and bytes; rows beyond the kept ones only there */
	if (r->leaks < UINT64_MAX)
		r->leaks++;
	r->bytes = r->bytes > UINT64_MAX - b->size ? UINT64_MAX : r->bytes + b->size;
	if (r->nblocks >= MW_EXIT_MAX_BLOCKS)
		return;
	/* capacity doubles at each power of two: no field to keep it in */
	if (r->nblocks == 0)
		r->blocks = mw_xmalloc(FIRST_BLOCKS * sizeof(*r->blocks));
	else if (r->nblocks >= FIRST_BLOCKS && (r->nblocks & (r->nblocks - 1)) == 0)
		r->blocks = mw_xrealloc(r->blocks, 2 * r->nblocks * sizeof(*r->blocks));
	r->blocks[r->nblocks++] = *b;
}

static void report_reset(struct mw_exit_report *r)
{
	memset(r, 0, sizeof(*r));
	r->source = MW_EXIT_NTDLL;
}

void mw_ntdll_parser_init(struct mw_ntdll_leak_parser *p)
{
	p->state = 0;
	report_reset(&p->cur);
	p->prefix = NULL;
}

void mw_ntdll_parser_release(struct mw_ntdll_leak_parser *p)
{
	free(p->cur.process);
	free(p->cur.blocks);
	free(p->prefix);
	mw_ntdll_parser_init(p);
}

/* Hand the report being read to *out and start afresh. */
static void hand_over(struct mw_ntdll_leak_parser *p, struct mw_exit_report *out)
{
	*out = p->cur;
	p->state = 0;
	report_reset(&p->cur);
}

static void start_report(struct mw_ntdll_leak_parser *p, const char *name, size_t name_len)
{
	p->state = 1;
	report_reset(&p->cur);
	if (name)
		p->cur.process = name_copy(name, name_len);
}

/* Whether the closing line's name is this report's (a saved log may hold
 * several processes' lines; an unnamed "HEAP: " line matches any). */
static bool same_process(const struct mw_exit_report *r, const char *name, size_t name_len)
{
	char *copy;
	bool same;

	if (!name || !r->process)
		return true;
	copy = name_copy(name, name_len);
	same = strcmp(copy, r->process) == 0;
	free(copy);
	return same;
}

/* The closing line: "N leaks detected." or "No leaks detected.".  A count
 * that is not a number a %ld can hold closes the report incomplete. */
static void close_report(struct mw_ntdll_leak_parser *p, const char *msg, size_t n)
{
	const char *end = msg + n, *q;
	uint64_t count;

	if (n == strlen(NONE_MSG) && memcmp(msg, NONE_MSG, n) == 0) {
		p->cur.leaks = 0;
		p->cur.complete = true;
		return;
	}
	q = parse_dec(msg, end, INT32_MAX, &count);
	if (q && q < end && *q == ' ' && (size_t)(end - q - 1) == strlen(LEAKS_MSG) &&
	    memcmp(q + 1, LEAKS_MSG, strlen(LEAKS_MSG)) == 0) {
		p->cur.leaks = count;
		p->cur.complete = true;
		return;
	}
	/* unreadable count: leaks stays the rows counted; not whole */
	p->cur.complete = false;
}

static bool is_closing(const char *msg, size_t n)
{
	size_t k = strlen(LEAKS_MSG);

	return n >= k && memcmp(msg + n - k, LEAKS_MSG, k) == 0;
}

static int parse_line(struct mw_ntdll_leak_parser *p, const char *line, size_t n,
		      struct mw_exit_report *out);

/* A prefix line waiting: joined with this line, unless this one is a
 * HEAP line itself (then the prefix had no message: dropped). */
static int parse_after_prefix(struct mw_ntdll_leak_parser *p, const char *line, size_t n,
			      struct mw_exit_report *out)
{
	char *prefix = p->prefix;
	size_t k = strlen(prefix);
	char *joined;
	int rc;

	p->prefix = NULL;
	if (starts_with(line, n, "HEAP")) {
		free(prefix);
		return parse_line(p, line, n, out);
	}
	joined = mw_xmalloc(k + 1 + n + 1);
	memcpy(joined, prefix, k);
	joined[k] = ' ';
	memcpy(joined + k + 1, line, n);
	joined[k + 1 + n] = '\0';
	rc = parse_line(p, joined, k + 1 + n, out);
	free(joined);
	free(prefix);
	return rc;
}

int mw_ntdll_parser_line(struct mw_ntdll_leak_parser *p, const char *line, size_t n,
			 struct mw_exit_report *out)
{
	n = trim_end(line, n);
	if (p->prefix && n > 0)
		return parse_after_prefix(p, line, n, out);
	return parse_line(p, line, n, out);
}

static int parse_line(struct mw_ntdll_leak_parser *p, const char *line, size_t n,
		      struct mw_exit_report *out)
{
	const char *name, *msg;
	size_t name_len, msg_len;
	struct mw_exit_block b;

	if (split_heap_line(line, n, &name, &name_len, &msg, &msg_len)) {
		if (msg_len == 0) {
			/* the prefix alone: its message is the next line */
			free(p->prefix);
			p->prefix = mw_xstrndup(line, n);
			return 0;
		}
		if (starts_with(msg, msg_len, START_MSG)) {
			/* a report starting inside another: the first one is cut */
			int handed = 0;

			if (p->state == 1) {
				hand_over(p, out);
				handed = 1;
			}
			start_report(p, name, name_len);
			return handed;
		}
		if (p->state == 1 && is_closing(msg, msg_len) &&
		    same_process(&p->cur, name, name_len)) {
			close_report(p, msg, msg_len);
			hand_over(p, out);
			return 1;
		}
		return 0;
	}
	if (p->state == 1 && parse_row(line, n, &b)) {
		/* the leak count comes from the closing line; rows carry bytes */
		add_block(&p->cur, &b);
	}
	return 0;
}

int mw_ntdll_parser_end(struct mw_ntdll_leak_parser *p, struct mw_exit_report *out)
{
	if (p->state != 1)
		return 0;
	/* leaks: the rows counted */
	p->cur.complete = false;
	hand_over(p, out);
	return 1;
}
