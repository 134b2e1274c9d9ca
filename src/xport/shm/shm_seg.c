/* Creating, mapping and unlinking the job's segment (layout in shm_seg.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include "fy_err.h"
#include "fy_pmi.h"
#include "fy_runtime.h"
#include "fy_knobs.h"
#include "fy_xport.h"
#include "shm_seg.h"

fy_shm_t fy_shm;

static size_t round_up(size_t v, size_t a)
{
    return (v + a - 1) / a * a;
}

static size_t queue_count(const fy_shm_t *s)
{
    return s->inbox ? (size_t)s->n : (size_t)s->n * (size_t)s->n;
}

/* A ring per ordered pair costs n^2 rings, so the ring shrinks as the job grows: 1 MiB while
 * the rings fit in 64 MiB (up to 8 ranks), halving beyond, never below 16 KiB (64 ranks).
 * Large rings pay: a rendezvous message streams through its ring at memcpy speed, 2-3x what
 * a single process_vm_readv copy reaches here (docs/DESIGN.md). Wider jobs get one inbox per
 * receiver instead (n queues, not n^2): 1 MiB each while they fit in 128 MiB, halving beyond,
 * never below 64 KiB (128 KiB at 1,024 ranks). Either way the queues take at most half of
 * the memory available (`avail`: /dev/shm's free space, MemAvailable and the cgroup's limit),
 * so that a container's 64 MB /dev/shm does not end in SIGBUS. FERRY_SHM_RING sets the size,
 * FERRY_SHM_QUEUE=pair|inbox the kind. */
enum { PAIR_MAX_RANKS = 64 };

static int pick_inbox(int n)
{
    switch (fy_knob_word(FY_KNOB_SHM_QUEUE, 0)) {
    case 1: return 0; /* pair */
    case 2: return 1; /* inbox */
    default: return n > PAIR_MAX_RANKS;
    }
}

static uint32_t pick_ring_bytes(int n, int inbox, uint64_t avail)
{
    long env = fy_knob_number(FY_KNOB_SHM_RING, FY_KNOB_AUTO);
    uint32_t r = 1024 * 1024;
    if (env > 0) {
        r = 4096;
        while (r < (uint64_t)env && r < (1u << 30))
            r <<= 1;
        fy_knob_settle(FY_KNOB_SHM_RING, r);
        return r;
    }
    uint64_t queues = inbox ? (uint64_t)n : (uint64_t)n * (uint64_t)n;
    uint64_t budget = inbox ? 128ull << 20 : 64ull << 20;
    uint32_t floor = inbox ? 64 * 1024 : 16 * 1024;
    while (r > floor && (uint64_t)r * queues > budget)
        r >>= 1;
    while (r > 16 * 1024 && (uint64_t)r * queues > avail / 2)
        r >>= 1;
    fy_knob_settle(FY_KNOB_SHM_RING, r);
    return r;
}

static uint64_t shm_free_bytes(void)
{
    struct statvfs v;
    if (statvfs("/dev/shm", &v) != 0)
        return UINT64_MAX;
    return (uint64_t)v.f_bavail * v.f_frsize;
}

static uint64_t read_u64_file(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return UINT64_MAX;
    char buf[64];
    uint64_t v = UINT64_MAX;
    if (fgets(buf, sizeof buf, f) && buf[0] >= '0' && buf[0] <= '9')
        v = strtoull(buf, NULL, 10);
    fclose(f);
    return v;
}

/* What the machine can still give, which tmpfs pages come out of: MemAvailable, and the
 * room left under our memory cgroup's limits (v2: every level up to the root; v1: the
 * memory controller's limit). UINT64_MAX when nothing says. `why` names the tightest. */
