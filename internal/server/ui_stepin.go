package server

import (
	"github.com/blackboard-hub/bb/internal/hub/leases"
	"github.com/blackboard-hub/bb/internal/termtext"

	"github.com/blackboard-hub/bb/internal/hub/oversight"

	"github.com/blackboard-hub/bb/internal/hub/search"

	"net/http"
	"path/filepath"
	"strings"
	"time"

	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/hub/hooks"
	"github.com/blackboard-hub/bb/internal/hub/overview"
	"github.com/blackboard-hub/bb/internal/view"
)

// The person steps in: writes to one agent or everyone, passes work,
// answers a blocker. Every write goes through the core under the person's
// name, so agents see it on every surface (inbox, hooks, MCP).

// ensureHuman registers the viewer as an agent of role human the first time
// they send mail (mail needs a known sender).
func (u *ui) ensureHuman(r *http.Request, name string) error {
	return u.s.svc.EnsurePerson(r.Context(), name)
}

// send is the composer: to everyone it posts on the board; to one agent it
// sends mail of the chosen kind (a message, a handoff, a decision) about
// the session's work item. Both carry the chosen priority.
func (u *ui) send(w http.ResponseWriter, r *http.Request) {
	if err := u.form(w, r); err != nil {
		u.fail(w, err)
		return
	}
	to := strings.TrimSpace(r.PostForm.Get("to"))
	if to == "" || to == hub.Broadcast || to == hub.BroadcastName {
		u.post(w, r)
		return
	}
	d := u.base(r)
	d.Session = r.PostForm.Get("session")
	content := strings.TrimSpace(r.PostForm.Get("content"))
	bead := strings.TrimSpace(r.PostForm.Get("bead"))
	if bead == "" {
		if kind, id, _ := strings.Cut(d.Session, ":"); kind == "bead" {
			bead = id
		}
	}
	if bead == "" {
		u.fail(w, hub.FieldErr(hub.CodeMissingBeadID, "bead", "Name the work item this message is about (for example bb-12)."))
		return
	}
	if content == "" {
		u.fail(w, hub.FieldErr(hub.CodeInvalidArgs, "content", "Write a message first."))
		return
	}
	category := r.PostForm.Get("kind")
	if category == "" {
		category = "INFO"
	}
	// The subject is the person's, else the text's first line.
	subject := strings.TrimSpace(r.PostForm.Get("subject"))
	if subject == "" {
		subject = subjectOf(content)
	}
	in := hub.SendInput{From: d.Viewer, To: to, BeadID: bead, Category: category, Subject: subject, Body: content,
		Priority: r.PostForm.Get("priority")}
	if category == "HANDOFF" {
		in.NextAction = subject
	}
	if err := u.mail(r, in); err != nil {
		u.fail(w, err)
		return
	}
	u.timeline(w, r, d)
}

// answer is the conversation's Answer (and Reply) on a message: the
// core's one meaning of answering (oversight.Answer): a reply to its
// sender on its thread, a DECISION to a blocker, and the message accepted
// when it waited on the person; with step_in=1, a blocker between two
// agents answered and accepted for its recipient.
func (u *ui) answer(w http.ResponseWriter, r *http.Request) {
	if err := u.form(w, r); err != nil {
		u.fail(w, err)
		return
	}
	d := u.base(r)
	d.Session = r.PostForm.Get("session")
	if err := u.answerAs(r, d.Viewer, oversight.AnswerInput{Message: r.PathValue("id"), StepIn: r.PostForm.Get("step_in") == "1"}); err != nil {
		u.fail(w, err)
		return
	}
	u.timeline(w, r, d)
}

// answerAs runs the person's answer in (its body from the form's content).
func (u *ui) answerAs(r *http.Request, viewer string, in oversight.AnswerInput) error {
	in.Person, in.Body = viewer, strings.TrimSpace(r.PostForm.Get("content"))
	if in.Body == "" {
		return hub.FieldErr(hub.CodeInvalidArgs, "content", "Write the answer first.")
	}
	if err := u.ensureHuman(r, viewer); err != nil {
		return err
	}
	if _, err := u.s.svc.CheckIn(r.Context(), viewer); err != nil {
		return err
	}
	_, err := u.s.svc.Answer(r.Context(), in)
	return err
}

func (u *ui) mail(r *http.Request, in hub.SendInput) error {
	if err := u.ensureHuman(r, in.From); err != nil {
		return err
	}
	if _, err := u.s.svc.CheckIn(r.Context(), in.From); err != nil {
		return err
	}
	_, err := u.s.svc.SendMail(r.Context(), in)
	return err
}

// stepIn releases a reservation whose holder is past the takeover
// threshold, or hands it to another agent (to), as the person; the core
// decides whether it may. It answers with the refreshed agents column.
func (u *ui) stepIn(w http.ResponseWriter, r *http.Request) {
	if err := u.form(w, r); err != nil {
		u.fail(w, err)
		return
	}
	d := u.base(r)
	if err := u.ensureHuman(r, d.Viewer); err != nil {
		u.fail(w, err)
		return
	}
	in := oversight.StepInInput{Person: d.Viewer, Holder: r.PostForm.Get("holder"), Scope: r.PostForm.Get("scope"),
		To: strings.TrimSpace(r.PostForm.Get("to"))}
	if r.PostForm.Get("action") == "reassign" && in.To == "" {
		u.fail(w, hub.FieldErr(hub.CodeInvalidArgs, "to", "Pick the agent that takes these files over."))
		return
	}
	if _, err := u.s.svc.StepIn(r.Context(), in); err != nil {
		u.fail(w, err)
		return
	}
	u.written(w, r, d, "agents", u.agentsData)
}

