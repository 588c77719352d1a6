package server

import (
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/hub/oversight"
	"github.com/blackboard-hub/bb/internal/hub/overview"
)

// What needs a person, board-wide: the core's list (overview.Attention,
// the same bb top and the notifier show), escalated HANDOFF and BLOCKED
// marked with how long they waited. The panel refreshes on every change
// and again when the next escalation falls due, so an escalation shows
// without anything else happening; the person accepts what waits on
// them from it.

// needsData fills the panel.
func (u *ui) needsData(r *http.Request, d *pageData) error {
	a, err := u.s.svc.Attention(r.Context(), overview.AttentionFilter{})
	if err != nil {
		return err
	}
	// Escalated first (longest waiting on top), then the rest newest
	// first as the core lists them.
	slices.SortStableFunc(a.Items, func(x, y overview.AttentionItem) int {
		switch {
		case x.Escalated && y.Escalated:
			return x.At.Compare(y.At)
		case x.Escalated:
			return -1
		case y.Escalated:
			return 1
		}
		return 0
	})
	d.Needs = &a
	if !a.NextEscalation.IsZero() {
		// A second late rather than early: the panel reads the list again
		// once the item has crossed the line.
		d.NeedsDue = int(a.NextEscalation.Sub(a.Now)/time.Second) + 1
	}
	return nil
}

// sessionBox is how many items a conversation's "Needs attention" box
// shows, the newest.
const sessionBox = 5

// sessionAttention is what needs a person in one conversation (key
// "bead:<id>", "agent:<id>", or "" for the whole board): the core's list
// for that work item or agent.
func (u *ui) sessionAttention(r *http.Request, key string) ([]overview.AttentionItem, error) {
	f := overview.AttentionFilter{Limit: sessionBox}
	switch kind, id, _ := strings.Cut(key, ":"); kind {
	case "bead":
		f.BeadID = id
	case "agent":
		f.Agent = id
	}
	a, err := u.s.svc.Attention(r.Context(), f)
	return a.Items, err
}

// attentionLabel is an item's kind in the timeline's words (the labels of
// its rows: HANDOFF "Passed to", BLOCKED "Needs input").
func attentionLabel(kind string) string {
	switch kind {
	case overview.AttentionHandoff:
		return overview.LabelHandoff
	case overview.AttentionBlocked:
		return overview.LabelBlocked
	case overview.AttentionIncursion:
		return overview.LabelIncursion
	case overview.AttentionStuck:
		return "Blocked"
	case overview.AttentionUnheard:
		return "Unheard"
	}
	return kind // critical
}

// attentionHref is where an item of the box leads: its row in the
// timeline (a message or an event), or a blocked agent's own session.
func attentionHref(it overview.AttentionItem) string {
	switch {
	case it.MessageID != "":
		return "#m" + strconv.FormatInt(it.Seq, 10)
	case it.Kind == overview.AttentionIncursion:
		return "#e" + strconv.FormatInt(it.Seq, 10)
	}
	return "/?session=" + url.QueryEscape("agent:"+it.Agent)
}

// needsAccept accepts a HANDOFF or BLOCKED from the panel as the person
// and answers with the refreshed panel (the core refuses what does not
// wait on them).
func (u *ui) needsAccept(w http.ResponseWriter, r *http.Request) {
	d := u.base(r)
	if err := u.s.ack(r.Context(), d.Viewer, r.PathValue("id")); err != nil {
		u.fail(w, err)
		return
	}
	u.needsPanel(w, r, d)
}

// needsAnswer answers an item of the panel (the form's message, or the
// blocked agent and its work item; step_in=1 steps in between two agents)
// and answers with the refreshed panel.
func (u *ui) needsAnswer(w http.ResponseWriter, r *http.Request) {
	if err := u.form(w, r); err != nil {
		u.fail(w, err)
		return
	}
	d := u.base(r)
	f := r.PostForm
	in := oversight.AnswerInput{Message: f.Get("message"), Agent: f.Get("agent"), BeadID: f.Get("bead"), StepIn: f.Get("step_in") == "1"}
	if err := u.answerAs(r, d.Viewer, in); err != nil {
		u.fail(w, err)
		return
	}
	u.needsPanel(w, r, d)
}

