/* `ferry view DIR`: the raw trace (fy_trace_read.h) and DIR/profile.json as one self-contained
 * HTML page (the page's files are compiled in, ferry_view_page.c), as Chrome/Perfetto trace-event
 * JSON, and as PNG pictures drawn by headless Chromium.
 *
 * ferry_view.c: the command, the page (meta JSON + base64 of the deflated columns);
 * ferry_view_model.c: intervals, matched messages and collective instances from the events;
 * ferry_view_perfetto.c: the trace-event JSON; ferry_view_png.c: the screenshots. */
#ifndef FERRY_VIEW_H
#define FERRY_VIEW_H

#include <stddef.h>
#include <stdint.h>

#include "fy_trace_read.h"

#define VIEW_WHO "ferry view"

/* The columns of docs/plan-trace.md "The view's data model". Times are ns from the trace's
 * start (tr->ns_min) on the global clock. */
typedef struct view_model {
    size_t niv;
    double *iv_start;
    float *iv_dur;
    uint16_t *iv_rank, *iv_name;
    uint8_t *iv_depth;
    uint32_t *rank_off; /* [ranks + 1] */

    size_t nmsg;
    double *msg_send, *msg_recv; /* msg_recv NaN: no receive matched */
    uint16_t *msg_src, *msg_dst;
    int32_t *msg_tag;
    double *msg_bytes;
    size_t unmatched_recvs;      /* receives with no send (the sender's file ends early) */

    size_t ncoll;
    double *coll_start, *coll_last_in, *coll_end, *coll_bytes;
    uint16_t *coll_name;
    int32_t *coll_root;
    uint32_t *coll_comm;
    size_t incomplete_colls;     /* instances some member did not record */
    int closed;                  /* calls left open, closed at their rank's last event */
} view_model_t;

/* Builds the model; -1 with a message on stderr on failure (out of memory, too many names). */
int view_model_build(fy_trace_t *tr, view_model_t *m);
void view_model_free(view_model_t *m);

/* Writes the trace-event JSON to `path`; -1 with a message on failure. */
int view_perfetto(const fy_trace_t *tr, const view_model_t *m, const char *path);

/* The browser --png runs (FERRY_CHROMIUM, else chromium ... on PATH), or -1 with a message. */
int view_png_browser(char *exe, size_t len);
/* Screenshots of the page `html` (an absolute path) into OUTDIR/<view>.png for each view. */
int view_png(const char *html, const char *outdir);

/* The page's files (ferry_view_page.c, generated). */
extern const unsigned char fy_view_html[], fy_view_css[], fy_view_js[];
extern const size_t fy_view_html_len, fy_view_css_len, fy_view_js_len;

#endif
