package server

import (
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

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
	u.written(w, r, d, "needs", u.needsData)
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
	}
	return it.Agent
}

// canAccept is true when the person may accept the item from the panel: a
// HANDOFF or BLOCKED addressed to them or to everyone.
func canAccept(it overview.AttentionItem, viewer string) bool {
	return (it.Kind == overview.AttentionHandoff || it.Kind == overview.AttentionBlocked) && it.MessageID != "" &&
		(it.To == viewer || it.To == "")
}
