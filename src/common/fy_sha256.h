/* SHA-256 (FIPS 180-4) and HMAC-SHA-256 (RFC 2104), for proving knowledge of a job's secret
 * without sending it: the launcher's proxies and the library's TCP handshake. Dependency-free
 * (libc only), so both the launcher and the library compile this one file. */
#ifndef FY_SHA256_H
#define FY_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define FY_SHA256_LEN 32

/* out = SHA-256(msg[0..len)). */
void fy_sha256(const void *msg, size_t len, uint8_t out[32]);
/* out = HMAC-SHA-256 with key[0..keylen) over msg[0..msglen). */
void fy_hmac_sha256(const void *key, size_t keylen, const void *msg, size_t msglen,
                    uint8_t out[32]);
/* 1 if a[0..n) equals b[0..n), else 0; the time taken depends on n only. */
int fy_ct_equal(const void *a, const void *b, size_t n);

#endif
