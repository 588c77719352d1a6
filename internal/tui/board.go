package tui

import (
	"github.com/blackboard-hub/bb/internal/hub/oversight"

	"github.com/blackboard-hub/bb/internal/hub/search"

	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/hub/leases"
	"github.com/blackboard-hub/bb/internal/hub/overview"
)

// The sections of the page, top to bottom.
const (
	secAttention = iota
	secAgents
	secReservations
	secLeases
	secTasks
	secTimeline
	nSections
)

// board is the page: the sections, the prompt of an action in progress,
// and the status line saying what the last action did.
type board struct {
	ctx    context.Context
	api    API
	viewer string
	wd     string
	st     styles
	keys   keyMap
	help   help.Model

	width, height int
	snap          snapshot
	loaded        bool
	// loading is true while a snapshot is read; dirty asks for another
	// once it arrives (the board moved meanwhile).
	loading, dirty bool

	secs  [nSections]section
	focus int
	// The items behind the rows of the acting sections.
	attItems []overview.AttentionItem
	agentIDs []string
	resItems []hub.Reservation

	filter string
	// search is the query whose hits replace the timeline ("" for none).
	search string
	hits   []search.Hit

	prompt    *prompt
	status    string
	statusErr bool
	fullHelp  bool
}

func newBoard(ctx context.Context, api API, viewer, wd string, st styles, keys keyMap) *board {
	b := &board{ctx: ctx, api: api, viewer: viewer, wd: wd, st: st, keys: keys, help: help.New()}
	b.help.Styles = help.Styles{ShortKey: st.Bold, ShortDesc: st.Status, ShortSeparator: st.Faint, Ellipsis: st.Faint,
		FullKey: st.Bold, FullDesc: st.Status, FullSeparator: st.Faint}
	b.secs[secAttention] = section{title: "Needs attention", empty: "nothing waits for a person"}
	b.secs[secAgents] = section{title: "Agents", empty: "no agents yet"}
	b.secs[secReservations] = section{title: "Reservations", empty: "no file is reserved"}
	b.secs[secLeases] = section{title: "Leases", empty: "no port, lock or slot is held"}
	b.secs[secTasks] = section{title: "Tasks", empty: "no open tasks"}
	b.secs[secTimeline] = section{title: "Timeline", empty: "nothing happened yet"}
	b.loading = true
	return b
}

// Messages of the page.
type (
	tickMsg   struct{}
	errMsg    struct{ err error }
	actionMsg struct {
		done string
		err  error
	}
	searchMsg struct {
		query string
		hits  []search.Hit
		err   error
	}
)

func (b *board) Init() tea.Cmd { return tea.Batch(b.loadCmd(), tick()) }

func tick() tea.Cmd { return tea.Tick(clockTick, func(time.Time) tea.Msg { return tickMsg{} }) }

func (b *board) loadCmd() tea.Cmd {
	return func() tea.Msg { return load(b.ctx, b.api) }
}

// reload reads a snapshot now, or once the one being read arrives.
func (b *board) reload() tea.Cmd {
	if b.loading {
		b.dirty = true
		return nil
	}
	b.loading = true
	return b.loadCmd()
}

func (b *board) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		b.width, b.height = msg.Width, msg.Height
		b.help.Width = msg.Width
		b.layout()
	case snapshotMsg:
		b.loading = false
		if msg.err != nil {
			b.setStatus("", msg.err)
		} else {
			b.snap, b.loaded = msg.snap, true
			b.rebuild()
		}
		if b.dirty {
			b.dirty = false
			return b, b.reload()
		}
	case changedMsg:
		return b, b.reload()
	case tickMsg:
		return b, tea.Batch(b.reload(), tick())
	case errMsg:
		b.setStatus("", msg.err)
	case actionMsg:
		b.setStatus(msg.done, msg.err)
		return b, b.reload()
	case searchMsg:
		if msg.err != nil {
			b.setStatus("", msg.err)
			break
		}
		b.search, b.hits = msg.query, msg.hits
		b.focus = secTimeline
		b.secs[secTimeline].cursor = 0
		b.setStatus(fmt.Sprintf("%d results for %q (esc: back to the timeline)", len(msg.hits), msg.query), nil)
		b.rebuild()
	case tea.KeyMsg:
		return b, b.key(msg)
	}
	return b, nil
}

