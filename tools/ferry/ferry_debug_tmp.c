/* TEMPORARY stand-in for ferry_debug.c (branch debug): the flags only, no reports. Removed
 * before the branch is merged. */
#include <stdio.h>
#include <stdlib.h>

#include "ferry_debug.h"

const char *const fy_debug_cflags[] = {"-g", "-fsanitize=address,undefined",
                                       "-fno-omit-frame-pointer", NULL};

void fy_debug_rank_env(const char *dir, int rank)
{
    (void)dir, (void)rank;
}

int fy_debug_report(const char *dir, FILE *out)
{
    (void)dir, (void)out;
    return 0;
}
