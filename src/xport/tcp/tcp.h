/* Inside the TCP transport: addresses (tcp_addr.c) and the connection machinery (tcp_conn.c). */
#ifndef FY_TCP_H
#define FY_TCP_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>

/* The address to listen on (see tcp_addr.c for the order of choices). An error class. */
int fy_tcp_choose_addr(struct sockaddr_storage *out, bool one_host);
/* Listens on addr with a port the kernel picks (written back into addr, and *port_p): the
 * socket, or -1 after fy_err_set. */
int fy_tcp_listen(struct sockaddr_storage *addr, int *port_p);
/* A business card "address,port" back to a socket address: 0, or -1 when malformed. */
int fy_tcp_card_parse(const char *card, struct sockaddr_storage *a);
int fy_tcp_addr_text(const struct sockaddr_storage *a, char *buf, size_t len);

#endif