func (b *board) setStatus(s string, err error) {
	b.status, b.statusErr = s, err != nil
	if err != nil {
		b.status = errorText(err)
	}
}

// errorText is what the person reads of a failure: the core's message with
// its code, never a Go error chain.
func errorText(err error) string {
	return "Error [" + string(hub.CodeOf(err)) + "]: " + hub.WordsOf(err, hub.Vocabulary{})
}

// key handles one key press.
func (b *board) key(msg tea.KeyMsg) tea.Cmd {
	if b.prompt != nil {
		switch {
		case key.Matches(msg, b.keys.Cancel):
			b.prompt = nil
			b.setStatus("cancelled", nil)
			return nil
		case key.Matches(msg, b.keys.Submit):
			p := b.prompt
			b.prompt = nil
			return p.submit(strings.TrimSpace(p.input.Value()))
		}
		return b.prompt.update(msg)
	}
	k := b.keys
	switch {
	case key.Matches(msg, k.Quit):
		return tea.Quit
	case key.Matches(msg, k.Help):
		b.fullHelp = !b.fullHelp
		b.layout()
	case key.Matches(msg, k.Next):
		b.focus = (b.focus + 1) % nSections
	case key.Matches(msg, k.Prev):
		b.focus = (b.focus + nSections - 1) % nSections
	case key.Matches(msg, k.Up):
		b.secs[b.focus].move(-1)
	case key.Matches(msg, k.Down):
		b.secs[b.focus].move(1)
	case key.Matches(msg, k.Cancel):
		switch {
		case b.search != "":
			b.search, b.hits = "", nil
			b.setStatus("back to the timeline", nil)
		case b.filter != "":
			b.filter = ""
			b.setStatus("filter cleared", nil)
		}
		b.rebuild()
	case key.Matches(msg, k.Accept):
		return b.accept()
	case key.Matches(msg, k.Answer):
		return b.answer(false)
	case key.Matches(msg, k.StepIn):
		return b.answer(true)
	case key.Matches(msg, k.Nudge):
		return b.nudge()
	case key.Matches(msg, k.Msg):
		return b.message()
	case key.Matches(msg, k.Release):
		return b.stepIn(false)
	case key.Matches(msg, k.Reassign):
		if b.focus == secAttention {
			return b.reassign()
		}
		return b.stepIn(true)
	case key.Matches(msg, k.Search):
		b.prompt = newPrompt(b.st, "Search", "", b.searchCmd)
	case key.Matches(msg, k.Filter):
		b.startFilter()
	}
	return nil
}

// selected returns the cursor's index in section sec, or -1 when that
// section is not focused or empty.
func (b *board) selected(sec int) int {
	if b.focus != sec || len(b.secs[sec].rows) == 0 {
		return -1
	}
	return b.secs[sec].cursor
}

// act runs an action against the core and reports it as an actionMsg.
func (b *board) act(do func(ctx context.Context) (string, error)) tea.Cmd {
	return func() tea.Msg {
		done, err := do(b.ctx)
		return actionMsg{done: done, err: err}
	}
}

// accept acknowledges the selected HANDOFF or BLOCKED as the person.
func (b *board) accept() tea.Cmd {
	i := b.selected(secAttention)
	if i < 0 || b.attItems[i].MessageID == "" || (b.attItems[i].Kind != overview.AttentionHandoff && b.attItems[i].Kind != overview.AttentionBlocked) {
		b.setStatus("select a HANDOFF or BLOCKED in Needs attention (tab, ↑↓) to accept it", nil)
		return nil
	}
	if !slices.Contains(b.attItems[i].Choices(b.viewer), overview.ChoiceAccept) {
		b.setStatus(fmt.Sprintf("it waits on %s, not on you: this item offers %s", b.attItems[i].To, choiceWords(b.attItems[i].Choices(b.viewer))), nil)
		return nil
	}
	it := b.attItems[i]
	return b.act(func(ctx context.Context) (string, error) {
		if _, err := b.api.AckMail(ctx, b.viewer, it.MessageID); err != nil {
			return "", err
		}
		return fmt.Sprintf("accepted the %s from %s", strings.ToUpper(it.Kind), it.Agent), nil
	})
}