// leaseStepIn releases a lease grant whose holder is stale, offline or
// expired, or hands it over to another agent (to), as the person; the
// core (leases.ReleaseLease) decides whether they may, as for
// reservations. It answers with the refreshed agents column.
func (u *ui) leaseStepIn(w http.ResponseWriter, r *http.Request) {
	if err := u.form(w, r); err != nil {
		u.fail(w, err)
		return
	}
	d := u.base(r)
	in := leases.ReleaseInput{Agent: d.Viewer, Name: r.PostForm.Get("name"), Holder: r.PostForm.Get("holder"),
		To: strings.TrimSpace(r.PostForm.Get("to"))}
	if in.Holder == "" {
		u.fail(w, hub.FieldErr(hub.CodeInvalidArgs, "holder", "Name whose lease to release."))
		return
	}
	if r.PostForm.Get("action") == "handover" && in.To == "" {
		u.fail(w, hub.FieldErr(hub.CodeInvalidArgs, "to", "Pick the agent that takes the lease over."))
		return
	}
	if err := u.ensureHuman(r, d.Viewer); err != nil {
		u.fail(w, err)
		return
	}
	if _, err := u.s.svc.ReleaseLease(r.Context(), in); err != nil {
		u.fail(w, err)
		return
	}
	u.written(w, r, d, "agents", u.agentsData)
}

// timeline answers a write with the refreshed timeline of the session.
func (u *ui) timeline(w http.ResponseWriter, r *http.Request, d *pageData) {
	u.written(w, r, d, "timeline", u.conversationData)
}

// written answers a write that was stored: the refreshed fragment name
// (filled by load), or, when that cannot be shown, a line saying that the
// write was kept — never an error status, so that the person does not
// send it again.
func (u *ui) written(w http.ResponseWriter, r *http.Request, d *pageData, name string, load func(*http.Request, *pageData) error) {
	if err := load(r, d); err != nil {
		u.kept(w, "the view could not be refreshed: "+hub.MessageOf(err))
		return
	}
	u.render(w, name, d)
}

// kept tells the person that their write was stored although what should
// follow it (why) did not happen.
func (u *ui) kept(w http.ResponseWriter, why string) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("HX-Retarget", "#flash")
	w.Header().Set("HX-Reswap", "innerHTML")
	w.WriteHeader(http.StatusOK)
	_ = u.tmpl.ExecuteTemplate(w, "flash", "Saved; "+why+". Reload the page to see it.")
}

// subjectOf is the first line of a message, cut to 80 characters.
func subjectOf(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return termtext.Clip(s, 80)
}

// searchData fills the search view from the box's query.
func (u *ui) searchData(r *http.Request, d *pageData) error {
	q := search.Query{Text: d.Query, Limit: 50}
	if k := r.URL.Query().Get("kind"); k != "" {
		q.Kinds = []string{k}
	}
	res, err := u.s.svc.Search(r.Context(), q)
	if err != nil {
		return err
	}
	d.Results = &res
	return nil
}

// marked splits a search snippet or title into plain and matched parts.
func marked(s string, marks [][2]int) []view.Part { return view.Parts(s, marks) }

// statusWord is a status in a person's words.
func statusWord(s string) string {
	switch s {
	case hub.TaskPending:
		return "to do"
	case hub.TaskInProgress:
		return "in progress"
	case hub.TaskCompleted:
		return "done"
	}
	return strings.ReplaceAll(s, "_", " ")
}

// capitalize starts s with a capital letter.
func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// clock is when t was, as a person reads it in a timeline: the time of
// day, with the date when it is not today.
func clock(now, t time.Time) string {
	t, now = t.Local(), now.Local()
	if y, m, d := t.Date(); y == now.Year() && m == now.Month() && d == now.Day() {
		return t.Format("15:04")
	}
	return t.Format("Jan 2 15:04")
}

// baseName shows the project folder's name, not its full path.
func baseName(p string) string { return filepath.Base(p) }

// delivered asks the core which of the direct messages shown (not
// addressed to the viewer) reached their recipient's context, when and
// how, for the recipients whose receipts the viewer may see.
func (u *ui) delivered(r *http.Request, items []overview.TimelineItem, viewer string) (map[string]hooks.DeliveryReceipt, error) {
	byTo := map[string][]string{}
	for _, it := range items {
		if m := it.Message; m != nil && !m.IsBroadcast() && m.To != viewer {
			byTo[m.To] = append(byTo[m.To], m.UUID)
		}
	}
	out := map[string]hooks.DeliveryReceipt{}
	for to, ids := range byTo {
		if !hub.May(r.Context(), hooks.DeliveryTarget(to)) {
			continue // not the viewer's to see: left out, not a refused page
		}
		rs, err := u.s.svc.DeliveredTo(r.Context(), to, ids)
		if err != nil {
			return nil, err
		}
		for _, d := range rs {
			out[d.MessageID] = d
		}
	}
	return out, nil
}