static uint64_t mem_available(const char **why)
{
    uint64_t best = UINT64_MAX;
    *why = "";
    FILE *f = fopen("/proc/meminfo", "r");
    char line[256];
    while (f && fgets(line, sizeof line, f)) {
        unsigned long long kb;
        if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1) {
            best = (uint64_t)kb << 10;
            *why = "MemAvailable in /proc/meminfo";
        }
    }
    if (f)
        fclose(f);
    f = fopen("/proc/self/cgroup", "r");
    while (f && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        char dir[512];
        if (strncmp(line, "0::", 3) == 0) { /* v2 */
            char path[300];
            snprintf(path, sizeof path, "%s", line + 3);
            for (;;) {
                snprintf(dir, sizeof dir, "/sys/fs/cgroup%s", path);
                char p[600];
                snprintf(p, sizeof p, "%s/memory.max", dir);
                uint64_t max = read_u64_file(p);
                snprintf(p, sizeof p, "%s/memory.current", dir);
                uint64_t cur = read_u64_file(p);
                if (max != UINT64_MAX && cur != UINT64_MAX) {
                    uint64_t room = max > cur ? max - cur : 0;
                    if (room < best) {
                        best = room;
                        *why = "the memory cgroup's memory.max less memory.current";
                    }
                }
                char *slash = strrchr(path, '/');
                if (!slash || slash == path)
                    break;
                *slash = '\0';
            }
        } else if (strstr(line, ":memory:")) { /* v1 */
            const char *cg = strstr(line, ":memory:") + 8;
            char p[600];
            snprintf(dir, sizeof dir, "/sys/fs/cgroup/memory%s", strcmp(cg, "/") ? cg : "");
            snprintf(p, sizeof p, "%s/memory.limit_in_bytes", dir);
            uint64_t max = read_u64_file(p);
            snprintf(p, sizeof p, "%s/memory.usage_in_bytes", dir);
            uint64_t cur = read_u64_file(p);
            if (max != UINT64_MAX && cur != UINT64_MAX && max < (1ull << 60)) {
                uint64_t room = max > cur ? max - cur : 0;
                if (room < best) {
                    best = room;
                    *why = "the memory cgroup's limit less its usage";
                }
            }
        }
    }
    if (f)
        fclose(f);
    return best;
}

/* The collective pool (layout in shm_seg.h): 16 slots, so that a program's usual handful of
 * communicators that do collectives each get one; a rank's area per half is 1 MiB / n, between
 * 16 KiB and 256 KiB (128 KiB at 8 ranks), so a slot is about 2 MiB: long vectors go through in
 * few pieces, and each piece costs a phase, a round of wake-ups when ranks outnumber cores.
 * tmpfs gives pages only when touched, and a rank touches only its own areas and what it
 * reads, so slots never used cost nothing. The pool may take a quarter of what /dev/shm has
 * free (the rings take half): with less, fewer slots, and none at all in a tiny /dev/shm
 * (collectives then use messages). FERRY_SHM_COLL_SLOTS overrides the count (0: no pool). */
static void pick_coll(fy_shm_t *s, uint64_t shm_free)
{
    uint32_t area = 256 * 1024;
    while (area > 16 * 1024 && (uint64_t)area * (uint64_t)s->n > 1024 * 1024)
        area >>= 1;
    long slots = fy_knob_number(FY_KNOB_SHM_COLL_SLOTS, 16);
    if (slots < 0)
        slots = 0;
    if (slots > FY_SHM_COLL_MAX_SLOTS)
        slots = FY_SHM_COLL_MAX_SLOTS;
    size_t stride = fy_shm_coll_stride(s->n, area);
    while (slots > 0 && (uint64_t)slots * stride > shm_free / 4)
        slots /= 2;
    s->coll_slots = (uint32_t)slots;
    fy_knob_settle(FY_KNOB_SHM_COLL_SLOTS, slots);
    s->coll_area = area;
}

