/* mhd_api.c - see mhd_api.h: the linked table, and a table filled from a
 * loaded library's symbols. */
#include "mhd_api.h"

#include <string.h>

/* The compiler checks each function against its field's type. */
const struct mw_mhd_api mw_mhd_linked = {
	.name = "the linked libmicrohttpd",
	.start_daemon = MHD_start_daemon,
	.stop_daemon = MHD_stop_daemon,
	.get_daemon_info = MHD_get_daemon_info,
	.get_connection_info = MHD_get_connection_info,
	.lookup_connection_value = MHD_lookup_connection_value,
	.get_connection_values = MHD_get_connection_values,
	.get_connection_values_n = MHD_get_connection_values_n,
	.create_response_from_buffer = MHD_create_response_from_buffer,
	.create_response_from_buffer_with_free_callback =
		MHD_create_response_from_buffer_with_free_callback,
	.create_response_from_callback = MHD_create_response_from_callback,
	.add_response_header = MHD_add_response_header,
	.queue_response = MHD_queue_response,
	.destroy_response = MHD_destroy_response,
	.is_feature_supported = MHD_is_feature_supported,
};

/* Where each function goes in the table, by its exported name. */
#define SLOT(field) { "MHD_" #field, offsetof(struct mw_mhd_api, field) }
static const struct {
	const char *symbol;
	size_t offset;
} slots[] = {
	SLOT(start_daemon),
	SLOT(stop_daemon),
	SLOT(get_daemon_info),
	SLOT(get_connection_info),
	SLOT(lookup_connection_value),
	SLOT(get_connection_values),
	SLOT(get_connection_values_n),
	SLOT(create_response_from_buffer),
	SLOT(create_response_from_buffer_with_free_callback),
	SLOT(create_response_from_callback),
	SLOT(add_response_header),
	SLOT(queue_response),
	SLOT(destroy_response),
	SLOT(is_feature_supported),
};
/* A field added to the table needs its slot here. */
_Static_assert(sizeof(struct mw_mhd_api) ==
	       sizeof(const char *) + MW_ARRAY_SIZE(slots) * sizeof(void *),
	       "every function of struct mw_mhd_api has a slot");

int mw_mhd_fill(struct mw_mhd_api *api, const char *name, mw_mhd_lookup_fn lookup, void *lib,
		struct mw_err *err)
{
	size_t i;

	memset(api, 0, sizeof(*api));
	for (i = 0; i < MW_ARRAY_SIZE(slots); i++) {
		void *fn = lookup(lib, slots[i].symbol);

		if (!fn) {
			memset(api, 0, sizeof(*api));
			return mw_error(err, "%s has no %s", name, slots[i].symbol);
		}
		/* a symbol's address as a function pointer: POSIX guarantees
		 * they convert, and the table holds only function pointers */
		memcpy((char *)api + slots[i].offset, &fn, sizeof(fn));
	}
	api->name = name;
	return 0;
}
