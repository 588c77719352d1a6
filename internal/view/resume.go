package view

import (
	"github.com/blackboard-hub/bb/internal/hub/resume"
	"github.com/blackboard-hub/bb/internal/termtext"

	"fmt"
	"strings"

	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/shellquote"
)

// Audience is who reads a bb resume prompt: a shell (bb commands) or an
// MCP client (bb_* tools).
type Audience int

const (
	// ForCLI names bb commands.
	ForCLI Audience = iota
	// ForMCP names the MCP tools of bb mcp.
	ForMCP
)

// ResumeStyle is how one surface words the resume prompt. The body (the
// focus task, what changed, notes, activity, reasoning, artifacts, up next,
// unlocks) is rendered once, by Resume; a style gives what differs between
// surfaces: the header, the no-task line, how a task is named, how long
// lines are clipped, and the commands (or tools) that close the prompt.
type ResumeStyle struct {
	// Header starts every prompt ("" for none).
	Header string
	// NoTask is the whole line shown when no task is the agent's.
	NoTask string
	// Handles names tasks by handle (bb) rather than by id.
	Handles bool
	// Clip cuts a one-line text to at most max bytes, marking the cut.
	Clip func(s string, max int) string
	// Commands writes the closing lines for the focus task.
	Commands func(w *strings.Builder, agent string, t *resume.TaskView)
}

// bb's styles: the shell names bb commands, an MCP client bb_* tools.
var (
	bbCLI = ResumeStyle{
		NoTask:   "No task is yours yet. Pick one (bb task list), then bb task begin <handle>.\n",
		Handles:  true,
		Clip:     termtext.ClipBytes,
		Commands: bbCommands,
	}
	bbMCP = ResumeStyle{
		NoTask:   "No task is yours yet. Pick one with bb_task_list, then bb_task_begin {\"id\": \"<handle>\"}.\n",
		Handles:  true,
		Clip:     termtext.ClipBytes,
		Commands: bbTools,
	}
)

// ResumePrompt renders the resume brief as bb shows it (bb resume, MCP
// bb_resume): the focus task by title and handle, what changed, and the
// bb commands (or MCP tools) that finish, log, save and hand over the work.
// The vybe drop-in renders it with its own style (its commands).
func ResumePrompt(agent string, b resume.Brief, to Audience) string {
	if to == ForMCP {
		return Resume(agent, b, bbMCP)
	}
	return Resume(agent, b, bbCLI)
}

// Resume renders the resume brief in a surface's style.
func Resume(agent string, b resume.Brief, s ResumeStyle) string {
	var w strings.Builder
	w.WriteString(s.Header)
	if b.Task == nil {
		w.WriteString(s.NoTask)
		notes(&w, b, s)
		return w.String()
	}
	t := b.Task
	name := func(id string) string {
		if s.Handles {
			return hub.TaskHandle(id)
		}
		return id
	}
	w.WriteString("Your current task:\n")
	// One-line fields are collapsed so a newline in them cannot forge a line.
	if s.Handles {
		fmt.Fprintf(&w, "  Title: %s (%s)\n", line(t.Title), name(t.ID))
	} else {
		fmt.Fprintf(&w, "  Title: %s\n", line(t.Title))
	}
	fmt.Fprintf(&w, "  Status: %s\n", t.Status)
	if t.BlockedReason != "" {
		fmt.Fprintf(&w, "  Blocked: %s\n", line(t.BlockedReason))
	}
	fmt.Fprintf(&w, "  ID: %s\n", t.ID)
	if t.Description != "" {
		fmt.Fprintf(&w, "  Description: %s\n", t.Description)
	}
	if b.Counts != nil {
		fmt.Fprintf(&w, "\n%d task(s) awaiting action in this project.\n", b.Counts.Pending+b.Counts.Blocked)
	}
	notes(&w, b, s)
	if len(b.RecentEvents) > 0 {
		w.WriteString("\nRecent activity:\n")
		for _, e := range b.RecentEvents {
			fmt.Fprintf(&w, "  - [%s] %s\n", e.Kind, s.Clip(line(e.Message), 200))
		}
	}
	if len(b.PriorReasoning) > 0 {
		w.WriteString("\nProgress so far (your reasoning):\n")
		for _, e := range b.PriorReasoning {
			fmt.Fprintf(&w, "  - %s\n", s.Clip(line(e.Message), 300))
		}
	}
	if len(b.Artifacts) > 0 {
		w.WriteString("\nArtifacts:\n")
		for _, a := range b.Artifacts {
			fmt.Fprintf(&w, "  - %s\n", a.FilePath)
		}
	}
	if len(b.Pipeline) > 0 {
		w.WriteString("\nUp next:\n")
		for _, p := range b.Pipeline {
			fmt.Fprintf(&w, "  - %s (%s, priority %d)\n", line(p.Title), name(p.ID), p.Priority)
		}
	}
	if len(b.Unlocks) > 0 {
		w.WriteString("\nCompleting this task unlocks:\n")
		for _, p := range b.Unlocks {
			fmt.Fprintf(&w, "  - %s (%s)\n", line(p.Title), name(p.ID))
		}
	}
	s.Commands(&w, agent, t)
	return w.String()
}

