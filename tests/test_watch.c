/* test_watch.c - watch-list parsing and matching, what each entry
 * selects (the unmatched report and its log-once rule), and on Linux the
 * image name: full length, spaces, another user's process (EACCES), a
 * process that is exiting (zombie) or gone. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#ifndef _WIN32
#include <errno.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#endif

#include "core/watch.h"
#include "tests/support/test_file.h"

static void wildcards(void **state)
{
	(void)state;
	assert_true(mw_wildcard_match("*", ""));
	assert_true(mw_wildcard_match("note*", "NotePad.exe"));
	assert_true(mw_wildcard_match("n?tepad.EXE", "notepad.exe"));
	assert_true(mw_wildcard_match("*pad*", "notepad.exe"));
	assert_true(mw_wildcard_match("a*b*c", "aXbYbZc"));
	assert_false(mw_wildcard_match("a*b*c", "aXbYbZ"));
	assert_false(mw_wildcard_match("note", "notepad.exe"));
	assert_false(mw_wildcard_match("?", ""));
	assert_string_equal(mw_path_basename("C:\\Windows\\notepad.exe"), "notepad.exe");
	assert_string_equal(mw_path_basename("/usr/bin/vim"), "vim");
}

static void matching(void **state)
{
	const char *list[] = { "self", "1234", "svc*.exe", "notepad", "  Chrome.exe" };
	struct mw_watch w;
	struct mw_err err;

	(void)state;
	assert_int_equal(mw_watch_init(&w, list, 5, &err), 0);
	assert_true(mw_watch_match(&w, 77, "whatever", 77));	/* self */
	assert_false(mw_watch_match(&w, 78, "whatever", 77));
	assert_true(mw_watch_match(&w, 1234, "x", 1));
	assert_true(mw_watch_match(&w, 5, "SVCHOST.EXE", 1));
	assert_true(mw_watch_match(&w, 5, "C:\\Windows\\notepad.exe", 1));	/* stem */
	assert_false(mw_watch_match(&w, 5, "notepad2.exe", 1));
	assert_true(mw_watch_match(&w, 5, "chrome.exe", 1));
	assert_false(mw_watch_match(&w, 5, NULL, 1));
	mw_watch_release(&w);
}

/* A wildcard never selects lsass.exe or csrss.exe (opening them with
 * VM_READ raises security alarms); an exact name or a pid does. */
static void wildcard_skips_lsass_csrss(void **state)
{
	const char *wild[] = { "*", "l*", "?sass.exe", "CSRSS*" };
	const char *exact[] = { "lsass", "CSRSS.EXE" };
	const char *pid[] = { "624" };
	struct mw_watch w;
	struct mw_err err;

	(void)state;
	assert_int_equal(mw_watch_init(&w, wild, 4, &err), 0);
	assert_false(mw_watch_match(&w, 624, "lsass.exe", 1));
	assert_false(mw_watch_match(&w, 624, "C:\\Windows\\System32\\LSASS.EXE", 1));
	assert_false(mw_watch_match(&w, 500, "csrss.exe", 1));
	for (size_t i = 0; i < 4; i++)
		assert_false(mw_watch_entry_match(&w, i, 624, "lsass.exe", 1));
	/* everything else still matches the wildcards */
	assert_true(mw_watch_match(&w, 700, "lsm.exe", 1));
	assert_true(mw_watch_match(&w, 700, "notepad.exe", 1));
	assert_true(mw_watch_match(&w, 700, "lsass2.exe", 1));
	mw_watch_release(&w);

	assert_int_equal(mw_watch_init(&w, exact, 2, &err), 0);
	assert_true(mw_watch_match(&w, 624, "lsass.exe", 1));
	assert_true(mw_watch_match(&w, 500, "csrss.exe", 1));
	mw_watch_release(&w);

	assert_int_equal(mw_watch_init(&w, pid, 1, &err), 0);
	assert_true(mw_watch_match(&w, 624, "lsass.exe", 1));
	mw_watch_release(&w);
	assert_true(mw_watch_wildcard_excluded("Lsass.exe"));
	assert_false(mw_watch_wildcard_excluded("lsass"));	/* the image name has .exe */
}

