/* SHA-256 and HMAC-SHA-256 (src/common/fy_sha256.c) against the published vectors: the
 * FIPS 180-2 examples (one block, two blocks, a million 'a'), the empty message, messages
 * around the padding boundaries checked against a split computation, RFC 4231's HMAC test
 * cases 1-7, and the constant-time comparison. */
#include <stdio.h>
#include <string.h>

#include "fy_sha256.h"
#include "unit.h"

static void hex(const uint8_t *d, size_t n, char *out)
{
    for (size_t i = 0; i < n; i++)
        sprintf(out + 2 * i, "%02x", d[i]);
}

#define CHECK_HEX(digest, n, want)                                                                 \
    do {                                                                                           \
        char got_[2 * 32 + 1];                                                                     \
        hex(digest, n, got_);                                                                      \
        if (strcmp(got_, want) != 0) {                                                             \
            fprintf(stderr, "  %s:%d: got %s\n  want %s\n", __FILE__, __LINE__, got_, want);       \
            return 1;                                                                              \
        }                                                                                          \
    } while (0)

static int test_fips(void)
{
    uint8_t d[32];
    fy_sha256("abc", 3, d);
    CHECK_HEX(d, 32, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    fy_sha256("", 0, d);
    CHECK_HEX(d, 32, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    const char *m2 = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    fy_sha256(m2, strlen(m2), d);
    CHECK_HEX(d, 32, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    const char *m3 = "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopq"
                     "klmnopqrlmnopqrsmnopqrstnopqrstu";
    fy_sha256(m3, strlen(m3), d);
    CHECK_HEX(d, 32, "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
    static char million[1000000];
    memset(million, 'a', sizeof(million));
    fy_sha256(million, sizeof(million), d);
    CHECK_HEX(d, 32, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
    return 0;
}

/* HMAC with an empty message equals the construction done by hand around fy_sha256, for
 * messages of every length across the 55/56/64-byte padding edges. */
static int test_padding_edges(void)
{
    uint8_t buf[200], key[64] = {0}, inner_in[64 + 200], outer_in[64 + 32], inner[32], want[32],
                      got[32];
    for (size_t i = 0; i < sizeof(buf); i++)
        buf[i] = (uint8_t)(i * 7 + 1);
    memcpy(key, "k", 1);
    for (size_t len = 0; len < sizeof(buf); len++) {
        for (int i = 0; i < 64; i++) {
            inner_in[i] = key[i] ^ 0x36;
            outer_in[i] = key[i] ^ 0x5c;
        }
        memcpy(inner_in + 64, buf, len);
        fy_sha256(inner_in, 64 + len, inner);
        memcpy(outer_in + 64, inner, 32);
        fy_sha256(outer_in, sizeof(outer_in), want);
        fy_hmac_sha256("k", 1, buf, len, got);
        CHECK(memcmp(want, got, 32) == 0);
    }
    return 0;
}

static int test_rfc4231(void)
{
    uint8_t d[32], key[131], data[50];
    memset(key, 0x0b, 20);
    fy_hmac_sha256(key, 20, "Hi There", 8, d);
    CHECK_HEX(d, 32, "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");

    const char *m2 = "what do ya want for nothing?";
    fy_hmac_sha256("Jefe", 4, m2, strlen(m2), d);
    CHECK_HEX(d, 32, "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");

    memset(key, 0xaa, 20);
    memset(data, 0xdd, 50);
    fy_hmac_sha256(key, 20, data, 50, d);
    CHECK_HEX(d, 32, "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe");

    for (int i = 0; i < 25; i++)
        key[i] = (uint8_t)(i + 1);
    memset(data, 0xcd, 50);
    fy_hmac_sha256(key, 25, data, 50, d);
    CHECK_HEX(d, 32, "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b");

    memset(key, 0x0c, 20);
    fy_hmac_sha256(key, 20, "Test With Truncation", 20, d);
    CHECK_HEX(d, 16, "a3b6167473100ee06e0c796c2955552b"); /* truncated to 128 bits */

    memset(key, 0xaa, 131);
    const char *m6 = "Test Using Larger Than Block-Size Key - Hash Key First";
    fy_hmac_sha256(key, 131, m6, strlen(m6), d);
    CHECK_HEX(d, 32, "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");

    const char *m7 = "This is a test using a larger than block-size key and a larger than "
                     "block-size data. The key needs to be hashed before being used by the HMAC "
                     "algorithm.";
    fy_hmac_sha256(key, 131, m7, strlen(m7), d);
    CHECK_HEX(d, 32, "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2");
    return 0;
}

static int test_ct_equal(void)
{
    uint8_t a[32], b[32];
    memset(a, 0x5a, sizeof(a));
    memcpy(b, a, sizeof(b));
    CHECK(fy_ct_equal(a, b, 32));
    CHECK(fy_ct_equal(a, b, 0));
    for (int i = 0; i < 32; i++) {
        b[i] ^= 0x01;
        CHECK(!fy_ct_equal(a, b, 32));
        b[i] ^= 0x81;
        CHECK(!fy_ct_equal(a, b, 32));
        b[i] ^= 0x80;
    }
    CHECK(fy_ct_equal(a, b, 32));
    return 0;
}

static const unit_case_t cases[] = {
    {"fips_180_2", test_fips},
    {"padding_edges", test_padding_edges},
    {"rfc4231", test_rfc4231},
    {"ct_equal", test_ct_equal},
};

int main(void)
{
    return unit_run(cases, UNIT_COUNT(cases));
}
