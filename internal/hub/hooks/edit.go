package hooks

import (
	"cmp"
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
	// RecordIncursions records every overlap with another agent's
	// reservation (the git guard sets it; the edit check records them
	// itself): an INCURSION when the paths go ahead, a
	// reservation.conflict when Mode is block and the check refuses them.
	RecordIncursions bool
	// Mode is the mode the caller enforces the check in (block, warn):
	// in block mode a blocking result refuses the paths.
	Mode string
	// Committed says that Agent is committing the paths on Where's
	// branch (the git guard's commit check): when nothing refuses them,
	// they are recorded for the merge-aware check as the edit check
	// records edits, so files changed by other means (a shell command, a
	// generator) count once committed.
	Committed bool
	Where     hub.Where
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
	// Where is where the holder works (work tree, branch, host).
	Where hub.Where `json:"where"`
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
	// decision is the core's answer for the scope, with the reservations
	// it was made on (incursions and auto-reserve read it).
	decision hub.Decision
}

// PathCheckResult is the answer for a set of paths.
type PathCheckResult struct {
	Paths []PathCheck `json:"paths"`
	// Blocking is true when any path is held by another active agent.
	Blocking bool `json:"blocking"`
	// Reason names, for every blocked path, the holder, the scope, until
	// when, the bead and the command to ask for it ("" when not blocking).
	Reason hub.Text `json:"reason"`
	// Note describes stale holders that may be taken over (empty when none).
	Note hub.Text `json:"note"`
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
	stale, err := s.kernel.StaleMinutes()
	if err != nil {
		return PathCheckResult{}, err
	}
	res, err := hub.ReadAs(ctx, s.kernel, func(tx Tx) (PathCheckResult, error) { return s.checkPathsTx(ctx, tx, in, stale) })
	where := hub.CleanWhere(in.Where)
	committed := in.Committed && in.Agent != "" && where.Branch != "" && !res.Blocking && len(res.Paths) > 0
	if err != nil || in.Agent == "" || !in.RecordIncursions && !committed {
		return res, err
	}
	return res, hub.WriteObserved(ctx, s.kernel, func(tx Tx) error {
		if in.RecordIncursions {
			entered := !res.Blocking || in.Mode == hub.ModeWarn
			if err := s.recordIncursionsTx(ctx, tx, in.Agent, "", res, "", entered); err != nil {
				return err
			}
		}
		if !committed {
			return nil
		}
		set, err := s.hookSettingsTx(ctx, tx)
		if err != nil || set.MergeCheck == hub.ModeOff {
			return err
		}
		paths := make([]string, len(res.Paths))
		for i, pc := range res.Paths {
			paths[i] = pc.scope.Path
		}
		return recordBranchEdits(ctx, tx, in.Agent, where, paths, s.kernel.Now())
	})
}

