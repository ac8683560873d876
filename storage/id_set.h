/*
 * id_set.h - a set of row ids (int64, 0 never held): added to, sorted once,
 * then asked by binary search.  For the writer's passes that must skip the
 * rows it is writing into: the size cut (size_cut.c) and the start-up's
 * chunks left open (store.c fix_open_bounds).  Pure; not thread-safe.
 */
#ifndef MW_ID_SET_H
#define MW_ID_SET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct mw_id_set {
	int64_t *v;
	size_t n, cap;
};

/* Add id (0: nothing added); mw_id_set_sort before the next look-up. */
void mw_id_set_add(struct mw_id_set *a, int64_t id);
void mw_id_set_sort(struct mw_id_set *a);
bool mw_id_set_has(const struct mw_id_set *a, int64_t id);
/* Free the memory; the set is empty and usable again. */
void mw_id_set_release(struct mw_id_set *a);

#endif