static void bad_entries(void **state)
{
	const char *empty[] = { "self", "  " };
	const char *big[] = { "99999999999" };
	const char *junk[] = { "12ab" };
	struct mw_watch w;
	struct mw_err err;

	(void)state;
	assert_int_equal(mw_watch_init(&w, empty, 2, &err), -1);
	assert_non_null(strstr(err.msg, "entry 2 is empty"));
	assert_int_equal(mw_watch_init(&w, big, 1, &err), -1);
	assert_int_equal(mw_watch_init(&w, junk, 1, &err), -1);
	assert_non_null(strstr(err.msg, "not a pid"));
}

/* The live table always holds the test itself under "self". */
static void targets_self(void **state)
{
	const char *list[] = { "self" };
	struct mw_watch w;
	struct mw_targets t = { 0 };
	struct mw_err err;

	(void)state;
	assert_int_equal(mw_watch_init(&w, list, 1, &err), 0);
	assert_int_equal(mw_watch_targets(&w, &t, &err), 0);
	assert_int_equal(t.n, 1);
	assert_int_equal(t.t[0].pid, mw_self_pid());
	assert_true(t.t[0].self);
	assert_true(strlen(t.t[0].name) > 0);
	mw_targets_release(&t);
	mw_watch_release(&w);
}

/* An empty list selects nothing (and walks no process list); a list of
 * pids and self selects those, named, without naming every process. */
static void targets_without_names(void **state)
{
	char me[16];
	const char *pids[] = { me, "self" }, *named[] = { "x*", "self" };
	struct mw_watch w = { 0 };
	struct mw_targets t = { 0 };
	struct mw_err err;

	(void)state;
	assert_false(mw_watch_by_name(&w));
	assert_int_equal(mw_watch_targets(&w, &t, &err), 0);
	assert_int_equal(t.n, 0);
	snprintf(me, sizeof(me), "%u", (unsigned)mw_self_pid());
	assert_int_equal(mw_watch_init(&w, pids, 2, &err), 0);
	assert_false(mw_watch_by_name(&w));
	assert_int_equal(mw_watch_targets(&w, &t, &err), 0);
	assert_int_equal(t.n, 1);	/* one process, selected twice */
	assert_int_equal(t.t[0].pid, mw_self_pid());
	assert_true(strlen(t.t[0].name) > 0);
	mw_watch_release(&w);
	assert_int_equal(mw_watch_init(&w, named, 2, &err), 0);
	assert_true(mw_watch_by_name(&w));
	mw_watch_release(&w);
	mw_targets_release(&t);
}

/* Names longer than Linux's 15-character comm, with wildcards as before. */
static void long_names(void **state)
{
	const char *list[] = { "verylongprocessname-leaky", "verylong*leaky", "*name-lea?y",
			       "my leaky prog" };
	const char *comm[] = { "verylongprocess" };
	struct mw_watch w, c;
	struct mw_err err;
	size_t i;

	(void)state;
	assert_int_equal(mw_watch_init(&w, list, 4, &err), 0);
	assert_int_equal(mw_watch_init(&c, comm, 1, &err), 0);
	for (i = 0; i < 3; i++)
		assert_true(mw_watch_entry_match(&w, i, 9, "verylongprocessname-leaky", 1));
	assert_true(mw_watch_match(&w, 9, "/opt/x/VeryLongProcessName-Leaky", 1));
	assert_false(mw_watch_entry_match(&w, 0, 9, "verylongprocess", 1));	/* comm */
	assert_false(mw_watch_match(&c, 9, "verylongprocessname-leaky", 1));	/* no prefix rule */
	assert_true(mw_watch_entry_match(&w, 3, 9, "/tmp/a dir/my leaky prog", 1));
	assert_false(mw_watch_entry_match(&w, 3, 9, "my", 1));
	assert_false(mw_watch_entry_match(&w, 4, 9, "verylongprocessname-leaky", 1));	/* no entry 5 */
	mw_watch_release(&c);
	mw_watch_release(&w);
}

