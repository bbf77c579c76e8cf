// byomcp wire protocol constants for the browser side: the one place for method names, event
// types, stop reasons and error codes of /v1/ws (see DESIGN.md, "Wire protocol").

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

/** JSON-RPC error codes: the standard ones and the server-defined ones (-32000…-32099). */
export const ErrorCode = Object.freeze({
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  TurnInProgress: -32001,
  SessionNotFound: -32002,
  OriginMismatch: -32003,
  TextTooLong: -32004,
  NoSession: -32005,
  SessionBusy: -32006,
  RateLimited: -32029,
});
