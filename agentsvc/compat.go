package agentsvc

import (
	"github.com/byomcp/byomcp/agentsvc/store"
	"github.com/byomcp/byomcp/agentsvc/wire"
)

// Temporary: the protocol moved to agentsvc/wire; these names keep tests written against
// the old ones compiling while they are being moved over. To be deleted.

const (
	ProtocolVersion = wire.ProtocolVersion

	MethodInitialize       = wire.MethodInitialize
	MethodInitialized      = wire.MethodInitialized
	MethodToolsList        = wire.MethodToolsList
	MethodToolsCall        = wire.MethodToolsCall
	MethodCancelled        = wire.MethodCancelled
	MethodProgress         = wire.MethodProgress
	MethodToolsListChanged = wire.MethodToolsListChanged
	MethodPing             = wire.MethodPing
	MethodAgentSession     = wire.MethodAgentSession
	MethodAgentChat        = wire.MethodAgentChat
	MethodAgentCancel      = wire.MethodAgentCancel
	MethodAgentEvent       = wire.MethodAgentEvent

	EventTurnStart    = wire.EventTurnStart
	EventTextDelta    = wire.EventTextDelta
	EventToolCall     = wire.EventToolCall
	EventToolResult   = wire.EventToolResult
	EventTurnEnd      = wire.EventTurnEnd
	EventError        = wire.EventError
	EventToolRejected = wire.EventToolRejected

	StopEnd           = wire.StopEnd
	StopMaxIterations = wire.StopMaxIterations
	StopCancelled     = wire.StopCancelled
	StopError         = wire.StopError

	CodeTurnInProgress  = wire.CodeTurnInProgress
	CodeSessionNotFound = wire.CodeSessionNotFound
	CodeTextTooLong     = wire.CodeTextTooLong
	CodeNoSession       = wire.CodeNoSession
	CodeNoTurn          = wire.CodeNoTurn
	CodeStoreDown       = wire.CodeStoreDown
	CodeRateLimited     = wire.CodeRateLimited
	CodeBusy            = wire.CodeBusy
	CodeTooManySessions = wire.CodeTooManySessions
	CodeCancelledEarly  = wire.CodeCancelledEarly
	CodeOverBudget      = wire.CodeOverBudget

	MetaConfirm    = wire.MetaConfirm
	MetaNavigating = wire.MetaNavigating
)

var supportedVersions = wire.SupportedVersions

var (
	errTurnInProgress  = wire.ErrTurnInProgress
	errSessionNotFound = wire.ErrSessionNotFound
	errNoSession       = wire.ErrNoSession
	errNoTurn          = wire.ErrNoTurn
	errClientBusy      = wire.ErrClientBusy
	errServerBusy      = wire.ErrServerBusy
	errTooManySessions = wire.ErrTooManySessions
	errCancelledEarly  = wire.ErrCancelledEarly
)

type (
	InitializeParams  = wire.InitializeParams
	Implementation    = wire.Implementation
	InitializeResult  = wire.InitializeResult
	ToolsListParams   = wire.ToolsListParams
	PageTool          = wire.PageTool
	ToolAnnotations   = wire.ToolAnnotations
	ToolsListResult   = wire.ToolsListResult
	ToolsCallParams   = wire.ToolsCallParams
	ProgressParams    = wire.ProgressParams
	CancelledParams   = wire.CancelledParams
	SessionResult     = wire.SessionResult
	ChatParams        = wire.ChatParams
	ChatResult        = wire.ChatResult
	CancelParams      = wire.CancelParams
	CancelResult      = wire.CancelResult
	EventHeader       = wire.EventHeader
	Event             = wire.Event
	TurnStartEvent    = wire.TurnStartEvent
	TextDeltaEvent    = wire.TextDeltaEvent
	ToolCallEvent     = wire.ToolCallEvent
	ToolResultEvent   = wire.ToolResultEvent
	TurnEndEvent      = wire.TurnEndEvent
	ErrorEvent        = wire.ErrorEvent
	ToolRejectedEvent = wire.ToolRejectedEvent
)

// SessionParams is wire.SessionParams with the page as a store.Page, until the tests build
// their params from wire.
type SessionParams struct {
	SessionID string      `json:"sessionId,omitempty"`
	LastSeq   *int64      `json:"lastSeq,omitempty"`
	Page      *store.Page `json:"page,omitempty"`
}
