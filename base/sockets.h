/*
 * sockets.h - the compat layer's socket headers: the BSD socket names
 * (sockaddr_in, sockaddr_in6, AF_INET, inet_pton) from the header that has
 * them on each OS, so portable code needs no #if of its own.
 *
 * Owned by base/; used by web/server.c to build the listening address.
 */
#ifndef MW_BASE_SOCKETS_H
#define MW_BASE_SOCKETS_H

#ifdef _WIN32
#include <winsock2.h>
#include <ws2tcpip.h>
#else
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#endif

#endif
