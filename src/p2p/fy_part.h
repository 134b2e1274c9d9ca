/* Partitioned point-to-point (MPI-4.1 chapter 4), built on ordinary messages.
 *
 * One message per receiver partition (a "unit"), on the communicator's collective context
 * under a tag no user or collective receive can match. The receiver announces its layout
 * once, at MPI_Precv_init, in a small setup message; the sender learns from it how many units
 * there are and sends unit j as soon as every sender partition that overlaps j is ready (early
 * bird), so send and receive partition counts may differ. Every request a partitioned
 * operation uses is made once, at init or when the layout arrives; MPI_Start re-posts them and
 * MPI_Pready starts them, with no allocation. See docs/DESIGN.md, "Partitioned communication".
 *
 * Callers hold fy_lock() around every call. Functions returning int return an MPI error class
 * after fy_err_set. */
#ifndef FY_PART_H
#define FY_PART_H

#include <stdbool.h>

#include "fy_request.h"

/* Largest partition count of a receive (units are numbered in the tag's low 20 bits). */
#define FY_PART_MAX_UNITS 0xfffff
/* Partitioned receives alive at once in one process (each holds a distinct id in the tag). */
#define FY_PART_MAX_RECVS 1023

/* A new inactive request (kind FY_REQ_PART) for the user's arguments, already checked. */
int fy_part_init(const char *fn, bool send, void *buf, int partitions, MPI_Count count,
                 const fy_dtype_t *dt, int peer, int tag, fy_comm_t *comm, fy_req_t **r_p);
/* MPI_Start on it. */
int fy_part_start(fy_req_t *r);
/* MPI_Pready for partitions [lo, hi] of a send, or the `n` listed in `list` (list != NULL). */
int fy_part_ready(const char *fn, fy_req_t *r, int lo, int hi, const int *list, int n);
/* MPI_Parrived: partition `partition` of a receive has arrived (true on an inactive request). */
int fy_part_arrived(const char *fn, fy_req_t *r, int partition, int *flag);
/* MPI_Request_free: frees now if inactive, else when the operation completes. */
void fy_part_free(fy_req_t *r);
/* Called by fy_progress while partitioned operations are active: completes them and sends the
 * units whose layout has just arrived. Returns how much happened. */
int fy_part_progress(void);
extern int fy_part_nactive;

#endif
