package hooks

import (
	"github.com/blackboard-hub/bb/internal/hub"

	"context"
	"fmt"
	"hash/fnv"
	"sort"
	"strings"
)

// Adoption reasons (seed 001 §3.4).
const (
	ReasonUncommittedScope = "uncommitted_scope"
	ReasonInProgress       = "in_progress_ownership"
)

// InitInput is `bb agent init` (seed 001 §3 and §7). Changes are the
// uncommitted files (`git status --porcelain`) as canonical absolute paths,
// gathered by the surface; ChangesNote says why there are none when git
// could not tell (not a repository, git missing).
type InitInput struct {
	NonInteractive bool
	Adopt          string
	Register       string
	Role           string
	Display        string
	Changes        []string
	ChangesNote    string
}

// AdoptionCandidate is an existing identity with evidence that this session
// may resume it.
type AdoptionCandidate struct {
	AgentID  string   `json:"agent_id"`
	Reason   string   `json:"reason"`
	Evidence string   `json:"evidence"`
	BeadIDs  []string `json:"bead_ids"`
	Scope    string   `json:"scope,omitempty"`
}

// InitResult is the outcome of `bb agent init`.
type InitResult struct {
	// Action is "suggest" (no flags: nothing changed), "register" or "adopt".
	Action        string
	AgentID       string
	Agent         *hub.AgentInfo
	SuggestedName string
	Reason        string
	// Recommend is what to do next, best first (a suggestion only):
	// ActAdopt of the first candidate, or ActStartSession under the
	// suggested name. Each surface words it in its own syntax.
	Recommend  []hub.Action
	Candidates []AdoptionCandidate
	Resume     *hub.Event
}

// startAs is the action of starting the session as the new agent name.
func startAs(name string) hub.Action {
	return hub.Action{Do: hub.ActStartSession, Args: map[string]string{"agent": name, "role": "worker"}}
}

var nameAdjectives = []string{"amber", "azure", "brisk", "calm", "cobalt", "coral", "crimson", "dapper", "eager", "ember",
	"fern", "gentle", "golden", "hazel", "indigo", "ivory", "jade", "keen", "lively", "lunar", "maple", "misty", "nimble",
	"noble", "olive", "opal", "quiet", "rapid", "russet", "sage", "silver", "solar", "steady", "swift", "teal", "tidy",
	"umber", "vivid", "wise", "zesty"}

var nameNouns = []string{"otter", "harbor", "falcon", "badger", "beacon", "cedar", "comet", "crane", "delta", "dune",
	"finch", "fjord", "garnet", "glade", "heron", "island", "kestrel", "lagoon", "lantern", "lynx", "marten", "meadow",
	"orca", "osprey", "pebble", "pine", "quartz", "raven", "reef", "ridge", "robin", "sparrow", "summit", "thicket",
	"tundra", "valley", "walrus", "willow", "wren", "yak"}

// SuggestName returns the first free adjective-noun name in a sequence
// seeded by the project root: the same board state gives the same name.
func (s *Service) SuggestName(ctx context.Context, tx Tx) (string, error) {
	h := fnv.New32a()
	h.Write([]byte(s.kernel.SlashRoot()))
	n := len(nameAdjectives) * len(nameNouns)
	start := int(h.Sum32() % uint32(n))
	for i := 0; i < n; i++ {
		k := (start + i*7919) % n // a prime stride visits every pair
		name := nameAdjectives[k%len(nameAdjectives)] + "-" + nameNouns[k/len(nameAdjectives)]
		a, err := tx.GetAgent(ctx, name)
		if err != nil {
			return "", err
		}
		if a == nil {
			return name, nil
		}
	}
	return "", hub.FieldErr(hub.CodeInvalidArgs, "register", "every suggested name is taken: register one with {field} <name>")
}

// EvidenceFor checks seed 001 §3.2 for one identity: uncommitted changes
// inside a scope it holds, else an in-progress task it owns.
func (s *Service) EvidenceFor(ctx context.Context, tx Tx, agent string, changes []string) (*AdoptionCandidate, error) {
	held, err := tx.ListReservations(ctx, hub.ReservationFilter{AgentID: agent, States: []string{hub.ResActive}, Limit: hub.StatusLimit})
	if err != nil {
		return nil, err
	}
	sort.Slice(held, func(i, j int) bool { return held[i].Scope < held[j].Scope })
	for _, r := range held {
		var files []string
		for _, f := range changes {
			if hub.IsWithin(r.Scope, f) {
				files = append(files, hub.Scope{Path: f}.Display(s.kernel.ProjectRoot))
			}
		}
		if len(files) == 0 {
			continue
		}
		sort.Strings(files)
		more := ""
		if len(files) > 3 {
			more = fmt.Sprintf(" and %d more", len(files)-3)
			files = files[:3]
		}
		scope := s.kernel.DisplayScope(r)
		return &AdoptionCandidate{AgentID: agent, Reason: ReasonUncommittedScope, Scope: scope, BeadIDs: []string{r.BeadID},
			Evidence: fmt.Sprintf("uncommitted changes inside %s reserved by %s: %s%s", scope, agent, strings.Join(files, ", "), more)}, nil
	}
	tasks, err := tx.InProgressTasksOwnedBy(ctx, agent, 20)
	if err != nil {
		return nil, err
	}
	if len(tasks) > 0 {
		sort.Strings(tasks)
		return &AdoptionCandidate{AgentID: agent, Reason: ReasonInProgress, BeadIDs: tasks,
			Evidence: fmt.Sprintf("%s owns in-progress task%s %s", agent, map[bool]string{true: "", false: "s"}[len(tasks) == 1], strings.Join(tasks, ", "))}, nil
	}
	return nil, nil
}

