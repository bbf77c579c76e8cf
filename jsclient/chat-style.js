// @ts-check
/**
 * @file The look of `<byomcp-chat>`: its icons, its style sheet (themed by the --byomcp-*
 * CSS variables listed in chat-element.js) and the static markup of its Shadow DOM. Markup only:
 * every text goes in later with textContent.
 */

export const ICON_CHAT =
  '<svg viewBox="0 0 24 24" width="26" height="26" aria-hidden="true" focusable="false"><path fill="currentColor" d="M12 3C6.9 3 3 6.6 3 11c0 2.1.9 4 2.4 5.4-.2 1.5-.8 2.9-1.8 4 2.1-.1 4-.8 5.5-1.9 1 .3 1.9.5 2.9.5 5.1 0 9-3.6 9-8s-3.9-8-9-8Zm-4 9.3a1.3 1.3 0 1 1 0-2.6 1.3 1.3 0 0 1 0 2.6Zm4 0a1.3 1.3 0 1 1 0-2.6 1.3 1.3 0 0 1 0 2.6Zm4 0a1.3 1.3 0 1 1 0-2.6 1.3 1.3 0 0 1 0 2.6Z"/></svg>';
const ICON_CLOSE =
  '<svg viewBox="0 0 24 24" width="22" height="22" aria-hidden="true" focusable="false"><path fill="none" stroke="currentColor" stroke-width="2.2" stroke-linecap="round" d="M6 6l12 12M18 6 6 18"/></svg>';
const ICON_SEND =
  '<svg viewBox="0 0 24 24" width="20" height="20" aria-hidden="true" focusable="false"><path fill="currentColor" d="M3.4 20.4 21 12 3.4 3.6 3.3 10l12.2 2-12.2 2 .1 6.4Z"/></svg>';
const ICON_STOP =
  '<svg viewBox="0 0 24 24" width="18" height="18" aria-hidden="true" focusable="false"><rect x="6" y="6" width="12" height="12" rx="2" fill="currentColor"/></svg>';
const ICON_SPARK =
  '<svg viewBox="0 0 24 24" width="20" height="20" aria-hidden="true" focusable="false"><path fill="currentColor" d="M12 2.5l1.9 5.6 5.6 1.9-5.6 1.9L12 17.5l-1.9-5.6L4.5 10l5.6-1.9L12 2.5Zm6.5 11 .9 2.6 2.6.9-2.6.9-.9 2.6-.9-2.6-2.6-.9 2.6-.9.9-2.6Z"/></svg>';

