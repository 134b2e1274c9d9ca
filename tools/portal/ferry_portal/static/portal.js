// portal.js: the Ferry portal's one page (hash routes #/new, #/jobs, #/job/ID, #/examples,
// #/admin). Plain DOM, no framework and nothing fetched from outside the portal; every text that
// came from a user or a program goes in through textContent, never as HTML.
(function () {
  "use strict";

  const MAX_LINES = 20000;
  const PAGE = 50;          // jobs per page of the history
  const FINAL = ["done", "failed", "compile_error", "timeout", "killed", "cancelled", "error"];
  const STATE_TEXT = {
    queued: "queued", compiling: "compiling", running: "running", done: "done", failed: "failed",
    compile_error: "compile error", timeout: "timed out", killed: "killed at a limit",
    cancelled: "cancelled", error: "portal error",
  };
  const app = document.getElementById("app");
  let me = null;          // /api/me's answer while signed in
  let leavePage = null;   // the current page's clean-up (closes its event stream)
  // Sources and settings of the jobs submitted from this tab, so the job page can show the
  // program in the editor with its diagnostics, and "Edit and run again" can refill the form.
  const submitted = loadSubmitted();
  let draft = null;       // what the New job form opens with next (an example, a rerun)

  // ---- small DOM helper: h("div.cls#id", {attr: v, onclick: f}, child, "text", ...)
  function h(spec, attrs, ...kids) {
    const m = spec.match(/^[a-z0-9]+/i);
    const el = document.createElement(m ? m[0] : "div");
    for (const part of spec.slice(m ? m[0].length : 0).match(/[.#][^.#]+/g) || []) {
      if (part[0] === ".") el.classList.add(part.slice(1)); else el.id = part.slice(1);
    }
    if (attrs && (typeof attrs !== "object" || attrs instanceof Node || Array.isArray(attrs))) {
      kids.unshift(attrs);
      attrs = null;
    }
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined || v === false) continue;
      if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
      else if (k === "text") el.textContent = v;
      else if (k in el && typeof v !== "string") el[k] = v;
      else el.setAttribute(k, v === true ? "" : String(v));
    }
    for (const kid of kids.flat()) {
      if (kid === null || kid === undefined || kid === false) continue;
      el.append(kid instanceof Node ? kid : document.createTextNode(String(kid)));
    }
    return el;
  }

  // ---- the API: JSON in and out, CSRF header on every state change, errors as ApiError
  class ApiError extends Error {
    constructor(status, message, field) {
      super(message);
      this.status = status;
      this.field = field || null;
    }
  }

  async function api(method, path, body) {
    const opts = { method, headers: {}, credentials: "same-origin" };
    if (method !== "GET") opts.headers["X-CSRF-Token"] = (me && me.csrf) || "";
    if (body instanceof FormData) opts.body = body;
    else if (body !== undefined) {
      opts.headers["Content-Type"] = "application/json";
      opts.body = JSON.stringify(body);
    }
    let res;
    try {
      res = await fetch(path, opts);
    } catch (e) {
      throw new ApiError(0, "The portal cannot be reached (" + e.message + ").");
    }
    const type = res.headers.get("Content-Type") || "";
    const data = type.includes("json") ? await res.json().catch(() => null) : null;
    if (!res.ok) {
      if (res.status === 401 && me && path !== "/api/login") signedOut();
      const msg = data && typeof data.error === "string" ? data.error
        : res.status === 413 ? "The upload is too large."
        : "The portal answered " + res.status + " " + res.statusText + ".";
      throw new ApiError(res.status, msg, data && data.field);
    }
    return data;
  }

  // Shows an ApiError next to the form field it names, or in the form's own error line.
  function showError(form, err) {
    clearErrors(form);
    const field = err.field && form.querySelector('[name="' + CSS.escape(err.field) + '"]');
    const where = field ? field.closest(".field") || field.parentNode : null;
    if (where) where.append(h("div.field-error", { role: "alert", text: err.message }));
    else form.querySelector(".form-error").textContent = err.message || String(err);
  }

  function clearErrors(form) {
    form.querySelectorAll(".field-error").forEach((e) => e.remove());
    const fe = form.querySelector(".form-error");
    if (fe) fe.textContent = "";
  }

  function badge(state) {
    return h("span.badge." + (state || "queued"), { text: STATE_TEXT[state] || state, "data-state": state });
  }

  function when(t) {
    if (!t) return "";
    const d = new Date(t * 1000);
    const today = new Date().toDateString() === d.toDateString();
    return today ? d.toLocaleTimeString() : d.toLocaleString();
  }

  function duration(job) {
    if (!job.started) return "";
    const s = (job.finished || Date.now() / 1000) - job.started;
    return s < 60 ? s.toFixed(1) + " s" : Math.floor(s / 60) + " min " + Math.round(s % 60) + " s";
  }

  function loadSubmitted() {
    try { return JSON.parse(sessionStorage.getItem("ferry.submitted") || "{}"); } catch (e) { return {}; }
  }

  function remember(id, entry) {
    submitted[id] = entry;
    const ids = Object.keys(submitted);
    for (const old of ids.slice(0, Math.max(0, ids.length - 30))) delete submitted[old];
    try { sessionStorage.setItem("ferry.submitted", JSON.stringify(submitted)); } catch (e) { /* full: memory only */ }
  }

  // ---- the editor, or a text area when the bundle is missing
  function makeEditor(parent, text) {
    if (window.FerryEditor) return window.FerryEditor.create(parent, text);
    const ta = h("textarea", { spellcheck: "false", "aria-label": "source", name: "source-text" });
    ta.value = text || "";
    parent.append(ta);
    return {
      plain: true,
      getText: () => ta.value,
      setText: (t) => { ta.value = t || ""; },
      setDiagnostics: () => {},
      focus: () => ta.focus(),
    };
  }

  function editorNote() {
    return window.FerryEditor ? null : h("div.note#editor-missing",
      "The editor component is not installed (scripts/install-portal.sh builds it when npm is reachable): " +
      "this is a plain text area, without highlighting or error markers.");
  }

  // ---- sign in and out
  function signedOut() {
    me = null;
    document.getElementById("nav").hidden = true;
    document.getElementById("who").hidden = true;
    if (location.hash !== "#/login") location.hash = "#/login"; else route();
  }

  function signedIn(data) {
    me = data;
    document.getElementById("nav").hidden = false;
    document.getElementById("who").hidden = false;
    document.getElementById("who-name").textContent = me.user.name + (me.user.role === "admin" ? " (admin)" : "");
    document.getElementById("nav-admin").hidden = me.user.role !== "admin";
  }

  function pageLogin() {
    const form = h("form.panel.signin#login-form", { autocomplete: "on" },
      h("h1", "Sign in"),
      h("div.field", h("label", { for: "login-name" }, "Name"),
        h("input#login-name", { type: "text", name: "name", autocomplete: "username", required: true })),
      h("div.field", h("label", { for: "login-password" }, "Password"),
        h("input#login-password", { type: "password", name: "password", autocomplete: "current-password", required: true })),
      h("div.form-error", { role: "alert" }),
      h("button.primary#login-submit", { type: "submit" }, "Sign in"));
    form.addEventListener("submit", async (ev) => {
      ev.preventDefault();
      clearErrors(form);
      const btn = form.querySelector("button");
      btn.disabled = true;
      try {
        await api("POST", "/api/login", { name: form.elements.name.value, password: form.elements.password.value });
        signedIn(await api("GET", "/api/me"));
        go(!location.hash || location.hash === "#/login" ? "#/new" : location.hash);
      } catch (e) {
        showError(form, e);
      } finally {
        btn.disabled = false;
      }
    });
    app.replaceChildren(form);
    form.elements.name.focus();
  }

  // ---- New job
  function pageNew() {
    const d = draft || {};
    draft = null;
    const lim = me.limits || {};
    let mode = d.upload ? "upload" : "write";

    const edBox = h("div.editor-box#editor");
    const fileIn = h("input#upload", { type: "file", name: "upload", accept: ".c,.tar,.tar.gz,.tgz,.zip" });
    const writePane = h("div#write-pane", editorNote(), edBox);
    const uploadPane = h("div#upload-pane.panel",
      d.upload && d.ranks ? h("div.note", "Choose the file again: a browser does not keep a file between forms.") : null,
      h("div.field", h("label", { for: "upload" }, "A C file, or an archive (.tar, .tar.gz, .tgz, .zip) with the sources and input files"), fileIn),
      h("div.field", h("label", { for: "main" }, "Main source file in the archive (optional: the one .c file, or main.c)"),
        h("input#main", { type: "text", name: "main", placeholder: "main.c", value: d.main || "" })));
    const tabW = h("button#tab-write", { type: "button" }, "Write");
    const tabU = h("button#tab-upload", { type: "button" }, "Upload");
    function setMode(m) {
      mode = m;
      tabW.classList.toggle("current", m === "write");
      tabU.classList.toggle("current", m === "upload");
      writePane.hidden = m !== "write";
      uploadPane.hidden = m !== "upload";
    }
    tabW.onclick = () => setMode("write");
    tabU.onclick = () => setMode("upload");

    const backends = me.backends && me.backends.length ? me.backends : ["local"];
    const hostBoxes = (me.hosts || []).map((name) =>
      h("label", h("input", { type: "checkbox", name: "host", value: name, checked: (d.hosts || []).includes(name) }), name));
    const form = h("form#job-form", { novalidate: true },
      h("h1", "New job"),
      h("div.newjob",
        h("div", h("div.tabs", tabW, tabU), writePane, uploadPane, h("div.field", h("span", { name: "source" }))),
        h("div.panel.settings",
          h("div.field", h("label", { for: "ranks" }, "Ranks"),
            h("input#ranks", { type: "number", name: "ranks", min: 1, max: lim.max_ranks || 64, value: d.ranks || 4 }),
            lim.max_ranks ? h("span.muted", " at most " + lim.max_ranks) : null),
          h("div.field", h("label", { for: "backend" }, "Run on"),
            h("select#backend", { name: "backend" },
              backends.map((b) => h("option", { value: b, selected: b === d.backend },
                { local: "this machine", hosts: "the configured hosts", slurm: "Slurm" }[b] || b)))),
          hostBoxes.length ? h("div.field.checks#hosts", h("label", "Hosts"), hostBoxes, h("span", { name: "hosts" })) : null,
          h("div.field", h("label", { for: "args" }, "Arguments"),
            h("input#args", { type: "text", name: "args", value: d.args || "", placeholder: "e.g. 1000 input.txt" })),
          h("div.field", h("label", { for: "time_limit" }, "Time limit (seconds)"),
            h("input#time_limit", { type: "number", name: "time_limit", min: 1, max: lim.max_time || 3600,
              value: d.time_limit || lim.default_time || 60 }),
            lim.max_time ? h("span.muted", " at most " + lim.max_time) : null),
          h("div.field.checks",
            h("label", h("input#trace", { type: "checkbox", name: "trace", checked: !!d.trace }), "Record a trace"),
            h("label", h("input#profile", { type: "checkbox", name: "profile", checked: !!d.profile }), "Profile")),
          h("div.form-error", { role: "alert" }),
          h("button.primary#run", { type: "submit" }, "Run"))));
    app.replaceChildren(form);
    const ed = makeEditor(edBox, d.source !== undefined ? d.source : (d.upload ? "" : STARTER));
    setMode(mode);

    form.addEventListener("submit", async (ev) => {
      ev.preventDefault();
      clearErrors(form);
      const fd = new FormData();
      const settings = {
        ranks: form.elements.ranks.value, backend: form.elements.backend.value, args: form.elements.args.value,
        time_limit: form.elements.time_limit.value, trace: form.elements.trace.checked, profile: form.elements.profile.checked,
        hosts: Array.from(form.querySelectorAll('input[name="host"]:checked')).map((c) => c.value),
        main: form.elements.main.value.trim(),
      };
      let source = null;
      if (mode === "write") {
        source = ed.getText();
        if (!source.trim()) return showError(form, new ApiError(400, "Write a program first.", "source"));
        fd.append("source", source);
      } else {
        if (!fileIn.files.length) return showError(form, new ApiError(400, "Choose a file to upload.", "upload"));
        fd.append("upload", fileIn.files[0]);
        if (settings.main) fd.append("main", settings.main);
      }
      fd.append("ranks", settings.ranks);
      fd.append("backend", settings.backend);
      if (settings.hosts.length) fd.append("hosts", settings.hosts.join(","));
      fd.append("args", settings.args);
      fd.append("time_limit", settings.time_limit);
      if (settings.trace) fd.append("trace", "1");
      if (settings.profile) fd.append("profile", "1");
      const btn = form.querySelector("#run");
      btn.disabled = true;
      try {
        const r = await api("POST", "/api/jobs", fd);
        remember(r.id, { source, settings });
        location.hash = "#/job/" + r.id;
      } catch (e) {
        showError(form, e);
      } finally {
        btn.disabled = false;
      }
    });
  }

  const STARTER = [
    "#include <mpi.h>",
    "#include <stdio.h>",
    "",
    "int main(int argc, char **argv)",
    "{",
    "    int rank, size;",
    "    MPI_Init(&argc, &argv);",
    "    MPI_Comm_rank(MPI_COMM_WORLD, &rank);",
    "    MPI_Comm_size(MPI_COMM_WORLD, &size);",
    '    printf("hello from rank %d of %d\\n", rank, size);',
    "    MPI_Finalize();",
    "    return 0;",
    "}",
    "",
  ].join("\n");

  // ---- the job page
  function pageJob(id) {
    const mine = submitted[id] || null;
    const head = h("div.jobhead",
      h("h1", "Job ", h("span.mono", id.slice(0, 8))),
      h("span#job-state", badge("queued")),
      h("span.jobmsg#job-message"),
      h("span.muted#job-meta"),
      h("div.actions",
        h("button.danger#cancel", { type: "button", hidden: true }, "Cancel"),
        h("button#rerun", { type: "button" }, "Edit and run again")));
    const output = h("div.output#output", { role: "log", "aria-live": "off" });
    const rankSel = h("select#filter", { "aria-label": "show" },
      h("option", { value: "all" }, "all output"),
      h("option", { value: "stdout" }, "stdout only"),
      h("option", { value: "stderr" }, "stderr only"));
    const search = h("input#search", { type: "search", placeholder: "search the output" });
    const follow = h("input#follow", { type: "checkbox", checked: true });
    const outPanel = h("section",
      h("h2", "Output"),
      h("div.outbar", rankSel, search, h("label", follow, "follow"), h("span.muted#line-count")),
      output);
    const compilePanel = h("section#compile", { hidden: true },
      h("h2", "Compiler"), h("ul.diags#diags"), h("pre.compile-out#compile-out"));
    const srcBox = h("div.editor-box.short#job-editor");
    const srcPanel = h("section#source", { hidden: !(mine && mine.source) }, h("h2", "Source"), srcBox);
    const filesPanel = h("section#files-panel", { hidden: true }, h("h2", "Files"), h("div.links#views"), h("div.files#files"));
    const grid = h("div", { class: mine && mine.source ? "jobgrid" : "jobgrid nosource" },
      h("div", outPanel), h("div", srcPanel, compilePanel));
    app.replaceChildren(head, h("div.form-error#job-error", { role: "alert" }), grid, filesPanel);

    let ed = mine && mine.source ? makeEditor(srcBox, mine.source) : null;
    // left: the page is gone (another page, or no such job); ended: the job's stream is over.
    let job = null, lastSeq = 0, es = null, left = false, ended = false, retry = 500, poll = null;
    let nLines = 0, scrollQueued = false;
    const ranksSeen = new Set();

    function setState(state, message) {
      document.getElementById("job-state").replaceChildren(badge(state));
      let msg = message && message !== state && message !== STATE_TEXT[state] ? message : "";
      if (state === "queued" && job && job.position) msg = (msg ? msg + " · " : "") + "position " + job.position + " in the queue";
      document.getElementById("job-message").textContent = msg;
      document.getElementById("cancel").hidden = FINAL.includes(state);
    }

    function visible(row) {
      const f = rankSel.value, q = search.value.toLowerCase();
      if (f === "stdout" || f === "stderr") { if (row.dataset.stream !== f) return false; }
      else if (f !== "all" && row.dataset.rank !== f) return false;
      return !q || row.lastChild.textContent.toLowerCase().includes(q);
    }

    function refilter() {
      for (const row of output.children) row.hidden = !visible(row);
      if (follow.checked) output.scrollTop = output.scrollHeight;
    }
    rankSel.onchange = refilter;
    search.oninput = refilter;
    follow.onchange = () => { if (follow.checked) output.scrollTop = output.scrollHeight; };
    // Scrolling up to read stops following; scrolling back to the bottom follows again.
    output.addEventListener("scroll", () => {
      follow.checked = output.scrollTop + output.clientHeight >= output.scrollHeight - 4;
    });

    function addRank(rank) {
      if (ranksSeen.has(rank)) return;
      ranksSeen.add(rank);
      const opt = h("option", { value: String(rank) }, rank < 0 ? "mpiexec" : "rank " + rank);
      // keep the rank options in order, after the fixed ones
      const after = Array.from(rankSel.options).slice(3).find((o) => Number(o.value) > rank);
      rankSel.insertBefore(opt, after || null);
    }

    function addLine(rank, stream, text) {
      addRank(rank);
      nLines++;
      // The page keeps MAX_LINES lines (the portal keeps up to its output limit): a huge output
      // would otherwise make the page itself slow.
      if (nLines > MAX_LINES) {
        document.getElementById("line-count").textContent = nLines + " lines, the first " + MAX_LINES + " shown";
        return;
      }
      const row = h("div.out-line." + (rank < 0 ? "sys" : stream),
        { "data-rank": String(rank), "data-stream": stream },
        h("span.r", rank < 0 ? "·" : String(rank)), h("span.t", text));
      row.hidden = !visible(row);
      output.append(row);
      document.getElementById("line-count").textContent = nLines + (nLines === 1 ? " line" : " lines");
      // One scroll per frame however many lines came in it (each scroll forces a layout).
      if (follow.checked && !scrollQueued) {
        scrollQueued = true;
        requestAnimationFrame(() => {
          scrollQueued = false;
          if (follow.checked) output.scrollTop = output.scrollHeight;
        });
      }
    }

    function showDiagnostics(list) {
      if (!list || !list.length) return;
      compilePanel.hidden = false;
      const ul = document.getElementById("diags");
      ul.replaceChildren(...list.map((d) => h("li.sev-" + (d.severity || "error"),
        { "data-line": d.line },
        (d.file ? d.file + ":" : "") + d.line + ":" + (d.col || 1) + ": " + (d.severity || "error") + ": " + d.message)));
      if (ed) {
        const main = (job && job.main) || "main.c";
        const base = (p) => String(p || "").split("/").pop();
        ed.setDiagnostics(list.filter((d) => !d.file || base(d.file) === base(main)));
      }
    }

    function showFiles(files) {
      const box = document.getElementById("files");
      box.replaceChildren();
      for (const f of files || []) {
        const url = "/api/jobs/" + encodeURIComponent(id) + "/files/" + f.path.split("/").map(encodeURIComponent).join("/");
        const card = h("div.file", { "data-path": f.path, "data-kind": f.kind },
          h("div.name", h("a", { href: url, download: f.path.split("/").pop() }, f.path), h("span.muted", size(f.size))));
        if (f.kind === "png" || f.kind === "svg") {
          // An SVG as an <img> never runs its scripts; the server also sends it with CSP sandbox.
          card.append(h("img", { src: url + "?inline=1", alt: f.path }));
        } else if (f.kind === "csv") {
          const canvas = h("canvas", { "aria-label": "plot of " + f.path });
          card.append(canvas);
          fetch(url + "?inline=1", { credentials: "same-origin" })
            .then((r) => (r.ok ? r.text() : Promise.reject(new Error("HTTP " + r.status))))
            .then((t) => window.CsvPlot.draw(canvas, t))
            .catch((e) => canvas.replaceWith(h("div.muted", "not plotted: " + e.message)));
        } else if (f.kind === "text" && f.size <= 65536) {
          // A short look at a text file: its first lines, as text.
          const pre = h("pre.preview");
          card.append(pre);
          fetch(url + "?inline=1", { credentials: "same-origin" })
            .then((r) => (r.ok ? r.text() : Promise.reject(new Error("HTTP " + r.status))))
            .then((t) => {
              const lines = t.split("\n");
              pre.textContent = lines.slice(0, 20).join("\n") + (lines.length > 21 ? "\n…" : "");
            })
            .catch(() => pre.remove());
        }
        box.append(card);
      }
      const views = document.getElementById("views");
      views.replaceChildren();
      if (job && job.has_profile) views.append(h("a#profile-link", { href: "/api/jobs/" + id + "/profile", target: "_blank", rel: "noopener" }, "Profile"));
      if (job && job.has_trace) views.append(h("a#trace-link", { href: "/api/jobs/" + id + "/view", target: "_blank", rel: "noopener" }, "Trace view"));
      filesPanel.hidden = !box.children.length && !views.children.length;
    }

    async function refresh() {
      try {
        job = await api("GET", "/api/jobs/" + encodeURIComponent(id));
      } catch (e) {
        if (e.status === 404) {
          left = true;
          if (es) es.close();
          app.replaceChildren(h("div.panel#not-found", h("h1", "Job not found"),
            h("p", "There is no job " + id + " among yours."), h("a", { href: "#/jobs" }, "Your jobs")));
        } else {
          document.getElementById("job-error").textContent = e.message;
        }
        return;
      }
      if (left) return;
      setState(job.state, job.message);
      document.getElementById("job-meta").textContent = [
        job.ranks + (job.ranks === 1 ? " rank" : " ranks"), job.backend,
        (job.hosts || []).join(", "), job.started ? duration(job) : "",
      ].filter(Boolean).join(" · ");
      showDiagnostics(job.diagnostics);
      if (FINAL.includes(job.state)) showFiles(job.files);
      if (job.state === "queued" && !poll) poll = setInterval(refresh, 2000);
      if (job.state !== "queued" && poll) { clearInterval(poll); poll = null; }
    }

    function onEvent(ev) {
      let e;
      try { e = JSON.parse(ev.data); } catch (x) { return; }
      if (e.seq && e.seq <= lastSeq) return;   // a replay after a reconnect
      if (e.seq) lastSeq = e.seq;
      retry = 500;
      switch (e.type || ev.type) {
      case "state":
        if (job) job.state = e.state;
        setState(e.state, e.message);
        if (e.state === "queued" && !poll) poll = setInterval(refresh, 2000);
        else if (e.state !== "queued" && poll) { clearInterval(poll); poll = null; }
        break;
      case "out": addLine(e.rank, e.stream, e.text); break;
      case "compile":
        compilePanel.hidden = false;
        document.getElementById("compile-out").append(e.text + "\n");
        break;
      case "diag": showDiagnostics(e.diagnostics); break;
      case "files": if (job) job.files = e.files; showFiles(e.files); break;
      case "end":
        ended = true;
        if (es) es.close();
        setState(e.state, e.message);
        refresh();
        break;
      }
    }

    function connect() {
      if (left || ended) return;
      es = new EventSource("/api/jobs/" + encodeURIComponent(id) + "/events?after=" + lastSeq);
      for (const t of ["state", "out", "compile", "diag", "files", "end", "message"]) es.addEventListener(t, onEvent);
      // EventSource would reconnect by itself with the URL it started with; reconnect here
      // instead, asking only for what came after the last event seen.
      es.onerror = () => {
        es.close();
        if (left || ended) return;
        refresh();   // a job gone or a session ended shows as such instead of retrying forever
        setTimeout(connect, retry);
        retry = Math.min(retry * 2, 8000);
      };
    }

    document.getElementById("cancel").onclick = async (ev) => {
      ev.target.disabled = true;
      try { await api("POST", "/api/jobs/" + encodeURIComponent(id) + "/cancel"); }
      catch (e) { document.getElementById("job-error").textContent = e.message; }
      finally { ev.target.disabled = false; }
    };
    document.getElementById("rerun").onclick = () => {
      const s = (mine && mine.settings) || {};
      draft = {
        // An upload again needs its file chosen again; a source shown here goes back as text.
        source: ed ? ed.getText() : undefined, upload: mine ? !mine.source : !ed,
        ranks: s.ranks || (job && job.ranks), backend: s.backend || (job && job.backend),
        hosts: s.hosts || (job && job.hosts) || [], args: s.args !== undefined ? s.args : (job && (job.args || []).join(" ")),
        time_limit: s.time_limit || (job && job.time_limit), trace: s.trace || (job && job.has_trace),
        profile: s.profile || (job && job.has_profile), main: s.main || (job && job.main) || "",
      };
      go("#/new");
    };

    // A job submitted from another tab or session: its main source file from the job's
    // directory, so the diagnostics still land on their lines.
    async function loadSource() {
      if (ed || left || !job) return;
      const main = job.main || "main.c";
      const url = "/api/jobs/" + encodeURIComponent(id) + "/files/" + main.split("/").map(encodeURIComponent).join("/");
      const r = await fetch(url, { credentials: "same-origin" }).catch(() => null);
      if (!r || !r.ok || left || ed) return;
      ed = makeEditor(srcBox, await r.text());
      srcPanel.hidden = false;
      grid.className = "jobgrid";
      showDiagnostics(job.diagnostics);
    }

    connect();
    refresh().then(loadSource);
    return () => { left = true; if (es) es.close(); if (poll) clearInterval(poll); };
  }

  function size(n) {
    if (n === undefined || n === null) return "";
    return n < 1024 ? n + " B" : n < 1048576 ? (n / 1024).toFixed(1) + " KiB" : (n / 1048576).toFixed(1) + " MiB";
  }

  // What the history calls a job's program: the first comment of a source written here (its
  // title, as the examples have), else the main file's name.
  function program(job) {
    const p = submitted[job.id];
    const m = p && p.source && p.source.match(/^\s*\/[/*]\s*([^\n]{1,60})/);
    if (m) return m[1].replace(/\*\/.*$/, "").trim();
    return job.main || "main.c";
  }

  // ---- history
  async function pageJobs() {
    app.replaceChildren(h("h1", "Your jobs"), h("p.muted", "Loading…"));
    const params = new URLSearchParams(location.hash.split("?")[1] || "");
    const all = me.user.role === "admin" && params.get("all") === "1";
    const before = Number(params.get("before")) || 0;
    const data = await api("GET", "/api/jobs?limit=" + PAGE + (all ? "&all=1" : "") + (before ? "&before=" + before : ""));
    const jobs = data.jobs || [];
    // Pages go back in time: `before` is the oldest shown job's submission time.
    const older = jobs.length === PAGE
      ? h("p", h("a#older", { href: "#/jobs?" + (all ? "all=1&" : "") + "before=" + jobs[jobs.length - 1].created }, "Older jobs"))
      : null;
    const table = h("table.list#history",
      h("thead", h("tr", h("th", "Job"), h("th", "State"), h("th", "Submitted"), h("th.num", "Ranks"),
        h("th", "Program"), h("th.num", "Duration"))),
      h("tbody", jobs.map((j) => h("tr", { "data-id": j.id },
        h("td.mono", h("a", { href: "#/job/" + j.id }, j.id.slice(0, 8))), h("td", badge(j.state)),
        h("td", when(j.created)), h("td.num", String(j.ranks)), h("td", program(j)), h("td.num", duration(j))))));
    app.replaceChildren(h("div", h("h1", (all ? "All jobs" : "Your jobs") + (before ? ", older" : "")),
      jobs.length ? [table, older] : h("p.muted#no-jobs", "No jobs yet. ", h("a", { href: "#/new" }, "Write one"), " or start from an ", h("a", { href: "#/examples" }, "example"), ".")));
  }

  // ---- examples gallery
  async function pageExamples() {
    app.replaceChildren(h("h1", "Examples"), h("p.muted", "Loading…"));
    const list = await api("GET", "/api/examples");
    app.replaceChildren(h("h1", "Examples"),
      h("div.cards#examples", (list || []).map((x) => h("div.card", { "data-id": x.id },
        h("h2", x.title), h("p", x.description),
        h("div.meta", x.ranks + " ranks" + (x.args && x.args.length ? " · arguments: " + [].concat(x.args).join(" ") : "")),
        h("div", h("button.primary", {
          type: "button", "data-example": x.id,
          onclick: () => {
            draft = { source: x.source, ranks: x.ranks, args: [].concat(x.args || []).join(" ") };
            go("#/new");
          },
        }, "Open in the editor"))))));
  }

  // ---- admin
  async function pageAdmin() {
    if (me.user.role !== "admin") {
      app.replaceChildren(h("div.panel", h("h1", "Not allowed"), h("p", "This page is for administrators.")));
      return;
    }
    const users = await api("GET", "/api/admin/users");
    const queue = await api("GET", "/api/admin/queue");
    const ulist = Array.isArray(users) ? users : users.users || [];
    const qlist = Array.isArray(queue) ? queue : queue.queue || queue.jobs || [];
    const form = h("form.panel#user-form", { novalidate: true },
      h("div.row",
        h("div.field", h("label", { for: "new-name" }, "Name"), h("input#new-name", { type: "text", name: "name", autocomplete: "off" })),
        h("div.field", h("label", { for: "new-password" }, "Password"), h("input#new-password", { type: "password", name: "password", autocomplete: "new-password" })),
        h("div.field", h("label", { for: "new-role" }, "Role"),
          h("select#new-role", { name: "role" }, h("option", { value: "user" }, "user"), h("option", { value: "admin" }, "admin"))),
        h("button.primary", { type: "submit" }, "Add user")),
      h("div.form-error", { role: "alert" }));
    form.addEventListener("submit", async (ev) => {
      ev.preventDefault();
      clearErrors(form);
      try {
        await api("POST", "/api/admin/users", { name: form.elements.name.value, password: form.elements.password.value, role: form.elements.role.value });
        pageAdmin();
      } catch (e) { showError(form, e); }
    });
    app.replaceChildren(h("h1", "Administration"),
      h("h2", "Users"),
      h("table.list#users", h("thead", h("tr", ["Name", "Role", "Created"].map((t) => h("th", t)))),
        h("tbody", ulist.map((u) => h("tr", h("td", u.name), h("td", u.role), h("td", when(u.created)))))),
      h("h2", "Add a user"), form,
      h("h2", "Queue"),
      qlist.length ? h("table.list#queue", h("thead", h("tr", ["Position", "State", "User", "Ranks", "Submitted", "Job"].map((t) => h("th", t)))),
        h("tbody", qlist.map((j) => h("tr", h("td.num", j.position ? String(j.position) : ""), h("td", badge(j.state)),
          h("td", j.user || j.user_name || String(j.user_id)), h("td.num", String(j.ranks)), h("td", when(j.created)),
          h("td.mono", j.id)))))
        : h("p.muted#queue-empty", "Nothing is waiting or running."),
      h("p", h("a", { href: "#/jobs?all=1" }, "Every user's jobs")));
  }

  // ---- routing
  // Goes to a page; also when it is the one in the address (no hashchange comes then).
  function go(hash) {
    if (location.hash === hash) route(); else location.hash = hash;
  }

  async function route() {
    if (leavePage) { leavePage(); leavePage = null; }
    const hash = location.hash || "#/new";
    if (!me) {
      try { signedIn(await api("GET", "/api/me")); } catch (e) { me = null; }
    }
    if (!me) return pageLogin();
    if (hash === "#/login") { go("#/new"); return; }
    const [, page, arg] = hash.split("?")[0].split("/");
    for (const a of document.querySelectorAll("#nav a")) a.classList.toggle("current", a.dataset.route === page);
    try {
      if (page === "job" && arg) leavePage = pageJob(decodeURIComponent(arg));
      else if (page === "jobs") await pageJobs();
      else if (page === "examples") await pageExamples();
      else if (page === "admin") await pageAdmin();
      else pageNew();
    } catch (e) {
      if (me) app.replaceChildren(h("div.panel", h("h1", "Something went wrong"), h("p.form-error", e.message)));
    }
  }

  document.getElementById("signout").addEventListener("click", async () => {
    try { await api("POST", "/api/logout"); } catch (e) { /* signed out either way */ }
    signedOut();
  });
  window.addEventListener("hashchange", route);
  route();
})();
