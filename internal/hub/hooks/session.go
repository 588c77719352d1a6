package hooks

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"time"

	"github.com/blackboard-hub/bb/internal/hub"
)

// Hook sessions: each session of a coding-agent client (Claude Code,
// Codex, Gemini CLI, Cursor…) works as its own agent. The client names the
// session in every hook payload; the first hook of a session maps it to an
// adjective-noun agent id, later hooks (and a resumed session, which keeps
// its session id) find the same id.

// Limits of hook input.
const (
	MaxHookClientLen  = 32
	MaxHookSessionLen = 256
	// sessionTouchEvery bounds how often a hook refreshes last_seen: liveness
	// is judged in minutes, so a write per hook call would only cost time.
	sessionTouchEvery = time.Minute
	// SessionRole is the role of agents registered for hook sessions.
	SessionRole = "session"
	// hookAdoptionScan bounds the previous session identities looked at.
	hookAdoptionScan = 50
)

// SessionInput identifies the session a hook runs for.
type SessionInput struct {
	// Client is the client's short name (claude, codex, gemini, cursor).
	Client string
	// SessionID is the client's session id from the hook payload.
	SessionID string
	// ClientPID is the client's process id (0 when unknown); its MCP
	// servers find the session's agent through it.
	ClientPID int64
	// Source is how the session started when the client says so: startup,
	// resume, clear or compact.
	Source string
	// Explicit is an agent id given by --agent or BB_AGENT_ID: it wins.
	Explicit string
	// Changes are the uncommitted files (canonical absolute paths) used as
	// adoption evidence; ChangesKnown is false when git could not tell.
	Changes      []string
	ChangesKnown bool
	// Where is the session's work tree, branch and host (recorded on its
	// agent when it changes).
	Where hub.Where
	// Via is which hook of the turn asks (prompt, tool): how what it
	// delivers reached the agent ("" : a hook, unnamed).
	Via DeliveryVia `json:",omitempty"`
	// Idle is true when the hook runs as the turn ends (Stop) or between
	// turns (a waiter): the session is idle from then until the next hook
	// of a turn (HookSession.IdleSince), which every other hook ends.
	Idle bool `json:",omitempty"`
}

// SessionResult is the agent a session works as.
type SessionResult struct {
	AgentID string
	// New is true when this call mapped the session for the first time.
	New bool
	// Registered is true when a new identity was created for it.
	Registered bool
	// Adopted is set when the session took over a previous session's
	// identity on evidence (a RESUME event was recorded).
	Adopted *AdoptionCandidate
	// Reminded is the fingerprint of the last end-of-turn reminder.
	Reminded string
}

func validateSessionInput(in SessionInput) error {
	if err := hub.TextArg("client", in.Client, MaxHookClientLen); err != nil {
		return err
	}
	if in.SessionID == "" && in.Explicit == "" {
		return hub.FieldErr(hub.CodeInvalidArgs, "session_id", "the hook input names no session (session_id) and no agent is given ({do})").With(hub.Action{Do: ActNameAgent})
	}
	if len(in.SessionID) > MaxHookSessionLen || hub.HasControl(in.SessionID) {
		return hub.FieldErr(hub.CodeInvalidArgs, "session_id", "session id too long or holds control characters")
	}
	if in.Explicit != "" {
		return hub.ValidateStoredAgentID(in.Explicit)
	}
	return nil
}

// key is the session's row key: the client's session id, else the
// explicit agent.
func (in SessionInput) key() string {
	if in.SessionID == "" {
		return "agent:" + in.Explicit
	}
	return in.SessionID
}

// mapped reports whether hs, the stored row of in's key, gives in's agent.
func (in SessionInput) mapped(hs *hub.HookSession) bool {
	return hs != nil && (in.Explicit == "" || in.Explicit == hs.AgentID)
}

// fresh reports whether the mapped session hs needs no refresh at now:
// seen within sessionTouchEvery, by the same client process, idle or in a
// turn as in says (a turn's first hook after an idle stretch ends it, a
// Stop hook begins one: each is one write a turn).
func (in SessionInput) fresh(hs *hub.HookSession, now time.Time) bool {
	return now.Sub(hs.LastSeen) < sessionTouchEvery && (in.ClientPID == 0 || in.ClientPID == hs.ClientPID) &&
		in.Idle == !hs.IdleSince.IsZero()
}

