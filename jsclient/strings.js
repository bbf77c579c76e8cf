// @ts-check
/**
 * @file The chat widget's user-visible strings and how a site overrides them.
 * Every label, placeholder and message of `<byomcp-chat>` comes from here, so a site can
 * translate or rebrand the widget without touching its code.
 *
 * Overrides, later wins: these defaults, `window.byomcpConfig.strings`, then the
 * `data-strings='{"title":"…"}'` attribute of the widget's script tag.
 */

/**
 * The default English strings. `{name}`-style placeholders are filled by {@link format}.
 * @type {Readonly<Record<string, string>>}
 */
export const DEFAULT_STRINGS = Object.freeze({
  title: 'Assistant',
  subtitle: 'I can use this page for you',
  greeting: 'Hi! Ask me anything about this page. I can also click, fill in and search for you.',
  launcherOpen: 'Open the assistant',
  launcherClose: 'Close the assistant',
  close: 'Close',
  panelLabel: 'Assistant chat',
  transcriptLabel: 'Conversation',
  inputLabel: 'Message to the assistant',
  inputPlaceholder: 'Ask something…',
  send: 'Send',
  stopLabel: 'Stop the answer',
  retry: 'Retry',
  retryLabel: 'Send your last message again',
  you: 'You',
  assistant: 'Assistant',
  connecting: 'Connecting…',
  reconnecting: 'Reconnecting…',
  connected: 'Online',
  disconnected: 'Offline',
  thinking: 'Thinking…',
  toolRunning: 'Running {name}…',
  toolDone: 'Ran {name}',
  toolFailed: '{name} failed',
  toolDeclined: 'Declined {name}',
  toolArguments: 'Arguments',
  toolResult: 'Result',
  toolError: 'Error',
  noArguments: '(none)',
  confirmTitle: 'Allow this action?',
  confirmBody: 'The assistant wants to run {name}.',
  confirmHint: 'Enter confirms, Escape cancels',
  yes: 'Yes',
  no: 'No',
  confirm: 'Confirm',
  cancel: 'Cancel',
  confirmed: 'You allowed {name}.',
  declined: 'You declined {name}.',
  confirmDismissed: 'The request to run {name} was withdrawn.',
  stopped: 'Stopped.',
  maxIterations: 'The assistant stopped after too many steps.',
  errorGeneric: 'Something went wrong.',
  errorConnection: 'The connection was lost. The answer will continue when it is back.',
  offline: 'You are offline. Your message will be sent when the connection is back.',
  unreachable: 'The assistant cannot be reached right now. Your message will be sent when it is back.',
  queued: 'Waiting for the connection to send this…',
  // A page whose origin the agent does not allow: for the visitor, who cannot change that (the
  // developer console says how to allow it).
  refusedOrigin: 'The assistant is not available on this site.',
  unavailable: 'Not available',
  newMessages: 'New messages ↓',
  errorNotSent: 'The connection was lost before the assistant answered.',
  errorBusy: 'The assistant is still busy with another answer.',
  errorRateLimited: 'Too many messages at once. Please wait a moment.',
  errorTooLong: 'That message is too long: at most 32,768 characters (fewer with accents, emoji or other scripts).',
  toolRejected: 'The page tool {name} is not available to the assistant.',
  answerAnnouncement: 'Assistant: {text}',
  poweredBy: 'Powered by byomcp',
});

/**
 * Merges string overrides onto the defaults. Unknown keys are kept (a site may add its own),
 * values that are not strings are ignored.
 * @param {...(Record<string, unknown> | null | undefined)} overrides later wins
 * @returns {Record<string, string>}
 */
export function resolveStrings(...overrides) {
  /** @type {Record<string, string>} */
  const out = { ...DEFAULT_STRINGS };
  for (const o of overrides) {
    if (!o || typeof o !== 'object') continue;
    for (const [k, v] of Object.entries(o)) {
      if (typeof v === 'string') out[k] = v;
    }
  }
  return out;
}

/**
 * Parses the `data-strings` attribute: a JSON object, or nothing when absent or malformed
 * (a malformed attribute is reported with console.warn and ignored).
 * @param {string | null | undefined} attr
 * @returns {Record<string, unknown> | undefined}
 */
export function parseStringsAttribute(attr) {
  if (!attr) return undefined;
  try {
    const v = JSON.parse(attr);
    if (v && typeof v === 'object' && !Array.isArray(v)) return v;
    console.warn('byomcp: data-strings must be a JSON object; ignored');
  } catch (err) {
    console.warn('byomcp: data-strings is not valid JSON; ignored', err);
  }
  return undefined;
}

/**
 * Fills `{key}` placeholders. Missing keys are left as written, so a typo shows up on screen
 * instead of vanishing.
 * @param {string} template
 * @param {Record<string, unknown>} [vars]
 * @returns {string}
 */
export function format(template, vars = {}) {
  return template.replace(/\{([A-Za-z0-9_]+)\}/g, (m, k) =>
    Object.prototype.hasOwnProperty.call(vars, k) ? String(vars[k]) : m);
}