// inUse refuses adopting an identity whose session is still alive: seen
// within the stale window (active or quiet). It returns nil when the
// identity is stale or offline (or unknown), which adoption may consider.
func (s *Service) inUse(ctx context.Context, tx Tx, id string) (*hub.Error, error) {
	stale, err := s.kernel.StaleMinutes()
	if err != nil {
		return nil, err
	}
	a, err := tx.GetAgent(ctx, id)
	if err != nil || a == nil {
		return nil, err
	}
	live := hub.LiveOf(a.LastSeen, s.kernel.Now(), stale)
	if live.Presence != hub.PresActive && live.Presence != hub.PresQuiet {
		return nil, nil
	}
	return hub.FieldErr(hub.CodeAgentActive, "adopt", "%s is %s (last seen %s, stale after %d minutes without activity): its session is still alive, so it cannot be adopted; register a new identity, or ask %s ({do})",
		id, live.Presence, hub.ViewTime(a.LastSeen), stale, id).With(hub.Action{Do: hub.ActHandOff, Args: map[string]string{"agent": id}}), nil
}

// candidates finds every identity with adoption evidence, in a
// deterministic order (uncommitted scope first, then by id).
func (s *Service) candidates(ctx context.Context, tx Tx, changes []string) ([]AdoptionCandidate, error) {
	ids := map[string]bool{}
	for i, f := range changes {
		if i == 500 {
			break
		}
		rows, err := tx.OverlappingActive(ctx, f, hub.Ancestors(f), 20)
		if err != nil {
			return nil, err
		}
		for _, r := range rows {
			if hub.IsWithin(r.Scope, f) {
				ids[r.AgentID] = true
			}
		}
	}
	owners, err := tx.InProgressTaskOwners(ctx, 200)
	if err != nil {
		return nil, err
	}
	for o := range owners {
		ids[o] = true
	}
	out := []AdoptionCandidate{}
	for id := range ids {
		if live, err := s.inUse(ctx, tx, id); err != nil {
			return nil, err
		} else if live != nil {
			continue // never recommend taking over a live session
		}
		c, err := s.EvidenceFor(ctx, tx, id, changes)
		if err != nil {
			return nil, err
		}
		if c != nil {
			out = append(out, *c)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Reason != out[j].Reason {
			return out[i].Reason == ReasonUncommittedScope
		}
		return out[i].AgentID < out[j].AgentID
	})
	return out, nil
}