// answer is the core's one answer to the selected attention item
// (oversight.Answer, as the dashboard's Answer): a reply to who raised it
// on its thread, a DECISION to a blocker, and accepted when it waits on
// the person; stepIn answers one between two agents and accepts it for
// its recipient. The item's choices (overview) say which fits.
func (b *board) answer(stepIn bool) tea.Cmd {
	i := b.selected(secAttention)
	if i < 0 {
		b.setStatus("select an item in Needs attention (tab, ↑↓) to answer it", nil)
		return nil
	}
	it := b.attItems[i]
	want := overview.ChoiceAnswer
	if stepIn {
		want = overview.ChoiceStepIn
	}
	if !slices.Contains(it.Choices(b.viewer), want) {
		b.setStatus(fmt.Sprintf("this item offers %s", choiceWords(it.Choices(b.viewer))), nil)
		return nil
	}
	label := fmt.Sprintf("Answer %s", it.Agent)
	if stepIn {
		label = fmt.Sprintf("Answer %s in place of %s (accepted for %s)", it.Agent, it.To, it.To)
	}
	b.prompt = newPrompt(b.st, label, "", func(text string) tea.Cmd {
		return b.act(func(ctx context.Context) (string, error) {
			res, err := b.api.Answer(ctx, oversight.AnswerInput{Person: b.viewer, Message: it.MessageID, Agent: it.Agent, BeadID: it.BeadID, Body: text, StepIn: stepIn})
			if err != nil {
				return "", err
			}
			switch {
			case res.For != "":
				return fmt.Sprintf("answered %s and accepted it for %s", it.Agent, res.For), nil
			case res.Accepted:
				return fmt.Sprintf("answered %s and accepted the %s", it.Agent, strings.ToUpper(it.Kind)), nil
			}
			return fmt.Sprintf("answered %s", it.Agent), nil
		})
	})
	return nil
}

// nudge reminds the agent the selected item waits on, as the person.
func (b *board) nudge() tea.Cmd {
	i := b.selected(secAttention)
	if i < 0 {
		b.setStatus("select an item in Needs attention (tab, ↑↓) to nudge who it waits on", nil)
		return nil
	}
	it := b.attItems[i]
	if !slices.Contains(it.Choices(b.viewer), overview.ChoiceNudge) {
		b.setStatus(fmt.Sprintf("this item offers %s", choiceWords(it.Choices(b.viewer))), nil)
		return nil
	}
	return b.act(func(ctx context.Context) (string, error) {
		if _, err := b.api.Nudge(ctx, oversight.NudgeInput{Person: b.viewer, Message: it.MessageID, Agent: it.WaitsOn(), BeadID: it.BeadID, Subject: it.Subject}); err != nil {
			return "", err
		}
		return "nudged " + it.WaitsOn(), nil
	})
}

// reassign hands the reservations the selected item between two agents
// concerns (overview.AttentionItem.Reassign, offered once their holder is
// past the takeover threshold) to the agent typed, the item's other agent
// by default: all of them or none, in one operation of the core
// (oversight.ReassignItem, each a step-in as g on a reservation).
func (b *board) reassign() tea.Cmd {
	i := b.selected(secAttention)
	if i < 0 {
		b.setStatus("select an item in Needs attention (tab, ↑↓) to reassign what it concerns", nil)
		return nil
	}
	it := b.attItems[i]
	if !slices.Contains(it.Choices(b.viewer), overview.ChoiceReassign) {
		b.setStatus(fmt.Sprintf("this item offers %s", choiceWords(it.Choices(b.viewer))), nil)
		return nil
	}
	var scopes []string
	for _, r := range it.Reassign {
		scopes = append(scopes, r.Scope)
	}
	shown, holder := strings.Join(scopes, ", "), it.Reassign[0].Holder
	label := fmt.Sprintf("Reassign %s from %s (%s) to", shown, holder, it.Reassign[0].Why)
	b.prompt = newPrompt(b.st, label, it.Reassign[0].To, func(to string) tea.Cmd {
		return b.act(func(ctx context.Context) (string, error) {
			res, err := b.api.ReassignItem(ctx, oversight.ReassignItemInput{Person: b.viewer, Item: it.ID(), To: to})
			if err != nil {
				return "", err
			}
			var done []string
			for _, h := range res.Reassigned {
				done = append(done, h.Scope)
			}
			return fmt.Sprintf("reassigned %s from %s to %s", strings.Join(done, ", "), res.Reassigned[0].Holder, res.Reassigned[0].To), nil
		})
	})
	return nil
}

