package hooks

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/blackboard-hub/bb/internal/hub"
)

// maxCheckPaths bounds the paths one check looks at (a commit may touch
// many files; each costs an indexed lookup).
const maxCheckPaths = 2000

// PathCheckInput asks whether Agent may change Paths (relative paths
// resolve against Wd). It is the one rule behind the edit hook and the git
// guard.
type PathCheckInput struct {
	Agent string
	Wd    string
	Paths []string
	// RecordIncursions appends an INCURSION event for every overlap with
	// another agent's reservation (the git guard sets it; the edit check
	// records them itself).
	RecordIncursions bool
}

// PathHolder is another agent's reservation overlapping a checked path.
type PathHolder struct {
	AgentID   string    `json:"agent_id"`
	Scope     string    `json:"scope"`
	BeadID    string    `json:"bead_id"`
	ExpiresAt time.Time `json:"expires_at"`
	Overlap   string    `json:"overlap"`
	Liveness  string    `json:"liveness"`
	Expired   bool      `json:"expired"`
	// Blocking is true when the reservation is unexpired and its owner
	// active: the change must not go ahead.
	Blocking bool `json:"blocking"`
}

// PathCheck is the answer for one path.
type PathCheck struct {
	Path string `json:"path"`
	// Outcome is clear, conflict or stale (see CheckClear…).
	Outcome string `json:"outcome"`
	// Held is true when Agent itself holds an unexpired reservation
	// covering the path.
	Held    bool         `json:"held"`
	Holders []PathHolder `json:"holders"`
	// canonical scope, for the reservation that may follow
	scope hub.Scope
}

// PathCheckResult is the answer for a set of paths.
type PathCheckResult struct {
	Paths []PathCheck `json:"paths"`
	// Blocking is true when any path is held by another active agent.
	Blocking bool `json:"blocking"`
	// Reason names, for every blocked path, the holder, the scope, until
	// when, the bead and the command to ask for it ("" when not blocking).
	Reason string `json:"reason"`
	// Note describes stale holders that may be taken over ("" when none).
	Note string `json:"note"`
}

// CheckPaths checks paths against other agents' active reservations (exact
// and partial overlap, the rule of Reserve) without reserving anything.
func (s *Service) CheckPaths(ctx context.Context, in PathCheckInput) (PathCheckResult, error) {
	if err := hub.Allow(ctx, hub.Act(in.Agent)); err != nil {
		return PathCheckResult{}, err
	}
	if in.Agent != "" {
		if err := hub.ValidateStoredAgentID(in.Agent); err != nil {
			return PathCheckResult{}, err
		}
	}
	if len(in.Paths) > maxCheckPaths {
		return PathCheckResult{}, hub.FieldErr(hub.CodeInvalidArgs, "paths", "at most %d paths per check, got %d", maxCheckPaths, len(in.Paths))
	}
	stale, err := s.StaleMinutes()
	if err != nil {
		return PathCheckResult{}, err
	}
	res, err := hub.Read(ctx, s.Service, func(tx hub.Tx) (PathCheckResult, error) { return s.checkPathsTx(ctx, tx, in, stale) })
	if err != nil || !in.RecordIncursions {
		return res, err
	}
	return res, s.recordIncursions(ctx, in.Agent, "", res, "")
}

