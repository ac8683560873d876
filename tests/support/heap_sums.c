/* heap_sums.c - see heap_sums.h. */
#include "heap_sums.h"

uint64_t mw_test_vm_committed(const struct mw_vm_regions *v)
{
	struct mw_vm_summary s;
	uint64_t sum = 0;

	mw_vm_summarize(v, &s);
	for (int t = 0; t < MW_VM_NTYPES; t++)
		sum += s.bytes[MW_VM_COMMIT][t];
	return sum;
}

uint64_t mw_test_heap_committed(const struct mw_heap_breakdown *b)
{
	uint64_t sum = 0;

	for (int k = 0; k < MW_HK_N; k++)
		if (k != MW_HK_STACK_RESERVED)
			sum += b->bytes[k];
	return sum;
}
