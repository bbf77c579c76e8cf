// byomcp wire protocol constants for the browser side: the one place for method names, event
// types, stop reasons, error codes and _meta keys of /v1/ws (see DESIGN.md, "Wire protocol").
// They mirror the Go package agentsvc/wire, name for name (Go's prefix Method, Event, Stop, Code
// or Meta dropped): agentsvc/wire's TestProtocolJSMatchesGo fails when the two differ. The
// messages' shapes are in docs/protocol.schema.json.

/** JSON-RPC methods and notifications used on the page socket. */
export const Method = Object.freeze({
  Initialize: 'initialize',
  Initialized: 'notifications/initialized',
  ToolsList: 'tools/list',
  ToolsCall: 'tools/call',
  Cancelled: 'notifications/cancelled',
  Ping: 'ping',
  Progress: 'notifications/progress',
  ToolsListChanged: 'notifications/tools/list_changed',
  AgentSession: 'agent/session',
  AgentChat: 'agent/chat',
  AgentCancel: 'agent/cancel',
  AgentEvent: 'agent/event',
  AgentConfirm: 'agent/confirm',
  AgentElicit: 'agent/elicit',
  AgentAppCall: 'agent/appCall',
});

/** Types of `agent/event` notifications. Clients ignore types they do not know. */
export const EventType = Object.freeze({
  TextDelta: 'text_delta',
  ToolCall: 'tool_call',
  ToolResult: 'tool_result',
  TurnEnd: 'turn_end',
  Error: 'error',
  ToolRejected: 'tool_rejected',
  TurnStart: 'turn_start',
});

/** Why a turn ended (`turn_end.stopReason`, `agent/chat` result `stopReason`). */
export const StopReason = Object.freeze({
  End: 'end',
  MaxIterations: 'max_iterations',
  Cancelled: 'cancelled',
  Error: 'error',
});

/** MCP protocol version the page speaks by default. */
export const PROTOCOL_VERSION = '2025-11-25';

/** MCP protocol versions the page accepts from the agent, newest first. */
export const SUPPORTED_PROTOCOL_VERSIONS = Object.freeze(['2025-11-25', '2025-06-18', '2025-03-26']);

/**
 * JSON-RPC error codes a page may receive: the specification's, the ones the agent's JSON-RPC peer
 * sends itself, and the agent's own (-32000…-32099, listed in docs/protocol.md). The same table as the
 * Go constants in agentsvc/wire (`Code` + name); agentsvc/wire's parity test keeps them equal.
 */
export const ErrorCode = Object.freeze({
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  HandlersBusy: -32000,
  RateLimited: -32029,
  TurnInProgress: -32001,
  SessionNotFound: -32002,
  TextTooLong: -32004,
  NoSession: -32005,
  NoTurn: -32007,
  StoreDown: -32010,
  Busy: -32030,
  TooManySessions: -32031,
  CancelledEarly: -32032,
  OverBudget: -32033,
});

/**
 * WebSocket close codes of the agent's own (RFC 6455's private range); the standard ones it uses
 * are in docs/protocol.md. Resume: the socket's session is served elsewhere now; reconnect and resume
 * by lastSeq, as after any drop (not an error to show).
 */
export const CloseCode = Object.freeze({
  Resume: 4000,
});

/** Keys of a tools/call's `_meta` (agent → page) and of a tool result's `_meta` (page → agent). */
export const Meta = Object.freeze({
  ProgressToken: 'progressToken',
  Confirm: 'byomcp/confirm',
  Summary: 'byomcp/summary',
  Navigating: 'byomcp/navigating',
});

/**
 * The turn running when a page opens its session: the `running` member of the `agent/session`
 * result (absent when no turn runs). Its events are the turn's log up to the result's `seq`,
 * from its `turn_start`, each run of `text_delta` merged into one event that keeps the run's
 * last `seq`; the events after `seq` follow as `agent/event` notifications.
 * @typedef {object} RunningTurn
 * @property {string} turnId
 * @property {string} [clientTurnId] the id the page gave the message (`agent/chat` clientTurnId)
 * @property {{type: string, seq?: number, [key: string]: unknown}[]} events
 */

/**
 * `agent/chat` params. clientTurnId (at most 128 bytes) is the page's own id for the message;
 * the turn's `turn_start` event echoes it, so the page knows the turn is the one it asked for.
 * @typedef {object} ChatParams
 * @property {string} text
 * @property {string} [clientTurnId]
 */
