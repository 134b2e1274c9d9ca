/* c = a * b in the i-k-j order: the inner loop walks b and c along rows, so it streams through
 * memory (and vectorises) instead of striding down b's columns. */
#include "matrixmultiply.h"

void matrixmultiply(int m, int n, int k, const double *a, const double *b, double *c)
{
    for (int i = 0; i < m; i++) {
        double *ci = c + (long)i * n;
        for (int j = 0; j < n; j++)
            ci[j] = 0.0;
        for (int p = 0; p < k; p++) {
            double aip = a[(long)i * k + p];
            const double *bp = b + (long)p * n;
            for (int j = 0; j < n; j++)
                ci[j] += aip * bp[j];
        }
    }
}