/* What each entry selects, the unmatched ones, the bounds. */
static void report_entries(void **state)
{
	const char *list[] = { "leaky.exe", " nope ", "self", "42", "*" };
	struct mw_watch w;
	struct mw_targets t = { 0 };
	struct mw_watch_status *st = calloc(1, sizeof(*st));
	struct mw_err err;
	size_t i;

	(void)state;
	assert_int_equal(mw_watch_init(&w, list, 5, &err), 0);
	mw_targets_add(&t, 42, "C:\\apps\\leaky.exe", false);
	mw_targets_add(&t, 7, "", true);	/* the daemon, name unreadable */
	for (i = 0; i < 20; i++)
		mw_targets_add(&t, (uint32_t)(100 + i), "other.exe", false);
	mw_watch_report(&w, &t, 1234, st);
	assert_int_equal(st->checked_ms, 1234);
	assert_int_equal(st->nentries, 5);
	assert_int_equal(st->entries_total, 5);
	assert_string_equal(st->e[0].entry, "leaky.exe");
	assert_int_equal(st->e[0].matched_total, 1);
	assert_int_equal(st->e[0].matched[0].pid, 42);
	assert_string_equal(st->e[0].matched[0].process, "leaky.exe");
	assert_string_equal(st->e[1].entry, "nope");	/* trimmed */
	assert_int_equal(st->e[1].matched_total, 0);
	assert_int_equal(st->e[1].nmatched, 0);
	assert_int_equal(st->e[2].matched_total, 1);	/* self by its flag */
	assert_int_equal(st->e[2].matched[0].pid, 7);
	assert_int_equal(st->e[3].matched_total, 1);	/* pid 42 */
	assert_int_equal(st->e[4].matched_total, 22);	/* "*": all, 16 listed */
	assert_int_equal(st->e[4].nmatched, MW_WATCH_STATUS_MATCHES);
	mw_watch_release(&w);
	mw_targets_release(&t);

	/* more entries than the status holds: the first ones, and the total */
	{
		const char *many[MW_WATCH_STATUS_ENTRIES + 8];
		char names[MW_WATCH_STATUS_ENTRIES + 8][16];

		for (i = 0; i < MW_WATCH_STATUS_ENTRIES + 8; i++) {
			snprintf(names[i], sizeof(names[i]), "p%zu", i);
			many[i] = names[i];
		}
		assert_int_equal(mw_watch_init(&w, many, MW_WATCH_STATUS_ENTRIES + 8, &err), 0);
		mw_watch_report(&w, &t, 1, st);
		assert_int_equal(st->nentries, MW_WATCH_STATUS_ENTRIES);
		assert_int_equal(st->entries_total, MW_WATCH_STATUS_ENTRIES + 8);
		mw_watch_release(&w);
	}
	free(st);
}

/* An entry matching nothing is logged when it first does, and again only
 * after it matched something in between. */
static void unmatched_logged_once(void **state)
{
	const char *list[] = { "leaky", "nope" };
	struct mw_watch w;
	struct mw_targets none = { 0 }, leaky = { 0 };
	struct mw_watch_status *st = calloc(1, sizeof(*st));
	bool logged[MW_WATCH_STATUS_ENTRIES] = { false }, announce[MW_WATCH_STATUS_ENTRIES];
	struct mw_err err;

	(void)state;
	assert_int_equal(mw_watch_init(&w, list, 2, &err), 0);
	mw_targets_add(&leaky, 5, "leaky", false);

	mw_watch_report(&w, &leaky, 1, st);	/* leaky found, nope not */
	assert_int_equal(mw_watch_unmatched_news(st, logged, announce), 1);
	assert_false(announce[0]);
	assert_true(announce[1]);
	mw_watch_report(&w, &leaky, 2, st);	/* unchanged: nothing new */
	assert_int_equal(mw_watch_unmatched_news(st, logged, announce), 0);
	mw_watch_report(&w, &none, 3, st);	/* leaky exited */
	assert_int_equal(mw_watch_unmatched_news(st, logged, announce), 1);
	assert_true(announce[0]);
	assert_false(announce[1]);
	mw_watch_report(&w, &none, 4, st);
	assert_int_equal(mw_watch_unmatched_news(st, logged, announce), 0);
	mw_watch_report(&w, &leaky, 5, st);	/* back */
	assert_int_equal(mw_watch_unmatched_news(st, logged, announce), 0);
	mw_watch_report(&w, &none, 6, st);	/* gone again: logged again */
	assert_int_equal(mw_watch_unmatched_news(st, logged, announce), 1);
	assert_true(announce[0]);
	mw_watch_release(&w);
	mw_targets_release(&leaky);
	free(st);
}

