package hub

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"
)

// Length limits of a bb agent id (seed 000 §5.1).
const (
	MinAgentNameLen = 3
	MaxAgentNameLen = 48
	MaxDisplayLen   = 128
	MaxRoleLen      = 64
)

// ValidateAgentName is seed 000 §5.1's rule for ids registered through bb
// agent: ^[a-z0-9]+(?:-[a-z0-9]+)*$, 3..48 characters.
func ValidateAgentName(field, id string) error {
	if len(id) < MinAgentNameLen || len(id) > MaxAgentNameLen {
		return FieldErr(CodeInvalidArgs, field, "agent id %q must be %d..%d characters long (got %d)", id, MinAgentNameLen, MaxAgentNameLen, utf8.RuneCountInString(id))
	}
	prevDash := true // no leading dash
	for i := 0; i < len(id); i++ {
		c := id[i]
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
			prevDash = false
		case c == '-' && !prevDash:
			prevDash = true
		default:
			return FieldErr(CodeInvalidArgs, field, "agent id %q must be lowercase kebab-case: letters a-z, digits and single dashes between them (e.g. agent-ui-1)", id)
		}
	}
	if prevDash {
		return FieldErr(CodeInvalidArgs, field, "agent id %q must not end with a dash", id)
	}
	if err := ValidateStoredAgentID(id); err != nil {
		return FieldErr(CodeInvalidArgs, field, "%s", MessageOf(err))
	}
	return nil
}

// ValidateAgentRef checks an id naming an existing agent (any surface's id
// may be looked up: the agents table is shared).
func ValidateAgentRef(field, id string) error {
	if strings.TrimSpace(id) == "" {
		return FieldErr(CodeInvalidArgs, field, "{field} cannot be empty")
	}
	if err := ValidateStoredAgentID(id); err != nil {
		return FieldErr(CodeInvalidArgs, field, "%s", MessageOf(err))
	}
	return nil
}

// TextArg checks a required text input of at most max bytes.
func TextArg(field, v string, max int) error {
	if strings.TrimSpace(v) == "" {
		return FieldErr(CodeInvalidArgs, field, "{field} cannot be empty")
	}
	if len(v) > max {
		return FieldErr(CodeInvalidArgs, field, "{field} too long: %d bytes (max %d)", len(v), max)
	}
	if !utf8.ValidString(v) {
		return FieldErr(CodeInvalidArgs, field, "--%s is not valid UTF-8", field)
	}
	return nil
}

// AgentInfo is an agent with its seed 001 liveness.
type AgentInfo struct {
	Agent
	// Liveness is the agent protocol's word for Presence (active, stale, evicted).
	Liveness Liveness
	Presence Presence
	// Work is what the board shows it doing (nil: nothing); filled by
	// ListAgentInfos and ShowAgent.
	Work *Work
}

func InfoOf(a Agent, l Live) AgentInfo {
	return AgentInfo{Agent: a, Liveness: l.Agent, Presence: l.Presence}
}

// RegisterInput is `bb agent register`.
type RegisterInput struct {
	ID          string
	Display     string
	Role        string
	ForceUpdate bool
}

// RegisterAgent creates an agent (status idle), or with ForceUpdate changes
// the display name and role of an existing one (never its id). An agent
// that exists only because it acted on the board (bb status, bb post) or
// exchanged mail is claimed by registering it, whatever the grammar of its
// id: the kebab-case rule applies to the ids register creates. created
// reports a new row.
func (s *Service) RegisterAgent(ctx context.Context, in RegisterInput) (AgentInfo, bool, error) {
	if err := Allow(ctx, Act(in.ID)); err != nil {
		return AgentInfo{}, false, err
	}
	if err := ValidateAgentName("name", in.ID); err != nil {
		if known, kerr := s.agentKnown(ctx, in.ID); kerr != nil || !known {
			return AgentInfo{}, false, err
		}
	}
	if err := TextArg("role", in.Role, MaxRoleLen); err != nil {
		return AgentInfo{}, false, err
	}
	if in.Display != "" {
		if err := TextArg("display", in.Display, MaxDisplayLen); err != nil {
			return AgentInfo{}, false, err
		}
	}
	stale, err := s.StaleMinutes()
	if err != nil {
		return AgentInfo{}, false, err
	}
	r, err := Write(ctx, s, in, func(tx Tx) (RegisterResult, error) {
		return s.RegisterTx(ctx, tx, in)
	})
	if err != nil {
		return AgentInfo{}, false, err
	}
	return InfoOf(r.A, LiveOf(r.A.LastSeen, s.Now(), stale)), r.Created, nil
}

type RegisterResult struct {
	A       Agent
	Created bool
}

