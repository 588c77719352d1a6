package hooks

import (
	"context"

	"github.com/blackboard-hub/bb/internal/hub"
)

// ClientRef is what a process started by a coding-agent client (bb mcp)
// knows of the client session it serves: the session id the client hands
// to its MCP servers and hooks alike (Claude Code's
// $CLAUDE_CODE_SESSION_ID; "" where the client hands none), and the
// client's process id found by walking the process tree (0: unknown).
type ClientRef struct {
	// Client is the client's short name (claude…); set with SessionID.
	Client    string
	SessionID string
	PID       int64
}

// SessionOf returns the hook session a client's MCP server works for. The
// session the client named (Client, SessionID) wins, unless the client
// process has hook sessions of its own and the named one was not seen from
// it: then the id was inherited from an outer client's environment (a
// client started inside another's shell), and the process's most recently
// seen session is the one. Without a named session, the process's most
// recently seen session. NOT_FOUND when neither is known.
func (s *Service) SessionOf(ctx context.Context, ref ClientRef) (hub.HookSession, error) {
	named := ref.Client != "" && ref.SessionID != ""
	if named {
		if err := hub.TextArg("client", ref.Client, MaxHookClientLen); err != nil {
			return hub.HookSession{}, err
		}
		if len(ref.SessionID) > MaxHookSessionLen || hub.HasControl(ref.SessionID) {
			return hub.HookSession{}, hub.FieldErr(hub.CodeInvalidArgs, "session_id", "session id too long or holds control characters")
		}
	}
	if !named && ref.PID <= 0 {
		return hub.HookSession{}, hub.FieldErr(hub.CodeInvalidArgs, "pid", "name a client session or a client process")
	}
	hs, err := hub.ReadAs(ctx, s.kernel, func(tx Tx) (*hub.HookSession, error) {
		var byName, byPID *hub.HookSession
		var err error
		if named {
			if byName, err = tx.GetHookSession(ctx, ref.Client, ref.SessionID); err != nil {
				return nil, err
			}
		}
		if ref.PID > 0 && (byName == nil || byName.ClientPID != ref.PID) {
			if byPID, err = tx.HookSessionByPID(ctx, "", ref.PID); err != nil {
				return nil, err
			}
		}
		if byName != nil && byPID == nil {
			return byName, nil
		}
		return byPID, nil
	})
	if err != nil {
		return hub.HookSession{}, err
	}
	if hs == nil {
		return hub.HookSession{}, hub.Errorf(hub.CodeNotFound, "no hook session of this client is known")
	}
	return *hs, nil
}
