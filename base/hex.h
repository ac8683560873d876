/*
 * hex.h - the value of one hexadecimal digit, either case: the one copy
 * for the smaps parser (address ranges) and the JSON importer (\uXXXX
 * escapes).  Pure.
 */
#ifndef MW_BASE_HEX_H
#define MW_BASE_HEX_H

/* 0 to 15, or -1 when c is not a hex digit. */
static inline int mw_hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

#endif