func (s *Service) checkPathsTx(ctx context.Context, tx hub.Tx, in PathCheckInput, staleMin int) (PathCheckResult, error) {
	now := s.Now()
	res := PathCheckResult{Paths: []PathCheck{}}
	var blocked, stale []string
	for _, p := range in.Paths {
		sc, err := s.ScopeOf(in.Wd, p)
		if err != nil {
			return PathCheckResult{}, err
		}
		rows, err := tx.OverlappingActive(ctx, sc.Path, hub.Ancestors(sc.Path), hub.MaxOverlapRows)
		if err != nil {
			return PathCheckResult{}, err
		}
		pc := PathCheck{Path: sc.Display(s.ProjectRoot), Outcome: hub.CheckClear, Holders: []PathHolder{}, scope: sc}
		for _, r := range rows {
			if r.AgentID == in.Agent {
				if now.Before(r.ExpiresAt) && hub.IsWithin(r.Scope, sc.Path) {
					pc.Held = true
				}
				continue
			}
			owner, err := tx.GetAgent(ctx, r.AgentID)
			if err != nil {
				return PathCheckResult{}, err
			}
			live := hub.LiveEvicted
			if owner != nil {
				live = hub.LiveOf(owner.LastSeen, now, staleMin).Agent
			}
			h := PathHolder{AgentID: r.AgentID, Scope: s.DisplayScope(r), BeadID: r.BeadID, ExpiresAt: r.ExpiresAt,
				Overlap: string(hub.ClassifyOverlap(r.Scope, sc.Path)), Liveness: string(live), Expired: !now.Before(r.ExpiresAt)}
			h.Blocking = !h.Expired && live == hub.LiveActive
			pc.Holders = append(pc.Holders, h)
			switch {
			case h.Blocking:
				pc.Outcome = hub.CheckConflict
				blocked = append(blocked, fmt.Sprintf("%s is reserved by %s (scope %s, until %s, bead %s); ask for it: bb agent send --from %s --to %s --bead %s --category BLOCKED --subject \"release %s\" --body \"I need to edit %s\"",
					pc.Path, h.AgentID, h.Scope, hub.FormatTime(h.ExpiresAt), h.BeadID, orDefault(in.Agent, "<you>"), h.AgentID, h.BeadID, h.Scope, pc.Path))
			default:
				if pc.Outcome == hub.CheckClear {
					pc.Outcome = hub.CheckStale
				}
				why := "its owner is " + string(live)
				if h.Expired {
					why = "it expired at " + hub.FormatTime(h.ExpiresAt)
				}
				stale = append(stale, fmt.Sprintf("%s was reserved by %s (scope %s) but %s: it may be taken over", pc.Path, h.AgentID, h.Scope, why))
			}
		}
		res.Paths = append(res.Paths, pc)
	}
	res.Blocking = len(blocked) > 0
	if res.Blocking {
		res.Reason = "Blackboard: " + strings.Join(blocked, "; ") + ". Work on something else meanwhile, or wait for the release."
	}
	if len(stale) > 0 {
		res.Note = "Blackboard: " + strings.Join(stale, "; ") + "."
	}
	return res, nil
}

