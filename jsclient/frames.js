// @ts-check
// The frame tree of byomcp's document.modelContext: the tools of the same-origin documents of a
// page's frames (each with our model context, which modelcontext.js gives the frames that have
// none) are one set, as in Chromium, where a tool's default exposure is its own origin: each
// document's getTools() lists them all, its executeTool() runs any of them in the document that
// registered it, and a change in one fires toolchange in all. The widget's own model context
// also copies them into its ToolHost, so its agent sees and runs them. Imported by
// modelcontext.js only on a page that has frames or is one.

// As modelcontext.js names them (this module cannot import it: it imports this one).
const MARK = Symbol.for('byomcp.modelContext');
const OWN = Symbol.for('byomcp.ownTools');
const RUN = Symbol.for('byomcp.runTool');
const NOTIFY = Symbol.for('byomcp.treeChanged');
const INNER = Symbol.for('byomcp.inner');

/**
 * Our model contexts in the same-origin documents of the frame tree under top, self first.
 * Documents of another origin are passed through (their frames may be of ours).
 * @param {any} top
 * @param {any} self
 * @returns {any[]}
 */
export function contextsInTree(top, self) {
  const out = [self];
  const visit = (/** @type {any} */ w, /** @type {number} */ depth) => {
    try {
      const mc = w.document.modelContext;
      if (mc?.[MARK] === true && typeof mc[OWN] === 'function' && !out.includes(mc)) out.push(mc);
    } catch {
      // another origin
    }
    let n = 0;
    try {
      n = w.length;
    } catch {
      return;
    }
    for (let i = 0; i < n && depth < 16; i++) visit(w[i], depth + 1);
  };
  if (top) visit(top, 0);
  return out;
}

/**
 * Tells the other model contexts of the tree under top that self's tools changed.
 * @param {any} top
 * @param {any} self
 */
export function notifyTree(top, self) {
  for (const mc of contextsInTree(top, self)) if (mc !== self) mc[NOTIFY]?.();
}

/**
 * Copies into mc's ToolHost (for its agent) the tools of the tree's other documents, by name
 * (the first document's when two have one; never over one of mc's own), and drops those that
 * went. Calls run in the document that registered the tool.
 * @param {any} mc one of our ModelContexts made with mirror
 */
export function mirror(mc) {
  const { host, win, mirrored, quietly } = mc[INNER]();
  if (!mirrored) return;
  /** @type {Set<string>} */
  const seen = new Set();
  let top = null;
  try {
    top = win?.top ?? null;
  } catch {
    // a window that is going away
  }
  quietly(() => {
    for (const other of contextsInTree(top, mc)) {
      if (other === mc) continue;
      for (const { tool, info } of other[OWN]()) {
        const name = tool.name;
        if (seen.has(name)) continue;
        seen.add(name);
        const sig = JSON.stringify([info, tool.origin]);
        const cur = mirrored.get(name);
        if (cur?.sig === sig && cur.mc === other) continue;
        cur?.handle.unregister();
        mirrored.delete(name);
        if (host.has(name)) continue; // mc's own tool of that name
        const { title, description, inputSchema, annotations } = info;
        const handle = host.registerTool({
          name,
          title,
          description,
          inputSchema,
          annotations,
          execute: (/** @type {unknown} */ args, /** @type {any} */ client) => other[RUN](name, args, client.signal),
        });
        mirrored.set(name, { sig, mc: other, handle });
      }
    }
    for (const [name, m] of [...mirrored]) {
      if (seen.has(name)) continue;
      m.handle.unregister();
      mirrored.delete(name);
    }
  });
}