/* Where everything lies for a queue kind and size and a pool (the layout in shm_seg.h). */
static void layout(fy_shm_t *s, int inbox, uint32_t ring_bytes, size_t *bells_off,
                   size_t *rings_off)
{
    s->inbox = inbox;
    s->ring_bytes = ring_bytes;
    /* Page-aligned queues: each can be populated on its own (madvise wants page bounds). */
    s->ring_stride = fy_shm_queue_stride(inbox, s->n, ring_bytes, &s->inbox_data);
    *bells_off = round_up(sizeof(fy_shm_hdr_t), FY_CACHELINE);
    *rings_off = round_up(*bells_off + sizeof(fy_bell_t) * (size_t)s->n, 4096);
    s->bytes = *rings_off + s->ring_stride * queue_count(s);
    s->coll_stride = fy_shm_coll_stride(s->n, s->coll_area);
    if (s->coll_slots)
        s->bytes += 4096 + s->coll_stride * s->coll_slots;
    s->rndv_off = round_up(s->bytes, 4096);
    s->bytes = s->rndv_off + round_up(FY_SHM_RNDV_STRIDE * (size_t)s->n, 4096);
}

static int map(fy_shm_t *s, int fd, size_t bells_off, size_t rings_off)
{
    s->base = mmap(NULL, s->bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (s->base == MAP_FAILED) {
        s->base = NULL;
        return fy_err_set(MPI_ERR_NO_MEM, "MPI_Init: cannot map %zu bytes of shared memory: %s",
                          s->bytes, strerror(errno));
    }
    s->hdr = s->base;
    s->bell = (fy_bell_t *)((char *)s->base + bells_off);
    s->rings = (unsigned char *)s->base + rings_off;
    if (s->coll_slots) {
        unsigned char *pool = s->rings + s->ring_stride * queue_count(s);
        s->coll = (fy_shm_coll_t *)pool;
        s->coll_base = pool + 4096;
    }
    s->rndv = (unsigned char *)s->base + s->rndv_off;
    return MPI_SUCCESS;
}

/* Maps the start of this rank's inbox now, so that the first records it receives do not each
 * take a page fault: only the control page and the first laps' worth of data, since a wide
 * job's inboxes are most of its segment (128 MiB), and a rank that receives little (hello)
 * should not pay for all of it; the rest is touched when traffic reaches it. Pair rings are
 * mapped on first contact instead (fy_shm_ring_arm). Best effort (Linux 5.14+). */
static void populate_own_queues(fy_shm_t *s)
{
    if (!s->inbox) {
        fy_shm_ring_arm();
        return;
    }
    size_t touch = s->inbox_data + FY_SHM_INBOX_TOUCH;
    madvise(fy_shm_inbox(s->rank), touch < s->ring_stride ? touch : s->ring_stride,
            MADV_POPULATE_WRITE);
}

/* /fy-<kvsname>-<64 random bits>: the prefix lets mpiexec remove what a crashed job leaves
 * (tools/mpiexec/job.c), the random part keeps another user from creating the name first
 * and so making every job fail (the kvsname is the launcher's pid and start time). */
static uint64_t random64(void)
{
    uint64_t r = 0;
    if (getrandom(&r, sizeof r, 0) != (ssize_t)sizeof r) { /* no entropy source: mix clocks */
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        r = ((uint64_t)ts.tv_nsec << 32) ^ (uint64_t)ts.tv_sec ^ (uint64_t)getpid() << 16 ^
            (uint64_t)(uintptr_t)&ts;
        r *= 0x9E3779B97F4A7C15ull;
    }
    return r;
}

static void seg_name(char *buf, size_t len, int attempt)
{
    const char *first = getenv("FY_TEST_SHM_NAME_FIRST"); /* a test hook, not a knob */
    if (attempt == 0 && first && first[0] == '/') { /* tests: a name known to be taken */
        snprintf(buf, len, "%s", first);
        return;
    }
    /* The creator's world rank: under FERRY_NETMOD=tcp each rank of a host has a segment. */
    snprintf(buf, len, "/fy-%s-%d-%016llx", fy_rt.kvsname, fy_rt.rank,
             (unsigned long long)random64());
}

/* Creates a segment under a fresh name (O_EXCL: never one somebody else made), trying other
 * names on a collision; its name goes to `name`. */
static int create_file(char *name, size_t len)
{
    enum { ATTEMPTS = 16 };
    for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
        seg_name(name, len, attempt);
        int fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL, 0600);
        if (fd >= 0)
            return fd;
        if (errno != EEXIST) {
            fy_err_set(MPI_ERR_NO_MEM, "MPI_Init: cannot create shared memory %s: %s", name,
                       strerror(errno));
            return -1;
        }
    }
    fy_err_set(MPI_ERR_NO_MEM,
               "MPI_Init: cannot create shared memory: %d random names under /dev/shm/fy-%s- "
               "were all taken",
               ATTEMPTS, fy_rt.kvsname);
    return -1;
}

