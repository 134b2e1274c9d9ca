/* Forwarding the ranks' output a whole line at a time, and our stdin to rank 0.
 *
 * Each rank's stdout and stderr is a pipe we read; complete lines are written to our own fd 1 or
 * 2 in one go, so lines of different ranks never mix. A line longer than the buffer is written
 * in pieces (the only case where pieces of lines can interleave).
 */
#include "mpiexec.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#define STREAM_BUF (64 * 1024)

void fy_mpx_stream_init(fy_mpx_stream_t *s, int fd, int dest)
{
    s->fd = fd;
    s->dest = dest;
    s->buf = NULL;
    s->len = 0;
}

/* Blocking write of all of iov, waiting if our stdout was left non-blocking by whoever started
 * us. Returns 0, or -1 if nobody reads it any more. */
static int write_all(int fd, struct iovec *iov, int n)
{
    while (n > 0) {
        ssize_t w = writev(fd, iov, n);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK) {
                struct pollfd p = {.fd = fd, .events = POLLOUT};
                poll(&p, 1, 1000);
                continue;
            }
            return -1;
        }
        while (n > 0 && (size_t)w >= iov->iov_len) {
            w -= (ssize_t)iov->iov_len;
            iov++;
            n--;
        }
        if (n > 0) {
            iov->iov_base = (char *)iov->iov_base + w;
            iov->iov_len -= (size_t)w;
        }
    }
    return 0;
}

/* Writes buf[0..len) that holds whole lines (or, at the end, a last partial one). When our
 * output is gone (`mpiexec ... | head`), marks it broken: see fy_mpx_stream_input. */
unsigned long fy_mpx_emitted;

void fy_mpx_emit(fy_mpx_job_t *job, int rank, int dest, const char *cbuf, size_t len)
{
    char *buf = (char *)cbuf; /* only read, through iovecs */
    if (job->link != NULL && job->link->emit != NULL) {
        job->link->emit(job, rank, dest, buf, len); /* a proxy: mpiexec writes it */
        return;
    }
    if (job->dest_broken[dest])
        return;
    fy_mpx_emitted++;
    if (!job->opts->label) {
        /* A rank's unterminated last line is ended only if another rank writes after it, so a
         * single rank's output stays byte for byte what it wrote. */
        int sep = job->midline_rank[dest] >= 0 && job->midline_rank[dest] != rank;
        struct iovec iov[2] = {
            {.iov_base = "\n", .iov_len = 1},
            {.iov_base = buf, .iov_len = len},
        };
        if (write_all(dest, iov + !sep, 1 + sep) != 0)
            job->dest_broken[dest] = 1;
        job->midline_rank[dest] = buf[len - 1] == '\n' ? -1 : rank;
        return;
    }
    char prefix[24];
    int plen = snprintf(prefix, sizeof(prefix), "[%d] ", rank);
    while (len > 0) {
        char *nl = memchr(buf, '\n', len);
        size_t l = nl ? (size_t)(nl - buf) + 1 : len;
        struct iovec iov[3] = {
            {.iov_base = prefix, .iov_len = (size_t)plen},
            {.iov_base = buf, .iov_len = l},
            {.iov_base = "\n", .iov_len = 1},
        };
        /* A labelled partial line still ends the line, or the next label would land inside. */
        if (write_all(dest, iov, nl ? 2 : 3) != 0) {
            job->dest_broken[dest] = 1;
            return;
        }
        buf += l;
        len -= l;
    }
}

void fy_mpx_stream_close(fy_mpx_job_t *job, int rank, fy_mpx_stream_t *s)
{
    if (s->fd < 0)
        return;
    if (s->len > 0)
        fy_mpx_emit(job, rank, s->dest, s->buf, s->len);
    close(s->fd);
    s->fd = -1;
    free(s->buf);
    s->buf = NULL;
    s->len = 0;
}

void fy_mpx_stream_input(fy_mpx_job_t *job, int rank, fy_mpx_stream_t *s)
{
    if (job->dest_broken[s->dest]) {
        /* Like a pipeline: the rank gets SIGPIPE on its next write, as it would writing to our
         * output directly, instead of us reading and dropping its output forever. */
        fy_mpx_stream_close(job, rank, s);
        return;
    }
    if (s->buf == NULL && (s->buf = malloc(STREAM_BUF)) == NULL)
        return; /* try again later */
    ssize_t n = read(s->fd, s->buf + s->len, STREAM_BUF - s->len);
    if (n < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK))
        return;
    if (n <= 0) {
        fy_mpx_stream_close(job, rank, s);
        return;
    }
    s->len += (size_t)n;

    size_t whole = 0;
    for (size_t i = s->len; i > 0; i--) {
        if (s->buf[i - 1] == '\n') {
            whole = i;
            break;
        }
    }
    if (whole == 0 && s->len == STREAM_BUF)
        whole = s->len; /* an overlong line: let it through in pieces */
    if (whole == 0)
        return;
    fy_mpx_emit(job, rank, s->dest, s->buf, whole);
    memmove(s->buf, s->buf + whole, s->len - whole);
    s->len -= whole;
}

void fy_mpx_stdin_close(fy_mpx_job_t *job)
{
    job->stdin_open = 0;
    job->stdin_len = 0;
    if (job->stdin_to >= 0) {
        close(job->stdin_to);
        job->stdin_to = -1;
    }
}

void fy_mpx_stdin_write(fy_mpx_job_t *job)
{
    while (job->stdin_len > 0 && job->stdin_to >= 0) {
        ssize_t n = write(job->stdin_to, job->stdin_buf, job->stdin_len);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK)
                return;
            fy_mpx_stdin_close(job); /* rank 0 closed its stdin: stop reading ours */
            return;
        }
        memmove(job->stdin_buf, job->stdin_buf + n, job->stdin_len - (size_t)n);
        job->stdin_len -= (size_t)n;
    }
    if (!job->stdin_open && job->stdin_to >= 0) {
        close(job->stdin_to); /* our stdin ended and all of it went through */
        job->stdin_to = -1;
    }
}

void fy_mpx_stdin_read(fy_mpx_job_t *job)
{
    if (job->stdin_buf == NULL && (job->stdin_buf = malloc(STREAM_BUF)) == NULL)
        return;
    /* Read only into an empty buffer: poll said fd 0 is ready, so this read does not block,
     * and we never set O_NONBLOCK on a descriptor we share with our parent. */
    ssize_t n = read(0, job->stdin_buf, STREAM_BUF);
    if (n < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK))
        return;
    if (n <= 0) {
        job->stdin_open = 0;
        fy_mpx_stdin_write(job);
        return;
    }
    job->stdin_len = (size_t)n;
    fy_mpx_stdin_write(job);
}