// choiceWords names the choices by their keys.
func choiceWords(cs []string) string {
	keys := map[string]string{overview.ChoiceAccept: "a accept", overview.ChoiceAnswer: "r answer", overview.ChoiceNudge: "n nudge",
		overview.ChoiceReassign: "g reassign", overview.ChoiceStepIn: "s step in"}
	var out []string
	for _, c := range cs {
		out = append(out, keys[c])
	}
	if len(out) == 0 {
		return "nothing for you to do"
	}
	return strings.Join(out, ", ")
}

// message writes to the agent of the selected row of any section.
func (b *board) message() tea.Cmd {
	agent, bead := "", ""
	switch b.focus {
	case secAgents:
		if i := b.selected(secAgents); i >= 0 {
			agent = b.agentIDs[i]
		}
	case secAttention:
		if i := b.selected(secAttention); i >= 0 {
			agent, bead = b.attItems[i].Agent, b.attItems[i].BeadID
		}
	case secReservations:
		if i := b.selected(secReservations); i >= 0 {
			agent, bead = b.resItems[i].AgentID, b.resItems[i].BeadID
		}
	}
	if agent == "" {
		b.setStatus("select an agent (Agents, Needs attention or Reservations) to message it", nil)
		return nil
	}
	if bead == "" {
		bead = b.beadOf(agent)
	}
	b.promptMail("Message", agent, bead, "")
	return nil
}

// beadOf is the work item an agent is on: its reserved bead, else its
// focus task ("" when unknown).
func (b *board) beadOf(agent string) string {
	for _, r := range b.snap.reservations {
		if r.AgentID == agent && r.BeadID != "" {
			return r.BeadID
		}
	}
	for _, a := range b.snap.agents {
		if a.ID == agent {
			return a.FocusTaskID
		}
	}
	return ""
}

// promptMail asks for the text of a mail to agent about bead; without a
// known bead the first word typed names it (every mail is about one).
func (b *board) promptMail(verb, agent, bead, subject string) {
	label := fmt.Sprintf("%s %s about %s", verb, agent, bead)
	if bead == "" {
		label = fmt.Sprintf("%s %s (first word: the bead it is about)", verb, agent)
	}
	b.prompt = newPrompt(b.st, label, "", func(text string) tea.Cmd {
		bd, body := bead, text
		if bd == "" {
			bd, body, _ = strings.Cut(text, " ")
		}
		return b.act(func(ctx context.Context) (string, error) {
			subj := subject
			if subj == "" {
				subj, _, _ = strings.Cut(body, "\n")
			}
			if _, err := b.api.SendMail(ctx, hub.SendInput{From: b.viewer, To: agent, BeadID: bd, Category: hub.CategoryInfo,
				Subject: subj, Body: body}); err != nil {
				return "", err
			}
			return fmt.Sprintf("sent to %s about %s", agent, bd), nil
		})
	})
}