/* Rank 0 chooses the ring size, creates, sizes, maps and describes the segment before the
 * first fence; the others read the description from it after that fence, so every rank agrees
 * on the layout whatever it would have chosen itself. */
static int create_segment(fy_shm_t *s, char *name, size_t name_len)
{
    size_t bells_off, rings_off;
    uint64_t shm_free = shm_free_bytes();
    const char *mem_why;
    uint64_t mem = mem_available(&mem_why);
    uint64_t avail = shm_free < mem ? shm_free : mem;
    int inbox = pick_inbox(s->n);
    pick_coll(s, avail);
    layout(s, inbox, pick_ring_bytes(s->n, inbox, avail), &bells_off, &rings_off);
    if (s->bytes > shm_free)
        return fy_err_set(MPI_ERR_NO_MEM,
                          "MPI_Init: /dev/shm has %llu KiB free; %d ranks need %zu KiB of shared "
                          "memory (enlarge /dev/shm, or set FERRY_SHM_RING lower)",
                          (unsigned long long)(shm_free >> 10), s->n, s->bytes >> 10);
    /* The collective pool is touched only where used; the queues and bells are all used. */
    size_t need = rings_off + s->ring_stride * queue_count(s);
    if (need > mem)
        return fy_err_set(MPI_ERR_NO_MEM,
                          "MPI_Init: %d ranks need %zu MiB of shared memory for their queues, but "
                          "only %llu MiB of memory is available (%s); set FERRY_SHM_RING lower or "
                          "run fewer ranks",
                          s->n, need >> 20, (unsigned long long)(mem >> 20), mem_why);
    int fd = create_file(name, name_len);
    if (fd < 0)
        return MPI_ERR_NO_MEM; /* create_file wrote the message */
    int rc = MPI_SUCCESS;
    if (ftruncate(fd, (off_t)s->bytes) != 0)
        rc = fy_err_set(MPI_ERR_NO_MEM, "MPI_Init: cannot size shared memory %s to %zu bytes: %s",
                        name, s->bytes, strerror(errno));
    if (rc == MPI_SUCCESS)
        rc = map(s, fd, bells_off, rings_off);
    close(fd);
    if (rc != MPI_SUCCESS) {
        shm_unlink(name);
        return rc;
    }
    s->hdr->nranks = (uint32_t)s->n;
    s->hdr->ring_bytes = s->ring_bytes;
    s->hdr->coll_slots = s->coll_slots;
    s->hdr->coll_area = s->coll_area;
    s->hdr->inbox = (uint32_t)s->inbox;
    /* Odd: positions are multiples of 64, so no stamp is ever 0, what fresh memory holds. */
    s->hdr->ring_key = s->ring_key = random64() | 1;
    s->hdr->magic = FY_SHM_MAGIC;
    return MPI_SUCCESS;
}

static int open_segment(fy_shm_t *s, const char *name)
{
    int fd = shm_open(name, O_RDWR, 0600);
    if (fd < 0)
        return fy_err_set(MPI_ERR_NO_MEM, "MPI_Init: cannot open shared memory %s: %s", name,
                          strerror(errno));
    fy_shm_hdr_t h;
    if (pread(fd, &h, sizeof h, 0) != (ssize_t)sizeof h || h.magic != FY_SHM_MAGIC ||
        h.nranks != (uint32_t)s->n || h.ring_bytes < 4096) {
        close(fd);
        return fy_err_set(MPI_ERR_INTERN, "MPI_Init: shared memory segment %s is not this job's",
                          name);
    }
    size_t bells_off, rings_off;
    s->ring_key = h.ring_key;
    s->coll_slots = h.coll_slots;
    s->coll_area = h.coll_area;
    layout(s, (int)h.inbox, h.ring_bytes, &bells_off, &rings_off);
    int rc = map(s, fd, bells_off, rings_off);
    close(fd);
    return rc;
}

