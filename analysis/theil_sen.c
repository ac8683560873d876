/*
 * theil_sen.c - Theil-Sen slope with a distribution-free confidence
 * interval (declared in leak.h).  Placeholder until the leak detector
 * lands; O(n^2) pairs, quickselect for the order statistics.
 */
#include <math.h>
#include <stdlib.h>

#include "leak.h"

static double select_kth(double *a, size_t n, size_t k)
{
	size_t lo = 0, hi = n - 1;

	while (lo < hi) {
		double pivot = a[lo + (hi - lo) / 2];
		size_t i = lo, j = hi;

		while (i <= j) {
			while (a[i] < pivot)
				i++;
			while (a[j] > pivot)
				j--;
			if (i <= j) {
				double t = a[i];
				a[i] = a[j];
				a[j] = t;
				i++;
				if (j == 0)
					break;
				j--;
			}
		}
		if (k <= j)
			hi = j;
		else if (k >= i)
			lo = i;
		else
			break;
	}
	return a[k];
}

int mw_theil_sen(const double *x, const double *y, size_t n, double n_eff,
		 double *slope, double *lo, double *hi)
{
	size_t i, j, m = 0, k;
	double *s, c, z = 1.959964;

	if (n < 3)
		return -1;
	s = malloc(n * (n - 1) / 2 * sizeof(*s));
	if (!s)
		return -1;
	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++)
			if (x[j] != x[i])
				s[m++] = (y[j] - y[i]) / (x[j] - x[i]);
	if (m == 0) {
		free(s);
		return -1;
	}
	k = m / 2;
	*slope = select_kth(s, m, k);
	if (m % 2 == 0)
		*slope = (*slope + select_kth(s, m, k - 1)) / 2;
	if (n_eff < 3)
		n_eff = 3;
	c = z * sqrt(n_eff * (n_eff - 1) * (2 * n_eff + 5) / 18.0) * ((double)m / (n_eff * (n_eff - 1) / 2));
	{
		double l = ((double)m - c) / 2, u = ((double)m + c) / 2;
		size_t li = l < 0 ? 0 : (size_t)l, ui = u >= (double)m ? m - 1 : (size_t)u;
		*lo = select_kth(s, m, li);
		*hi = select_kth(s, m, ui);
	}
	free(s);
	return 0;
}