func (s *Service) RegisterTx(ctx context.Context, tx Tx, in RegisterInput) (RegisterResult, error) {
	type res = RegisterResult
	now := s.Now()
	a, err := tx.GetAgent(ctx, in.ID)
	if err != nil {
		return res{}, err
	}
	created := a == nil || !a.Registered // new, or claimed from an unregistered row
	typ := EventAgentRegistered
	switch {
	case a == nil:
		a = &Agent{ID: in.ID, Status: "idle", CreatedAt: now, StatusSince: now, Version: 1}
	case a.Registered && !in.ForceUpdate:
		return res{}, FieldErr(CodeDuplicateAgentID, "name", "agent %q is already registered (use {force_update} to change its display name or role, or pick another name)", in.ID)
	case a.Registered:
		typ = EventAgentUpdated
		a.Version++
	}
	if in.Display != "" {
		a.DisplayName = in.Display
	} else if a.DisplayName == "" {
		a.DisplayName = in.ID
	}
	a.Role = in.Role
	a.Registered = true
	a.LastSeen, a.UpdatedAt = now, now
	if err := tx.PutAgent(ctx, a); err != nil {
		return res{}, err
	}
	e := s.Event(typ, in.ID, map[string]any{"agent_id": a.ID, "display_name": a.DisplayName, "role": a.Role, "version": a.Version})
	if typ == EventAgentRegistered {
		e.Message = fmt.Sprintf("%s registered as %s", a.ID, a.Role)
	} else {
		e.Message = fmt.Sprintf("%s updated: role %s, display %q", a.ID, a.Role, a.DisplayName)
	}
	return res{*a, created}, tx.AppendEvent(ctx, e)
}

// AgentQuery filters `bb agent list`.
type AgentQuery struct {
	Role   string
	Status string
}

// ListAgentInfos lists agents sorted by id, with liveness.
func (s *Service) ListAgentInfos(ctx context.Context, q AgentQuery) ([]AgentInfo, error) {
	if q.Status != "" && !slices.Contains(AgentStatuses, q.Status) {
		return nil, FieldErr(CodeInvalidArgs, "status", "invalid status %q: expected one of %s", q.Status, strings.Join(AgentStatuses, ", "))
	}
	stale, err := s.StaleMinutes()
	if err != nil {
		return nil, err
	}
	agents, err := Read(ctx, s, func(tx Tx) ([]Agent, error) { return ListAgentsIn(ctx, tx) })
	if err != nil {
		return nil, err
	}
	sort.Slice(agents, func(i, j int) bool { return agents[i].ID < agents[j].ID })
	now := s.Now()
	out := []AgentInfo{}
	for _, a := range agents {
		if (q.Role != "" && a.Role != q.Role) || (q.Status != "" && a.Status != q.Status) {
			continue
		}
		out = append(out, InfoOf(a, LiveOf(a.LastSeen, now, stale)))
	}
	work, err := s.workRead(ctx, agents)
	for i := range out {
		out[i].Work = work[out[i].ID]
	}
	return out, err
}

// ShowAgent returns one agent (AGENT_NOT_FOUND when absent). Looking at an
// agent never refreshes its last_seen.
func (s *Service) ShowAgent(ctx context.Context, id string) (AgentInfo, error) {
	if err := ValidateAgentRef("agent", id); err != nil {
		return AgentInfo{}, err
	}
	stale, err := s.StaleMinutes()
	if err != nil {
		return AgentInfo{}, err
	}
	a, err := Read(ctx, s, func(tx Tx) (*Agent, error) { return findAgent(ctx, tx, id) })
	if err != nil {
		return AgentInfo{}, err
	}
	if a == nil {
		return AgentInfo{}, AgentNotFound("agent", id)
	}
	info := InfoOf(*a, LiveOf(a.LastSeen, s.Now(), stale))
	work, err := s.workRead(ctx, []Agent{*a})
	info.Work = work[a.ID]
	return info, err
}

// RequireAgent finds an agent (see findAgent) inside tx or fails with code.
func RequireAgent(ctx context.Context, tx Tx, id string, code Code, field string) (*Agent, error) {
	a, err := findAgent(ctx, tx, id)
	if err != nil {
		return nil, err
	}
	if a == nil {
		switch code {
		case CodeUnknownSender:
			if ValidateAgentName(field, id) != nil {
				return nil, FieldErr(code, field, "sender %q is not known on this board", id)
			}
			return nil, FieldErr(code, field, "sender %q is not registered (register it with: {do})", id).With(Action{Do: ActRegister, Args: map[string]string{"agent": id}})
		case CodeUnknownRecipient:
			return nil, FieldErr(code, field, "recipient %q is not registered", id)
		}
		return nil, AgentNotFound(field, id)
	}
	return a, nil
}

// Heartbeat refreshes an existing agent's last_seen (seed 001 §4.2). It is
// idempotent and, like the passive heartbeat every command gives, it does
// not write a timeline event: liveness is derived, not a change of state.
func (s *Service) Heartbeat(ctx context.Context, id string) (AgentInfo, error) {
	if err := Allow(ctx, Act(id)); err != nil {
		return AgentInfo{}, err
	}
	if err := ValidateAgentRef("agent", id); err != nil {
		return AgentInfo{}, err
	}
	stale, err := s.StaleMinutes()
	if err != nil {
		return AgentInfo{}, err
	}
	a, err := Write(ctx, s, id, func(tx Tx) (Agent, error) {
		if _, err := RequireAgent(ctx, tx, id, CodeAgentNotFound, "agent"); err != nil {
			return Agent{}, err
		}
		if err := tx.TouchAgent(ctx, id, s.Now()); err != nil {
			return Agent{}, err
		}
		a, err := tx.GetAgent(ctx, id)
		if err != nil {
			return Agent{}, err
		}
		return *a, nil
	})
	if err != nil {
		return AgentInfo{}, err
	}
	return InfoOf(a, LiveOf(a.LastSeen, s.Now(), stale)), nil
}