/* FERRY_SHM_REPORT=1: the segment's size and its parts on one line of key=value pairs, for
 * people and for scripts (tests/shm/footprint.sh, the benchmark's footprint table). The
 * formulas behind each part are in docs/DESIGN.md ("Footprint"). */
static void report(const fy_shm_t *s)
{
    size_t queues = s->ring_stride * queue_count(s);
    size_t pool = s->coll_slots ? 4096 + s->coll_stride * s->coll_slots : 0;
    size_t head = s->bytes - queues - pool;
    /* At MPI_Init a rank touches the start of its inbox; pair rings wait for first contact. */
    size_t touch = 0;
    if (s->inbox)
        touch = s->inbox_data + FY_SHM_INBOX_TOUCH < s->ring_stride
                    ? s->inbox_data + FY_SHM_INBOX_TOUCH
                    : s->ring_stride;
    fprintf(stderr,
            "Ferry: shm ranks=%d segment_bytes=%zu header_bells_bytes=%zu queue_kind=%s "
            "queues=%zu queue_bytes=%u queue_stride=%zu queues_bytes=%zu coll_slots=%u "
            "coll_area=%u coll_slot_bytes=%zu coll_pool_bytes=%zu touched_at_init_per_rank=%zu\n",
            s->n, s->bytes, head, s->inbox ? "inbox" : "pair", queue_count(s), s->ring_bytes,
            s->ring_stride, queues, s->coll_slots, s->coll_area, s->coll_stride, pool, touch);
}

/* PMI values are single tokens: bytes outside printable ASCII, '=', ';', '%' go as %XX. */
static void encode_value(const char *in, char *out, size_t len)
{
    size_t o = 0;
    for (; *in != '\0' && o + 4 < len; in++) {
        unsigned char c = (unsigned char)*in;
        if (c <= ' ' || c > '~' || c == '=' || c == '%' || c == ';')
            o += (size_t)snprintf(out + o, len - o, "%%%02X", c);
        else
            out[o++] = (char)c;
    }
    out[o] = '\0';
}

static void decode_value(char *s)
{
    char *o = s;
    for (; *s != '\0'; s++) {
        unsigned v;
        if (*s == '%' && sscanf(s + 1, "%2x", &v) == 1) {
            *o++ = (char)v;
            s += 2;
        } else {
            *o++ = *s;
        }
    }
    *o = '\0';
}

/* The members' world ranks -> local numbers, unless they are the same. */
static int map_ranks(fy_shm_t *s, int *members, int n, int world_size)
{
    s->world_of = members;
    if (n == world_size)
        return MPI_SUCCESS; /* members are 0..n-1: local_of stays NULL */
    s->local_of = malloc(sizeof(int) * (size_t)world_size);
    if (!s->local_of)
        return fy_err_set(MPI_ERR_NO_MEM, "MPI_Init: out of memory");
    for (int w = 0; w < world_size; w++)
        s->local_of[w] = -1;
    for (int l = 0; l < n; l++)
        s->local_of[members[l]] = l;
    return MPI_SUCCESS;
}