// stepIn releases the selected reservation, or asks whom to reassign it to.
func (b *board) stepIn(reassign bool) tea.Cmd {
	i := b.selected(secReservations)
	if i < 0 {
		b.setStatus("select a reservation in Reservations (tab, ↑↓) first", nil)
		return nil
	}
	r := b.resItems[i]
	scope := b.api.DisplayScope(r)
	run := func(to string) tea.Cmd {
		return b.act(func(ctx context.Context) (string, error) {
			_, err := b.api.StepIn(ctx, oversight.StepInInput{Person: b.viewer, Holder: r.AgentID, Scope: scope, Wd: b.wd, To: to})
			if err != nil {
				return "", err
			}
			if to == "" {
				return fmt.Sprintf("released %s of %s", scope, r.AgentID), nil
			}
			return fmt.Sprintf("reassigned %s from %s to %s", scope, r.AgentID, to), nil
		})
	}
	if !reassign {
		return run("")
	}
	b.prompt = newPrompt(b.st, fmt.Sprintf("Reassign %s from %s to", scope, r.AgentID), "", run)
	return nil
}

func (b *board) searchCmd(q string) tea.Cmd {
	if q == "" {
		return nil
	}
	return func() tea.Msg {
		res, err := b.api.Search(b.ctx, search.Query{Text: q, Agent: b.filter})
		return searchMsg{query: q, hits: res.Hits, err: err}
	}
}

// startFilter keeps only the selected agent's items, or asks for an agent.
func (b *board) startFilter() {
	if i := b.selected(secAgents); i >= 0 {
		b.applyFilter(b.agentIDs[i])
		return
	}
	b.prompt = newPrompt(b.st, "Filter by agent (empty: everyone)", b.filter, func(a string) tea.Cmd {
		b.applyFilter(a)
		return nil
	})
}

func (b *board) applyFilter(agent string) {
	if agent == b.filter {
		agent = ""
	}
	b.filter = agent
	if agent == "" {
		b.setStatus("showing everyone", nil)
	} else {
		b.setStatus("showing only "+agent+" (f again or esc: everyone)", nil)
	}
	b.rebuild()
}

// rebuild renders the rows of every section from the snapshot.
func (b *board) rebuild() {
	b.secs[secAttention].setRows(b.attentionRows())
	presence := map[string]hub.Presence{}
	for _, a := range b.snap.agents {
		presence[a.ID] = a.Presence
	}
	b.secs[secAgents].setRows(b.agentRows())
	b.secs[secReservations].setRows(b.reservationRows(presence))
	b.secs[secLeases].setRows(b.leaseRows())
	b.secs[secTasks].setRows(b.taskRows())
	b.secs[secTimeline].setRows(b.timelineRows())
	b.layout()
}

// attentionRows is Needs a person: what is asked, by whom, since when;
// it keeps the items shown (attItems) for the keys that act on them.
func (b *board) attentionRows() []row {
	s, f, st := b.snap, b.filter, b.st
	var rows []row
	b.attItems = b.attItems[:0]
	for _, it := range s.attention {
		if !keep(f, it.Agent, it.To) {
			continue
		}
		b.attItems = append(b.attItems, it)
		who := it.Agent
		if it.To != "" {
			who += " → " + it.To
		}
		wait := waited(it.WaitingMinutes)
		if it.Escalated {
			wait = "ESCALATED " + wait
		}
		about := orDash(hub.HandleText(it.BeadID))
		if it.Task != nil {
			about = it.Task.Handle
		}
		text := fmt.Sprintf("%-9s %-18s %-5s %s  %s", strings.ToUpper(it.Kind), who, wait, about, it.Subject)
		if it.Asked != "" {
			text += " — " + it.Asked
		}
		if it.Urgency != "" {
			text += " (urgency " + it.Urgency + ")"
		}
		if len(it.Files) > 0 {
			text += " · " + strings.Join(it.Files, ", ")
		}
		r := newRow(text).in(st.Warn)
		// The keys of the person's choices on it, the core's (overview).
		r.hint = choiceWords(it.Choices(b.viewer))
		if it.Escalated || it.Kind == overview.AttentionBlocked || it.Kind == overview.AttentionCritical || it.Kind == overview.AttentionStuck || it.Kind == overview.AttentionUnheard {
			r = r.in(st.Bad)
		}
		rows = append(rows, r)
	}
	return rows
}