#ifndef _WIN32
/* The choice of name from what /proc gave. */
static void image_name_choice(void **state)
{
	char buf[256], small[8];
	static const char cmd[] = "/opt/my app/verylongprocessname-leaky\0--flag\0x";
	static const char rewritten[] = "postgres: checkpointer ";

	(void)state;
	assert_int_equal(mw_proc_image_name_from("/usr/bin/verylongprocessname-leaky", NULL, 0,
						 NULL, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "verylongprocessname-leaky");
	assert_int_equal(mw_proc_image_name_from("/tmp/d/name with spaces", NULL, 0, NULL, buf,
						 sizeof(buf)), 0);
	assert_string_equal(buf, "name with spaces");
	/* replaced on disk (an upgrade): still the image's own name */
	assert_int_equal(mw_proc_image_name_from("/usr/sbin/verylongdaemon-name (deleted)", NULL, 0,
						 NULL, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "verylongdaemon-name");
	/* exe unreadable (EACCES, another user's): argv[0] */
	assert_int_equal(mw_proc_image_name_from(NULL, cmd, sizeof(cmd) - 1, "verylongprocess",
						 buf, sizeof(buf)), 0);
	assert_string_equal(buf, "verylongprocessname-leaky");
	/* a title that does not start with comm is not a name: comm */
	{
		static const char sshd[] = "sshd: alice@pts/0";

		assert_int_equal(mw_proc_image_name_from(NULL, sshd, sizeof(sshd) - 1, "sshd\n", buf,
							 sizeof(buf)), 0);
		assert_string_equal(buf, "sshd");
	}
	/* a process that rewrote its command line: what it says */
	assert_int_equal(mw_proc_image_name_from(NULL, rewritten, sizeof(rewritten) - 1, "postgres",
						 buf, sizeof(buf)), 0);
	assert_string_equal(buf, "postgres: checkpointer ");
	/* kernel thread or zombie: empty cmdline, comm */
	assert_int_equal(mw_proc_image_name_from(NULL, "", 0, "kworker/0:1\n", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "kworker/0:1");
	/* argv[0] ending in '/' has no name: comm */
	assert_int_equal(mw_proc_image_name_from(NULL, "/x/", 3, "x", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "x");
	/* gone mid-read: nothing at all */
	assert_int_equal(mw_proc_image_name_from(NULL, NULL, 0, NULL, buf, sizeof(buf)), -1);
	assert_int_equal(mw_proc_image_name_from(NULL, "", 0, "\n", buf, sizeof(buf)), -1);
	/* cut to the buffer, terminated */
	assert_int_equal(mw_proc_image_name_from("/bin/verylongprocessname", NULL, 0, NULL, small,
						 sizeof(small)), 0);
	assert_string_equal(small, "verylon");
}

static char *tmp_dir(void)
{
	char tmpl[] = "/tmp/mw-test-watch.XXXXXX";
	char *d = mkdtemp(tmpl);

	assert_non_null(d);
	return strdup(d);
}

/* The reads, under a fake /proc: exe link, else cmdline, else comm; a
 * process whose files vanished between the listing and the reads. */
static void image_name_fake_proc(void **state)
{
	char *root = tmp_dir(), p[512], buf[256];

	(void)state;
	snprintf(p, sizeof(p), "%s/42", root);
	assert_int_equal(mkdir(p, 0700), 0);
	snprintf(p, sizeof(p), "%s/42/exe", root);
	assert_int_equal(symlink("/opt/verylong dir/verylongprocessname-leaky", p), 0);
	snprintf(p, sizeof(p), "%s/42/comm", root);
	mw_test_write_file(p, "verylongprocess\n", 16);

	snprintf(p, sizeof(p), "%s/43", root);	/* no exe (EACCES or ENOENT) */
	assert_int_equal(mkdir(p, 0700), 0);
	snprintf(p, sizeof(p), "%s/43/cmdline", root);
	mw_test_write_file(p, "./name with spaces\0arg\0", 24);

	snprintf(p, sizeof(p), "%s/44", root);	/* zombie: comm only */
	assert_int_equal(mkdir(p, 0700), 0);
	snprintf(p, sizeof(p), "%s/44/cmdline", root);
	mw_test_write_file(p, "", 0);
	snprintf(p, sizeof(p), "%s/44/comm", root);
	mw_test_write_file(p, "zombie\n", 7);

	snprintf(p, sizeof(p), "%s/45", root);	/* exited mid-read: empty reads */
	assert_int_equal(mkdir(p, 0700), 0);
	snprintf(p, sizeof(p), "%s/45/cmdline", root);
	mw_test_write_file(p, "", 0);

	assert_int_equal(mw_proc_image_name_in(root, 42, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "verylongprocessname-leaky");
	assert_int_equal(mw_proc_image_name_in(root, 43, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "name with spaces");
	assert_int_equal(mw_proc_image_name_in(root, 44, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "zombie");
	assert_int_equal(mw_proc_image_name_in(root, 45, buf, sizeof(buf)), -1);
	assert_string_equal(buf, "");
	assert_int_equal(mw_proc_image_name_in(root, 46, buf, sizeof(buf)), -1);	/* gone */

	snprintf(p, sizeof(p), "rm -rf '%s'", root);
	assert_int_equal(system(p), 0);
	free(root);
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* Copy `sleep` to dir/name and run it; its pid once /proc shows the exec. */
static pid_t spawn_named(const char *dir, const char *name)
{
	static const char *const sleeps[] = { "/bin/sleep", "/usr/bin/sleep" };
	char path[512], cmd[1200];
	const char *src = NULL;
	pid_t pid;
	size_t i;

	for (i = 0; i < 2 && !src; i++)
		if (access(sleeps[i], X_OK) == 0)
			src = sleeps[i];
	if (!src)
		return -1;
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	snprintf(cmd, sizeof(cmd), "cp '%s' '%s'", src, path);
	assert_int_equal(system(cmd), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		execl(path, path, "30", (char *)NULL);
		_exit(127);
	}
	for (i = 0; i < 200; i++) {	/* until the exec shows (bounded: 2 s) */
		char buf[256];

		if (mw_proc_image_name((uint32_t)pid, buf, sizeof(buf)) == 0 && !strcmp(buf, name))
			break;
		sleep_ms(10);
	}
	return pid;
}

static bool targets_have(const struct mw_targets *t, pid_t pid, const char *name)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		if (t->t[i].pid == (uint32_t)pid && !strcmp(t->t[i].name, name))
			return true;
	return false;
}

/* Live: the watch list finds a long-named process and one with spaces in
 * its name by their full names; the 15-character comm does not select. */
static void live_long_names(void **state)
{
	const char *list[] = { "verylongprocessname-leaky", "name with*" };
	const char *by_comm[] = { "verylongprocess" };
	char *dir = tmp_dir(), buf[256], cmd[600];
	struct mw_watch w, c;
	struct mw_targets t = { 0 };
	struct mw_watch_status *st = calloc(1, sizeof(*st));
	struct mw_err err;
	pid_t a, b;

	(void)state;
	a = spawn_named(dir, "verylongprocessname-leaky");
	if (a < 0) {
		free(st);
		free(dir);
		skip();
	}
	b = spawn_named(dir, "name with spaces");
	assert_int_equal(mw_proc_image_name((uint32_t)a, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "verylongprocessname-leaky");
	assert_int_equal(mw_watch_init(&w, list, 2, &err), 0);
	assert_int_equal(mw_watch_targets(&w, &t, &err), 0);
	assert_true(targets_have(&t, a, "verylongprocessname-leaky"));
	assert_true(targets_have(&t, b, "name with spaces"));
	mw_watch_report(&w, &t, 1, st);
	assert_true(st->e[0].matched_total >= 1);
	assert_true(st->e[1].matched_total >= 1);
	assert_int_equal(mw_watch_init(&c, by_comm, 1, &err), 0);
	assert_int_equal(mw_watch_targets(&c, &t, &err), 0);
	assert_false(targets_have(&t, a, "verylongprocessname-leaky"));

	/* exiting: a zombie has no exe and no cmdline, its comm remains */
	kill(a, SIGKILL);
	for (int i = 0; i < 200; i++) {
		siginfo_t si;

		memset(&si, 0, sizeof(si));
		if (waitid(P_PID, (id_t)a, &si, WEXITED | WNOWAIT) == 0 && si.si_pid == a)
			break;
		sleep_ms(10);
	}
	assert_int_equal(mw_proc_image_name((uint32_t)a, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "verylongprocess");	/* comm: 15 characters */
	/* reaped: gone, matched by nothing but its pid */
	assert_int_equal(waitpid(a, NULL, 0), a);
	assert_int_equal(mw_proc_image_name((uint32_t)a, buf, sizeof(buf)), -1);
	assert_int_equal(mw_watch_targets(&w, &t, &err), 0);
	assert_false(targets_have(&t, a, "verylongprocessname-leaky"));
	mw_watch_report(&w, &t, 2, st);
	assert_int_equal(st->e[0].matched_total, 0);

	kill(b, SIGKILL);
	waitpid(b, NULL, 0);
	mw_targets_release(&t);
	mw_watch_release(&c);
	mw_watch_release(&w);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
	free(dir);
	free(st);
}

static const char *test_argv0;

/* Live EACCES: another user cannot read our /proc/PID/exe, and finds our
 * name in argv[0].  Needs root (to become nobody in a child). */
static void live_unreadable_exe(void **state)
{
	int fds[2];
	pid_t child, self = getpid();
	char got[300] = "", want[256];
	ssize_t n;
	int status;

	(void)state;
	if (geteuid() != 0)
		skip();
	assert_int_equal(pipe(fds), 0);
	child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		char path[64], link[256], buf[256];
		const char *msg = buf;

		close(fds[0]);
		if (setgid(65534) || setuid(65534)) {
			msg = "SKIP setuid";
		} else {
			snprintf(path, sizeof(path), "/proc/%d/exe", (int)self);
			if (readlink(path, link, sizeof(link)) >= 0 || errno != EACCES)
				msg = "SKIP readable";
			else if (mw_proc_image_name((uint32_t)self, buf, sizeof(buf)))
				msg = "FAIL";
		}
		if (write(fds[1], msg, strlen(msg)) < 0)
			_exit(1);
		_exit(0);
	}
	close(fds[1]);
	n = read(fds[0], got, sizeof(got) - 1);
	close(fds[0]);
	assert_int_equal(waitpid(child, &status, 0), child);
	got[n > 0 ? n : 0] = '\0';
	if (!strncmp(got, "SKIP", 4))
		skip();
	snprintf(want, sizeof(want), "%s", mw_path_basename(test_argv0));
	assert_string_equal(got, want);
}
#endif

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(wildcards),
		cmocka_unit_test(matching),
		cmocka_unit_test(wildcard_skips_lsass_csrss),
		cmocka_unit_test(bad_entries),
		cmocka_unit_test(targets_self),
		cmocka_unit_test(targets_without_names),
		cmocka_unit_test(long_names),
		cmocka_unit_test(report_entries),
		cmocka_unit_test(unmatched_logged_once),
#ifndef _WIN32
		cmocka_unit_test(image_name_choice),
		cmocka_unit_test(image_name_fake_proc),
		cmocka_unit_test(live_long_names),
		cmocka_unit_test(live_unreadable_exe),
#endif
	};

	(void)argc;
#ifndef _WIN32
	test_argv0 = argv[0];
#else
	(void)argv;
#endif

	return cmocka_run_group_tests(tests, NULL, NULL);
}