func (s *Service) checkPathsTx(ctx context.Context, tx Tx, in PathCheckInput, staleMin int) (PathCheckResult, error) {
	now := s.kernel.Now()
	res := PathCheckResult{Paths: []PathCheck{}}
	var blocked []hub.Text
	var stale []string
	owners := map[string]*hub.Agent{}
	for _, p := range in.Paths {
		sc, err := s.kernel.ScopeOf(in.Wd, p)
		if err != nil {
			return PathCheckResult{}, err
		}
		d, err := s.kernel.Decide(ctx, tx, in.Agent, sc, now, staleMin, owners)
		if err != nil {
			return PathCheckResult{}, err
		}
		pc := PathCheck{Path: sc.Display(s.kernel.ProjectRoot), Outcome: d.Outcome, Held: d.Held != nil, Holders: []PathHolder{}, scope: sc, decision: d}
		for _, o := range d.Others {
			r := o.Reservation
			h := PathHolder{AgentID: r.AgentID, Scope: s.kernel.DisplayScope(r), BeadID: r.BeadID, ExpiresAt: r.ExpiresAt,
				Overlap: string(o.Kind), Liveness: string(o.Liveness), Expired: o.Expired, Blocking: o.Blocking, Where: o.Where}
			pc.Holders = append(pc.Holders, h)
			who := h.AgentID
			if w := h.Where.Describe(); w != "" {
				who += " " + w
			}
			if h.Blocking {
				me := cmp.Or(in.Agent, "<you>")
				blocked = append(blocked, hub.TextOf(
					fmt.Sprintf("%s is reserved by %s (scope %s, for %s more, bead %s); ask for it: ", pc.Path, who, h.Scope, hub.DurationText(h.ExpiresAt.Sub(now)), h.BeadID),
					hub.Do(ActAskRelease, "from", me, "to", h.AgentID, "bead", h.BeadID, "scope", h.Scope, "path", pc.Path),
					", then ", hub.WaitForScope(me, pc.Path)))
				continue
			}
			why := "its owner is " + h.Liveness
			if h.Expired {
				why = "it expired " + hub.DurationText(now.Sub(h.ExpiresAt)) + " ago"
			}
			stale = append(stale, fmt.Sprintf("%s was reserved by %s (scope %s) but %s: it may be taken over", pc.Path, who, h.Scope, why))
		}
		res.Paths = append(res.Paths, pc)
	}
	res.Blocking = len(blocked) > 0
	if res.Blocking {
		res.Reason = hub.TextOf("Blackboard: ", hub.JoinText(blocked, "; "), ". Work on something else meanwhile, or wait for the release.")
	}
	if len(stale) > 0 {
		res.Note = hub.TextOf("Blackboard: " + strings.Join(stale, "; ") + ".")
	}
	return res, nil
}

// recordIncursions appends the events of res's overlaps in a write of its
// own (the edit check's refusal or warning).
func (s *Service) recordIncursions(ctx context.Context, agent, bead string, res PathCheckResult, outcome string, entered bool) error {
	if agent == "" {
		return nil
	}
	return hub.WriteObserved(ctx, s.kernel, func(tx Tx) error { return s.recordIncursionsTx(ctx, tx, agent, bead, res, outcome, entered) })
}

// recordIncursionsTx appends one event per overlapping holder of res's
// decisions (at most MaxIncursions), naming the reservation each decision
// was made on: an INCURSION when the edit or commit went ahead inside it
// (entered), a reservation.conflict when it was refused.
func (s *Service) recordIncursionsTx(ctx context.Context, tx Tx, agent, bead string, res PathCheckResult, outcome string, entered bool) error {
	if agent == "" {
		return nil
	}
	n := 0
	for _, pc := range res.Paths {
		for _, o := range pc.decision.Others {
			if n == hub.MaxIncursions {
				return nil
			}
			n++
			out := outcome
			if out == "" {
				out = "conflict"
				if !o.Blocking {
					out = "stale_found"
				}
			}
			e := s.kernel.OverlapEvent(hub.ReserveInput{Agent: agent, BeadID: bead}, pc.scope, pc.Path, o, out, entered)
			if err := tx.AppendEvent(ctx, e); err != nil {
				return err
			}
		}
	}
	return nil
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
	// Where is the editing session's work tree, branch and host: the
	// branch its edits are recorded on for the merge-aware check.
	Where hub.Where
	// Merged are risks of a previous answer (Merge) that the caller found
	// merged into its checkout (git: no commit of the branch touching the
	// path is missing from HEAD): left out of this answer.
	Merged []MergeRisk
}

// MergeRisk is a file another active agent changed on a branch that is not
// merged: editing it elsewhere conflicts when that branch merges.
type MergeRisk struct {
	Path     string `json:"path"`
	AgentID  string `json:"agent_id"`
	Branch   string `json:"branch"`
	Worktree string `json:"worktree"`
	Host     string `json:"host"`
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
	Reason hub.Text `json:"reason"`
	// Note is an allowed edit's remark (takeover of a stale reservation,
	// a warning in warn mode); empty when there is nothing to say.
	Note hub.Text `json:"note"`
	// Reserved lists the paths reserved for the agent by this check.
	Reserved []string        `json:"reserved"`
	Check    PathCheckResult `json:"check"`
	// Merge lists the files of this edit that other active agents changed
	// on branches the board does not know to be merged (hooks.merge_check;
	// the caller may verify with git and ask again with MergedBranches).
	Merge []MergeRisk `json:"merge"`
}

