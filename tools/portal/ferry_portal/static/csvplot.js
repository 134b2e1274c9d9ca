// csvplot.js: a small line plot of a CSV file on a canvas, for the files a job writes.
// The first column is x, every other numeric column a line; a first row that is not numbers
// names the columns (the legend). Lines that do not parse are skipped, so a trailing comment
// or a blank line does not stop the plot. window.CsvPlot.draw(canvas, text) -> {rows, series}
// or throws an Error saying why there is nothing to plot.
(function () {
  "use strict";
  const COLORS = ["#1f5fbf", "#d1495b", "#2a9d3f", "#e08a00", "#7b4bb7", "#00838f", "#6d4c41", "#c2185b"];

  function splitRow(line) {
    if (line.indexOf(",") >= 0) return line.split(",");
    if (line.indexOf(";") >= 0) return line.split(";");
    if (line.indexOf("\t") >= 0) return line.split("\t");
    return line.trim().split(/\s+/);
  }

  function parse(text) {
    const lines = text.split(/\r?\n/).filter((l) => l.trim() !== "" && !/^\s*#/.test(l));
    if (!lines.length) throw new Error("the file is empty");
    let names = null;
    const first = splitRow(lines[0]).map((c) => c.trim().replace(/^"|"$/g, ""));
    if (first.some((c) => c === "" || isNaN(Number(c)))) {
      names = first;
      lines.shift();
    }
    const rows = [];
    for (const l of lines) {
      const cells = splitRow(l).map((c) => Number(c.trim()));
      if (cells.length >= 2 && cells.every((v) => Number.isFinite(v))) rows.push(cells);
    }
    if (!rows.length) throw new Error("no rows of numbers");
    const ncol = Math.min(...rows.map((r) => r.length));
    if (ncol < 2) throw new Error("fewer than two numeric columns");
    if (!names) names = Array.from({ length: ncol }, (_, i) => (i ? "column " + (i + 1) : "x"));
    return { names: names.slice(0, ncol), rows };
  }

  // Tick values at 1, 2 or 5 times a power of ten, about `want` of them across [lo, hi].
  function ticks(lo, hi, want) {
    const span = hi - lo || Math.abs(hi) || 1;
    const raw = span / want;
    const p = Math.pow(10, Math.floor(Math.log10(raw)));
    const step = [1, 2, 5, 10].map((m) => m * p).find((s) => s >= raw) || 10 * p;
    const out = [];
    for (let v = Math.floor(lo / step) * step; v <= hi + step * 1e-9; v += step) out.push(Math.abs(v) < step * 1e-9 ? 0 : v);
    return out;
  }

  function label(v) {
    const a = Math.abs(v);
    if (a !== 0 && (a >= 1e5 || a < 1e-3)) return v.toExponential(1);
    return String(Number(v.toPrecision(6)));
  }

  function draw(canvas, text) {
    const { names, rows } = parse(text);
    const ncol = names.length;
    const dpr = window.devicePixelRatio || 1;
    const w = canvas.clientWidth || 480, h = canvas.clientHeight || 240;
    canvas.width = Math.round(w * dpr);
    canvas.height = Math.round(h * dpr);
    const g = canvas.getContext("2d");
    g.setTransform(dpr, 0, 0, dpr, 0, 0);
    g.clearRect(0, 0, w, h);
    g.font = "11px system-ui, sans-serif";

    let x0 = Infinity, x1 = -Infinity, y0 = Infinity, y1 = -Infinity;
    for (const r of rows) {
      x0 = Math.min(x0, r[0]); x1 = Math.max(x1, r[0]);
      for (let c = 1; c < ncol; c++) { y0 = Math.min(y0, r[c]); y1 = Math.max(y1, r[c]); }
    }
    if (x0 === x1) { x0 -= 1; x1 += 1; }
    if (y0 === y1) { y0 -= 1; y1 += 1; }
    const yt = ticks(y0, y1, 5), xt = ticks(x0, x1, 6);
    y0 = Math.min(y0, yt[0]); y1 = Math.max(y1, yt[yt.length - 1]);

    const left = 12 + Math.max(...yt.map((v) => g.measureText(label(v)).width));
    const legendH = 18, top = 8 + legendH, right = w - 10, bottom = h - 34;
    const X = (v) => left + ((v - x0) / (x1 - x0)) * (right - left);
    const Y = (v) => bottom - ((v - y0) / (y1 - y0)) * (bottom - top);

    // grid and axes
    g.strokeStyle = "#e3e7ed"; g.fillStyle = "#4a5464"; g.lineWidth = 1;
    g.textAlign = "right"; g.textBaseline = "middle";
    for (const v of yt) {
      const y = Math.round(Y(v)) + 0.5;
      g.beginPath(); g.moveTo(left, y); g.lineTo(right, y); g.stroke();
      g.fillText(label(v), left - 4, y);
    }
    g.textAlign = "center"; g.textBaseline = "top";
    for (const v of xt) {
      if (v < x0 || v > x1) continue;
      const x = Math.round(X(v)) + 0.5;
      g.beginPath(); g.moveTo(x, top); g.lineTo(x, bottom); g.stroke();
      g.fillText(label(v), x, bottom + 5);
    }
    g.strokeStyle = "#5b6575";
    g.beginPath(); g.moveTo(left, top); g.lineTo(left, bottom); g.lineTo(right, bottom); g.stroke();

    // lines, then the legend over the top margin
    const sorted = rows.slice().sort((a, b) => a[0] - b[0]);
    g.lineWidth = 1.6;
    for (let c = 1; c < ncol; c++) {
      g.strokeStyle = COLORS[(c - 1) % COLORS.length];
      g.beginPath();
      sorted.forEach((r, i) => (i ? g.lineTo(X(r[0]), Y(r[c])) : g.moveTo(X(r[0]), Y(r[c]))));
      g.stroke();
    }
    g.textAlign = "left"; g.textBaseline = "middle";
    let lx = left;
    for (let c = 1; c < ncol; c++) {
      g.fillStyle = COLORS[(c - 1) % COLORS.length];
      g.fillRect(lx, 8 + legendH / 2 - 2, 14, 4);
      g.fillStyle = "#1c2330";
      const name = names[c];
      g.fillText(name, lx + 18, 8 + legendH / 2);
      lx += 30 + g.measureText(name).width;
    }
    g.fillStyle = "#4a5464"; g.textAlign = "center"; g.textBaseline = "bottom";
    g.fillText(names[0], (left + right) / 2, h - 1);
    return { rows: rows.length, series: ncol - 1 };
  }

  window.CsvPlot = { draw, parse };
})();