// agentRows is one row per agent: presence, what it does, what it holds;
// it keeps the agents shown (agentIDs).
func (b *board) agentRows() []row {
	s, f, st := b.snap, b.filter, b.st
	held := map[string][]string{}
	for _, r := range s.reservations {
		held[r.AgentID] = append(held[r.AgentID], b.api.DisplayScope(r))
	}
	leased := map[string][]string{}
	for _, l := range s.leases {
		for _, h := range l.Holders {
			leased[h.Agent] = append(leased[h.Agent], leaseText(h.Lease))
		}
	}
	var rows []row
	b.agentIDs = b.agentIDs[:0]
	for _, a := range s.agents {
		if !keep(f, a.ID) {
			continue
		}
		b.agentIDs = append(b.agentIDs, a.ID)
		doing := hub.HandleText(a.CurrentTask)
		if doing == "" {
			doing = "—"
		}
		if a.Progress > 0 {
			doing = fmt.Sprintf("%d%% %s", a.Progress, doing)
		}
		if h := held[a.ID]; len(h) > 0 {
			doing += " · holds " + strings.Join(h, ", ")
		}
		if l := leased[a.ID]; len(l) > 0 {
			doing += " · leases " + strings.Join(l, ", ")
		}
		text := fmt.Sprintf("%-8s %-16s %-9s %s · %s", a.Presence, a.ID, a.Status, doing, ago(s.now, a.LastSeen))
		rows = append(rows, newRow(text).in(presenceStyle(st, a.Presence)))
	}
	return rows
}

// reservationRows is one row per reservation in its holder's presence
// colour; it keeps the reservations shown (resItems).
func (b *board) reservationRows(presence map[string]hub.Presence) []row {
	s, f, st := b.snap, b.filter, b.st
	var rows []row
	b.resItems = b.resItems[:0]
	for _, r := range s.reservations {
		if !keep(f, r.AgentID) {
			continue
		}
		b.resItems = append(b.resItems, r)
		p := presence[r.AgentID]
		text := fmt.Sprintf("%-28s %-16s %-8s %s · until %s", b.api.DisplayScope(r), r.AgentID, p, orDash(hub.HandleText(r.BeadID)), hub.WhenText(s.now, r.ExpiresAt))
		rows = append(rows, newRow(text).in(presenceStyle(st, p)))
	}
	return rows
}

// leaseRows is one row per grant and one per queue.
func (b *board) leaseRows() []row {
	s, f, st := b.snap, b.filter, b.st
	var rows []row
	for _, l := range s.leases {
		for _, h := range l.Holders {
			if !keep(f, h.Agent) {
				continue
			}
			text := fmt.Sprintf("%-28s %-16s %-8s fence %d · until %s", leaseText(h.Lease), h.Agent, h.Presence, h.Fence, hub.WhenText(s.now, h.ExpiresAt))
			rows = append(rows, newRow(text).in(presenceStyle(st, h.Presence)))
		}
		if n := len(l.Waiters); n > 0 {
			rows = append(rows, newRow(fmt.Sprintf("%-28s %d waiting", l.Name, n)).in(st.Bad))
		}
	}
	return rows
}

// taskRows is the tasks not completed.
func (b *board) taskRows() []row {
	s, f, st := b.snap, b.filter, b.st
	var rows []row
	for _, t := range s.tasks {
		if t.Status == "completed" || !keep(f, t.Owner) {
			continue
		}
		text := fmt.Sprintf("%-11s P%-2d %-14s %s  %s", t.Status, t.Priority, orDash(t.Owner), hub.TaskHandle(t.ID), t.Title)
		r := newRow(text)
		if t.Status == "blocked" {
			r = r.in(st.Bad)
		}
		rows = append(rows, r)
	}
	return rows
}