int fy_shm_init(struct fy_pmi *pmi, int *members, int n, int rank, int world_size)
{
    fy_shm_t *s = &fy_shm;
    if (n > FY_SHM_MAX_RANKS) {
        free(members);
        return fy_err_set(MPI_ERR_OTHER, "MPI_Init: %d ranks on one machine; at most %d", n,
                          FY_SHM_MAX_RANKS);
    }
    char name[320] = "";
    s->rank = rank;
    s->n = n;
    int rc = map_ranks(s, members, n, world_size);
    if (rc != MPI_SUCCESS)
        return rc;
    /* One segment per host: its creator (the host's lowest rank) names it under its own key. */
    char key[FY_PMI_MAX_KEY];
    snprintf(key, sizeof key, "fy-shm-%d", members[0]);
    /* Before the first fence: every rank must be registered before any relies on it. */
    fy_shm_fence_init();
    if (rank == 0) {
        /* The outcome goes into the KVS before the fence, so that every rank fails with rank
         * 0's reason: the launcher reports whichever rank aborts first. */
        char outcome[340];
        rc = create_segment(s, name, sizeof name);
        if (rc != MPI_SUCCESS)
            encode_value(fy_err_last_message(), outcome, sizeof outcome);
        else
            snprintf(outcome, sizeof outcome, "ok:%s", name); /* a name of [-/0-9a-z] */
        if (fy_pmi_put(pmi, key, outcome) != 0 && rc == MPI_SUCCESS)
            rc = fy_err_set(MPI_ERR_OTHER, "MPI_Init: process manager put failed: %s",
                            fy_pmi_last_error());
    }
    /* The fence happens even when creation failed, so that nobody waits for us forever. */
    if (fy_pmi_fence(pmi) != 0 && rc == MPI_SUCCESS)
        rc = fy_err_set(MPI_ERR_OTHER, "MPI_Init: process manager barrier failed: %s",
                        fy_pmi_last_error());
    if (rc == MPI_SUCCESS && rank != 0) {
        char outcome[340];
        if (fy_pmi_get(pmi, members[0], key, outcome, sizeof outcome) != 0) {
            rc = fy_err_set(MPI_ERR_OTHER, "MPI_Init: process manager get failed: %s",
                            fy_pmi_last_error());
        } else if (strncmp(outcome, "ok:", 3) != 0) {
            decode_value(outcome);
            rc = fy_err_set(MPI_ERR_NO_MEM, "%s", outcome);
        } else {
            snprintf(name, sizeof name, "%.300s", outcome + 3);
            rc = open_segment(s, name);
        }
    }
    if (rc != MPI_SUCCESS)
        return rc;
    s->bell[rank].pid = (int32_t)getpid();
    atomic_store(&s->bell[rank].cpu, -1); /* no CPU published yet: never "the same as mine" */
    populate_own_queues(s);
    /* The last rank to map the segment unlinks its name: no rank needs it any more, and a
     * launcher that kills the job at once (srun, Open MPI's mpirun, Hydra: none cleans
     * /dev/shm for us) finds no file to leave behind once MPI_Init has returned anywhere.
     * Counted in the segment rather than known from the fence below: Hydra's PMI-2 fence is
     * not a barrier (it returns at once; its gets wait for their keys instead), and a rank
     * that unlinked after it removed the name under a rank still to open it. */
    if (atomic_fetch_add(&s->hdr->mapped, 1) + 1 == (uint32_t)s->n)
        shm_unlink(name);
    if (fy_pmi_fence(pmi) != 0)
        return fy_err_set(MPI_ERR_OTHER, "MPI_Init: process manager barrier failed: %s",
                          fy_pmi_last_error());
    if (members[0] == 0 && rank == 0 && fy_knob_number(FY_KNOB_SHM_REPORT, 0) > 0)
        report(s);
    fy_shm_cma_init();
    return MPI_SUCCESS;
}

void fy_shm_fini(void)
{
    /* A rank past MPI_Finalize never moves again: for the deadlock detector it stays stuck. */
    if (fy_shm.base)
        atomic_fetch_add(&fy_shm.hdr->stuck, 1);
    fy_shm_efd_fini();
    if (fy_shm.base)
        munmap(fy_shm.base, fy_shm.bytes);
    free(fy_shm.local_of);
    free(fy_shm.world_of);
    memset(&fy_shm, 0, sizeof fy_shm);
}
