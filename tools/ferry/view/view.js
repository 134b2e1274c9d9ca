/* Ferry's trace view: the script of the page `ferry view DIR` writes (tools/ferry/view/).
 *
 * The page carries its data: a JSON meta block (#fy-meta) and the binary columns, zlib-deflated
 * and base64-encoded (#fy-data); docs/plan-trace.md "The view's data model" lists them. This
 * script inflates the columns with the browser's own DecompressionStream, builds per-rank
 * indexes once, and draws four views (timeline, profile, matrix, message sizes) on canvas 2D, one
 * at a time, chosen by the URL fragment. No library and no network: the file opens from disk.
 *
 * Scale: a trace of 8 ranks x 1M events is ~4M intervals. Nothing per frame walks them all: the
 * visible window of each rank's sorted starts is found by binary search; when a rank has more
 * calls in view than pixels, the timeline draws per-pixel coverage by class, from the window's
 * intervals when they are few enough, else from a pyramid of per-bin coverage built at load.
 *
 * For tests and the `--png` screenshots: when the selected view has been drawn,
 * document.body.dataset.ready is "1" and the title ends " — ready" (on a data error: "error" and
 * " — error"); window.fyView exposes the view window and counts of what was drawn. */
'use strict';
(function () {

const CLASSES = ['p2p', 'coll', 'wait', 'rma', 'sync', 'other', 'region'];
const NC = CLASSES.length;
const REGION = 6;
const CLASS_COLOR = ['#3b7dd8', '#e4572e', '#f0b429', '#8e5ad8', '#2aa876', '#9aa3ad', '#4fb3bf'];
const CLASS_LABEL = ['point-to-point', 'collective', 'wait/test', 'one-sided', 'sync', 'other',
                     'user region'];
const REGION_COLORS = ['#4fb3bf', '#3f8f99', '#7cc7c9', '#2f7f8a', '#5fa8b0', '#8fbfc4'];
const LOD_BINS = 16384;     /* base bins of the coverage pyramid over the whole trace */
const LOD_MIN = 4096;       /* lists shorter than this never need the pyramid */
const ARROW_MAX = 3000;     /* arrows drawn at most; beyond, a note says to zoom in */
const COLL_MAX = 1500;      /* collective instances drawn at most */
const SCAN_MAX = 200000;    /* candidates examined at most per frame for arrows */
const LABEL_W = 150;        /* the rank labels' column, CSS pixels */
const AXIS_H = 30;

const $ = (id) => document.getElementById(id);
const S = { meta: null, ready: false, drawn: {}, built: {}, stats: {} };
window.fyView = {
    stats: () => JSON.parse(JSON.stringify(S.stats)),
    view: () => S.tl ? [S.tl.t0, S.tl.t1] : null,
    setView: (a, b) => { setWindow(a, b); drawTimelineNow(); },
    zoom: (f) => { zoomAt(f, 0.5); drawTimelineNow(); },
    reset: () => { resetWindow(); drawTimelineNow(); },
    duration: () => S.dur,
    /* where the last timeline draw put things, in CSS pixels of the canvas */
    layout: () => ({ labelW: LABEL_W, plotW: TL.plotW, t0: TL.t0, pxNs: TL.pxNs, callH: callH(),
                     callTop: S.calls.map((_, r) => callTop(r)), labels: TL.labels }),
    error: () => S.error || null,
};

/* ---------- status: ready, errors ---------- */

function setReady(state) {
    document.body.dataset.ready = state;
    const base = S.meta && S.meta.program ? `Ferry view: ${S.meta.program}` : 'Ferry view';
    document.title = `${base} — ${state === '1' ? 'ready' : state}`;
}

function clearReady() {
    delete document.body.dataset.ready;
    document.title = S.meta && S.meta.program ? `Ferry view: ${S.meta.program}` : 'Ferry view';
}

function fail(msg) {
    S.error = msg;
    const e = $('fy-error');
    e.textContent = `Ferry view: cannot show this trace: ${msg}`;
    e.hidden = false;
    $('fy-loading').hidden = true;
    for (const s of document.querySelectorAll('.fy-view')) s.hidden = true;
    setReady('error');
}

/* A fault of the page itself: before the data is shown, the page is an error page; after, a line
 * says so above the views, which stay usable. */
function fault(msg) {
    if (!S.shown) return fail(msg);
    const e = $('fy-error');
    e.textContent = `Ferry view: an error in the page: ${msg}`;
    e.hidden = false;
    document.body.dataset.fault = msg;
}
window.addEventListener('error', (ev) => fault(ev.message || String(ev.error)));
window.addEventListener('unhandledrejection', (ev) => fault(String(ev.reason && ev.reason.message || ev.reason)));

/* ---------- decoding ---------- */

function base64Bytes(text) {
    if (typeof Uint8Array.fromBase64 === 'function') {
        try { return Uint8Array.fromBase64(text); } catch (e) { throw new Error(`the data block is not valid base64 (${e.message})`); }
    }
    let bin;
    try { bin = atob(text); } catch (e) { throw new Error('the data block is not valid base64'); }
    const out = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
    return out;
}

async function inflate(bytes) {
    const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('deflate'));
    try {
        return await new Response(stream).arrayBuffer();
    } catch (e) {
        /* the browser's reason ("Failed to fetch") says nothing useful here */
        throw new Error('the data block does not inflate: it is not a zlib (RFC 1950) stream, or it is cut short');
    }
}

const TYPES = { f64: Float64Array, f32: Float32Array, u32: Uint32Array, i32: Int32Array,
                u16: Uint16Array, u8: Uint8Array };

function columns(meta, buf) {
    const cols = {};
    for (const [name, c] of Object.entries(meta.columns || {})) {
        const T = TYPES[c.type];
        if (!T) throw new Error(`column ${name}: unknown type "${c.type}"`);
        const end = c.offset + c.count * T.BYTES_PER_ELEMENT;
        if (!(c.offset >= 0 && c.count >= 0 && end <= buf.byteLength))
            throw new Error(`column ${name}: offset ${c.offset} + ${c.count} x ${c.type} lies beyond the data (${buf.byteLength} bytes)`);
        if (c.offset % T.BYTES_PER_ELEMENT)
            throw new Error(`column ${name}: offset ${c.offset} is not aligned for ${c.type}`);
        cols[name] = new T(buf, c.offset, c.count);
    }
    const need = (names, what) => {
        const n = cols[names[0]] ? cols[names[0]].length : 0;
        for (const k of names) {
            if (!cols[k]) cols[k] = new TYPES[k === names[0] ? 'f64' : 'f64'](0);
            if (cols[k].length !== n) throw new Error(`${what} columns differ in length (${names[0]} ${n}, ${k} ${cols[k].length})`);
        }
    };
    need(['iv_start', 'iv_dur', 'iv_rank', 'iv_name', 'iv_depth'], 'interval');
    need(['msg_send', 'msg_recv', 'msg_src', 'msg_dst', 'msg_tag', 'msg_bytes'], 'message');
    need(['coll_start', 'coll_last_in', 'coll_end', 'coll_name', 'coll_root', 'coll_bytes', 'coll_comm'], 'collective');
    if (!cols.rank_off || cols.rank_off.length !== meta.ranks + 1)
        throw new Error(`rank_off must have ranks + 1 = ${meta.ranks + 1} entries`);
    if (cols.rank_off[meta.ranks] !== cols.iv_start.length)
        throw new Error(`rank_off ends at ${cols.rank_off[meta.ranks]}, not at the ${cols.iv_start.length} intervals`);
    return cols;
}

async function load() {
    const metaEl = $('fy-meta'), dataEl = $('fy-data');
    if (!metaEl || !dataEl) throw new Error('the page has no trace in it (no #fy-meta or #fy-data block)');
    let meta;
    try { meta = JSON.parse(metaEl.textContent); } catch (e) { throw new Error(`the meta block is not JSON: ${e.message}`); }
    if (meta.version !== 1) throw new Error(`meta version ${meta.version} is not 1`);
    if (!(meta.ranks > 0)) throw new Error(`meta.ranks is ${meta.ranks}`);
    S.meta = meta;
    const ms = S.phases = { script: performance.now() };
    const bytes = base64Bytes(dataEl.textContent.trim());
    ms.base64 = performance.now();
    const buf = bytes.length ? await inflate(bytes) : new ArrayBuffer(0);
    ms.inflate = performance.now();
    if (meta.raw_bytes !== undefined && buf.byteLength !== meta.raw_bytes)
        throw new Error(`the data inflates to ${buf.byteLength} bytes, the meta says ${meta.raw_bytes}`);
    S.cols = columns(meta, buf);
    index();
    ms.index = performance.now();
}

/* ---------- indexes built once ---------- */

/* A list: the intervals of one rank at one depth, sorted by start; `idx` null means the range
 * lo..lo+n of the columns, else the interval numbers. Calls of one rank do not overlap, nor do
 * regions of one depth (they nest), so ends are sorted too and one step back from a binary
 * search on the starts finds the first interval reaching into a window. */
function makeList(lo, n, idx, cls) {
    return { lo, n, idx, cls, lod: null, maxDur: 0 };
}

function index() {
    const m = S.meta, c = S.cols, R = m.ranks;
    const names = m.names || [];
    S.nameCls = new Uint8Array(Math.max(names.length, 1 + maxOf(c.iv_name)));
    S.nameCls.fill(5);
    (m.name_class || []).forEach((k, i) => { const j = CLASSES.indexOf(k); S.nameCls[i] = j < 0 ? 5 : j; });
    let dur = m.duration_ns || 0;
    for (let i = 0; i < c.iv_start.length; i++) { const e = c.iv_start[i] + c.iv_dur[i]; if (e > dur) dur = e; }
    for (let i = 0; i < c.msg_recv.length; i++) if (c.msg_recv[i] > dur) dur = c.msg_recv[i];
    S.dur = dur > 0 ? dur : 1;
    S.calls = []; S.regions = []; S.maxDepth = 0;
    for (let r = 0; r < R; r++) {
        const lo = c.rank_off[r], hi = c.rank_off[r + 1];
        let deep = 0, maxd = 0;
        for (let i = lo; i < hi; i++) { const d = c.iv_depth[i]; if (d) { deep++; if (d > maxd) maxd = d; } }
        const regs = [];
        if (!deep) {
            S.calls.push(makeList(lo, hi - lo, null, null));
        } else {
            const shown = Math.min(maxd, 3);    /* deeper regions share the third band */
            const callIdx = new Uint32Array(hi - lo - deep), counts = new Uint32Array(shown + 1);
            for (let i = lo; i < hi; i++) counts[Math.min(c.iv_depth[i], shown)]++;
            const per = [];
            for (let d = 1; d <= shown; d++) per[d] = new Uint32Array(counts[d]);
            const fill = new Uint32Array(shown + 1);
            for (let i = lo; i < hi; i++) {
                const d = Math.min(c.iv_depth[i], shown);
                if (!d) callIdx[fill[0]++] = i; else per[d][fill[d]++] = i;
            }
            S.calls.push(makeList(0, callIdx.length, callIdx, null));
            for (let d = 1; d <= shown; d++) regs.push(makeList(0, per[d].length, per[d], REGION));
            S.maxDepth = Math.max(S.maxDepth, shown);
        }
        S.regions.push(regs);
    }
    for (const l of S.calls) prepList(l);
    for (const regs of S.regions) for (const l of regs) prepList(l);
    S.msgOrd = sortedOrder(c.msg_send);
    S.maxFlight = 0;
    for (let i = 0; i < c.msg_send.length; i++) {
        const f = c.msg_recv[i] - c.msg_send[i];
        if (f > S.maxFlight) S.maxFlight = f;
    }
    S.collOrd = sortedOrder(c.coll_start);
    S.maxColl = 0;
    for (let i = 0; i < c.coll_start.length; i++) S.maxColl = Math.max(S.maxColl, c.coll_end[i] - c.coll_start[i]);
}

function maxOf(a) { let m = -1; for (let i = 0; i < a.length; i++) if (a[i] > m) m = a[i]; return m; }

/* The order of a column's values: null when already sorted (the usual case). */
function sortedOrder(v) {
    let sorted = true;
    for (let i = 1; i < v.length; i++) if (v[i] < v[i - 1]) { sorted = false; break; }
    if (sorted) return null;
    const o = new Uint32Array(v.length);
    for (let i = 0; i < o.length; i++) o[i] = i;
    o.sort((a, b) => v[a] - v[b]);
    return o;
}

function ix(l, i) { return l.idx ? l.idx[i] : l.lo + i; }

/* The first position whose start is >= t. */
function lowerBound(l, t) {
    const st = S.cols.iv_start;
    let a = 0, b = l.n;
    while (a < b) { const m = (a + b) >> 1; if (st[ix(l, m)] < t) a = m + 1; else b = m; }
    return a;
}

/* Positions [i0, i1) of the intervals reaching into [t0, t1). */
function windowOf(l, t0, t1) {
    const st = S.cols.iv_start, du = S.cols.iv_dur;
    let i0 = lowerBound(l, t0);
    for (let k = 0; k < 8 && i0 > 0; k++) {
        const j = ix(l, i0 - 1);
        if (st[j] + du[j] > t0) i0--; else break;
    }
    return [i0, lowerBound(l, t1)];
}

function prepList(l) {
    const c = S.cols;
    for (let i = 0; i < l.n; i++) { const d = c.iv_dur[ix(l, i)]; if (d > l.maxDur) l.maxDur = d; }
    if (l.n < LOD_MIN) return;
    /* The pyramid: level 0 has LOD_BINS bins over [0, dur) holding ns covered per class; each
     * level above halves the bins. */
    const bw = S.dur / LOD_BINS, levels = [];
    const base = new Float32Array(LOD_BINS * NC);
    for (let i = 0; i < l.n; i++) {
        const j = ix(l, i), cl = l.cls !== null ? l.cls : S.nameCls[c.iv_name[j]];
        let s = c.iv_start[j], e = s + c.iv_dur[j];
        if (s < 0) s = 0;
        if (e > S.dur) e = S.dur;
        if (e <= s) continue;
        let b = Math.min(LOD_BINS - 1, Math.floor(s / bw));
        const b1 = Math.min(LOD_BINS - 1, Math.floor(e / bw));
        if (b === b1) { base[b * NC + cl] += e - s; continue; }
        base[b * NC + cl] += (b + 1) * bw - s;
        for (b++; b < b1; b++) base[b * NC + cl] += bw;
        base[b1 * NC + cl] += e - b1 * bw;
    }
    levels.push(base);
    for (let n = LOD_BINS >> 1; n >= 1; n >>= 1) {
        const prev = levels[levels.length - 1], cur = new Float32Array(n * NC);
        for (let b = 0; b < n; b++)
            for (let k = 0; k < NC; k++) cur[b * NC + k] = prev[2 * b * NC + k] + prev[(2 * b + 1) * NC + k];
        levels.push(cur);
    }
    l.lod = { bw, levels };
}

/* ---------- formatting ---------- */

function fmtNs(ns, digits) {
    const a = Math.abs(ns), d = digits === undefined ? 3 : digits;
    if (a >= 1e9) return `${+(ns / 1e9).toPrecision(d + 1)} s`;
    if (a >= 1e6) return `${+(ns / 1e6).toPrecision(d + 1)} ms`;
    if (a >= 1e3) return `${+(ns / 1e3).toPrecision(d + 1)} µs`;
    return `${+ns.toPrecision(d + 1)} ns`;
}

function fmtBytes(b) {
    if (b >= 1 << 30) return `${+(b / (1 << 30)).toPrecision(3)} GiB`;
    if (b >= 1 << 20) return `${+(b / (1 << 20)).toPrecision(3)} MiB`;
    if (b >= 1 << 10) return `${+(b / (1 << 10)).toPrecision(3)} KiB`;
    return `${b} B`;
}

function fmtCount(n) {
    if (n >= 1e9) return `${+(n / 1e9).toPrecision(3)}G`;
    if (n >= 1e6) return `${+(n / 1e6).toPrecision(3)}M`;
    if (n >= 1e4) return `${+(n / 1e3).toPrecision(3)}k`;
    return String(n);
}

function nameOf(i) { const n = S.meta.names || []; return n[i] !== undefined ? n[i] : `#${i}`; }
function hostOf(r) { const h = S.meta.hosts || []; return h[r] !== undefined ? h[r] : '?'; }

function escapeHtml(s) {
    return String(s).replace(/[&<>"]/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' }[ch]));
}

/* ---------- the tooltip ---------- */

function tip(ev, text) {
    const t = $('fy-tip');
    if (!text) { t.hidden = true; return; }
    t.textContent = text;
    t.hidden = false;
    const w = t.offsetWidth, h = t.offsetHeight;
    let x = ev.clientX + 14, y = ev.clientY + 14;
    if (x + w > window.innerWidth - 4) x = ev.clientX - w - 10;
    if (y + h > window.innerHeight - 4) y = ev.clientY - h - 10;
    t.style.left = `${Math.max(0, x)}px`;
    t.style.top = `${Math.max(0, y)}px`;
}

function sizeCanvas(cv, w, h) {
    const dpr = window.devicePixelRatio || 1;
    cv.style.width = `${w}px`;
    cv.style.height = `${h}px`;
    cv.width = Math.round(w * dpr);
    cv.height = Math.round(h * dpr);
    const ctx = cv.getContext('2d');
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    return ctx;
}

/* ---------- the timeline ---------- */

const TL = { };   /* layout of the last draw, for hit tests */

function resetWindow() {
    S.tl = { t0: -S.dur * 0.01, t1: S.dur * 1.01 };
}

function setWindow(a, b) {
    const pad = S.dur * 0.05, minSpan = 20;
    if (!(b > a)) return;
    if (b - a < minSpan) { const m = (a + b) / 2; a = m - minSpan / 2; b = m + minSpan / 2; }
    const maxSpan = S.dur + 2 * pad;
    if (b - a > maxSpan) { a = -pad; b = S.dur + pad; }
    if (a < -pad) { b += -pad - a; a = -pad; }
    if (b > S.dur + pad) { a -= b - (S.dur + pad); b = S.dur + pad; }
    S.tl.t0 = a;
    S.tl.t1 = b;
}

/* Zoom by `f` (> 1: in) about the fraction `at` of the plot's width. */
function zoomAt(f, at) {
    const { t0, t1 } = S.tl, span = t1 - t0, tc = t0 + at * span, ns = span / f;
    setWindow(tc - at * ns, tc - at * ns + ns);
}

let rafPending = false;
function drawTimeline() {
    if (rafPending) return;
    rafPending = true;
    requestAnimationFrame(() => { rafPending = false; drawTimelineNow(); });
}

function layoutTimeline() {
    const R = S.meta.ranks, wrap = $('tl-wrap');
    const W = Math.max(400, wrap.clientWidth - 2);
    const avail = Math.max(200, window.innerHeight - wrap.getBoundingClientRect().top - 60);
    const rowH = Math.max(18, Math.min(56, Math.floor((avail - AXIS_H) / R)));
    const regH = S.maxDepth ? Math.max(4, Math.round(rowH * 0.3)) : 0;
    TL.W = W; TL.H = AXIS_H + R * rowH + 4; TL.rowH = rowH; TL.regH = regH;
    TL.plotW = W - LABEL_W;
}

function rowY(r) { return AXIS_H + r * TL.rowH; }
function callTop(r) { return rowY(r) + 2 + TL.regH + (TL.regH ? 1 : 0); }
function callH() { return TL.rowH - 4 - TL.regH - (TL.regH ? 1 : 0); }

function drawTimelineNow() {
    if (!S.tl || $('view-timeline').hidden) return;
    const cv = $('tl-canvas');
    layoutTimeline();
    const ctx = sizeCanvas(cv, TL.W, TL.H);
    const { t0, t1 } = S.tl, R = S.meta.ranks, pw = TL.plotW;
    const pxNs = (t1 - t0) / pw;
    TL.t0 = t0; TL.pxNs = pxNs;
    const st = { rows: R, boxes: 0, coverageRows: 0, arrows: 0, arrowsInView: 0, unmatched: 0,
                 collectives: 0, view: [t0, t1] };
    ctx.font = '11px system-ui, "DejaVu Sans", sans-serif';
    ctx.textBaseline = 'middle';
    ctx.clearRect(0, 0, TL.W, TL.H);
    /* rows, labels */
    TL.labels = [];
    for (let r = 0; r < R; r++) {
        ctx.fillStyle = r % 2 ? '#f6f7f8' : '#ffffff';
        ctx.fillRect(0, rowY(r), TL.W, TL.rowH);
        ctx.fillStyle = '#1d232a';
        TL.labels.push(`rank ${r} (${hostOf(r)})`);
        ctx.fillText(clipText(ctx, TL.labels[r], LABEL_W - 10), 6, rowY(r) + TL.rowH / 2);
    }
    ctx.save();
    ctx.translate(LABEL_W, 0);
    ctx.beginPath();
    ctx.rect(0, 0, pw, TL.H);
    ctx.clip();
    drawAxis(ctx, t0, t1, pw);
    TL.modes = [];
    const colls = collectivesInView(st) || [];
    shadeCollectives(ctx, colls);
    for (let r = 0; r < R; r++) {
        const regs = S.regions[r];
        for (let d = 0; d < regs.length; d++) {
            const h = TL.regH / S.maxDepth;
            drawList(ctx, regs[d], rowY(r) + 2 + d * h, Math.max(2, h - 1), st);
        }
        TL.modes[r] = drawList(ctx, S.calls[r], callTop(r), callH(), st);
        if (TL.modes[r] !== 'boxes') st.coverageRows++;
    }
    markCollectives(ctx, colls, st);
    drawArrows(ctx, st);
    if (S.sel) {
        ctx.fillStyle = 'rgba(37, 99, 168, 0.15)';
        const a = Math.min(S.sel.x0, S.sel.x1), b = Math.max(S.sel.x0, S.sel.x1);
        ctx.fillRect(a, 0, b - a, TL.H);
        ctx.fillStyle = '#1d3f6a';
        ctx.fillText(fmtNs((b - a) * pxNs), b + 4, AXIS_H + 10);
    }
    ctx.restore();
    ctx.strokeStyle = '#d5d9dd';
    ctx.beginPath(); ctx.moveTo(LABEL_W - 0.5, 0); ctx.lineTo(LABEL_W - 0.5, TL.H); ctx.stroke();
    S.stats.timeline = st;
    $('tl-range').textContent = `${fmtNs(t0)} – ${fmtNs(t1)} (${fmtNs(t1 - t0)} shown of ${fmtNs(S.dur)})`;
    const notes = [];
    if (st.arrowsInView > st.arrows + st.unmatched)
        notes.push(`${st.arrowsMore ? 'Over ' : ''}${fmtCount(st.arrowsInView)} messages in view: zoom in to see their arrows.`);
    if (st.collHidden) notes.push(`Over ${fmtCount(st.collHidden - 1)} collectives in view: zoom in to see them grouped.`);
    if (st.coverageRows) notes.push('Where calls are denser than the pixels, each pixel column shows the share of time in each class.');
    $('tl-note').textContent = notes.join(' ');
    if (S.current === 'timeline') setReady('1');
}

function clipText(ctx, s, w) {
    if (ctx.measureText(s).width <= w) return s;
    while (s.length > 1 && ctx.measureText(s + '…').width > w) s = s.slice(0, -1);
    return s + '…';
}

function niceStep(raw) {
    const p = Math.pow(10, Math.floor(Math.log10(raw))), f = raw / p;
    return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * p;
}

function drawAxis(ctx, t0, t1, pw) {
    const step = niceStep((t1 - t0) / Math.max(2, pw / 110));
    const unit = step >= 1e9 ? [1e9, 's'] : step >= 1e6 ? [1e6, 'ms'] : step >= 1e3 ? [1e3, 'µs'] : [1, 'ns'];
    const dec = Math.max(0, -Math.floor(Math.log10(step / unit[0]) + 1e-9));
    ctx.fillStyle = '#eef1f4';
    ctx.fillRect(0, 0, pw, AXIS_H - 2);
    ctx.strokeStyle = '#e2e5e8';
    ctx.fillStyle = '#1d232a';
    for (let t = Math.ceil(t0 / step) * step; t <= t1; t += step) {
        const x = Math.round((t - t0) / (t1 - t0) * pw) + 0.5;
        ctx.beginPath(); ctx.moveTo(x, AXIS_H - 8); ctx.lineTo(x, TL.H); ctx.stroke();
        const label = `${(t / unit[0]).toFixed(dec)} ${unit[1]}`;
        if (x + 3 + ctx.measureText(label).width <= pw) ctx.fillText(label, x + 3, AXIS_H / 2 - 2);
    }
}

function regionColor(name) { return REGION_COLORS[name % REGION_COLORS.length]; }

/* Draws one list in the band [y, y+h): boxes when there are at most about as many intervals in
 * view as pixels, else per-pixel coverage. Returns the mode used. */
function drawList(ctx, l, y, h, st) {
    if (!l.n) return 'boxes';
    const c = S.cols, { t0, pxNs } = TL, pw = TL.plotW, t1 = t0 + pw * pxNs;
    const [i0, i1] = windowOf(l, t0, t1);
    if (i1 - i0 <= pw) {
        let lastPx = -1;
        for (let i = i0; i < i1; i++) {
            const j = ix(l, i), s = c.iv_start[j], e = s + c.iv_dur[j];
            let x0 = (s - t0) / pxNs, x1 = (e - t0) / pxNs;
            if (x1 - x0 < 1) {
                if (Math.floor(x0) === lastPx) continue;
                x1 = x0 + 1;
            }
            x0 = Math.max(x0, -1); x1 = Math.min(x1, pw + 1);
            lastPx = Math.floor(x1 - 1);
            const cl = l.cls !== null ? l.cls : S.nameCls[c.iv_name[j]];
            ctx.fillStyle = cl === REGION ? regionColor(c.iv_name[j]) : CLASS_COLOR[cl];
            ctx.fillRect(x0, y, x1 - x0, h);
            st.boxes++;
            if (x1 - x0 > 36 && h >= 10) {
                ctx.fillStyle = '#fff';
                const xa = Math.max(x0, 0) + 3;
                ctx.fillText(clipText(ctx, nameOf(c.iv_name[j]), Math.min(x1, pw) - xa - 3), xa, y + h / 2);
            }
        }
        return 'boxes';
    }
    const cov = new Float32Array(pw * NC);
    if (l.lod && pxNs >= l.lod.bw) coverFromLod(l, cov, t0, pxNs, pw);
    else coverFromIntervals(l, cov, i0, i1, t0, pxNs, pw);
    drawCoverage(ctx, cov, y, h, pxNs, pw);
    return 'coverage';
}

function coverFromIntervals(l, cov, i0, i1, t0, pxNs, pw) {
    const c = S.cols;
    for (let i = i0; i < i1; i++) {
        const j = ix(l, i), cl = l.cls !== null ? l.cls : S.nameCls[c.iv_name[j]];
        const a = (c.iv_start[j] - t0) / pxNs, b = a + c.iv_dur[j] / pxNs;
        spread(cov, cl, a, b, pxNs, pw);
    }
}

/* Adds the span [a, b) (in pixels) of class cl to the columns it covers, in ns. */
function spread(cov, cl, a, b, pxNs, pw) {
    if (b <= 0 || a >= pw) return;
    if (a < 0) a = 0;
    if (b > pw) b = pw;
    let p = Math.floor(a);
    const pe = Math.floor(b);
    if (p === pe) { cov[p * NC + cl] += (b - a) * pxNs; return; }
    cov[p * NC + cl] += (p + 1 - a) * pxNs;
    for (p++; p < pe; p++) cov[p * NC + cl] += pxNs;
    if (pe < pw) cov[pe * NC + cl] += (b - pe) * pxNs;
}

function coverFromLod(l, cov, t0, pxNs, pw) {
    const { bw, levels } = l.lod;
    const lv = Math.min(levels.length - 1, Math.floor(Math.log2(pxNs / bw)));
    const w = bw * Math.pow(2, lv), bins = levels[lv], nb = bins.length / NC;
    const b0 = Math.max(0, Math.floor(t0 / w)), b1 = Math.min(nb - 1, Math.floor((t0 + pw * pxNs) / w));
    for (let b = b0; b <= b1; b++) {
        const a = (b * w - t0) / pxNs, e = a + w / pxNs;
        for (let k = 0; k < NC; k++) {
            const v = bins[b * NC + k];
            if (v) spread(cov, k, a, e, v / (e - a), pw);
        }
    }
}

function drawCoverage(ctx, cov, y, h, pxNs, pw) {
    const base = new Float32Array(pw);
    for (let k = 0; k < NC; k++) {
        ctx.fillStyle = CLASS_COLOR[k];
        let runX = -1, runH = 0, runB = 0;
        const flush = (x) => { if (runX >= 0 && runH > 0) ctx.fillRect(runX, y + h - runB - runH, x - runX, runH); };
        for (let x = 0; x < pw; x++) {
            const f = Math.min(1, cov[x * NC + k] / pxNs);
            let hh = f > 0 ? Math.max(1, Math.round(f * h)) : 0;
            hh = Math.min(hh, h - base[x]);
            if (hh !== runH || base[x] !== runB) { flush(x); runX = x; runH = hh; runB = base[x]; }
            base[x] += hh;
        }
        flush(pw);
    }
}

/* Messages reaching into the window, in send order, at most `cap` examined; calls fn(j). */
function messagesIn(t0, t1, fn) {
    const c = S.cols, n = c.msg_send.length, ord = S.msgOrd;
    const send = (i) => c.msg_send[ord ? ord[i] : i];
    let a = 0, b = n;
    const from = t0 - S.maxFlight;
    while (a < b) { const m = (a + b) >> 1; if (send(m) < from) a = m + 1; else b = m; }
    let seen = 0;
    for (let i = a; i < n; i++) {
        const j = ord ? ord[i] : i, s = c.msg_send[j];
        if (s > t1) break;
        if (++seen > SCAN_MAX) return false;
        const r = c.msg_recv[j];
        if ((r === r ? r : s) >= t0) fn(j);
    }
    return true;
}

function drawArrows(ctx, st) {
    const c = S.cols, { t0, pxNs } = TL, t1 = t0 + TL.plotW * pxNs, list = [];
    const complete = messagesIn(t0, t1, (j) => list.push(j));
    st.arrowsInView = list.length;
    st.arrowsMore = !complete;      /* more in view than were counted */
    S.drawnArrows = [];
    if (!complete || list.length > ARROW_MAX) return;
    ctx.lineWidth = 1;
    for (const j of list) {
        const xs = (c.msg_send[j] - t0) / pxNs, ys = callTop(c.msg_src[j]) + callH() / 2;
        const rv = c.msg_recv[j];
        if (rv !== rv) {     /* unmatched: a cross at the send */
            ctx.strokeStyle = '#b0160a';
            ctx.lineWidth = 2.5;
            ctx.beginPath();
            ctx.moveTo(xs - 5, ys - 5); ctx.lineTo(xs + 5, ys + 5);
            ctx.moveTo(xs + 5, ys - 5); ctx.lineTo(xs - 5, ys + 5);
            ctx.stroke();
            ctx.lineWidth = 1;
            S.drawnArrows.push([j, xs, ys, xs, ys]);
            st.unmatched++;
            continue;
        }
        const xr = (rv - t0) / pxNs, yr = callTop(c.msg_dst[j]) + callH() / 2;
        ctx.strokeStyle = 'rgba(29, 35, 42, 0.75)';
        ctx.fillStyle = 'rgba(29, 35, 42, 0.75)';
        ctx.beginPath(); ctx.moveTo(xs, ys); ctx.lineTo(xr, yr); ctx.stroke();
        const ang = Math.atan2(yr - ys, xr - xs), L = 7;
        ctx.beginPath();
        ctx.moveTo(xr, yr);
        ctx.lineTo(xr - L * Math.cos(ang - 0.4), yr - L * Math.sin(ang - 0.4));
        ctx.lineTo(xr - L * Math.cos(ang + 0.4), yr - L * Math.sin(ang + 0.4));
        ctx.closePath(); ctx.fill();
        S.drawnArrows.push([j, xs, ys, xr, yr]);
        st.arrows++;
    }
}

/* A collective instance's members, [rank, entry, duration] in rank order: on each rank of its
 * communicator (meta.comms[i].members when the page has it, else any rank, at most the
 * communicator's size), the call of its name entering between its first and last entries and not
 * yet `claimed` by another instance (two halves of a split running the same collective at once). */
function membersOf(k, claimed) {
    const c = S.cols, out = [], name = c.coll_name[k], a = c.coll_start[k], b = c.coll_last_in[k];
    const cm = (S.meta.comms || [])[c.coll_comm[k]] || {};
    const ranks = Array.isArray(cm.members) ? cm.members.filter((r) => r >= 0 && r < S.meta.ranks).sort((x, y) => x - y) : null;
    const limit = cm.size > 0 ? cm.size + (cm.remote_size || 0) : S.meta.ranks;
    const nr = ranks ? ranks.length : S.meta.ranks;
    for (let q = 0; q < nr && out.length < limit; q++) {
        const r = ranks ? ranks[q] : q, l = S.calls[r];
        for (let i = lowerBound(l, a - 1); i < l.n; i++) {
            const j = ix(l, i);
            if (c.iv_start[j] > b + 1) break;
            if (c.iv_name[j] !== name || (claimed && claimed.has(j))) continue;
            if (claimed) claimed.add(j);
            out.push([r, c.iv_start[j], c.iv_dur[j]]);
            break;
        }
    }
    return out;
}

/* The collective instances reaching into the window with their members, or null when there
 * are too many to draw. */
function collectivesInView(st) {
    const c = S.cols, n = c.coll_start.length, { t0, pxNs } = TL, t1 = t0 + TL.plotW * pxNs;
    const ord = S.collOrd, at = (i) => (ord ? ord[i] : i), list = [];
    const cap = Math.min(COLL_MAX, Math.floor(TL.plotW / 3));  /* a few pixels each, or none */
    let a = 0, b = n;
    while (a < b) { const m = (a + b) >> 1; if (c.coll_start[at(m)] < t0 - S.maxColl) a = m + 1; else b = m; }
    for (let i = a; i < n; i++) {
        const k = at(i);
        if (c.coll_start[k] > t1) break;
        if (c.coll_end[k] >= t0) list.push(k);
        if (list.length > cap) { st.collHidden = list.length; return null; }
    }
    const claimed = new Set();
    return list.map((k) => [k, membersOf(k, claimed)]).filter((e) => e[1].length);
}

/* Under the calls: a shade over each instance's span and members' rows. */
function shadeCollectives(ctx, list) {
    const c = S.cols, { t0, pxNs } = TL;
    ctx.fillStyle = 'rgba(228, 87, 46, 0.12)';
    for (const [k, mem] of list) {
        const x0 = (c.coll_start[k] - t0) / pxNs, x1 = (c.coll_end[k] - t0) / pxNs;
        for (const [r] of mem) ctx.fillRect(x0, callTop(r) - 1, Math.max(1, x1 - x0), callH() + 2);
    }
}

/* Over the calls: each member's wait for the last one to enter (a dark band at the bottom of
 * its call), a bracket over the instance, a dashed line where the last member entered. */
function markCollectives(ctx, list, st) {
    const c = S.cols, { t0, pxNs } = TL;
    for (const [k, mem] of list) {
        const x0 = (c.coll_start[k] - t0) / pxNs, xl = (c.coll_last_in[k] - t0) / pxNs;
        const x1 = (c.coll_end[k] - t0) / pxNs;
        const y0 = callTop(mem[0][0]) - 1, y1 = callTop(mem[mem.length - 1][0]) + callH() + 1;
        ctx.fillStyle = 'rgba(90, 20, 0, 0.6)';
        for (const [r, s] of mem) {
            const xs = (s - t0) / pxNs;
            if (xl - xs >= 1) ctx.fillRect(xs, callTop(r) + callH() - 4, xl - xs, 4);
        }
        if (x1 - x0 >= 3) {
            ctx.strokeStyle = 'rgba(160, 50, 20, 0.9)';
            ctx.beginPath();
            ctx.moveTo(x0 + 0.5, y0 + 3); ctx.lineTo(x0 + 0.5, y0); ctx.lineTo(x1 - 0.5, y0); ctx.lineTo(x1 - 0.5, y0 + 3);
            ctx.moveTo(x0 + 0.5, y1 - 3); ctx.lineTo(x0 + 0.5, y1); ctx.lineTo(x1 - 0.5, y1); ctx.lineTo(x1 - 0.5, y1 - 3);
            ctx.stroke();
            ctx.setLineDash([3, 2]);
            ctx.beginPath(); ctx.moveTo(xl + 0.5, y0); ctx.lineTo(xl + 0.5, y1); ctx.stroke();
            ctx.setLineDash([]);
        }
        st.collectives++;
    }
}

/* ---------- timeline interaction ---------- */

function timeAt(x) { return TL.t0 + (x - LABEL_W) * TL.pxNs; }

function hitInterval(l, t, slackNs) {
    if (!l || !l.n) return -1;
    const c = S.cols;
    const i = lowerBound(l, t + slackNs);
    let best = -1, bestD = Infinity;
    for (let k = Math.max(0, i - 3); k < Math.min(l.n, i + 2); k++) {
        const j = ix(l, k), s = c.iv_start[j], e = s + c.iv_dur[j];
        const d = t < s ? s - t : t > e ? t - e : 0;
        if (d <= slackNs && d < bestD) { best = j; bestD = d; }
    }
    return best;
}

function describeInterval(j, r) {
    const c = S.cols, s = c.iv_start[j], d = c.iv_dur[j], e = s + d, name = c.iv_name[j];
    const lines = [`${nameOf(name)} — rank ${r} (${hostOf(r)})`,
                   c.iv_depth[j] ? `user region, depth ${c.iv_depth[j]}` : CLASS_LABEL[S.nameCls[name]],
                   `duration ${fmtNs(d)}, from ${fmtNs(s)} to ${fmtNs(e)}`];
    if (!c.iv_depth[j]) {
        let sent = 0, got = 0;
        const part = [];
        messagesIn(s - 1, e + 1, (m) => {
            if (part.length >= 4) return;
            if (c.msg_src[m] === r && c.msg_send[m] >= s - 1 && c.msg_send[m] <= e + 1) {
                sent++; part.push(`sends ${fmtBytes(c.msg_bytes[m])} to rank ${c.msg_dst[m]}, tag ${c.msg_tag[m]}`);
            } else if (c.msg_dst[m] === r && c.msg_recv[m] >= s - 1 && c.msg_recv[m] <= e + 1) {
                got++; part.push(`receives ${fmtBytes(c.msg_bytes[m])} from rank ${c.msg_src[m]}, tag ${c.msg_tag[m]}`);
            }
        });
        lines.push(...part);
        const k = collectiveAt(name, s);
        if (k >= 0) {
            const root = c.coll_root[k];
            lines.push(`collective: ${root >= 0 ? `root ${root}, ` : ''}${fmtBytes(c.coll_bytes[k])} sent in all`);
            lines.push(`waited ${fmtNs(Math.max(0, c.coll_last_in[k] - s))} for the last rank to enter`);
        }
    }
    return lines.join('\n');
}

function collectiveAt(name, s) {
    const c = S.cols, n = c.coll_start.length, ord = S.collOrd, at = (i) => (ord ? ord[i] : i);
    let a = 0, b = n;
    while (a < b) { const m = (a + b) >> 1; if (c.coll_start[at(m)] <= s + 1) a = m + 1; else b = m; }
    for (let i = a - 1; i >= 0 && i >= a - 64; i--) {
        const k = at(i);
        if (c.coll_name[k] === name && c.coll_last_in[k] >= s - 1) return k;
    }
    return -1;
}

/* A rank's label: its host, its share of MPI time and how well its clock was aligned. */
function describeRank(r) {
    if (!(r >= 0 && r < S.meta.ranks)) return null;
    const c = S.cols, l = S.calls[r], err = (S.meta.clock_error_ns || [])[r];
    let mpi = 0;
    if (l.n <= 2000000) for (let i = 0; i < l.n; i++) mpi += c.iv_dur[ix(l, i)];
    const lines = [`rank ${r} on ${hostOf(r)}`, `${fmtCount(l.n)} MPI calls, ${fmtNs(mpi)} in MPI`];
    if (err !== undefined && err !== null) lines.push(`clock aligned to rank 0's within ±${fmtNs(err)}`);
    return lines.join('\n');
}

/* Where calls are denser than pixels: what the pixel column under the cursor holds. */
function describePixel(r, px) {
    const c = S.cols, l = S.calls[r], a = TL.t0 + px * TL.pxNs, b = a + TL.pxNs;
    const [i0, i1] = windowOf(l, a, b), share = new Float64Array(NC), count = new Uint32Array(NC);
    const lines = [`rank ${r} (${hostOf(r)}), ${fmtNs(a)} – ${fmtNs(b)}: ${i1 - i0} calls`];
    if (i1 - i0 > 100000) return lines[0];
    for (let i = i0; i < i1; i++) {
        const j = ix(l, i), k = S.nameCls[c.iv_name[j]];
        const s = Math.max(a, c.iv_start[j]), e = Math.min(b, c.iv_start[j] + c.iv_dur[j]);
        if (e > s) share[k] += e - s;
        count[k]++;
    }
    let busy = 0;
    for (let k = 0; k < NC; k++) {
        if (!count[k]) continue;
        busy += share[k];
        lines.push(`${CLASS_LABEL[k]}: ${count[k]} calls, ${(100 * share[k] / (b - a)).toFixed(0)}% of the time`);
    }
    lines.push(`outside MPI: ${(100 * Math.max(0, 1 - busy / (b - a))).toFixed(0)}%`, '(zoom in to see each call)');
    return lines.join('\n');
}

function segDist(px, py, x0, y0, x1, y1) {
    const dx = x1 - x0, dy = y1 - y0, L = dx * dx + dy * dy;
    let u = L ? ((px - x0) * dx + (py - y0) * dy) / L : 0;
    u = Math.max(0, Math.min(1, u));
    return Math.hypot(px - x0 - u * dx, py - y0 - u * dy);
}

function timelineHover(ev) {
    const rect = $('tl-canvas').getBoundingClientRect(), x = ev.clientX - rect.left, y = ev.clientY - rect.top;
    if (x < LABEL_W && y >= AXIS_H) return tip(ev, describeRank(Math.floor((y - AXIS_H) / TL.rowH)));
    if (x < LABEL_W || y < AXIS_H) return tip(ev, null);
    const c = S.cols, px = x - LABEL_W;
    for (const [j, xs, ys, xr, yr] of S.drawnArrows || []) {
        const rv = c.msg_recv[j];
        if (segDist(px, y, xs, ys, xr, yr) < (rv === rv ? 3 : 6)) {
            return tip(ev, `message rank ${c.msg_src[j]} → rank ${c.msg_dst[j]}, tag ${c.msg_tag[j]}, ${fmtBytes(c.msg_bytes[j])}\n` +
                           `sent at ${fmtNs(c.msg_send[j])}, ` + (rv === rv ? `received at ${fmtNs(rv)} (${fmtNs(rv - c.msg_send[j])} later)`
                                                                             : 'never received (no matching receive in the trace)'));
        }
    }
    const r = Math.floor((y - AXIS_H) / TL.rowH);
    if (r < 0 || r >= S.meta.ranks) return tip(ev, null);
    const t = timeAt(x), slack = 2 * TL.pxNs, yIn = y - rowY(r) - 2;
    if (TL.regH && yIn < TL.regH) {
        const d = Math.min(S.regions[r].length - 1, Math.floor(yIn / (TL.regH / S.maxDepth)));
        const j = hitInterval(S.regions[r][d], t, slack);
        return tip(ev, j >= 0 ? describeInterval(j, r) : null);
    }
    if (TL.modes[r] === 'coverage') return tip(ev, describePixel(r, Math.floor(px)));
    const j = hitInterval(S.calls[r], t, slack);
    if (j < 0) return tip(ev, `rank ${r} (${hostOf(r)}): computing at ${fmtNs(t)}`);
    tip(ev, describeInterval(j, r));
}

function setupTimeline() {
    const cv = $('tl-canvas');
    resetWindow();
    const lg = $('tl-legend');
    CLASSES.forEach((k, i) => {
        if (i === REGION && !S.maxDepth) return;
        const s = document.createElement('span');
        s.innerHTML = `<i style="background:${CLASS_COLOR[i]}"></i>${CLASS_LABEL[i]}`;
        lg.appendChild(s);
    });
    const extra = document.createElement('span');
    extra.innerHTML = '<i style="background:rgba(228,87,46,0.25);border:1px solid #a03214"></i>collective instance' +
                      ' <i style="background:rgba(90,20,0,0.6);height:4px"></i>waiting for the last rank' +
                      ' <b style="color:#b0160a">✕</b> a send never received';
    lg.appendChild(extra);
    cv.addEventListener('wheel', (ev) => {
        ev.preventDefault();
        const rect = cv.getBoundingClientRect(), at = (ev.clientX - rect.left - LABEL_W) / TL.plotW;
        zoomAt(Math.exp(-ev.deltaY * 0.002), Math.max(0, Math.min(1, at)));
        drawTimeline();
    }, { passive: false });
    let drag = null;
    cv.addEventListener('mousedown', (ev) => {
        const rect = cv.getBoundingClientRect(), x = ev.clientX - rect.left, y = ev.clientY - rect.top;
        if (x < LABEL_W) return;
        ev.preventDefault();
        if (ev.shiftKey || y < AXIS_H) {
            drag = { sel: true };
            S.sel = { x0: x - LABEL_W, x1: x - LABEL_W };
        } else {
            drag = { x: ev.clientX, t0: S.tl.t0, t1: S.tl.t1 };
            cv.classList.add('fy-drag');
        }
    });
    window.addEventListener('mousemove', (ev) => {
        if (!drag) {
            if (ev.target === cv) timelineHover(ev); else if (S.current === 'timeline') tip(ev, null);
            return;
        }
        if (drag.sel) {
            S.sel.x1 = Math.max(0, Math.min(TL.plotW, ev.clientX - cv.getBoundingClientRect().left - LABEL_W));
        } else {
            const dt = (ev.clientX - drag.x) * TL.pxNs;
            setWindow(drag.t0 - dt, drag.t1 - dt);
        }
        drawTimeline();
    });
    window.addEventListener('mouseup', () => {
        if (!drag) return;
        if (drag.sel) {
            const a = Math.min(S.sel.x0, S.sel.x1), b = Math.max(S.sel.x0, S.sel.x1);
            S.sel = null;
            if (b - a >= 3) setWindow(TL.t0 + a * TL.pxNs, TL.t0 + b * TL.pxNs);
        }
        drag = null;
        cv.classList.remove('fy-drag');
        drawTimeline();
    });
    cv.addEventListener('mouseleave', (ev) => tip(ev, null));
    $('tl-in').onclick = () => { zoomAt(2, 0.5); drawTimeline(); };
    $('tl-out').onclick = () => { zoomAt(0.5, 0.5); drawTimeline(); };
    $('tl-reset').onclick = () => { resetWindow(); drawTimeline(); };
    window.addEventListener('resize', () => { if (S.current === 'timeline') drawTimeline(); });
}

/* ---------- profile tables ---------- */

function sortableTable(cols, rows, sortCol, ascending) {
    /* cols: [{label, get(row) -> value, fmt(value) -> text, cls}]; sorts by a column on click */
    const t = document.createElement('table');
    t.className = 'fy-table';
    const head = t.createTHead().insertRow(), body = t.createTBody();
    let by = sortCol, asc = !!ascending;
    const fill = () => {
        const rs = rows.slice().sort((a, b) => {
            const va = cols[by].get(a), vb = cols[by].get(b);
            const d = typeof va === 'string' ? String(va).localeCompare(vb) : va - vb;
            return asc ? d : -d;
        });
        body.textContent = '';
        for (const r of rs) {
            const tr = body.insertRow();
            for (const c of cols) {
                const td = tr.insertCell();
                const v = c.get(r);
                if (c.html) td.innerHTML = c.html(r); else td.textContent = c.fmt ? c.fmt(v) : v;
            }
        }
        [...head.cells].forEach((th, i) => {
            th.className = i === by ? (asc ? 'fy-sorted fy-asc' : 'fy-sorted') : '';
        });
    };
    cols.forEach((c, i) => {
        const th = document.createElement('th');
        th.textContent = c.label;
        th.onclick = () => { if (by === i) asc = !asc; else { by = i; asc = typeof c.get(rows[0] || {}) === 'string'; } fill(); };
        head.appendChild(th);
    });
    fill();
    return t;
}

const missing = (v) => v === undefined || v === null || v !== v;
const fS = (v) => (missing(v) ? '' : fmtNs(v * 1e9));          /* seconds, in a readable unit */
const fUs = (v) => (missing(v) ? '' : fmtNs(v * 1e3));         /* microseconds, likewise */
const f1 = (v) => (missing(v) ? '' : (+v).toFixed(1));

/* The profile computed from the intervals, when the trace came without profile.json. */
function profileFromTrace() {
    const c = S.cols, R = S.meta.ranks, byName = new Map(), perRank = [];
    for (let r = 0; r < R; r++) {
        const l = S.calls[r];
        let mpi = 0, first = Infinity, last = -Infinity;
        for (let i = 0; i < l.n; i++) {
            const j = ix(l, i), d = c.iv_dur[j], s = c.iv_start[j];
            mpi += d;
            if (s < first) first = s;
            if (s + d > last) last = s + d;
            let e = byName.get(c.iv_name[j]);
            if (!e) byName.set(c.iv_name[j], e = { name: nameOf(c.iv_name[j]), count: 0, total_s: 0, max_us: 0, bytes: 0 });
            e.count++; e.total_s += d / 1e9; e.max_us = Math.max(e.max_us, d / 1e3);
        }
        const span = last > first ? last - first : 0;
        perRank.push({ rank: r, mpi_s: mpi / 1e9, app_s: Math.max(0, span - mpi) / 1e9, mpi_pct: span ? 100 * mpi / span : 0 });
    }
    const totalMpi = perRank.reduce((a, p) => a + p.mpi_s, 0);
    const calls = [...byName.values()].map((e) => ({ ...e, mean_us: e.total_s * 1e6 / e.count,
                                                     pct_mpi: totalMpi ? 100 * e.total_s / totalMpi : 0 }));
    return { per_rank: perRank, calls, sites: [], collectives: collectivesFromTrace(), notes: [] };
}

/* Per collective: the members' time in it and their wait for the last member to enter. */
function collectivesFromTrace() {
    const c = S.cols, n = c.coll_start.length, R = S.meta.ranks, byName = new Map();
    if (n > 200000) return [];      /* a member search per instance: bounded */
    const claimed = new Set(), ord = S.collOrd;
    for (let i = 0; i < n; i++) {
        const k = ord ? ord[i] : i;
        let e = byName.get(c.coll_name[k]);
        if (!e) byName.set(c.coll_name[k], e = { name: nameOf(c.coll_name[k]), count: 0, total_s: 0, wait_s: 0,
                                                 per_rank_wait_s: new Array(R).fill(0) });
        for (const [r, s, d] of membersOf(k, claimed)) {
            const w = Math.max(0, c.coll_last_in[k] - s) / 1e9;
            e.count++; e.total_s += d / 1e9; e.wait_s += w; e.per_rank_wait_s[r] += w;
        }
    }
    return [...byName.values()].map((e) => ({ ...e, wait_pct: e.total_s ? 100 * e.wait_s / e.total_s : 0 }));
}

function drawProfile() {
    const sec = $('view-profile'), m = S.meta;
    sec.textContent = '';
    /* Each table from the profile when it has that part, else computed from the trace (a job
     * whose profile was cut short, or a trace without one), and its heading says so. */
    const prof = m.profile || {};
    let derived = null;
    const from = { };
    const p = {};
    for (const k of ['per_rank', 'calls', 'sites', 'collectives']) {
        if ((prof[k] || []).length) { p[k] = prof[k]; continue; }
        derived = derived || profileFromTrace();
        p[k] = derived[k];
        from[k] = ' (from the trace)';
    }
    const add = (tag, text) => { const e = document.createElement(tag); e.textContent = text; sec.appendChild(e); return e; };
    if (!m.profile)
        add('p', 'This trace came without a profile (profile.json); the tables below are computed from the trace.').className = 'fy-dim';
    else if (prof.wall_s !== undefined)
        add('p', `${m.program || ''}: ${prof.ranks || m.ranks} ranks, ${fS(prof.wall_s)} from MPI_Init to MPI_Finalize.`);
    add('h2', 'Time in MPI and in the application, per rank' + (from.per_rank || ''));
    const pr = p.per_rank || [];
    const maxT = Math.max(1e-12, ...pr.map((x) => (x.app_s || 0) + (x.mpi_s || 0)));
    sec.appendChild(sortableTable([
        { label: 'rank', get: (x) => x.rank },
        { label: 'application', get: (x) => x.app_s, fmt: fS },
        { label: 'MPI', get: (x) => x.mpi_s, fmt: fS },
        { label: 'MPI %', get: (x) => x.mpi_pct, fmt: f1 },
        { label: 'MPI (orange) vs application (grey)', get: (x) => x.mpi_pct, html: (x) =>
            `<span class="fy-bar" style="width:${(220 * x.mpi_s / maxT).toFixed(1)}px;background:${CLASS_COLOR[1]}"></span>` +
            `<span class="fy-bar" style="width:${(220 * x.app_s / maxT).toFixed(1)}px;background:#c9ced3"></span>` },
    ], pr, 0, true)).dataset.table = 'per_rank';
    const calls = p.calls || [];
    add('h2', 'MPI calls' + (from.calls || ''));
    sec.appendChild(sortableTable([
        { label: 'call', get: (x) => x.name },
        { label: 'count', get: (x) => x.count },
        { label: 'total', get: (x) => x.total_s, fmt: fS },
        { label: 'mean', get: (x) => x.mean_us, fmt: fUs },
        { label: 'max', get: (x) => x.max_us, fmt: fUs },
        { label: 'bytes', get: (x) => x.bytes || 0, fmt: (v) => (v ? fmtBytes(v) : '') },
        { label: '% of MPI time', get: (x) => x.pct_mpi, fmt: f1 },
    ], calls, 2)).dataset.table = 'calls';
    if ((p.sites || []).length) {
        add('h2', 'Call sites');
        sec.appendChild(sortableTable([
            { label: 'call', get: (x) => x.name },
            { label: 'site', get: (x) => `${x.file || '?'}:${x.line || '?'}` },
            { label: 'function', get: (x) => x.function || '' },
            { label: 'count', get: (x) => x.count },
            { label: 'total', get: (x) => x.total_s, fmt: fS },
            { label: 'mean', get: (x) => x.mean_us, fmt: fUs },
            { label: 'max', get: (x) => x.max_us, fmt: fUs },
            { label: 'ranks', get: (x) => (x.ranks || []).join(' ') },
        ], p.sites, 4)).dataset.table = 'sites';
    }
    if ((p.collectives || []).length) {
        add('h2', 'Collectives: time waiting for the last rank to enter' + (from.collectives || ''));
        sec.appendChild(sortableTable([
            { label: 'collective', get: (x) => x.name },
            { label: 'count', get: (x) => x.count },
            { label: 'total', get: (x) => x.total_s, fmt: fS },
            { label: 'waiting', get: (x) => x.wait_s, fmt: fS },
            { label: 'waiting %', get: (x) => x.wait_pct, fmt: f1 },
            { label: 'waiting per rank', get: (x) => (x.per_rank_wait_s || []).map((v) => fmtNs(v * 1e9, 2)).join(' · ') },
        ], p.collectives, 3)).dataset.table = 'collectives';
    }
    if ((prof.notes || []).length) {
        add('h2', 'Notes from the profiler');
        const ul = document.createElement('ul');
        for (const n of prof.notes) { const li = document.createElement('li'); li.textContent = n; ul.appendChild(li); }
        sec.appendChild(ul);
    }
    S.stats.profile = { calls: calls.length, ranks: pr.length, derived: Object.keys(from),
                        collectives: p.collectives };
}

/* ---------- communication matrix ---------- */

function matrixData() {
    const p = S.meta.profile, R = S.meta.ranks;
    const c = S.cols, bytes = [], msgs = [];
    const sum = (M) => (M || []).reduce((a, row) => a + (row || []).reduce((x, v) => x + v, 0), 0);
    if (p && p.matrix && p.matrix.bytes && (sum(p.matrix.msgs || p.matrix.bytes) > 0 || !c.msg_src.length))
        return { src: 'from the profile', bytes: p.matrix.bytes, msgs: p.matrix.msgs || null };
    for (let i = 0; i < R; i++) { bytes.push(new Array(R).fill(0)); msgs.push(new Array(R).fill(0)); }
    for (let j = 0; j < c.msg_src.length; j++) {
        const a = c.msg_src[j], b = c.msg_dst[j];
        if (a < R && b < R) { bytes[a][b] += c.msg_bytes[j]; msgs[a][b]++; }
    }
    return { src: 'from the trace\'s messages', bytes, msgs };
}

function heat(f) {   /* white -> blue -> dark blue */
    const a = [255, 255, 255], b = [59, 125, 216], d = [16, 38, 84];
    const [x, y, u] = f < 0.5 ? [a, b, f * 2] : [b, d, f * 2 - 1];
    return `rgb(${x.map((v, i) => Math.round(v + (y[i] - v) * u)).join(',')})`;
}

function drawMatrix() {
    const data = matrixData(), R = S.meta.ranks;
    const what = document.querySelector('input[name="mx-what"]:checked').value;
    const M = (what === 'msgs' ? data.msgs : data.bytes) || data.bytes;
    $('mx-src').textContent = `${what === 'msgs' ? 'messages' : 'bytes'} sent, ${data.src}; rows: sender, columns: receiver`;
    const cell = Math.max(6, Math.min(64, Math.floor(640 / R)));
    const left = 70, top = 50, w = left + R * cell + 120, h = top + Math.max(80, R * cell) + 34;
    const cv = $('mx-canvas'), ctx = sizeCanvas(cv, w, h);
    /* a log scale from the smallest non-zero cell to the largest; empty cells stay white */
    let max = 0, min = Infinity;
    for (const row of M) for (const v of row) { if (v > max) max = v; if (v > 0 && v < min) min = v; }
    const span = max > min ? Math.log(max / min) : 0;
    const scale = (v) => (v <= 0 ? 0 : 0.15 + 0.85 * (span ? Math.log(v / min) / span : 1));
    const fmt = what === 'msgs' ? fmtCount : fmtBytes;
    ctx.font = '11px system-ui, "DejaVu Sans", sans-serif';
    ctx.textBaseline = 'middle';
    ctx.textAlign = 'center';
    for (let a = 0; a < R; a++) {
        for (let b = 0; b < R; b++) {
            const v = (M[a] && M[a][b]) || 0, f = scale(v);
            ctx.fillStyle = heat(f);
            ctx.fillRect(left + b * cell, top + a * cell, cell - 1, cell - 1);
            if (cell >= 40 && v) {
                ctx.fillStyle = f > 0.55 ? '#fff' : '#1d232a';
                ctx.fillText(fmt(v), left + b * cell + cell / 2, top + a * cell + cell / 2);
            }
        }
    }
    ctx.fillStyle = '#1d232a';
    const every = Math.ceil(14 / cell);
    for (let i = 0; i < R; i += every) {
        ctx.fillText(String(i), left + i * cell + cell / 2, top - 10);
        ctx.textAlign = 'right';
        ctx.fillText(String(i), left - 6, top + i * cell + cell / 2);
        ctx.textAlign = 'center';
    }
    ctx.fillText('receiver →', left + R * cell / 2, 14);
    ctx.save(); ctx.translate(16, top + R * cell / 2); ctx.rotate(-Math.PI / 2); ctx.fillText('sender →', 0, 0); ctx.restore();
    /* the colour scale */
    const sx = left + R * cell + 24, sh = Math.max(80, R * cell);
    for (let y = 0; y < sh; y++) { ctx.fillStyle = heat(0.15 + 0.85 * (1 - y / sh)); ctx.fillRect(sx, top + y, 14, 1); }
    ctx.fillStyle = heat(0);
    ctx.strokeStyle = '#d5d9dd';
    ctx.fillRect(sx, top + sh + 8, 14, 10);
    ctx.strokeRect(sx + 0.5, top + sh + 8.5, 13, 9);
    ctx.textAlign = 'left';
    ctx.fillStyle = '#1d232a';
    ctx.fillText(fmt(max), sx + 18, top + 4);
    if (max > 0) ctx.fillText(fmt(min), sx + 18, top + sh - 4);
    ctx.fillText('(log)', sx + 18, top + sh / 2);
    ctx.fillText('none', sx + 18, top + sh + 13);
    cv.onmousemove = (ev) => {
        const r = cv.getBoundingClientRect(), x = ev.clientX - r.left - left, y = ev.clientY - r.top - top;
        const b = Math.floor(x / cell), a = Math.floor(y / cell);
        if (x < 0 || y < 0 || a >= R || b >= R) return tip(ev, null);
        const by = data.bytes[a] ? data.bytes[a][b] : 0, ms = data.msgs && data.msgs[a] ? data.msgs[a][b] : null;
        tip(ev, `rank ${a} → rank ${b}\n${fmtBytes(by)} (${by} bytes)${ms !== null ? `\n${ms} messages` : ''}`);
    };
    cv.onmouseleave = (ev) => tip(ev, null);
    S.stats.matrix = { what, src: data.src, values: M, max, cell, left, top };
}

/* ---------- message sizes ---------- */

function bucketOf(size) {
    if (size <= 0) return [0, 0];
    if (size <= 64) return [1, 64];
    const hi = Math.pow(2, Math.ceil(Math.log2(size)));
    return [hi / 2 + 1, hi];
}

function histogramData() {
    const p = S.meta.profile, bins = new Map();
    const add = (lo, hi, count, bytes) => {
        const k = `${lo}-${hi}`;
        const e = bins.get(k) || { lo, hi, count: 0, bytes: 0 };
        e.count += count; e.bytes += bytes;
        bins.set(k, e);
    };
    let src;
    if (p && (p.bytes || []).length) {
        src = 'from the profile (every call that moves data)';
        for (const f of p.bytes) for (const b of f.buckets || []) add(b.lo, b.hi, b.count || 0, b.bytes || 0);
    } else {
        src = 'from the trace\'s point-to-point messages';
        const c = S.cols;
        for (let j = 0; j < c.msg_bytes.length; j++) { const [lo, hi] = bucketOf(c.msg_bytes[j]); add(lo, hi, 1, c.msg_bytes[j]); }
    }
    /* every power-of-two bucket from the smallest used to the largest, empty ones too, so that
     * gaps between sizes show */
    const used = [...bins.values()].sort((a, b) => a.lo - b.lo || a.hi - b.hi);
    const out = [];
    for (const b of used) {
        const last = out.length ? out[out.length - 1].hi : null;
        if (last !== null && last >= 64 && b.hi > 2 * last && (b.hi & (b.hi - 1)) === 0)
            for (let hi = 2 * last; hi < b.hi; hi *= 2) out.push({ lo: hi / 2 + 1, hi, count: 0, bytes: 0 });
        else if (last === 0 && b.hi > 64)
            for (let hi = 64; hi < b.hi; hi *= 2) out.push({ lo: hi === 64 ? 1 : hi / 2 + 1, hi, count: 0, bytes: 0 });
        out.push(b);
    }
    return { src, bins: out };
}

function drawHistogram() {
    const { src, bins } = histogramData();
    $('hg-src').textContent = `messages by size, power-of-two buckets, ${src}`;
    const n = Math.max(bins.length, 6), bw = Math.max(28, Math.min(70, Math.floor(900 / n)));
    const left = 60, top = 24, ph = 300, w = left + n * bw + 30, h = top + ph + 60;
    const cv = $('hg-canvas'), ctx = sizeCanvas(cv, w, h);
    const max = Math.max(1, ...bins.map((b) => b.count));
    ctx.font = '11px system-ui, "DejaVu Sans", sans-serif';
    ctx.textBaseline = 'middle';
    ctx.strokeStyle = '#d5d9dd';
    ctx.fillStyle = '#1d232a';
    ctx.textAlign = 'right';
    const step = niceStep(max / 5);
    for (let v = 0; v <= max; v += step) {
        const y = top + ph - ph * v / max;
        ctx.beginPath(); ctx.moveTo(left, Math.round(y) + 0.5); ctx.lineTo(w - 20, Math.round(y) + 0.5); ctx.stroke();
        ctx.fillText(fmtCount(v), left - 6, y);
    }
    ctx.textAlign = 'center';
    const label = (b) => (b.hi === 0 ? '0 B' : `≤ ${fmtBytes(b.hi)}`);
    bins.forEach((b, i) => {
        const x = left + i * bw, hh = ph * b.count / max;
        ctx.fillStyle = CLASS_COLOR[0];
        ctx.fillRect(x + 3, top + ph - hh, bw - 6, hh);
        ctx.fillStyle = '#1d232a';
        if (b.count) ctx.fillText(fmtCount(b.count), x + bw / 2, top + ph - hh - 8);
        ctx.save();
        ctx.translate(x + bw / 2, top + ph + 8);
        ctx.rotate(-Math.PI / 5);
        ctx.textAlign = 'right';
        ctx.fillText(label(b), 0, 0);
        ctx.restore();
    });
    if (!bins.length) { ctx.fillText('no messages in this trace', left + 200, top + ph / 2); }
    cv.onmousemove = (ev) => {
        const r = cv.getBoundingClientRect(), i = Math.floor((ev.clientX - r.left - left) / bw);
        if (i < 0 || i >= bins.length) return tip(ev, null);
        const b = bins[i];
        tip(ev, `${b.lo}–${b.hi} bytes: ${b.count} messages, ${fmtBytes(b.bytes)} in all`);
    };
    cv.onmouseleave = (ev) => tip(ev, null);
    S.stats.histogram = { src, bins };
}

/* ---------- views chosen by the URL fragment ---------- */

const VIEWS = { timeline: drawTimelineNow, profile: drawProfile, matrix: drawMatrix, histogram: drawHistogram };

function route() {
    if (S.error) return;
    let v = location.hash.replace('#', '');
    if (!VIEWS[v]) v = 'timeline';
    clearReady();
    S.current = v;
    for (const k of Object.keys(VIEWS)) $(`view-${k}`).hidden = k !== v;
    for (const a of document.querySelectorAll('#fy-tabs a')) a.classList.toggle('fy-on', a.dataset.view === v);
    $('fy-tip').hidden = true;
    VIEWS[v]();
    setReady('1');
}

function showNotes() {
    const notes = [...(S.meta.notes || [])];
    const box = $('fy-notes');
    if (!notes.length) return;
    box.innerHTML = '<h2>Notes</h2><ul>' + notes.map((n) => `<li>${escapeHtml(n)}</li>`).join('') + '</ul>';
}

async function main() {
    try {
        await load();
    } catch (e) {
        fail(e.message || String(e));
        return;
    }
    const m = S.meta, c = S.cols;
    $('fy-loading').hidden = true;
    $('fy-title').textContent = `Ferry view: ${m.program || 'trace'}`;
    $('fy-sub').textContent = `${m.ranks} ranks · ${fmtNs(S.dur)} · ${fmtCount(c.iv_start.length)} intervals · ` +
                              `${fmtCount(c.msg_send.length)} messages · ${fmtCount(c.coll_start.length)} collectives`;
    S.stats.load = { intervals: c.iv_start.length, messages: c.msg_send.length, collectives: c.coll_start.length,
                     sorted: { messages: !S.msgOrd, collectives: !S.collOrd } };
    showNotes();
    setupTimeline();
    for (const r of document.querySelectorAll('input[name="mx-what"]')) r.onchange = () => { drawMatrix(); };
    window.addEventListener('hashchange', route);
    route();
    S.shown = true;
    /* milliseconds since navigation at the end of each phase of opening, for the bench */
    S.stats.load.ms = Object.fromEntries(Object.entries({ ...S.phases, drawn: performance.now() })
                                         .map(([k, v]) => [k, Math.round(v)]));
}

if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', main);
else main();
})();