// personActs reads a person's form on an item and registers and checks
// in the person who acts (the viewer); false when it answered with the
// failure.
func (u *ui) personActs(w http.ResponseWriter, r *http.Request) (*pageData, bool) {
	if err := u.form(w, r); err != nil {
		u.fail(w, err)
		return nil, false
	}
	d := u.base(r)
	if err := u.ensureHuman(r, d.Viewer); err != nil {
		u.fail(w, err)
		return nil, false
	}
	if _, err := u.s.svc.CheckIn(r.Context(), d.Viewer); err != nil {
		u.fail(w, err)
		return nil, false
	}
	return d, true
}

// needsNudge reminds the agent an item waits on, as the person.
func (u *ui) needsNudge(w http.ResponseWriter, r *http.Request) {
	d, ok := u.personActs(w, r)
	if !ok {
		return
	}
	f := r.PostForm
	in := oversight.NudgeInput{Person: d.Viewer, Message: f.Get("message"), Agent: f.Get("agent"), BeadID: f.Get("bead"), Subject: f.Get("subject")}
	if _, err := u.s.svc.Nudge(r.Context(), in); err != nil {
		u.fail(w, err)
		return
	}
	u.needsPanel(w, r, d)
}

// needsReassign hands every reservation an item between two agents
// concerns (overview.AttentionItem.Reassign) to the agent of the form (the
// item's other agent), as the person: one operation of the core
// (oversight.ReassignItem), all of them or none, which refuses it before
// the holder is past the takeover threshold.
func (u *ui) needsReassign(w http.ResponseWriter, r *http.Request) {
	d, ok := u.personActs(w, r)
	if !ok {
		return
	}
	f := r.PostForm
	in := oversight.ReassignItemInput{Person: d.Viewer, Item: f.Get("item"), To: strings.TrimSpace(f.Get("to"))}
	if in.To == "" {
		u.fail(w, hub.FieldErr(hub.CodeInvalidArgs, "to", "Name the agent that takes these files over."))
		return
	}
	if _, err := u.s.svc.ReassignItem(r.Context(), in); err != nil {
		u.fail(w, err)
		return
	}
	u.needsPanel(w, r, d)
}

// needsPanel answers a write from the panel with the refreshed panel.
func (u *ui) needsPanel(w http.ResponseWriter, r *http.Request, d *pageData) {
	u.written(w, r, d, "needs", u.needsData)
}

// choices are the person's choices on an item, as the core decides them.
func choices(it overview.AttentionItem, viewer string) map[string]bool {
	out := map[string]bool{}
	for _, c := range it.Choices(viewer) {
		out[c] = true
	}
	return out
}

// needWords is one item in the dashboard's words: who waits on whom.
func needWords(it overview.AttentionItem) string {
	on := it.To
	if on == "" {
		on = "everyone"
	}
	switch it.Kind {
	case overview.AttentionHandoff:
		return it.Agent + " hands over to " + on
	case overview.AttentionBlocked:
		return it.Agent + " is blocked on " + on
	case overview.AttentionStuck:
		return it.Agent + " is blocked"
	case overview.AttentionCritical:
		return "critical from " + it.Agent
	case overview.AttentionIncursion:
		return it.Agent + " edited inside " + on + "’s reservation"
	case overview.AttentionUnheard:
		return it.Agent + " is idle and has not heard its mail"
	}
	return it.Agent
}

// askedWords is what an item asks, in the dashboard's words: the request
// and its urgency ("" when nothing is asked).
func askedWords(it overview.AttentionItem) string { return it.AskedLine(nil) }

// canAccept is true when the person may accept the item from the panel: a
// HANDOFF or BLOCKED addressed to them or to everyone.
func canAccept(it overview.AttentionItem, viewer string) bool {
	return it.MessageID != "" && slices.Contains(it.Choices(viewer), overview.ChoiceAccept)
}
