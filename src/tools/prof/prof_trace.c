/* The rank's trace: records appended to in-memory chunks by the calling thread, written to
 * DIR/ferry/rank.R.fyt (fy_trace_format.h) by a background thread.
 *
 * The recording thread fills the current chunk and publishes its length after each record
 * (prof_publish); a full chunk goes to the writer's queue and a free one takes its place
 * (allocated up to MAX_CHUNKS, after that the recording thread waits for the writer). The
 * writer writes queued chunks in order, and every FLUSH_MS also what is published of the
 * current one, so a rank killed by a signal leaves its file readable up to a few hundred
 * milliseconds before its end (readers ignore a truncated last record). A failed write (a full
 * disk) stops recording: the file is cut back to its last whole record, one line on stderr,
 * and the program goes on. */
#include "prof.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define CHUNK_BYTES (4u << 20)
#define FIRST_CHUNKS 3
#define MAX_CHUNKS 16
#define FLUSH_MS 200
#define WRITER_NICE 10

typedef struct chunk {
    struct chunk *next;
    _Atomic size_t used;
    size_t flushed; /* the writer's: how much of it is in the file */
    uint8_t data[];
} chunk_t;

prof_tbuf_t prof_tb;

static struct {
    pthread_mutex_t mu;
    pthread_cond_t wake, freed;
    chunk_t *cur, *pool, *qhead, *qtail;
    int nchunks;
    int stop, started, closed;
    pthread_t th;
    int fd;
    off_t off;            /* file length written so far (whole records) */
    _Atomic int failed;   /* errno of the failed write */
    char path[4300];
} T = {.mu = PTHREAD_MUTEX_INITIALIZER, .wake = PTHREAD_COND_INITIALIZER,
       .freed = PTHREAD_COND_INITIALIZER, .fd = -1};

static chunk_t *chunk_new(void)
{
    chunk_t *c = malloc(sizeof(chunk_t) + CHUNK_BYTES);
    if (c == NULL)
        return NULL;
    c->next = NULL;
    atomic_init(&c->used, 0);
    c->flushed = 0;
    return c;
}

static void use_chunk(chunk_t *c)
{
    T.cur = c;
    prof_tb.base = c->data;
    prof_tb.pos = c->data;
    prof_tb.end = c->data + CHUNK_BYTES;
    prof_tb.used = &c->used;
}

/* The length of the whole records at the start of buf[0..n). */
static size_t whole_records(const uint8_t *buf, size_t n)
{
    size_t at = 0;
    while (at + sizeof(fyt_head_t) <= n) {
        const fyt_head_t *h = (const fyt_head_t *)(buf + at);
        size_t len = (size_t)h->len8 * 8;
        if (len == 0 || at + len > n)
            break;
        at += len;
    }
    return at;
}

static void write_failed(int err, size_t partial, const uint8_t *buf)
{
    /* Cut the file back to its last whole record (a partial write may end mid-record). */
    size_t keep = whole_records(buf, partial);
    if (ftruncate(T.fd, T.off + (off_t)keep) == 0)
        T.off += (off_t)keep;
    atomic_store(&T.failed, err);
    atomic_store(&prof_g.rec, 0);
    fprintf(stderr, "ferry: rank %d: writing the trace %s failed: %s; recording stopped, the "
            "file holds what was recorded before (the program goes on)\n", prof_g.rank, T.path,
            strerror(err));
}

/* Writes c's published bytes not yet in the file. Writer thread only. */
static void write_chunk(chunk_t *c)
{
    size_t used = atomic_load_explicit(&c->used, memory_order_acquire);
    while (c->flushed < used && atomic_load(&T.failed) == 0) {
        const uint8_t *p = c->data + c->flushed;
        size_t n = used - c->flushed, done = 0;
        while (done < n) {
            ssize_t w = write(T.fd, p + done, n - done);
            if (w < 0 && errno == EINTR)
                continue;
            if (w <= 0) {
                write_failed(w < 0 ? errno : ENOSPC, done, p);
                return;
            }
            done += (size_t)w;
        }
        T.off += (off_t)n;
        c->flushed = used;
    }
}

static void *writer(void *arg)
{
    (void)arg;
    /* Below the ranks: on a machine with more ranks than cores the writer takes its turn
     * when a rank waits, rather than push out a rank the others wait for. (A thread's nice
     * value is its own on Linux.) */
    if (setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), WRITER_NICE) != 0)
        (void)0; /* not allowed to: it runs at the ranks' priority */
    pthread_mutex_lock(&T.mu);
    for (;;) {
        if (T.qhead == NULL && !T.stop) {
            struct timespec until;
            clock_gettime(CLOCK_REALTIME, &until);
            until.tv_nsec += FLUSH_MS * 1000000L;
            if (until.tv_nsec >= 1000000000L) {
                until.tv_sec++;
                until.tv_nsec -= 1000000000L;
            }
            pthread_cond_timedwait(&T.wake, &T.mu, &until);
        }
        /* The queue and the current chunk taken together: every queued chunk was filled
         * before the current one. */
        chunk_t *list = T.qhead, *cur = T.cur;
        T.qhead = T.qtail = NULL;
        int stop = T.stop;
        pthread_mutex_unlock(&T.mu);
        while (list != NULL) {
            chunk_t *next = list->next;
            write_chunk(list);
            atomic_store_explicit(&list->used, 0, memory_order_relaxed);
            list->flushed = 0;
            pthread_mutex_lock(&T.mu);
            list->next = T.pool;
            T.pool = list;
            pthread_cond_signal(&T.freed);
            pthread_mutex_unlock(&T.mu);
            list = next;
        }
        if (cur != NULL)
            write_chunk(cur);
        pthread_mutex_lock(&T.mu);
        if (stop && T.qhead == NULL)
            break;
    }
    pthread_mutex_unlock(&T.mu);
    return NULL;
}