// mergeReason words the merge risks for the model.
func mergeReason(me string, risks []MergeRisk) hub.Text {
	var parts []hub.Text
	for _, r := range risks {
		who := r.AgentID + " on branch " + r.Branch
		if r.Worktree != "" && r.Worktree != "." {
			who += " in " + r.Worktree
		}
		if r.Host != "" {
			who += " (host " + r.Host + ")"
		}
		parts = append(parts, hub.TextOf(
			fmt.Sprintf("%s was changed by %s, which is not merged yet: editing it here will conflict when %s merges; coordinate first: ", r.Path, who, r.Branch),
			hub.Do(ActCoordinate, "from", cmp.Or(me, "<you>"), "to", r.AgentID, "path", r.Path, "branch", r.Branch)))
	}
	return hub.TextOf("Blackboard: ", hub.JoinText(parts, "; "), ".")
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
	sess, err := editCaller(ctx, in)
	if err != nil {
		return EditDecision{}, err
	}
	if len(in.Paths) > maxCheckPaths {
		return EditDecision{}, hub.FieldErr(hub.CodeInvalidArgs, "paths", "at most %d paths per check, got %d", maxCheckPaths, len(in.Paths))
	}
	stale, err := s.kernel.StaleMinutes()
	if err != nil {
		return EditDecision{}, err
	}
	q := editQuery{agent: in.Agent, sess: sess, wd: in.Wd, paths: in.Paths, where: hub.CleanWhere(in.Where), merged: mergedSet(in.Merged), now: s.kernel.Now(), stale: stale}
	if sess != nil && q.where.IsZero() {
		q.where = hub.CleanWhere(sess.Where)
	}
	sn, err := hub.ReadAs(ctx, s.kernel, func(tx Tx) (editSnap, error) { return s.editSnapTx(ctx, tx, q) })
	if err != nil {
		return EditDecision{}, err
	}
	if sn.agent == "" {
		// The session is not mapped (or not seen lately): map it, then
		// check for its agent.
		res, err := s.ResolveSession(ctx, *sess)
		if err != nil {
			return EditDecision{}, err
		}
		in.Agent, in.Session, in.Where = res.AgentID, nil, q.where
		return s.CheckEdit(ctx, in)
	}
	q.agent = sn.agent
	return s.decideEdit(ctx, q, sn)
}

// editCaller validates who edits: a hook session (bound to the request's
// credential, returned as a copy) or an agent (nil session).
func editCaller(ctx context.Context, in EditInput) (*SessionInput, error) {
	if in.Session == nil {
		if err := hub.ValidateAgentRef("agent", in.Agent); err != nil {
			return nil, err
		}
		return nil, hub.Allow(ctx, hub.Act(in.Agent))
	}
	if err := validateSessionInput(*in.Session); err != nil {
		return nil, err
	}
	cp := *in.Session
	if err := bindSession(ctx, &cp); err != nil {
		return nil, err
	}
	return &cp, nil
}

// mergedSet indexes the merge risks a caller found merged by branch and
// path.
func mergedSet(risks []MergeRisk) map[[2]string]bool {
	merged := map[[2]string]bool{}
	for _, r := range risks {
		merged[[2]string{r.Branch, r.Path}] = true
	}
	return merged
}

// editQuery is one edit check, validated.
type editQuery struct {
	agent string        // "" until the session is looked up
	sess  *SessionInput // nil: agent edits
	wd    string
	paths []string
	where hub.Where
	// merged are the (branch, path) pairs the caller found merged.
	merged map[[2]string]bool
	now    time.Time
	stale  int
}

