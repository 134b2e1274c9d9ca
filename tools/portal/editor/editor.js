// The portal's source editor: CodeMirror 6 with C highlighting, line numbers and a lint gutter
// for the compiler's diagnostics. build.sh bundles this file (with its npm packages) into the one
// static script the portal serves as /static/editor.js; portal.js only sees window.FerryEditor.

import { basicSetup } from "codemirror";
import { EditorView, keymap } from "@codemirror/view";
import { EditorState } from "@codemirror/state";
import { indentWithTab } from "@codemirror/commands";
import { cpp } from "@codemirror/lang-cpp";
import { lintGutter, setDiagnostics } from "@codemirror/lint";

// gcc's "note" is an "info" to CodeMirror; anything unknown counts as an error so it is seen.
const SEVERITY = { error: "error", fatal: "error", warning: "warning", note: "info", info: "info" };

// Line and column are 1-based, as gcc prints them; out-of-range values are clamped so a stale
// diagnostic (the text was edited since) still lands on a line instead of throwing.
function toDiagnostic(doc, d) {
  const lineNo = Math.min(Math.max(1, d.line | 0), doc.lines);
  const line = doc.line(lineNo);
  const from = line.from + Math.min(Math.max(0, (d.col | 0) - 1), line.length);
  // Underline from the column to the end of its word, or the whole line when the column is
  // at its end; an empty range would show no underline at all.
  let to = from;
  while (to < line.to && /\w/.test(doc.sliceString(to, to + 1))) to++;
  if (to === from) to = from < line.to ? from + 1 : line.to;
  return {
    from: to === from && from > line.from ? from - 1 : from,
    to,
    severity: SEVERITY[d.severity] || "error",
    message: String(d.message || ""),
  };
}

function create(parent, text) {
  // The editor lives in a shadow root: there CodeMirror's style-mod adds its styles as a
  // constructed style sheet, which the portal's Content-Security-Policy (default-src 'self')
  // allows; in the document itself it would insert a <style> element, which the policy blocks.
  const host = document.createElement("div");
  host.className = "cm-host";
  parent.appendChild(host);
  const root = host.attachShadow({ mode: "open" });
  const view = new EditorView({
    parent: root,
    root,
    state: EditorState.create({
      doc: text || "",
      extensions: [
        basicSetup,
        keymap.of([indentWithTab]),
        cpp(),
        lintGutter(),
        EditorView.theme({
          "&": { height: "100%", fontSize: "14px" },
          ".cm-scroller": { fontFamily: "ui-monospace, 'DejaVu Sans Mono', monospace" },
        }),
      ],
    }),
  });
  return {
    view,
    getText: () => view.state.doc.toString(),
    setText(t) {
      view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: t || "" } });
    },
    setDiagnostics(list) {
      const doc = view.state.doc;
      view.dispatch(setDiagnostics(view.state, (list || []).map((d) => toDiagnostic(doc, d))));
    },
    focus: () => view.focus(),
  };
}

window.FerryEditor = { create };