// timelineRows is the search's hits while a search is shown, else the
// timeline, newest first; it titles the section accordingly.
func (b *board) timelineRows() []row {
	s, f, st := b.snap, b.filter, b.st
	var rows []row
	if b.search != "" {
		b.secs[secTimeline].title = "Search: " + b.search
		for _, h := range b.hits {
			text := fmt.Sprintf("%-8s %-14s %s · %s", h.Kind, hub.HandleText(h.ID), h.Title, ago(s.now, h.At))
			if h.Snippet != "" && h.Snippet != h.Title {
				text += " — " + h.Snippet
			}
			rows = append(rows, newRow(text))
		}
		return rows
	}
	b.secs[secTimeline].title = "Timeline"
	for _, e := range slices.Backward(s.events) {
		if !keep(f, e.Agent, e.ToAgent) {
			continue
		}
		text := fmt.Sprintf("%-9s %-22s %-14s %s", ago(s.now, e.CreatedAt), hub.EventName(e.Type), e.Agent, eventText(e))
		rows = append(rows, newRow(text).in(st.Event))
	}
	return rows
}

func eventText(e hub.Event) string {
	if e.Message != "" {
		return hub.HandleText(e.Message)
	}
	parts := []string{}
	if e.ToAgent != "" && e.ToAgent != hub.Broadcast {
		parts = append(parts, "→ "+e.ToAgent)
	}
	if e.BeadID != "" {
		parts = append(parts, hub.HandleText(e.BeadID))
	}
	if e.Scope != "" {
		parts = append(parts, e.Scope)
	}
	return strings.Join(parts, " ")
}

func presenceStyle(st styles, p hub.Presence) lipgloss.Style {
	switch p {
	case hub.PresActive:
		return st.Good
	case hub.PresQuiet, hub.PresStale:
		return st.Warn
	case hub.PresOffline:
		return st.Bad
	}
	return st.Status
}

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

// waited is how long an item has waited: "now", "12m", "3h05".
func waited(min int) string {
	switch {
	case min < 1:
		return "now"
	case min < 60:
		return fmt.Sprintf("%dm", min)
	}
	return fmt.Sprintf("%dh%02d", min/60, min%60)
}

// layout shares the screen's height among the sections: each gets its
// title and one row, then as many rows as it has, in page order, up to a
// cap; the timeline takes what is left.
func (b *board) layout() {
	footer := 2
	if b.fullHelp {
		footer = 1
		for _, g := range b.keys.FullHelp() {
			footer = max(footer, 1+len(g))
		}
	}
	body := max(b.height-1-footer, 0)
	caps := [nSections]int{7, 8, 5, 4, 6, 0}
	var h [nSections]int
	left := body
	for i := range b.secs {
		h[i] = min(2, left)
		left -= h[i]
	}
	for i := range b.secs {
		if i == secTimeline {
			continue
		}
		more := min(b.secs[i].wants(), caps[i]) - h[i]
		if more > 0 {
			more = min(more, left)
			h[i] += more
			left -= more
		}
	}
	h[secTimeline] += left
	for i := range b.secs {
		b.secs[i].setSize(b.width, h[i])
	}
}

func (b *board) View() string {
	if b.width == 0 {
		return ""
	}
	var out strings.Builder
	head := "bb top · " + b.snap.root + " · as " + b.viewer
	if b.filter != "" {
		head += " · only " + b.filter
	}
	if !b.loaded {
		head += " · loading…"
	}
	out.WriteString(b.st.Header.Render(fit(head, b.width)))
	for i := range b.secs {
		if v := b.secs[i].view(b.st, b.focus == i); v != "" {
			out.WriteString("\n" + v)
		}
	}
	out.WriteString("\n")
	switch {
	case b.prompt != nil:
		out.WriteString(b.prompt.view(b.st, b.width))
	case b.statusErr:
		out.WriteString(b.st.Error.Render(fit(b.status, b.width)))
	default:
		out.WriteString(b.st.Status.Render(fit(b.status, b.width)))
	}
	out.WriteString("\n")
	if b.fullHelp {
		out.WriteString(b.help.FullHelpView(b.keys.FullHelp()))
	} else {
		out.WriteString(b.help.ShortHelpView(b.keys.ShortHelp()))
	}
	return out.String()
}

// leaseText names a lease as bb top shows it: port:web=41017, build.
func leaseText(l leases.Lease) string {
	if l.Value != "" {
		return l.Name + "=" + l.Value
	}
	return l.Name
}