// editSnap is what the edit check reads in one transaction.
type editSnap struct {
	agent string // "": the session must be resolved first
	set   HookSettings
	check PathCheckResult
	bead  string // the agent's focus, for automatic reservations
	merge []MergeRisk
}

// editSnapTx reads what an edit check decides on: the session's agent, the
// hook settings and, unless the check is off, the paths' holders, the
// agent's focus (when auto-reserve is on) and the merge risks (when the
// merge check is on).
func (s *Service) editSnapTx(ctx context.Context, tx Tx, q editQuery) (editSnap, error) {
	agent := q.agent
	if q.sess != nil {
		hs, err := q.sess.freshSession(ctx, tx, q.now)
		if err != nil || hs == nil {
			return editSnap{}, err
		}
		agent = hs.AgentID
	}
	set, err := s.hookSettingsTx(ctx, tx)
	if err != nil || set.Mode == hub.ModeOff {
		return editSnap{agent: agent, set: set}, err
	}
	c, err := s.checkPathsTx(ctx, tx, PathCheckInput{Agent: agent, Wd: q.wd, Paths: q.paths}, q.stale)
	if err != nil {
		return editSnap{}, err
	}
	sn := editSnap{agent: agent, set: set, check: c}
	if set.AutoReserve {
		if sn.bead, err = focusOf(ctx, tx, agent); err != nil {
			return editSnap{}, err
		}
	}
	if set.MergeCheck != hub.ModeOff && set.MergeCheck != "" {
		if sn.merge, err = s.mergeRisks(ctx, tx, agent, q.where, c, q.merged, q.now, q.stale); err != nil {
			return editSnap{}, err
		}
	}
	return sn, nil
}

// focusOf is the task an agent focuses on ("" when none).
func focusOf(ctx context.Context, tx Tx, agent string) (string, error) {
	a, err := tx.GetAgent(ctx, agent)
	if err != nil {
		return "", err
	}
	if a == nil {
		return "", hub.AgentNotFound("agent", agent)
	}
	return a.FocusTaskID, nil
}

// decideEdit applies the hook settings to what the check read: a file
// held by another active agent is denied (block) or warned of (warn); a
// merge risk likewise by the merge check; otherwise the edit goes ahead and
// its writes are made (editWrites).
func (s *Service) decideEdit(ctx context.Context, q editQuery, sn editSnap) (EditDecision, error) {
	d := EditDecision{Mode: sn.set.Mode, Decision: EditAllow, Reserved: []string{}, Check: sn.check, Merge: sn.merge}
	if d.Merge == nil {
		d.Merge = []MergeRisk{}
	}
	if sn.set.Mode == hub.ModeOff {
		return d, nil
	}
	bead := cmp.Or(sn.bead, "edit")
	if sn.check.Blocking {
		// Refused in block mode (a conflict), gone ahead in warn mode (an
		// incursion).
		if err := s.recordIncursions(ctx, q.agent, bead, sn.check, "", sn.set.Mode != hub.ModeBlock); err != nil {
			return d, err
		}
		d.refuse(sn.set.Mode == hub.ModeBlock, sn.check.Reason, hub.TextOf("Warning (hooks.mode warn): ", sn.check.Reason))
		return d, nil
	}
	d.Note = sn.check.Note
	if len(sn.merge) > 0 {
		why := mergeReason(q.agent, sn.merge)
		block := sn.set.MergeCheck == hub.ModeBlock
		warning := hub.TextOf("Warning (hooks.merge_check warn): ", why)
		if !d.Note.Empty() {
			warning = hub.TextOf(d.Note, " ", warning)
		}
		d.refuse(block, hub.TextOf(why, " (hooks.merge_check block)"), warning)
		if block {
			return d, nil
		}
	}
	todo := toReserve(sn, q.now)
	if len(todo) == 0 && sn.check.Note.Empty() {
		return d, nil
	}
	refused, err := s.editWrites(ctx, q, sn, bead, todo, &d)
	if err != nil {
		return d, err
	}
	if refused != nil && hub.IsCode(refused, hub.CodeReservationConflict) {
		// Taken by another agent since the check: the rule of block mode.
		msg := hub.MessageOf(refused)
		d.refuse(sn.set.Mode == hub.ModeBlock, hub.TextOf("Blackboard: "+msg), hub.TextOf("Warning (hooks.mode warn): "+msg))
	}
	return d, nil
}