/* Puts the current chunk at the end of the writer's queue (T.mu held). */
static void queue_current(void)
{
    chunk_t *c = T.cur;
    c->next = NULL;
    if (T.qtail)
        T.qtail->next = c;
    else
        T.qhead = c;
    T.qtail = c;
}

/* Hands the current chunk to the writer and takes a free one. false when there is none to
 * take (memory) or the trace failed. */
static bool next_chunk(void)
{
    if (atomic_load(&T.failed) != 0)
        return false;
    pthread_mutex_lock(&T.mu);
    queue_current();
    pthread_cond_signal(&T.wake);
    chunk_t *n = T.pool;
    if (n == NULL && T.nchunks < MAX_CHUNKS && (n = chunk_new()) != NULL)
        T.nchunks++;
    while (n == NULL && T.pool == NULL && atomic_load(&T.failed) == 0)
        pthread_cond_wait(&T.freed, &T.mu);
    if (n == NULL)
        n = T.pool;
    if (n != NULL && n == T.pool)
        T.pool = n->next;
    if (n != NULL)
        use_chunk(n);
    pthread_mutex_unlock(&T.mu);
    return n != NULL;
}

static void cap_reached(void);

bool prof_put_slow(const void *rec, size_t n, bool closing)
{
    if (!closing && prof_tb.left < (int64_t)n + PROF_RESERVE) {
        cap_reached();
        return false;
    }
    if (T.cur == NULL || T.closed)
        return false;
    if (prof_tb.pos + n > prof_tb.end && !next_chunk()) {
        atomic_store(&prof_g.rec, 0);
        return false;
    }
    memcpy(prof_tb.pos, rec, n);
    prof_tb.pos += n;
    prof_tb.left -= (int64_t)n;
    prof_publish();
    return true;
}

static void cap_reached(void)
{
    if (prof_g.capped)
        return;
    prof_g.capped = 1;
    atomic_store(&prof_g.rec, 0);
    uint64_t t = prof_now_ticks();
    prof_trace_note(t, FYT_NOTE_CAP, "the size cap (--trace-max) was reached on rank %d: "
                    "recording stopped here", prof_g.rank);
    fprintf(stderr, "ferry: rank %d: the trace reached its size cap (--trace-max, %lld bytes "
            "for this rank); recording stopped, the program goes on\n", prof_g.rank,
            (long long)prof_g.cap_rank);
}

void prof_trace_note(uint64_t t, int flags, const char *fmt, ...)
{
    uint64_t buf[64];
    memset(buf, 0, sizeof buf);
    fyt_note_t *n = (fyt_note_t *)buf;
    size_t room = sizeof buf - sizeof(fyt_note_t) - 1;
    va_list ap;
    va_start(ap, fmt);
    int len = vsnprintf(n->text, room + 1, fmt, ap);
    va_end(ap);
    if (len < 0)
        len = 0;
    if ((size_t)len > room)
        len = (int)room;
    size_t total = (sizeof(fyt_note_t) + (size_t)len + 1 + 7) / 8 * 8;
    n->h = (fyt_head_t){.type = FYT_NOTE, .flags = (uint8_t)flags, .len8 = (uint16_t)(total / 8)};
    n->t = t;
    prof_put(buf, total, true);
}

void prof_trace_sync(uint64_t t, int64_t global_ns, uint64_t err, int flags)
{
    fyt_sync_t s = {.h = {.type = FYT_SYNC, .flags = (uint8_t)flags, .len8 = sizeof(s) / 8},
                    .t = t, .global_ns = global_ns, .error_ns = err};
    prof_put(&s, sizeof s, true);
}

void prof_trace_comm(uint32_t idx, uint64_t uid, int size, int rsize, const int *world,
                     const int *rworld)
{
    if (T.cur == NULL || !prof_g.traced_rank)
        return;
    size_t n = (size_t)size + (size_t)rsize;
    size_t total = (sizeof(fyt_comm_t) + 4 * n + 7) / 8 * 8;
    if (total / 8 > 65535)
        return; /* more than ~130000 members: beyond one record */
    uint64_t small[64];
    uint64_t *buf = total <= sizeof small ? small : calloc(1, total);
    if (buf == NULL)
        return;
    memset(buf, 0, total);
    fyt_comm_t *c = (fyt_comm_t *)buf;
    c->h = (fyt_head_t){.type = FYT_COMM, .len8 = (uint16_t)(total / 8), .id = idx};
    c->uid = uid;
    c->size = (uint32_t)size;
    c->remote_size = (uint32_t)rsize;
    memcpy(c->world, world, sizeof(int) * (size_t)size);
    if (rsize)
        memcpy(c->world + size, rworld, sizeof(int) * (size_t)rsize);
    prof_put(buf, total, true);
    if (buf != small)
        free(buf);
}

