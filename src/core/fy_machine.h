/* What this machine is: CPU model, core count, cache sizes, and (once calibrated) the costs
 * the point-to-point thresholds and the wait policy are derived from. Thresholds tuned to one
 * CPU are wrong on the next one, so every switch point is computed from these facts at
 * MPI_Init rather than compiled in.
 *
 * The facts come from sysfs and /proc (fy_machine.c). The costs come from a short measurement
 * (fy_machine_calib.c, 15-40 ms) made once per machine and kept in a cache file
 * (fy_machine_cache.c), measured again when it was made beside other work and the machine is
 * quiet now; in a job only rank 0 reads that file or measures, and the others take
 * its values from the process manager (fy_machine_job.c), so that every rank derives the same
 * thresholds and N ranks never measure at once. docs/DESIGN.md, "Machine facts and
 * calibration", says why and what the file holds. */
#ifndef FY_MACHINE_H
#define FY_MACHINE_H

#include <stddef.h>
#include <stdint.h>

/* Where the calibrated fields came from. */
enum fy_machine_source {
    FY_MACHINE_NONE,     /* not calibrated (FERRY_CALIBRATE=skip, or not asked yet) */
    FY_MACHINE_CACHED,   /* read from the cache file (path in calib_path) */
    FY_MACHINE_MEASURED, /* measured in this process (saved to calib_path unless it is "") */
    FY_MACHINE_RANK0     /* handed over by rank 0 of the job, which read or measured them */
};

/* What FERRY_CALIBRATE asks for, in the order of the knob's words. */
enum fy_machine_mode {
    FY_CALIBRATE_CACHE,  /* the cache file when valid, else measure and save */
    FY_CALIBRATE_AGAIN,  /* measure and save, whatever the file holds */
    FY_CALIBRATE_SKIP    /* facts only: no file, no measurement */
};

typedef struct fy_machine {
    char cpu_model[96];  /* "model name" of /proc/cpuinfo, "unknown" when absent */
    int cpus_online;     /* sysconf(_SC_NPROCESSORS_ONLN) */
    int cpus_allowed;    /* CPUs in this process's affinity mask (<= cpus_online) */
    size_t l1d, l2, l3;  /* bytes of one instance of each data/unified cache; 0 unknown */
    int l2_cpus, l3_cpus; /* CPUs sharing one instance; 0 unknown */
    /* Calibration, 0 until measured (fy_machine_calibrated() says whether it was). */
    double memcpy_cache_gbps; /* memcpy of a buffer that stays in L2 */
    double memcpy_mem_gbps;   /* memcpy of buffers larger than the last-level cache */
    double cma_gbps;          /* process_vm_readv of a large block; 0 when refused */
    int64_t wake_ns;          /* futex wake to running, between two threads (median) */
    /* Where the costs came from, and what measuring them took (also when read from the
     * file, which records it). */
    int calib_source;         /* enum fy_machine_source */
    double calib_ms;          /* wall time of the measurement, milliseconds */
    int calib_busy;           /* other tasks runnable while measuring (/proc/loadavg) */
    char calib_path[512];     /* the cache file read or written; "" when none */
} fy_machine_t;

/* The facts, read on first call (cheap: sysfs and /proc, no measurement). */
const fy_machine_t *fy_machine(void);

/* Whether the calibrated fields hold measurements (from the per-machine cache file or a
 * measurement made in this process or rank 0). */
int fy_machine_calibrated(void);

/* ---- Calibration in one process (fy_machine_calib.c, fy_machine_cache.c) ------------------- */

/* Brings the calibrated fields of fy_machine() in as `mode` asks, with the cache file in
 * directory `dir` (NULL: $XDG_CACHE_HOME/ferry, else $HOME/.cache/ferry). Never fails: a
 * file that is missing, unreadable, corrupt or another machine's is measured over and
 * rewritten; where nothing can be written the measurement stays in memory. While one process
 * measures, others of the same machine wait on a lock beside the file and then read it. */
void fy_machine_calibrate(int mode, const char *dir);
/* The same, given how many other tasks are runnable now (fy_machine_calibrate reads
 * /proc/loadavg): a cached measurement made beside other work (calib_busy at least
 * fy_machine_busy_limit()) is measured again when nothing else runs now, so that the cache
 * ends up describing the machine rather than one busy moment. */
void fy_machine_calibrate_now(int mode, const char *dir, int busy_now);
/* Runnable tasks besides this process's thread, from /proc/loadavg; 0 when unknown. */
int fy_machine_busy(void);
/* How many other runnable tasks make a measurement one made beside other work: half the CPUs,
 * at least 1. */
int fy_machine_busy_limit(const fy_machine_t *m);

/* Replaces the calibrated fields (and their source, time and path) of fy_machine() with
 * those of `from`. */
void fy_machine_set_costs(const fy_machine_t *from);
/* Takes another process's facts of this same host (CPU model, CPUs online, caches) instead of
 * reading /proc and sysfs, unless they were read already; the affinity mask stays this
 * process's own. */
void fy_machine_set_facts(const fy_machine_t *from);
/* Single copy is off in this process (FERRY_CMA=0): cma_gbps reads 0, the file keeps it. */
void fy_machine_no_cma(void);

/* Measures the costs into m's calibrated fields and how long that took (bounded work: 8 MiB
 * copied in L2, 8 MiB copied 5 times and read 3 times with process_vm_readv from memory,
 * 7 futex wake-ups; fy_machine_calib.c). */
void fy_machine_measure(const fy_machine_t *facts, fy_machine_t *m);

/* The key naming this machine in the cache: CPU model, CPUs online, cache sizes, kernel
 * release (and the sanitizer, whose memcpy is another). */
void fy_machine_key(const fy_machine_t *m, char *out, size_t len);
/* The cache directory (see fy_machine_calibrate); -1 when neither variable is set (or the
 * name does not fit). */
int fy_machine_cache_dir(char *out, size_t len);
/* The cache file for `key` in `dir`: dir/machine-<16 hex digits of a hash of key>; -1 when
 * the name does not fit. */
int fy_machine_cache_file(const char *dir, const char *key, char *out, size_t len);
/* Reads the calibrated fields from `path` into m. 0, or -1 when the file is missing,
 * unreadable, malformed, holds implausible values or another key (m untouched). */
int fy_machine_cache_read(const char *path, const char *key, fy_machine_t *m);
/* Writes them, atomically (a temporary file renamed over `path`). 0 or -1 (errno set). */
int fy_machine_cache_write(const char *path, const char *key, const fy_machine_t *m);

/* The number of CPUs in a list such as "0-3,8,10-11\n"; -1 when malformed. */
int fy_machine_cpu_list_count(const char *list);

/* ---- In a job (fy_machine_job.c; api/runtime.c calls these around the first fence) --------- */

struct fy_pmi;

/* Rank 0 calibrates as FERRY_CALIBRATE says and publishes the result in the key-value space;
 * the others do nothing yet. Call before the first fence. */
int fy_machine_share(struct fy_pmi *pmi, int rank, int size);
/* After that fence, ranks other than 0 take rank 0's values. An error class after
 * fy_err_set when the process manager fails. */
int fy_machine_receive(struct fy_pmi *pmi, int rank, int size, int same_host);

#endif