// InitSession bootstraps a session's identity (seed 001 §3, §7): register
// a new name, adopt an existing identity when the evidence allows it (and
// record RESUME), or — without a decision — suggest one. It never prompts;
// non-interactive calls that cannot decide fail with AMBIGUOUS_SESSION.
// Every outcome carries a deterministic reason.
func (s *Service) InitSession(ctx context.Context, in InitInput) (InitResult, error) {
	if in.Adopt != "" && in.Register != "" {
		return InitResult{}, hub.FieldErr(hub.CodeInvalidArgs, "adopt", "give either {adopt} or {register}, not both")
	}
	if own := hub.Acting(ctx); own != "" && in.Adopt == "" && in.Register == "" {
		// A credential's holder is its agent: it registers that one.
		in.Register = own
	}
	if err := hub.Allow(ctx, hub.Act(in.Adopt+in.Register)); err != nil {
		return InitResult{}, err
	}
	if in.Register != "" {
		role := in.Role
		if role == "" {
			role = "worker"
		}
		info, _, err := s.kernel.RegisterAgent(ctx, hub.RegisterInput{ID: in.Register, Display: in.Display, Role: role})
		if hub.IsCode(err, hub.CodeDuplicateAgentID) {
			return InitResult{}, hub.FieldErr(hub.CodeDuplicateAgentID, "register", "agent %q is already registered: a new session needs a new name (try {register} <another-name>), or {adopt} %s if you are resuming its work", in.Register, in.Register)
		}
		if err != nil {
			return InitResult{}, err
		}
		return InitResult{Action: "register", AgentID: info.ID, Agent: &info,
			Reason: fmt.Sprintf("registered new identity %s (role %s) as requested", info.ID, info.Role)}, nil
	}
	if in.Adopt != "" {
		return s.adopt(ctx, in)
	}
	if _, err := s.kernel.StaleMinutes(); err != nil {
		return InitResult{}, err
	}
	res, err := hub.ReadAs(ctx, s.kernel, func(tx Tx) (InitResult, error) {
		name, err := s.SuggestName(ctx, tx)
		if err != nil {
			return InitResult{}, err
		}
		cands, err := s.candidates(ctx, tx, in.Changes)
		return InitResult{Action: "suggest", SuggestedName: name, Candidates: cands}, err
	})
	if err != nil {
		return InitResult{}, err
	}
	switch len(res.Candidates) {
	case 0:
		res.Reason = "no existing identity has uncommitted changes inside its reserved scopes or an in-progress task"
		if in.ChangesNote != "" {
			res.Reason += " (" + in.ChangesNote + ")"
		}
		res.Recommend = []hub.Action{startAs(res.SuggestedName)}
	default:
		c := res.Candidates[0]
		res.Reason = fmt.Sprintf("%s may be resumed: %s", c.AgentID, c.Evidence)
		if len(res.Candidates) > 1 {
			res.Reason += fmt.Sprintf(" (%d identities have evidence; the first by rule is shown)", len(res.Candidates))
		}
		res.Recommend = []hub.Action{{Do: hub.ActAdopt, Args: map[string]string{"agent": c.AgentID}}, startAs(res.SuggestedName)}
	}
	if in.NonInteractive {
		next := "{do}"
		if len(res.Recommend) > 1 {
			next = "{do} (or start fresh: {do})"
		}
		return res, hub.FieldErr(hub.CodeAmbiguousSession, "", "cannot choose an identity without {adopt} or {register} in non-interactive mode: %s; recommendation: "+next, res.Reason).With(res.Recommend...)
	}
	return res, nil
}

func (s *Service) adopt(ctx context.Context, in InitInput) (InitResult, error) {
	if err := hub.ValidateAgentRef("adopt", in.Adopt); err != nil {
		return InitResult{}, err
	}
	stale, err := s.kernel.StaleMinutes()
	if err != nil {
		return InitResult{}, err
	}
	return hub.WriteAs(ctx, s.kernel, in, func(tx Tx) (InitResult, error) {
		if _, err := hub.RequireAgent(ctx, tx, in.Adopt, hub.CodeAgentNotFound, "adopt"); err != nil {
			return InitResult{}, err
		}
		c, err := s.EvidenceFor(ctx, tx, in.Adopt, in.Changes)
		if err != nil {
			return InitResult{}, err
		}
		if c == nil {
			name, err := s.SuggestName(ctx, tx)
			if err != nil {
				return InitResult{}, err
			}
			why := fmt.Sprintf("%s has no uncommitted changes inside a scope it reserves and owns no in-progress task", in.Adopt)
			if in.ChangesNote != "" {
				why += " (" + in.ChangesNote + ")"
			}
			return InitResult{}, hub.FieldErr(hub.CodeAdoptionRejected, "adopt", "adoption of %s rejected: %s; recommendation: {do}", in.Adopt, why).With(startAs(name))
		}
		// Evidence or not, a session still alive is never taken over.
		if live, err := s.inUse(ctx, tx, in.Adopt); err != nil {
			return InitResult{}, err
		} else if live != nil {
			return InitResult{}, live
		}
		now := s.kernel.Now()
		if err := tx.TouchAgent(ctx, in.Adopt, now); err != nil {
			return InitResult{}, err
		}
		bead := ""
		if len(c.BeadIDs) > 0 {
			bead = c.BeadIDs[0]
		}
		e := s.kernel.ProtocolEvent(hub.EventResume, bead, in.Adopt, in.Adopt, c.Scope, hub.ResumePayload{
			ResumeReason: c.Reason, PriorSessionAgent: in.Adopt, AdoptedAgent: in.Adopt, Evidence: c.Evidence, BeadIDs: c.BeadIDs,
		}, fmt.Sprintf("session resumed %s (%s): %s", in.Adopt, c.Reason, c.Evidence))
		if err := tx.AppendEvent(ctx, e); err != nil {
			return InitResult{}, err
		}
		a, err := tx.GetAgent(ctx, in.Adopt)
		if err != nil {
			return InitResult{}, err
		}
		info := hub.InfoOf(*a, hub.LiveOf(a.LastSeen, now, stale))
		return InitResult{Action: "adopt", AgentID: in.Adopt, Agent: &info, Candidates: []AdoptionCandidate{*c},
			Reason: fmt.Sprintf("adopted %s (%s): %s", in.Adopt, c.Reason, c.Evidence), Resume: e}, nil
	})
}