func bbTools(w *strings.Builder, _ string, t *resume.TaskView) {
	h := hub.TaskHandle(t.ID)
	w.WriteString("\nTools:\n")
	fmt.Fprintf(w, "DONE:  bb_task_complete {\"id\": %q, \"summary\": \"<what you did>\"}\n", h)
	fmt.Fprintf(w, "STUCK: bb_task_complete {\"id\": %q, \"outcome\": \"blocked\", \"summary\": \"<why>\"}\n", h)
	fmt.Fprintf(w, "SAVE:  bb_memory_set {\"key\": \"<key>\", \"value\": \"<value>\", \"scope\": \"task\", \"scope_id\": %q}\n", h)
	fmt.Fprintf(w, "FILES: bb_reserve {\"scope\": \"<path>\", \"bead\": %q}\n", h)
	fmt.Fprintf(w, "HAND OVER: bb_send_mail {\"agent\": \"<agent>\", \"bead\": %q, \"category\": \"HANDOFF\", \"subject\": \"<one line>\", \"body\": \"<state of the work>\"}\n", h)
}

func bbCommands(w *strings.Builder, agent string, t *resume.TaskView) {
	a, q := shellquote.Quote(agent), shellquote.Quote(hub.TaskHandle(t.ID))
	w.WriteString("\nCommands:\n")
	fmt.Fprintf(w, "DONE:  bb --as %s task complete %s --summary \"<what you did>\"\n", a, q)
	fmt.Fprintf(w, "STUCK: bb --as %s task complete %s --outcome blocked --summary \"<why>\"\n", a, q)
	fmt.Fprintf(w, "SAVE:  bb --as %s memory set <key> <value> --scope task --scope-id %s\n", a, q)
	fmt.Fprintf(w, "FILES: bb agent reserve --agent %s --scope <path> --bead %s\n", a, q)
	fmt.Fprintf(w, "HAND OVER: bb agent send --from %s --to <agent> --bead %s --category HANDOFF --subject \"<one line>\" --body \"<state of the work>\"\n", a, q)
}

func notes(w *strings.Builder, b resume.Brief, s ResumeStyle) {
	if len(b.RelevantMemory) == 0 {
		return
	}
	w.WriteString("\nNotes (memory):\n")
	for _, m := range b.RelevantMemory {
		scope := m.Scope
		if m.ScopeID != "" {
			scope += ":" + m.ScopeID
		}
		fmt.Fprintf(w, "  - %s = %s [%s]\n", m.Key, s.Clip(line(m.Value), 300), scope)
	}
}

// line collapses whitespace (newlines included) to single spaces.
func line(s string) string { return strings.Join(strings.Fields(s), " ") }