export const STYLE = `
:host {
  all: initial;
  --_accent: var(--byomcp-accent, #2563eb);
  --_accent-fg: var(--byomcp-accent-fg, #ffffff);
  --_bg: var(--byomcp-bg, #ffffff);
  --_fg: var(--byomcp-fg, #111827);
  --_muted: var(--byomcp-muted, #6b7280);
  --_border: var(--byomcp-border, #e5e7eb);
  --_surface: var(--byomcp-surface, #f3f4f6);
  --_font: var(--byomcp-font, ui-sans-serif, system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif);
  --_radius: var(--byomcp-radius, 16px);
  --_width: var(--byomcp-width, 400px);
  --_height: var(--byomcp-height, 640px);
  --_offset: var(--byomcp-offset, 20px);
  --_z: var(--byomcp-z-index, 2147483000);
  --_label: var(--byomcp-label, #4b5563);
  --_danger: #b91c1c;
  --_ok: #15803d;
  font-family: var(--_font);
  font-size: 15px;
  line-height: 1.5;
  color: var(--_fg);
}
*, *::before, *::after { box-sizing: border-box; }
[hidden] { display: none !important; }
button { font: inherit; color: inherit; cursor: pointer; }
button:disabled { cursor: default; opacity: .55; }
:focus-visible { outline: 3px solid var(--_accent); outline-offset: 2px; }
.sr-only { position: absolute; width: 1px; height: 1px; margin: -1px; padding: 0; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; border: 0; }

.launcher {
  position: fixed; z-index: var(--_z);
  right: calc(var(--_offset) + env(safe-area-inset-right, 0px));
  bottom: calc(var(--_offset) + env(safe-area-inset-bottom, 0px));
  width: 60px; height: 60px; border-radius: 50%; border: 0;
  display: grid; place-items: center;
  background: var(--_accent); color: var(--_accent-fg);
  box-shadow: 0 10px 25px -5px rgb(0 0 0 / .3), 0 4px 8px -4px rgb(0 0 0 / .2);
  transition: transform .15s ease, box-shadow .15s ease;
}
.launcher:hover { transform: translateY(-2px) scale(1.03); }
.launcher:focus-visible { outline-offset: 4px; }
.launcher .icon-close { display: none; }
:host([open]) .launcher .icon-chat { display: none; }
:host([open]) .launcher .icon-close { display: block; }
.launcher .badge {
  position: absolute; top: 2px; right: 2px; width: 14px; height: 14px; border-radius: 50%;
  background: #f59e0b; border: 2px solid var(--_bg);
}

.panel {
  position: fixed; z-index: var(--_z);
  right: calc(var(--_offset) + env(safe-area-inset-right, 0px));
  bottom: calc(var(--_offset) + 76px + env(safe-area-inset-bottom, 0px));
  width: min(var(--_width), calc(100vw - 2 * var(--_offset)));
  height: min(var(--_height), calc(100vh - 2 * var(--_offset) - 96px));
  display: flex; flex-direction: column; overflow: hidden;
  background: var(--_bg); color: var(--_fg);
  border: 1px solid var(--_border); border-radius: var(--_radius);
  box-shadow: 0 24px 60px -12px rgb(15 23 42 / .35), 0 8px 20px -8px rgb(15 23 42 / .2);
  opacity: 0; transform: translateY(12px) scale(.98); transform-origin: bottom right;
  visibility: hidden; pointer-events: none;
  transition: opacity .18s ease, transform .18s ease, visibility 0s linear .18s;
}
:host([open]) .panel {
  opacity: 1; transform: none; visibility: visible; pointer-events: auto;
  transition: opacity .18s ease, transform .18s ease, visibility 0s;
}

.header {
  display: flex; align-items: center; gap: 12px; padding: 14px 14px 14px 16px;
  background: var(--_accent); color: var(--_accent-fg);
}
.avatar {
  flex: none; width: 38px; height: 38px; border-radius: 50%; display: grid; place-items: center;
  background: rgb(255 255 255 / .18);
}
.heading { flex: 1; min-width: 0; }
.title { margin: 0; font-size: 16px; font-weight: 650; line-height: 1.25; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.status { margin: 2px 0 0; font-size: 12.5px; opacity: .92; display: flex; align-items: center; gap: 6px; }
.dot { width: 8px; height: 8px; border-radius: 50%; background: #fbbf24; flex: none; }
.status[data-state="open"] .dot { background: #4ade80; }
.status[data-state="closed"] .dot, .status[data-state="idle"] .dot, .status[data-state="refused"] .dot { background: #9ca3af; }
.close {
  flex: none; width: 44px; height: 44px; border-radius: 10px; border: 0; display: grid; place-items: center;
  background: transparent; color: inherit;
}
.close:hover { background: rgb(255 255 255 / .16); }
.close:focus-visible { outline-color: var(--_accent-fg); outline-offset: 0; }

.banner {
  display: flex; align-items: center; gap: 8px; padding: 8px 16px; font-size: 13px;
  background: #fffbeb; color: #92400e; border-bottom: 1px solid #fde68a;
}

.transcript {
  flex: 1; min-height: 0; overflow-y: auto; overscroll-behavior: contain; padding: 16px 16px 8px;
  scroll-behavior: auto;
}
.transcript:focus-visible { outline-offset: -3px; }
.empty { padding: 8px 2px 4px; }
.greeting { margin: 0 0 14px; color: var(--_fg); }
.suggestions { display: flex; flex-wrap: wrap; gap: 8px; }
.suggestion {
  min-height: 44px; border: 1px solid var(--_border); background: var(--_bg); border-radius: 999px; padding: 7px 14px;
  font-size: 13.5px; text-align: start; line-height: 1.3;
}
.suggestion:hover { border-color: var(--_accent); color: var(--_accent); }
.has-messages .empty { display: none; }

.turn { margin: 0 0 14px; }
.user {
  margin: 0 0 10px auto; max-width: 85%; width: fit-content;
  padding: 9px 13px; border-radius: 16px 16px 4px 16px;
  background: var(--_accent); color: var(--_accent-fg);
  white-space: pre-wrap; overflow-wrap: anywhere;
}
.assistant { max-width: 100%; overflow-wrap: anywhere; }
.text > :first-child, .text .md-tail > :first-child { margin-top: 0; }
.text > :last-child, .text .md-tail > :last-child { margin-bottom: 0; }
.text { margin: 0 0 8px; }
.md-tail { display: contents; }
.text p { margin: 0 0 .6em; }
.text ul, .text ol { margin: 0 0 .6em; padding-inline-start: 1.4em; }
.text li { margin: .15em 0; }
.text li > ul, .text li > ol { margin: .15em 0; }
.text code {
  font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: .88em;
  background: var(--_surface); border-radius: 5px; padding: .1em .35em;
}
.text pre {
  margin: 0 0 .6em; padding: 10px 12px; border-radius: 10px; overflow-x: auto;
  background: #0f172a; color: #e2e8f0; font-size: 13px; line-height: 1.45;
}
.text pre code { background: none; padding: 0; color: inherit; font-size: inherit; }
.text a { color: var(--_accent); text-decoration: underline; text-underline-offset: 2px; }

.tool {
  margin: 0 0 8px; border: 1px solid var(--_border); border-radius: 12px; background: var(--_surface);
  font-size: 13.5px;
}
.tool > summary {
  list-style: none; display: flex; align-items: center; gap: 8px; min-height: 44px; padding: 7px 11px; cursor: pointer;
  border-radius: 12px; color: var(--_fg);
}
.tool > summary::-webkit-details-marker { display: none; }
.tool > summary::after {
  content: ""; margin-left: auto; width: 7px; height: 7px; flex: none;
  border-right: 2px solid var(--_muted); border-bottom: 2px solid var(--_muted);
  transform: rotate(-45deg); transition: transform .15s ease;
}
.tool[open] > summary::after { transform: rotate(45deg); }
.tool-title { overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.tool-icon { flex: none; width: 16px; height: 16px; border-radius: 50%; display: grid; place-items: center; font-size: 11px; font-weight: 700; color: #fff; }
.tool[data-state="running"] .tool-icon { border: 2px solid var(--_border); border-top-color: var(--_accent); animation: spin .8s linear infinite; }
.tool[data-state="ok"] .tool-icon { background: var(--_ok); }
.tool[data-state="ok"] .tool-icon::before { content: "✓"; }
.tool[data-state="error"] .tool-icon { background: var(--_danger); }
.tool[data-state="error"] .tool-icon::before { content: "!"; }
.tool[data-state="interrupted"] .tool-icon { background: var(--_muted); }
.tool[data-state="interrupted"] .tool-icon::before { content: "–"; }
.tool[data-state="declined"] .tool-icon { background: var(--_muted); }
.tool[data-state="declined"] .tool-icon::before { content: "×"; }
.tool-body { padding: 0 11px 10px; }
.tool-label { margin: 6px 0 3px; font-size: 11.5px; font-weight: 650; text-transform: uppercase; letter-spacing: .04em; color: var(--_label); }
.tool-pre {
  margin: 0; padding: 8px 10px; border-radius: 8px; background: var(--_bg); border: 1px solid var(--_border);
  font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 12px; line-height: 1.45;
  white-space: pre-wrap; overflow-wrap: anywhere; max-height: 220px; overflow-y: auto;
}
.tool[data-state="error"] .tool-pre.result { color: var(--_danger); }

.note { margin: 0 0 8px; font-size: 12.5px; color: var(--_label); }
.queued { margin: -4px 0 10px auto; width: fit-content; font-size: 12.5px; color: var(--_label); }
.banner[data-kind="refused"] { background: var(--_surface); color: var(--_label); border-bottom-color: var(--_border); }
.transcript-wrap { position: relative; flex: 1; min-height: 0; display: flex; flex-direction: column; }
.new-messages {
  position: absolute; left: 50%; bottom: 10px; transform: translateX(-50%); min-height: 44px; padding: 6px 16px;
  border-radius: 999px; border: 0; background: var(--_fg); color: var(--_bg); font-size: 13.5px; font-weight: 600;
  box-shadow: 0 6px 16px -6px rgb(15 23 42 / .45);
}
.error {
  margin: 0 0 8px; padding: 9px 12px; border-radius: 12px; font-size: 14px;
  background: #fef2f2; color: var(--_danger); border: 1px solid #fecaca;
  display: flex; align-items: center; gap: 10px; flex-wrap: wrap;
}
.error-text { flex: 1; min-width: 12em; }
.retry {
  min-height: 44px; min-width: 44px; border: 1px solid currentColor; background: var(--_bg); color: var(--_danger); border-radius: 8px; padding: 4px 14px; font-size: 13.5px;
}

.thinking { display: flex; gap: 4px; padding: 6px 2px 10px; }
.thinking span { width: 7px; height: 7px; border-radius: 50%; background: var(--_muted); opacity: .5; animation: blink 1.2s infinite ease-in-out; }
.thinking span:nth-child(2) { animation-delay: .2s; }
.thinking span:nth-child(3) { animation-delay: .4s; }

.composer {
  display: flex; align-items: flex-end; gap: 8px; margin: 0; padding: 10px 12px;
  border-top: 1px solid var(--_border); background: var(--_bg);
}
.input {
  flex: 1; resize: none; min-height: 44px; max-height: 140px; padding: 10px 12px;
  border: 1px solid var(--_border); border-radius: 12px; background: var(--_bg); color: var(--_fg);
  font: inherit; line-height: 1.4; outline: none;
}
.input:focus-visible { border-color: var(--_accent); outline: 2px solid var(--_accent); outline-offset: 0; }
.input::placeholder { color: var(--_muted); }
.send, .stop {
  flex: none; width: 44px; height: 44px; border-radius: 12px; border: 0; display: grid; place-items: center;
  background: var(--_accent); color: var(--_accent-fg);
}
.stop { background: var(--_fg); color: var(--_bg); }
.footer { margin: 0; padding: 0 12px 8px; text-align: center; font-size: 11px; color: var(--_label); background: var(--_bg); }

/* Docked: a side panel the page makes room for (the widget sets --byomcp-dock-inset on <html>). */
:host([layout="docked"]) .panel {
  top: 0; right: 0; bottom: 0; width: var(--_width); height: auto; max-height: none;
  border-radius: 0; border-width: 0 0 0 1px; box-shadow: -8px 0 24px -16px rgb(15 23 42 / .35);
  transform: translateX(16px); transform-origin: right center;
}
:host([layout="docked"][open]) .panel { transform: none; }
:host([layout="docked"][open]) .launcher { display: none; }

@keyframes spin { to { transform: rotate(360deg); } }
@keyframes blink { 0%, 80%, 100% { opacity: .25; } 40% { opacity: .9; } }

@media (max-width: 600px) {
  .panel {
    inset: 0; width: 100%; height: 100%; height: 100dvh; border-radius: 0; border: 0;
    padding: env(safe-area-inset-top, 0px) env(safe-area-inset-right, 0px) env(safe-area-inset-bottom, 0px) env(safe-area-inset-left, 0px);
    background: var(--_accent);
    transform: translateY(24px);
  }
  .panel > :not(.header) { background-color: var(--_bg); }
  .transcript, .banner + .transcript { background: var(--_bg); }
  :host([open]) .launcher { display: none; }
  .input { font-size: 16px; }
  :host([sheet]) .panel {
    top: auto; height: min(46dvh, 420px); border-radius: 16px 16px 0 0;
    box-shadow: 0 -12px 32px -12px rgb(15 23 42 / .45);
  }
  :host([sheet]) .panel > .footer { display: none; }
}
/* A phone held sideways (or any short screen): a floating card above the launcher would leave
   the transcript a few lines; the panel takes the screen's height at the right edge instead. */
@media (max-height: 500px) and (min-width: 601px) {
  :host(:not([layout="docked"])) .panel {
    top: 0; bottom: 0; right: 0; height: auto; max-height: none;
    width: min(var(--_width), 100vw); border-radius: 0; border-width: 0 0 0 1px;
    transform-origin: right center;
  }
  :host(:not([layout="docked"])[open]) .launcher { display: none; }
}
@media (prefers-reduced-motion: reduce) {
  .panel, :host([open]) .panel, .launcher { transition: none; }
  .thinking span, .tool[data-state="running"] .tool-icon { animation-duration: 0s; }
}
@media (forced-colors: active) {
  .launcher, .send, .stop, .user { border: 1px solid CanvasText; }
}
`;