// refuse denies the edit for reason when block is set; otherwise the edit
// stays allowed and warning is its note.
func (d *EditDecision) refuse(block bool, reason, warning hub.Text) {
	if block {
		d.Decision, d.Reason = EditDeny, reason
		return
	}
	d.Note = warning
}

// toReserve lists the paths an allowed edit reserves for its agent when
// auto-reserve is on: every path but those covered by a reservation the
// agent holds, either of a wider scope or with more than half the
// automatic TTL left.
func toReserve(sn editSnap, now time.Time) []PathCheck {
	if !sn.set.AutoReserve {
		return nil
	}
	ttl := time.Duration(sn.set.ReserveTTL) * time.Minute
	var todo []PathCheck
	for _, pc := range sn.check.Paths {
		if h := pc.decision.Held; h != nil && (h.Scope != pc.scope.Path || h.ExpiresAt.Sub(now) > ttl/2) {
			continue // covered by a reservation the agent holds
		}
		todo = append(todo, pc)
	}
	return todo
}

// editWrites writes everything an allowed edit leaves, in one transaction:
// without auto-reserve the incursions on stale holders; with it the
// reservations of todo (taking stale holders over, which records their
// incursions) and, when the merge check is on and the edit has a branch,
// the record of the files edited on that branch. refused is the refusal of
// a file another agent reserved since the check (the files before it stay
// reserved).
func (s *Service) editWrites(ctx context.Context, q editQuery, sn editSnap, bead string, todo []PathCheck, d *EditDecision) (refused error, err error) {
	record := q.where.Branch != "" && sn.set.MergeCheck != hub.ModeOff && len(todo) > 0
	err = hub.WriteObserved(ctx, s.kernel, func(tx Tx) error {
		if !sn.set.AutoReserve {
			return s.recordIncursionsTx(ctx, tx, q.agent, bead, sn.check, "", true)
		}
		now := s.kernel.Now()
		var paths []string
		var err error
		if paths, refused, err = s.reserveEditedTx(ctx, tx, q, sn.set.ReserveTTL, bead, todo, d); err != nil {
			return err
		}
		if record && len(paths) > 0 {
			return recordBranchEdits(ctx, tx, q.agent, q.where, paths, now)
		}
		return nil
	})
	return refused, err
}

// reserveEditedTx reserves todo for the editing agent for ttl minutes,
// adding each to d (and a takeover to its note), until one is refused;
// paths are the canonical scopes reserved.
func (s *Service) reserveEditedTx(ctx context.Context, tx Tx, q editQuery, ttl int, bead string, todo []PathCheck, d *EditDecision) (paths []string, refused, err error) {
	for _, pc := range todo {
		r, err := s.kernel.ReserveTx(ctx, tx, hub.ReserveInput{Agent: q.agent, BeadID: bead, TakeoverStale: true}, pc.scope, ttl, q.stale)
		if inner, ok := hub.Refused(err); ok {
			return paths, inner, nil // taken by another agent since the check
		}
		if err != nil {
			return nil, nil, err
		}
		d.Reserved = append(d.Reserved, pc.Path)
		paths = append(paths, pc.scope.Path)
		if len(r.TakenOver) > 0 {
			d.Note = hub.TextOf(d.Note.TrimSuffix("."), "; taken over for you.")
		}
	}
	return paths, nil, nil
}

