package hooks

import (
	"context"

	"github.com/blackboard-hub/bb/internal/hub"
)

// API is the hook application's role: what the hook surfaces (bb hook, the
// guard, bb mcp's session identity) ask of the board.
type API interface {
	// InitSession is bb agent init: register, adopt or suggest (agentinit.go).
	InitSession(ctx context.Context, in InitInput) (InitResult, error)
	ResolveSession(ctx context.Context, in SessionInput) (SessionResult, error)
	SessionByClientPID(ctx context.Context, client string, pid int64) (hub.HookSession, error)
	SessionOf(ctx context.Context, ref ClientRef) (hub.HookSession, error)
	GetHookSettings(ctx context.Context) (HookSettings, error)
	CheckEdit(ctx context.Context, in EditInput) (EditDecision, error)
	CheckPaths(ctx context.Context, in PathCheckInput) (PathCheckResult, error)
	StopReminder(ctx context.Context, in StopInput) (Reminder, error)
	SessionBrief(ctx context.Context, in BriefInput) (Delivery, error)
	DeliverNew(ctx context.Context, agent string) (Delivery, error)
	DeliverToSession(ctx context.Context, in SessionInput) (SessionDelivery, error)
	DeliveredTo(ctx context.Context, agent string, messageIDs []string) ([]DeliveryReceipt, error)
	// Wait blocks until something arrives for an agent or a condition
	// holds (wait.go): bb agent wait, MCP bb_wait, an idle session's
	// waiter.
	Wait(ctx context.Context, in WaitInput, progress func(WaitProgress)) (WaitResult, error)
}

var _ API = (*Service)(nil)
