/*
 * fuzz_config.c - libFuzzer target for the INI loader, through its public
 * entry point mw_config_load_string (core/config.h): the config file is
 * written by people and read by the daemon, the service and every
 * command.  The input is loaded over the defaults; a file that loads is
 * then written back as the reference file, which reads every option it
 * set.  Built by scripts/fuzz.sh.
 */
#include "fuzz/fuzz_input.h"

#include "core/config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_string(data, size);
	struct mw_config cfg;
	struct mw_err err;

	if (!text)
		return 0;
	mw_config_init(&cfg);
	if (mw_config_load_string(&cfg, "fuzz.ini", text, &err) == 0 && fuzz_null_out())
		mw_config_write_reference(&cfg, fuzz_null_out());
	mw_config_release(&cfg);
	free(text);
	return 0;
}
