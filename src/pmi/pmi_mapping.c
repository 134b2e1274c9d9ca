/* Which host each rank runs on, from the launcher's PMI_process_mapping.
 *
 * The value lists blocks "(first_host,host_count,ranks_per_host)" after the word "vector":
 * ranks take ranks_per_host places on each of the block's hosts in turn, block after block,
 * and when the blocks run out before the ranks do the list starts again (so "(vector,(0,2,1))"
 * places 4 ranks on hosts 0, 1, 0, 1). Hydra serves it, and so does Ferry's own launcher. */
#include <stdlib.h>
#include <string.h>

#include "fy_pmi.h"

static const char *skip_space(const char *s)
{
    while (*s == ' ')
        s++;
    return s;
}

/* Reads a non-negative number at *s: 0, or -1 when there is none. */
static int number(const char **s, long *v)
{
    const char *p = skip_space(*s);
    char *end;
    if (*p < '0' || *p > '9')
        return -1;
    *v = strtol(p, &end, 10);
    if (*v > 1 << 24)
        return -1;
    *s = skip_space(end);
    return 0;
}

static int expect(const char **s, char c)
{
    const char *p = skip_space(*s);
    if (*p != c)
        return -1;
    *s = skip_space(p + 1);
    return 0;
}

int fy_pmi_mapping_parse(const char *s, int *host_of, int size)
{
    enum { MAX_BLOCKS = 256 };
    long blk[MAX_BLOCKS][3];
    int nb = 0;
    if (expect(&s, '(') != 0 || strncmp(s, "vector", 6) != 0)
        return -1;
    s += 6;
    while (expect(&s, ',') == 0) {
        if (nb == MAX_BLOCKS || expect(&s, '(') != 0 || number(&s, &blk[nb][0]) != 0 ||
            expect(&s, ',') != 0 || number(&s, &blk[nb][1]) != 0 || expect(&s, ',') != 0 ||
            number(&s, &blk[nb][2]) != 0 || expect(&s, ')') != 0)
            return -1;
        if (blk[nb][1] > 0 && blk[nb][2] > 0) /* an empty block places nobody */
            nb++;
    }
    if (expect(&s, ')') != 0 || *s != '\0' || nb == 0)
        return -1;
    int r = 0;
    while (r < size)
        for (int b = 0; b < nb && r < size; b++)
            for (long h = 0; h < blk[b][1] && r < size; h++)
                for (long k = 0; k < blk[b][2] && r < size; k++)
                    host_of[r++] = (int)(blk[b][0] + h);
    return 0;
}
