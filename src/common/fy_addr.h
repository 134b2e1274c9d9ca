/* A numeric IPv4 or IPv6 address and a port as a socket address: the one parser of the
 * launcher, its proxy and the checker's watch (src/common, no libmpi). */
#ifndef FY_ADDR_H
#define FY_ADDR_H

#include <sys/socket.h>

/* Fills *ss and *len from `addr` (dotted IPv4 or IPv6 text, no brackets) and `port`; 0, or -1
 * when addr is neither (nothing is looked up: a name is not an address here). */
int fy_addr_parse(const char *addr, int port, struct sockaddr_storage *ss, socklen_t *len);

#endif