/** The element's markup; its style is STYLE, adopted (sheets.js). */
export const TEMPLATE = `
<button class="launcher" part="launcher" type="button" aria-expanded="false" aria-controls="panel">
  <span class="icon-chat">${ICON_CHAT}</span><span class="icon-close">${ICON_CLOSE}</span>
  <span class="badge" hidden></span>
</button>
<section class="panel" id="panel" part="panel" role="dialog" aria-modal="false" aria-labelledby="title">
  <div class="header" part="header">
    <div class="avatar" aria-hidden="true">${ICON_SPARK}</div>
    <div class="heading">
      <h2 class="title" id="title" part="title"></h2>
      <p class="status" part="status" data-state="idle"><span class="dot" aria-hidden="true"></span><span class="status-text"></span></p>
    </div>
    <button class="close" part="close" type="button">${ICON_CLOSE}</button>
  </div>
  <div class="banner" part="banner" role="status" hidden><span class="banner-text"></span></div>
  <div class="transcript-wrap">
    <div class="transcript" part="transcript" role="region" tabindex="0">
      <div class="empty">
        <p class="greeting" dir="auto"></p>
        <div class="suggestions"></div>
      </div>
      <div class="log"></div>
    </div>
    <button class="new-messages" part="new-messages" type="button" hidden></button>
  </div>
  <form class="composer" part="composer">
    <textarea class="input" part="input" rows="1" enterkeyhint="send" dir="auto"></textarea>
    <button class="send" part="send" type="submit">${ICON_SEND}</button>
    <button class="stop" part="stop" type="button" hidden>${ICON_STOP}</button>
  </form>
  <p class="footer" part="footer"></p>
  <div class="sr-only live" aria-live="polite" aria-atomic="true"></div>
</section>
`;