// mergeRisks lists the files of the check that other active agents edited
// on a branch other than where's, leaving out branches known merged.
func (s *Service) mergeRisks(ctx context.Context, tx Tx, agent string, where hub.Where, c PathCheckResult, merged map[[2]string]bool, now time.Time, stale int) ([]MergeRisk, error) {
	paths := make([]string, 0, len(c.Paths))
	shown := map[string]string{}
	for _, pc := range c.Paths {
		paths = append(paths, pc.scope.Path)
		shown[pc.scope.Path] = pc.Path
	}
	edits, err := tx.BranchEditsOn(ctx, paths, maxMergeRows)
	if err != nil || len(edits) == 0 {
		return nil, err
	}
	var out []MergeRisk
	live := map[string]bool{}
	for _, e := range edits {
		if e.AgentID == agent || e.Branch == "" || e.Branch == where.Branch || merged[[2]string{e.Branch, shown[e.Path]}] {
			continue
		}
		active, ok := live[e.AgentID]
		if !ok {
			a, err := tx.GetAgent(ctx, e.AgentID)
			if err != nil {
				return nil, err
			}
			active = a != nil && hub.LiveOf(a.LastSeen, now, stale).Agent == hub.LiveActive
			live[e.AgentID] = active
		}
		if active {
			out = append(out, MergeRisk{Path: shown[e.Path], AgentID: e.AgentID, Branch: e.Branch, Worktree: e.Worktree, Host: e.Host})
		}
	}
	return out, nil
}

// BranchEditRetention is how long an edit on a branch is remembered for
// the merge-aware check: a record older than this is forgotten when its
// path is edited again, so the records a check reads stay few on the
// files everyone edits. A branch left unmerged and untouched that long,
// by an agent still active, is no longer warned of.
const BranchEditRetention = 30 * 24 * time.Hour

// recordBranchEdits records agent's edits of paths on where's branch, and
// forgets the records of those paths older than BranchEditRetention.
func recordBranchEdits(ctx context.Context, tx Tx, agent string, where hub.Where, paths []string, now time.Time) error {
	return tx.RecordBranchEdits(ctx, agent, where, paths, now, now.Add(-BranchEditRetention))
}

// maxMergeRows bounds the recorded edits one check reads.
const maxMergeRows = 50

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
	Text hub.Text `json:"text"`
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
	f, err := hub.ReadAs(ctx, s.kernel, func(tx Tx) (stopFound, error) { return s.stopFoundTx(ctx, tx, in, key) })
	switch {
	case err != nil || f.text.Empty():
		return Reminder{}, err
	case f.hs == nil:
		return Reminder{Text: f.text}, nil // no session row to remember it by
	case f.hs.Reminded == f.print:
		return Reminder{}, nil // given already
	}
	first, err := s.remember(ctx, in.Client, key, f.print)
	if !first {
		f.text = nil // another hook got there first
	}
	return Reminder{Text: f.text}, err
}

// stopFound is what the end of a turn has to remind of: the text ("" when
// nothing), its fingerprint (the reservations and messages it names) and
// the session's row (nil when the session has none).
type stopFound struct {
	text  hub.Text
	print string
	hs    *hub.HookSession
}

// stopFoundTx reads the reminder of in's agent: its idle reservations
// (when the uncommitted changes are known) and the acks it owes.
func (s *Service) stopFoundTx(ctx context.Context, tx Tx, in StopInput, key string) (stopFound, error) {
	hs, err := tx.GetHookSession(ctx, in.Client, key)
	if err != nil {
		return stopFound{}, err
	}
	now := s.kernel.Now()
	var items []hub.Text
	var ids []string
	if in.ChangesKnown {
		idle, rids, err := s.idleReservationsTx(ctx, tx, in.Agent, in.Changes, now)
		if err != nil {
			return stopFound{}, err
		}
		if len(idle) > 0 {
			items = append(items, hub.TextOf("You still reserve "+strings.Join(idle, ", ")+" but have no uncommitted changes there; release what you are done with so others can edit: ",
				releaseCommands(in.Agent, idle)))
		}
		ids = append(ids, rids...)
	}
	owed, mids, err := owedAcksTx(ctx, tx, in.Agent)
	if err != nil {
		return stopFound{}, err
	}
	if len(owed) > 0 {
		items = append(items, hub.TextOf("You owe acks on: ", hub.JoinText(owed, "; ")))
	}
	ids = append(ids, mids...)
	if len(items) == 0 {
		return stopFound{hs: hs}, nil
	}
	sort.Strings(ids)
	sum := sha256.Sum256([]byte(strings.Join(ids, "\n")))
	return stopFound{text: hub.TextOf("[Blackboard] Before you stop: ", hub.JoinText(items, ". "), "."), print: hex.EncodeToString(sum[:8]), hs: hs}, nil
}