// idleSince is the session's idle mark after a hook of in at now: kept
// through one idle stretch (so its attention item keeps its id), set as a
// turn ends, cleared by a hook of a turn.
func (in SessionInput) idleSince(was, now time.Time) time.Time {
	switch {
	case !in.Idle:
		return time.Time{}
	case was.IsZero():
		return now
	}
	return was
}

// freshSession is in's stored session when it is mapped and fresh at now,
// read inside tx: then a hook event needs no ResolveSession write (nil,
// nil otherwise).
func (in SessionInput) freshSession(ctx context.Context, tx Tx, now time.Time) (*hub.HookSession, error) {
	hs, err := tx.GetHookSession(ctx, in.Client, in.key())
	if err != nil || !in.mapped(hs) || !in.fresh(hs, now) {
		return nil, err
	}
	return hs, nil
}

// ResolveSession returns the agent a client session works as, mapping it
// on first sight: an explicit agent wins; a session cleared inside the
// same client process keeps its agent; otherwise a previous session's
// identity that is no longer active is adopted only with evidence
// (uncommitted changes inside a scope it reserves, or an in-progress task
// it owns), recording RESUME; otherwise a new adjective-noun identity is
// registered. Two sessions are never given the same agent by this rule
// unless one adopts the other's inactive identity.
func (s *Service) ResolveSession(ctx context.Context, in SessionInput) (SessionResult, error) {
	if err := validateSessionInput(in); err != nil {
		return SessionResult{}, err
	}
	if err := bindSession(ctx, &in); err != nil {
		return SessionResult{}, err
	}
	key := in.key()
	now := s.kernel.Now()
	hs, err := hub.ReadAs(ctx, s.kernel, func(tx Tx) (*hub.HookSession, error) { return tx.GetHookSession(ctx, in.Client, key) })
	if err != nil {
		return SessionResult{}, err
	}
	if in.mapped(hs) {
		return s.seenAgain(ctx, in, hs, now)
	}
	stale, err := s.kernel.StaleMinutes()
	if err != nil {
		return SessionResult{}, err
	}
	return hub.WriteAs(ctx, s.kernel, in, func(tx Tx) (SessionResult, error) {
		if cur, err := tx.GetHookSession(ctx, in.Client, key); err != nil {
			return SessionResult{}, err
		} else if cur != nil && (in.Explicit == "" || in.Explicit == cur.AgentID) {
			return SessionResult{AgentID: cur.AgentID, Reminded: cur.Reminded}, nil // mapped meanwhile
		}
		res, err := s.newSessionAgent(ctx, tx, in, now, stale)
		if err != nil {
			return res, err
		}
		if err := tx.TouchAgent(ctx, res.AgentID, now); err != nil {
			return res, err
		}
		if err := hub.SetWhereTx(ctx, tx, res.AgentID, in.Where); err != nil {
			return res, err
		}
		return res, tx.PutHookSession(ctx, &hub.HookSession{Client: in.Client, SessionID: key, AgentID: res.AgentID,
			ClientPID: in.ClientPID, CreatedAt: now, LastSeen: now, IdleSince: in.idleSince(time.Time{}, now)})
	})
}

// seenAgain is a session already mapped to its agent: it keeps it, and
// unless it was seen lately its session, agent and work tree are
// refreshed.
func (s *Service) seenAgain(ctx context.Context, in SessionInput, hs *hub.HookSession, now time.Time) (SessionResult, error) {
	res := SessionResult{AgentID: hs.AgentID, Reminded: hs.Reminded}
	if in.fresh(hs, now) {
		return res, nil
	}
	err := hub.WriteObserved(ctx, s.kernel, func(tx Tx) error {
		hs.LastSeen = now
		wasIdle := !hs.IdleSince.IsZero()
		hs.IdleSince = in.idleSince(hs.IdleSince, now)
		if !wasIdle && in.Idle {
			if err := s.goneIdle(ctx, tx, hs); err != nil {
				return err
			}
		}
		if in.ClientPID != 0 {
			hs.ClientPID = in.ClientPID
		}
		if err := tx.PutHookSession(ctx, hs); err != nil {
			return err
		}
		if err := tx.TouchAgent(ctx, hs.AgentID, now); err != nil {
			return err
		}
		return hub.SetWhereTx(ctx, tx, hs.AgentID, in.Where)
	})
	return res, err
}