static void put_name(uint32_t id, int flags, const char *name)
{
    uint64_t buf[40];
    memset(buf, 0, sizeof buf);
    size_t len = strlen(name);
    if (len > sizeof buf - sizeof(fyt_name_t) - 1)
        len = sizeof buf - sizeof(fyt_name_t) - 1;
    size_t total = (sizeof(fyt_name_t) + len + 1 + 7) / 8 * 8;
    fyt_name_t *r = (fyt_name_t *)buf;
    r->h = (fyt_head_t){.type = FYT_NAME, .flags = (uint8_t)flags, .len8 = (uint16_t)(total / 8),
                        .id = id};
    memcpy(r->name, name, len);
    prof_put(buf, total, true);
}

void prof_trace_region_name(uint32_t id, const char *name)
{
    if (T.cur != NULL)
        put_name(id, FYT_NAME_REGION, name);
}

int prof_trace_open(void)
{
    char sub[4150];
    snprintf(sub, sizeof sub, "%s/ferry", prof_g.dir);
    if (mkdir(prof_g.dir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "ferry: rank %d: cannot make the trace directory %s: %s; no trace\n",
                prof_g.rank, prof_g.dir, strerror(errno));
        return -1;
    }
    if (mkdir(sub, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "ferry: rank %d: cannot make %s: %s; no trace\n", prof_g.rank, sub,
                strerror(errno));
        return -1;
    }
    snprintf(T.path, sizeof T.path, "%s/rank.%d.fyt", sub, prof_g.rank);
    T.fd = open(T.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (T.fd < 0) {
        fprintf(stderr, "ferry: rank %d: cannot write the trace %s: %s; no trace\n", prof_g.rank,
                T.path, strerror(errno));
        return -1;
    }
    for (int i = 0; i < FIRST_CHUNKS; i++) {
        chunk_t *c = chunk_new();
        if (c == NULL)
            break;
        c->next = T.pool;
        T.pool = c;
        T.nchunks++;
    }
    if (T.pool == NULL) {
        close(T.fd);
        T.fd = -1;
        return -1;
    }
    chunk_t *c = T.pool;
    T.pool = c->next;
    use_chunk(c);

    fyt_header_t h;
    memset(&h, 0, sizeof h);
    h.h = (fyt_head_t){.type = FYT_HEADER, .len8 = sizeof h / 8};
    memcpy(h.magic, FYT_MAGIC, 8);
    h.version = FYT_VERSION;
    h.rank = (uint32_t)prof_g.rank;
    h.size = (uint32_t)prof_g.size;
    h.pid = (uint32_t)getpid();
    h.ticks_per_ns = prof_ticks_per_ns();
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    h.epoch_unix_ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
    snprintf(h.host, sizeof h.host, "%s", prof_g.host);
    snprintf(h.program, sizeof h.program, "%s", prof_g.program);
    prof_put(&h, sizeof h, true);
    for (int i = 0; i < PROF_NFUNCS; i++)
        put_name((uint32_t)i, 0, prof_names[i]);
    /* The header and names go to the file now, before the writer thread exists: a file that
     * fills the disk later still says whose it is. */
    write_chunk(c);
    if (atomic_load(&T.failed) != 0 || pthread_create(&T.th, NULL, writer, NULL) != 0) {
        if (atomic_load(&T.failed) == 0)
            fprintf(stderr, "ferry: rank %d: cannot start the trace writer thread; no trace\n",
                    prof_g.rank);
        close(T.fd);
        T.fd = -1;
        T.cur = NULL;
        return -1;
    }
    T.started = 1;
    return 0;
}

static void stop_writer(void)
{
    if (!T.started || T.closed)
        return;
    pthread_mutex_lock(&T.mu);
    queue_current();
    T.stop = 1;
    T.closed = 1;
    pthread_cond_signal(&T.wake);
    pthread_mutex_unlock(&T.mu);
    pthread_join(T.th, NULL);
    T.cur = NULL;
    prof_tb.pos = prof_tb.end = NULL;
    atomic_store(&prof_g.rec, 0);
    close(T.fd);
    T.fd = -1;
    while (T.pool) {
        chunk_t *n = T.pool->next;
        free(T.pool);
        T.pool = n;
    }
}

void prof_trace_close(void)
{
    if (!T.started || T.closed)
        return;
    prof_ev(FYT_END, 0, prof_now_ticks(), true);
    stop_writer();
}

/* exit() without MPI_Finalize: what is recorded goes to the file (no END: not a clean end). */
void prof_trace_flush_atexit(void)
{
    stop_writer();
}