// idleReservationsTx lists, by scope, the unexpired reservations of agent
// with no uncommitted change under them (shown scopes, and their ids with
// expiry for the fingerprint).
func (s *Service) idleReservationsTx(ctx context.Context, tx Tx, agent string, changes []string, now time.Time) (idle, ids []string, err error) {
	held, err := tx.ListReservations(ctx, hub.ReservationFilter{AgentID: agent, States: []string{hub.ResActive}, Limit: hub.StatusLimit})
	if err != nil {
		return nil, nil, err
	}
	sort.Slice(held, func(i, j int) bool { return held[i].Scope < held[j].Scope })
	for _, r := range held {
		if !now.Before(r.ExpiresAt) || changedWithin(r.Scope, changes) {
			continue
		}
		idle = append(idle, s.kernel.DisplayScope(r))
		ids = append(ids, r.ID+"@"+hub.FormatTime(r.ExpiresAt))
	}
	return idle, ids, nil
}

// changedWithin reports whether any of changes lies within scope.
func changedWithin(scope string, changes []string) bool {
	for _, c := range changes {
		if hub.IsWithin(scope, c) {
			return true
		}
	}
	return false
}

// owedAcksTx lists the messages in agent's inbox that require its ack and
// have none (worded, and their ids for the fingerprint).
func owedAcksTx(ctx context.Context, tx Tx, agent string) (owed []hub.Text, ids []string, err error) {
	cursor, err := tx.ReadCursor(ctx, agent)
	if err != nil {
		return nil, nil, err
	}
	entries, err := tx.Inbox(ctx, hub.InboxFilter{Agent: agent, Limit: hub.DefaultInboxLimit, Cursor: cursor})
	if err != nil {
		return nil, nil, err
	}
	for _, e := range entries {
		if e.RequiresAck && hub.StateOf(&e.Message, e.Receipt, cursor) != hub.StateAcked {
			owed = append(owed, hub.TextOf(fmt.Sprintf("%s from %s %q: ", hub.CategoryOr(&e.Message), e.From, hub.Preview(e.Subject, 60)), hub.Do(ActAck, "agent", agent, "message", e.UUID)))
			ids = append(ids, e.UUID)
		}
	}
	return owed, ids, nil
}

// remember records print as the reminder given in the session (client,
// key); first is false when another hook recorded it first.
func (s *Service) remember(ctx context.Context, client, key, print string) (first bool, err error) {
	first = true
	err = hub.WriteObserved(ctx, s.kernel, func(tx Tx) error {
		hs, err := tx.GetHookSession(ctx, client, key)
		if err != nil || hs == nil {
			return err
		}
		if hs.Reminded == print {
			first = false
			return nil
		}
		hs.Reminded = print
		return tx.PutHookSession(ctx, hs)
	})
	return first, err
}

func releaseCommands(agent string, scopes []string) hub.Text {
	var cs []hub.Text
	for i, sc := range scopes {
		if i == 3 {
			cs = append(cs, hub.TextOf("…"))
			break
		}
		cs = append(cs, hub.TextOf(hub.Do(ActRelease, "agent", agent, "scope", sc)))
	}
	return hub.JoinText(cs, "; ")
}
