/* A precompiled library for examples/mm_parallel.c: one routine, built apart (see the Makefile
 * here) and linked by the script with -I, -L and -l. */
#ifndef MATRIXMULTIPLY_H
#define MATRIXMULTIPLY_H

/* c[m][n] = a[m][k] * b[k][n], all row-major. */
void matrixmultiply(int m, int n, int k, const double *a, const double *b, double *c);

#endif