// goneIdle records, as the turn of a session whose client cannot be
// woken ends with items waiting for its agent, that they go unheard: the
// event moves every follower of the timeline, so the attention list shows
// it at once (bb top, the dashboard, bb notify).
func (s *Service) goneIdle(ctx context.Context, tx Tx, hs *hub.HookSession) error {
	c := hub.Client(hs.Client)
	if c.Wakes {
		return nil // its waiter, armed now, delivers them
	}
	p, err := s.pendingDelivery(ctx, tx, hs.AgentID)
	if err != nil || p.empty() {
		return err
	}
	n := len(p.mail) + len(p.escalations)
	e := s.kernel.Event(EventSessionUnheard, hs.AgentID, map[string]any{"client": hs.Client, "session_id": hs.SessionID, "items": n})
	e.Message = fmt.Sprintf("%s is idle with %d unread (%s cannot be woken)", hs.AgentID, n, c.Title)
	return tx.AppendEvent(ctx, e)
}

// newSessionAgent chooses the agent of a session seen for the first time,
// in order: the one named explicitly; after /clear, the agent of the same
// client process; an inactive identity with adoption evidence (recording
// RESUME); else a new adjective-noun identity, registered.
func (s *Service) newSessionAgent(ctx context.Context, tx Tx, in SessionInput, now time.Time, stale int) (SessionResult, error) {
	res := SessionResult{New: true, AgentID: in.Explicit}
	if res.AgentID == "" && in.Source == "clear" && in.ClientPID > 0 {
		// /clear starts a new session id inside the same client
		// process: the runtime, and so the agent, is the same.
		prev, err := tx.HookSessionByPID(ctx, in.Client, in.ClientPID)
		if err != nil {
			return res, err
		}
		if prev != nil {
			res.AgentID = prev.AgentID
		}
	}
	if res.AgentID == "" && in.ChangesKnown {
		c, err := s.adoptableSession(ctx, tx, in.Changes, now, stale)
		if err != nil {
			return res, err
		}
		if c != nil {
			res.AgentID, res.Adopted = c.AgentID, c
			return res, s.recordAdoption(ctx, tx, in.Client, c)
		}
	}
	if res.AgentID == "" {
		name, err := s.SuggestName(ctx, tx)
		if err != nil {
			return res, err
		}
		if _, err := s.kernel.RegisterTx(ctx, tx, hub.RegisterInput{ID: name, Role: SessionRole,
			Display: fmt.Sprintf("%s session %s", in.Client, hub.Preview(in.SessionID, 12))}); err != nil {
			return res, err
		}
		res.AgentID, res.Registered = name, true
	}
	return res, nil
}

// recordAdoption records on the timeline that a new session of client
// resumed the identity of c (RESUME, seed 001 §3.4).
func (s *Service) recordAdoption(ctx context.Context, tx Tx, client string, c *AdoptionCandidate) error {
	bead := ""
	if len(c.BeadIDs) > 0 {
		bead = c.BeadIDs[0]
	}
	e := s.kernel.ProtocolEvent(hub.EventResume, bead, c.AgentID, c.AgentID, c.Scope, hub.ResumePayload{
		ResumeReason: c.Reason, PriorSessionAgent: c.AgentID, AdoptedAgent: c.AgentID, Evidence: c.Evidence, BeadIDs: c.BeadIDs,
	}, fmt.Sprintf("new %s session resumed %s (%s): %s", client, c.AgentID, c.Reason, c.Evidence))
	return tx.AppendEvent(ctx, e)
}

