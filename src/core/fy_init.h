#ifndef FY_INIT_H
#define FY_INIT_H

int fy_init(int required, int *provided);
/* Called after the final barrier: releases everything and tells the launcher we are done. */
void fy_finalize(void);

#endif
