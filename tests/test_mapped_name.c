/* test_mapped_name.c - NT paths to DOS paths through constructed mount
 * tables (the mount manager's global view, not per-session drive
 * letters), the choice of a volume's name among its mount points, and a
 * mapped-file name read with a growing buffer against fake calls that cut
 * the name as Windows and Wine do. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "collectors/mapped_name.h"
#include "tests/support/test_main.h"

static const struct mw_dos_mount mounts[] = {
	{ "\\Device\\HarddiskVolume3", "C:\\" },
	{ "\\Device\\HarddiskVolume30", "D:\\" },
	{ "\\Device\\HarddiskVolume7", "C:\\mnt\\data\\" },	/* folder mount, no letter */
	{ "\\Device\\HarddiskVolume9", "" },			/* not mounted */
};

static void translate_volumes(void **state)
{
	char out[300];

	(void)state;
	assert_true(mw_nt_path_to_dos("\\Device\\HarddiskVolume3\\Windows\\System32\\x.dll", mounts,
				      4, out, sizeof(out)));
	assert_string_equal(out, "C:\\Windows\\System32\\x.dll");
	/* Volume30 is not Volume3 followed by "0" */
	assert_true(mw_nt_path_to_dos("\\device\\harddiskvolume30\\data.bin", mounts, 4, out,
				      sizeof(out)));
	assert_string_equal(out, "D:\\data.bin");
	assert_true(mw_nt_path_to_dos("\\Device\\HarddiskVolume7\\db\\big.mdf", mounts, 4, out,
				      sizeof(out)));
	assert_string_equal(out, "C:\\mnt\\data\\db\\big.mdf");
	assert_true(mw_nt_path_to_dos("\\Device\\HarddiskVolume3", mounts, 4, out, sizeof(out)));
	assert_string_equal(out, "C:\\");
	/* DOS forms (Wine's GetMappedFileNameW gives "\??\C:\...") */
	assert_true(mw_nt_path_to_dos("\\??\\C:\\windows\\system32\\kernel32.dll", NULL, 0, out,
				      sizeof(out)));
	assert_string_equal(out, "C:\\windows\\system32\\kernel32.dll");
	/* no mount: false, out unchanged */
	strcpy(out, "keep");
	assert_false(mw_nt_path_to_dos("\\Device\\HarddiskVolume9\\x", mounts, 4, out, sizeof(out)));
	assert_false(mw_nt_path_to_dos("\\Device\\HarddiskVolume4\\x", mounts, 4, out, sizeof(out)));
	assert_false(mw_nt_path_to_dos("\\Device\\HarddiskVolume3x\\y", mounts, 4, out, sizeof(out)));
	assert_false(mw_nt_path_to_dos("\\Device\\HarddiskVolume3\\long-name", mounts, 4, out, 8));
	assert_string_equal(out, "keep");
}

/* A drive letter a user defined in their session (subst, net use,
 * DefineDosDevice) is not in the global table: the file is named by the
 * volume's global mount or as UNC, the same from the service and a
 * console. */
static void network_paths_are_unc(void **state)
{
	char out[300];

	(void)state;
	assert_true(mw_nt_path_to_dos("\\Device\\Mup\\fileserver\\share\\app\\lib.dll", mounts, 4,
				      out, sizeof(out)));
	assert_string_equal(out, "\\\\fileserver\\share\\app\\lib.dll");
	/* the redirector's per-session "Z:" component is dropped */
	assert_true(mw_nt_path_to_dos("\\Device\\LanmanRedirector\\;Z:00000000000a1b2c\\srv\\s\\f.bin",
				      mounts, 4, out, sizeof(out)));
	assert_string_equal(out, "\\\\srv\\s\\f.bin");
	assert_false(mw_nt_path_to_dos("\\Device\\Mup\\", mounts, 4, out, sizeof(out)));
	assert_false(mw_nt_path_to_dos("\\Device\\Mup\\srv\\share", mounts, 4, out, 5));
}

static void volume_root_choice(void **state)
{
	(void)state;
	assert_string_equal(mw_volume_root_choice("C:\\mnt\\x\\\0E:\\\0"), "E:\\");
	assert_string_equal(mw_volume_root_choice("C:\\mnt\\x\\\0C:\\mnt\\y\\\0"), "C:\\mnt\\x\\");
	assert_null(mw_volume_root_choice(""));
	assert_null(mw_volume_root_choice(NULL));
}

/* A fake GetMappedFileNameW: the name is `len` units long; cut to the
 * buffer the way Windows (returns cap) or Wine (returns the whole length)
 * does. */
struct fake_name {
	size_t len;
	bool wine;
	int calls;
};

static size_t fake_get(void *ctx, void *buf, size_t cap)
{
	struct fake_name *f = ctx;
	uint16_t *w = buf;
	size_t n = f->len < cap - 1 ? f->len : cap - 1;

	f->calls++;
	for (size_t i = 0; i < n; i++)
		w[i] = (uint16_t)('a' + i % 26);
	w[n] = 0;
	if (f->len < cap - 1)
		return f->len;
	return f->wine ? f->len : cap;
}

static void grown_name(void **state)
{
	void *buf = NULL;
	size_t cap = 0, got;
	bool cut;
	struct fake_name shortname = { 40, false, 0 }, win = { 700, false, 0 },
			 wine = { 700, true, 0 }, huge = { 100000, false, 0 };

	(void)state;
	got = mw_read_grown_name(fake_get, &shortname, &buf, &cap, &cut);
	assert_int_equal(got, 40);
	assert_false(cut);
	assert_int_equal(shortname.calls, 1);

	/* longer than MAX_PATH: asked again until whole (before: cut at 259) */
	got = mw_read_grown_name(fake_get, &win, &buf, &cap, &cut);
	assert_int_equal(got, 700);
	assert_false(cut);
	assert_int_equal(((uint16_t *)buf)[699], 'a' + 699 % 26);
	assert_int_equal(((uint16_t *)buf)[700], 0);
	free(buf);
	buf = NULL;
	cap = 0;
	got = mw_read_grown_name(fake_get, &wine, &buf, &cap, &cut);
	assert_int_equal(got, 700);
	assert_false(cut);

	/* longer than any NT path: cut, and said so */
	got = mw_read_grown_name(fake_get, &huge, &buf, &cap, &cut);
	assert_true(cut);
	assert_int_equal(got, MW_NAME_MAX_UNITS - 1);
	assert_int_equal(cap, MW_NAME_MAX_UNITS);
	free(buf);
}

static size_t failing_get(void *ctx, void *buf, size_t cap)
{
	(void)ctx, (void)buf, (void)cap;
	return 0;
}

static void failed_name(void **state)
{
	void *buf = NULL;
	size_t cap = 0;
	bool cut = true;

	(void)state;
	assert_int_equal(mw_read_grown_name(failing_get, NULL, &buf, &cap, &cut), 0);
	assert_false(cut);
	free(buf);
}

MW_TEST_MAIN(
	cmocka_unit_test(translate_volumes),
	cmocka_unit_test(network_paths_are_unc),
	cmocka_unit_test(volume_root_choice),
	cmocka_unit_test(grown_name),
	cmocka_unit_test(failed_name),
)