// adoptableSession finds a previous session's identity that is no longer
// active and has adoption evidence; nil when none.
func (s *Service) adoptableSession(ctx context.Context, tx Tx, changes []string, now time.Time, stale int) (*AdoptionCandidate, error) {
	ids, err := tx.HookAgents(ctx, hookAdoptionScan)
	if err != nil {
		return nil, err
	}
	var found []AdoptionCandidate
	for _, id := range ids {
		a, err := tx.GetAgent(ctx, id)
		if err != nil {
			return nil, err
		}
		if a == nil || hub.LiveOf(a.LastSeen, now, stale).Agent == hub.LiveActive {
			continue // a running session keeps its identity
		}
		c, err := s.EvidenceFor(ctx, tx, id, changes)
		if err != nil {
			return nil, err
		}
		if c != nil {
			found = append(found, *c)
		}
	}
	if len(found) == 0 {
		return nil, nil
	}
	sort.SliceStable(found, func(i, j int) bool {
		if found[i].Reason != found[j].Reason {
			return found[i].Reason == ReasonUncommittedScope
		}
		return found[i].AgentID < found[j].AgentID
	})
	return &found[0], nil
}

// SessionByClientPID returns the agent of the most recently seen hook
// session whose client process is pid (client "" = any client), so an MCP
// server started by that client works as the same agent as its hooks.
// NOT_FOUND when no session of that process is known.
func (s *Service) SessionByClientPID(ctx context.Context, client string, pid int64) (hub.HookSession, error) {
	if pid <= 0 {
		return hub.HookSession{}, hub.FieldErr(hub.CodeInvalidArgs, "pid", "a client process id must be positive")
	}
	hs, err := hub.ReadAs(ctx, s.kernel, func(tx Tx) (*hub.HookSession, error) { return tx.HookSessionByPID(ctx, client, pid) })
	if err != nil {
		return hub.HookSession{}, err
	}
	if hs == nil {
		return hub.HookSession{}, hub.Errorf(hub.CodeNotFound, "no hook session of client process %d is known", pid)
	}
	return *hs, nil
}

// HookSettings are the effective hook settings of the board.
type HookSettings struct {
	Mode         string
	AutoReserve  bool
	ReserveTTL   int
	Delivery     bool
	StopReminder bool
	// MergeCheck is hooks.merge_check: warn, block or off.
	MergeCheck string
	// EscalateAfter is attention.escalate_after, in minutes: when a
	// HANDOFF or BLOCKED nobody accepted is told to its sender.
	EscalateAfter int
}

func (s *Service) hookSettingsTx(ctx context.Context, tx Tx) (HookSettings, error) {
	stored, err := tx.ListConfig(ctx)
	if err != nil {
		return HookSettings{}, err
	}
	var hs HookSettings
	for _, e := range s.kernel.ConfigEntries(stored) {
		switch e.Key {
		case hub.ConfigHooksMode:
			hs.Mode = e.Value
		case hub.ConfigHooksAutoReserve:
			hs.AutoReserve = e.Value == "on"
		case hub.ConfigHooksReserveTTL:
			hs.ReserveTTL, _ = strconv.Atoi(e.Value)
		case hub.ConfigHooksDelivery:
			hs.Delivery = e.Value == "on"
		case hub.ConfigHooksStop:
			hs.StopReminder = e.Value == "on"
		case hub.ConfigHooksMergeCheck:
			hs.MergeCheck = e.Value
		case hub.ConfigEscalateAfter:
			hs.EscalateAfter = hub.EscalateAfter([]hub.ConfigEntry{e})
		}
	}
	return hs, nil
}

// GetHookSettings returns the effective hook settings.
func (s *Service) GetHookSettings(ctx context.Context) (HookSettings, error) {
	return hub.ReadAs(ctx, s.kernel, func(tx Tx) (HookSettings, error) { return s.hookSettingsTx(ctx, tx) })
}

// bindSession applies the credential of ctx to a hook session: a session
// reached with an agent's or an overseer's credential works as that agent
// (its Explicit id), and naming another is FORBIDDEN.
func bindSession(ctx context.Context, in *SessionInput) error {
	if own := hub.Acting(ctx); own != "" && in.Explicit == "" {
		in.Explicit = own
	}
	if in.Explicit == "" {
		return nil
	}
	return hub.Allow(ctx, hub.Act(in.Explicit))
}