// recordIncursions appends one INCURSION event per overlapping holder (at
// most maxIncursions), as a reserve attempt would.
func (s *Service) recordIncursions(ctx context.Context, agent, bead string, res PathCheckResult, outcome string) error {
	if agent == "" {
		return nil
	}
	return s.Store.Write(ctx, func(tx hub.Tx) error {
		n := 0
		for _, pc := range res.Paths {
			for _, h := range pc.Holders {
				if n == hub.MaxIncursions {
					return nil
				}
				n++
				out := outcome
				if out == "" {
					out = "conflict"
					if !h.Blocking {
						out = "stale_found"
					}
				}
				d := hub.OverlapDecision{Reservation: hub.Reservation{AgentID: h.AgentID, BeadID: h.BeadID, ExpiresAt: h.ExpiresAt, Scope: pc.scope.Path},
					Kind: hub.Overlap(h.Overlap), Liveness: hub.Liveness(h.Liveness), Expired: h.Expired, Blocking: h.Blocking}
				if rs, err := tx.OverlappingActive(ctx, pc.scope.Path, hub.Ancestors(pc.scope.Path), hub.MaxOverlapRows); err == nil {
					for _, r := range rs {
						if r.AgentID == h.AgentID && s.DisplayScope(r) == h.Scope {
							d.Reservation = r
							break
						}
					}
				}
				e := s.IncursionEvent(hub.ReserveInput{Agent: agent, BeadID: bead}, pc.scope, pc.Path, d, out)
				if err := tx.AppendEvent(ctx, e); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// EditInput is an edit tool about to write files.
type EditInput struct {
	Agent string
	// Session, when set (a hook), names the agent instead of Agent: the
	// one this client session works as. A session already mapped and
	// seen lately is looked up in the check's own read; otherwise it is
	// resolved first (ResolveSession), as a hook's other events do.
	Session *SessionInput
	Wd      string
	Paths   []string
	// Tool names the edit tool (for the timeline).
	Tool string
}

// Edit decisions.
const (
	EditAllow = "allow"
	EditDeny  = "deny"
)

// EditDecision is the answer of the edit check.
type EditDecision struct {
	Mode string `json:"mode"`
	// Decision is allow or deny (deny only in block mode).
	Decision string `json:"decision"`
	// Reason is what the model reads when the edit is denied, or, in warn
	// mode, the warning.
	Reason string `json:"reason"`
	// Note is an allowed edit's remark (takeover of a stale reservation,
	// a warning in warn mode); "" when there is nothing to say.
	Note string `json:"note"`
	// Reserved lists the paths reserved for the agent by this check.
	Reserved []string        `json:"reserved"`
	Check    PathCheckResult `json:"check"`
}

// CheckEdit decides whether agent's edit of paths may go ahead, by the
// board's hook settings: in block mode a path held by another active agent
// is denied (the reason names holder, scope, expiry, bead and the command
// to ask); in warn mode it is allowed with that warning; off checks
// nothing. Stale or evicted holders never block: the edit is allowed with
// a takeover note. A free path is reserved for the agent with a short TTL
// when auto-reserve is on (a path already held is renewed when half its
// TTL has passed). Every overlap records an INCURSION event.
func (s *Service) CheckEdit(ctx context.Context, in EditInput) (EditDecision, error) {
	sess := in.Session
	if sess != nil {
		if err := validateSessionInput(*sess); err != nil {
			return EditDecision{}, err
		}
		cp := *sess
		if err := bindSession(ctx, &cp); err != nil {
			return EditDecision{}, err
		}
		sess = &cp
	} else if err := hub.ValidateAgentRef("agent", in.Agent); err != nil {
		return EditDecision{}, err
	} else if err := hub.Allow(ctx, hub.Act(in.Agent)); err != nil {
		return EditDecision{}, err
	}
	if len(in.Paths) > maxCheckPaths {
		return EditDecision{}, hub.FieldErr(hub.CodeInvalidArgs, "paths", "at most %d paths per check, got %d", maxCheckPaths, len(in.Paths))
	}
	stale, err := s.StaleMinutes()
	if err != nil {
		return EditDecision{}, err
	}
	type snap struct {
		agent string // "": the session must be resolved first
		set   HookSettings
		check PathCheckResult
		bead  string
		held  map[string]time.Time // own reservations by scope path: expiry
	}
	now := s.Now()
	sn, err := hub.Read(ctx, s.Service, func(tx hub.Tx) (snap, error) {
		if sess != nil {
			hs, err := sess.freshSession(ctx, tx, now)
			if err != nil || hs == nil {
				return snap{}, err
			}
			in.Agent = hs.AgentID
		}
		set, err := s.hookSettingsTx(ctx, tx)
		if err != nil || set.Mode == hub.ModeOff {
			return snap{agent: in.Agent, set: set}, err
		}
		c, err := s.checkPathsTx(ctx, tx, PathCheckInput{Agent: in.Agent, Wd: in.Wd, Paths: in.Paths}, stale)
		if err != nil {
			return snap{}, err
		}
		sn := snap{agent: in.Agent, set: set, check: c, held: map[string]time.Time{}}
		if set.AutoReserve {
			a, err := tx.GetAgent(ctx, in.Agent)
			if err != nil {
				return snap{}, err
			}
			if a == nil {
				return snap{}, hub.AgentNotFound("agent", in.Agent)
			}
			sn.bead = a.FocusTaskID
			for _, pc := range c.Paths {
				rows, err := tx.ListReservations(ctx, hub.ReservationFilter{AgentID: in.Agent, Scope: pc.scope.Path, States: []string{hub.ResActive}, Limit: 1})
				if err != nil {
					return snap{}, err
				}
				if len(rows) > 0 {
					sn.held[pc.scope.Path] = rows[0].ExpiresAt
				}
			}
		}
		return sn, nil
	})
	if err != nil {
		return EditDecision{}, err
	}
	if sn.agent == "" {
		res, err := s.ResolveSession(ctx, *sess)
		if err != nil {
			return EditDecision{}, err
		}
		in.Agent, in.Session = res.AgentID, nil
		return s.CheckEdit(ctx, in)
	}
	d := EditDecision{Mode: sn.set.Mode, Decision: EditAllow, Reserved: []string{}, Check: sn.check}
	if sn.set.Mode == hub.ModeOff {
		return d, nil
	}
	if sn.check.Blocking {
		if err := s.recordIncursions(ctx, in.Agent, orDefault(sn.bead, "edit"), sn.check, ""); err != nil {
			return d, err
		}
		if sn.set.Mode == hub.ModeBlock {
			d.Decision, d.Reason = EditDeny, sn.check.Reason
		} else {
			d.Note = "Warning (hooks.mode warn): " + sn.check.Reason
		}
		return d, nil
	}
	d.Note = sn.check.Note
	if !sn.set.AutoReserve {
		if sn.check.Note != "" {
			return d, s.recordIncursions(ctx, in.Agent, orDefault(sn.bead, "edit"), sn.check, "")
		}
		return d, nil
	}
	now = s.Now()
	ttl := time.Duration(sn.set.ReserveTTL) * time.Minute
	for _, pc := range sn.check.Paths {
		exp, mine := sn.held[pc.scope.Path]
		if pc.Held && (!mine || exp.Sub(now) > ttl/2) {
			continue // covered by a reservation the agent holds
		}
		raw := pc.scope.Path
		if pc.scope.Wildcard {
			raw += "/*"
		}
		ttlMinutes := sn.set.ReserveTTL
		r, err := s.Reserve(ctx, hub.ReserveInput{Agent: in.Agent, Scope: raw, Wd: s.ProjectRoot, BeadID: orDefault(sn.bead, "edit"),
			TTLMinutes: &ttlMinutes, TakeoverStale: true})
		if hub.IsCode(err, hub.CodeReservationConflict) {
			// Taken by another agent since the check: the rule of block mode.
			if sn.set.Mode == hub.ModeBlock {
				d.Decision, d.Reason = EditDeny, "Blackboard: "+hub.MessageOf(err)
			} else {
				d.Note = "Warning (hooks.mode warn): " + hub.MessageOf(err)
			}
			return d, nil
		}
		if err != nil {
			return d, err
		}
		d.Reserved = append(d.Reserved, pc.Path)
		if len(r.TakenOver) > 0 {
			d.Note = strings.TrimSuffix(d.Note, ".") + "; taken over for you."
		}
	}
	return d, nil
}

// StopInput is the end of an agent's turn.
type StopInput struct {
	Client    string
	SessionID string
	Agent     string
	// Changes are the uncommitted files (canonical absolute paths);
	// ChangesKnown is false when git could not tell.
	Changes      []string
	ChangesKnown bool
	// HookActive is the client's "stop hook already active" flag: the
	// agent is continuing because of a stop hook, so nothing is said.
	HookActive bool
}

// Reminder is the end-of-turn reminder ("" when there is nothing new to
// remind of).
type Reminder struct {
	Text string `json:"text"`
}

// StopReminder reminds an agent, once, of reservations it holds on files
// without uncommitted changes (work done or abandoned: release them) and of
// acks it owes on handoffs and blockers. The same reminder is never given
// twice in a session, and nothing is said while the client's stop hook is
// already active.
func (s *Service) StopReminder(ctx context.Context, in StopInput) (Reminder, error) {
	if err := hub.Allow(ctx, hub.Act(in.Agent)); err != nil {
		return Reminder{}, err
	}
	if in.HookActive {
		return Reminder{}, nil
	}
	if err := hub.ValidateAgentRef("agent", in.Agent); err != nil {
		return Reminder{}, err
	}
	key := in.SessionID
	if key == "" {
		key = "agent:" + in.Agent
	}
	type found struct {
		text, print string
		hs          *hub.HookSession
	}
	f, err := hub.Read(ctx, s.Service, func(tx hub.Tx) (found, error) {
		hs, err := tx.GetHookSession(ctx, in.Client, key)
		if err != nil {
			return found{}, err
		}
		now := s.Now()
		var items, ids []string
		if in.ChangesKnown {
			held, err := tx.ListReservations(ctx, hub.ReservationFilter{AgentID: in.Agent, States: []string{hub.ResActive}, Limit: hub.StatusLimit})
			if err != nil {
				return found{}, err
			}
			sort.Slice(held, func(i, j int) bool { return held[i].Scope < held[j].Scope })
			var idle []string
			for _, r := range held {
				if !now.Before(r.ExpiresAt) {
					continue
				}
				touched := false
				for _, c := range in.Changes {
					if hub.IsWithin(r.Scope, c) {
						touched = true
						break
					}
				}
				if !touched {
					idle = append(idle, s.DisplayScope(r))
					ids = append(ids, r.ID+"@"+hub.FormatTime(r.ExpiresAt))
				}
			}
			if len(idle) > 0 {
				items = append(items, fmt.Sprintf("You still reserve %s but have no uncommitted changes there; release what you are done with so others can edit: %s",
					strings.Join(idle, ", "), releaseCommands(in.Agent, idle)))
			}
		}
		cursor, err := tx.ReadCursor(ctx, in.Agent)
		if err != nil {
			return found{}, err
		}
		entries, err := tx.Inbox(ctx, hub.InboxFilter{Agent: in.Agent, Limit: hub.DefaultInboxLimit, Cursor: cursor})
		if err != nil {
			return found{}, err
		}
		var owed []string
		for _, e := range entries {
			if e.RequiresAck && hub.StateOf(&e.Message, e.Receipt, cursor) != hub.StateAcked {
				owed = append(owed, fmt.Sprintf("%s from %s %q: bb agent ack --agent %s --message %s", hub.CategoryOr(&e.Message), e.From, hub.Preview(e.Subject, 60), in.Agent, e.UUID))
				ids = append(ids, e.UUID)
			}
		}
		if len(owed) > 0 {
			items = append(items, "You owe acks on: "+strings.Join(owed, "; "))
		}
		if len(items) == 0 {
			return found{hs: hs}, nil
		}
		sort.Strings(ids)
		sum := sha256.Sum256([]byte(strings.Join(ids, "\n")))
		return found{text: "[Blackboard] Before you stop: " + strings.Join(items, ". ") + ".", print: hex.EncodeToString(sum[:8]), hs: hs}, nil
	})
	if err != nil || f.text == "" || f.hs == nil || f.hs.Reminded == f.print {
		if f.hs == nil && f.text != "" && err == nil {
			return Reminder{Text: f.text}, nil // no session row to remember it by
		}
		return Reminder{}, err
	}
	err = s.Store.Write(ctx, func(tx hub.Tx) error {
		hs, err := tx.GetHookSession(ctx, in.Client, key)
		if err != nil || hs == nil {
			return err
		}
		if hs.Reminded == f.print {
			f.text = "" // another hook got there first
			return nil
		}
		hs.Reminded = f.print
		return tx.PutHookSession(ctx, hs)
	})
	return Reminder{Text: f.text}, err
}

func releaseCommands(agent string, scopes []string) string {
	var cs []string
	for i, sc := range scopes {
		if i == 3 {
			cs = append(cs, "…")
			break
		}
		cs = append(cs, fmt.Sprintf("bb agent release --agent %s --scope %s", agent, sc))
	}
	return strings.Join(cs, "; ")
}
