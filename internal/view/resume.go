package view

import (
	"github.com/blackboard-hub/bb/internal/hub/resume"

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

// ResumePrompt renders the resume brief as bb shows it (bb resume, MCP
// bb_resume): the focus task by title and handle, what changed, and the
// bb commands (or MCP tools) that finish, log, save and hand over the work.
// Only the vybe drop-in prints vybe's commands (its own renderer).
func ResumePrompt(agent string, b resume.Brief, to Audience) string {
	var w strings.Builder
	if b.Task == nil {
		w.WriteString("No task is yours yet.")
		switch to {
		case ForMCP:
			w.WriteString(" Pick one with bb_task_list, then bb_task_begin {\"id\": \"<handle>\"}.\n")
		default:
			w.WriteString(" Pick one (bb task list), then bb task begin <handle>.\n")
		}
		notes(&w, b)
		return w.String()
	}
	t := b.Task
	h := hub.TaskHandle(t.ID)
	w.WriteString("Your current task:\n")
	// One-line fields are collapsed so a newline in them cannot forge a line.
	fmt.Fprintf(&w, "  Title: %s (%s)\n", line(t.Title), h)
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
	notes(&w, b)
	if len(b.RecentEvents) > 0 {
		w.WriteString("\nRecent activity:\n")
		for _, e := range b.RecentEvents {
			fmt.Fprintf(&w, "  - [%s] %s\n", e.Kind, clip(line(e.Message), 200))
		}
	}
	if len(b.PriorReasoning) > 0 {
		w.WriteString("\nProgress so far (your reasoning):\n")
		for _, e := range b.PriorReasoning {
			fmt.Fprintf(&w, "  - %s\n", clip(line(e.Message), 300))
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
			fmt.Fprintf(&w, "  - %s (%s, priority %d)\n", line(p.Title), hub.TaskHandle(p.ID), p.Priority)
		}
	}
	if len(b.Unlocks) > 0 {
		w.WriteString("\nCompleting this task unlocks:\n")
		for _, p := range b.Unlocks {
			fmt.Fprintf(&w, "  - %s (%s)\n", line(p.Title), hub.TaskHandle(p.ID))
		}
	}
	if to == ForMCP {
		w.WriteString("\nTools:\n")
		fmt.Fprintf(&w, "DONE:  bb_task_complete {\"id\": %q, \"summary\": \"<what you did>\"}\n", h)
		fmt.Fprintf(&w, "STUCK: bb_task_complete {\"id\": %q, \"outcome\": \"blocked\", \"summary\": \"<why>\"}\n", h)
		fmt.Fprintf(&w, "SAVE:  bb_memory_set {\"key\": \"<key>\", \"value\": \"<value>\", \"scope\": \"task\", \"scope_id\": %q}\n", h)
		fmt.Fprintf(&w, "FILES: bb_reserve {\"scope\": \"<path>\", \"bead\": %q}\n", h)
		fmt.Fprintf(&w, "HAND OVER: bb_send_mail {\"agent\": \"<agent>\", \"bead\": %q, \"category\": \"HANDOFF\", \"subject\": \"<one line>\", \"body\": \"<state of the work>\"}\n", h)
		return w.String()
	}
	a, q := shellquote.Quote(agent), shellquote.Quote(h)
	w.WriteString("\nCommands:\n")
	fmt.Fprintf(&w, "DONE:  bb --as %s task complete %s --summary \"<what you did>\"\n", a, q)
	fmt.Fprintf(&w, "STUCK: bb --as %s task complete %s --outcome blocked --summary \"<why>\"\n", a, q)
	fmt.Fprintf(&w, "SAVE:  bb --as %s memory set <key> <value> --scope task --scope-id %s\n", a, q)
	fmt.Fprintf(&w, "FILES: bb agent reserve --agent %s --scope <path> --bead %s\n", a, q)
	fmt.Fprintf(&w, "HAND OVER: bb agent send --from %s --to <agent> --bead %s --category HANDOFF --subject \"<one line>\" --body \"<state of the work>\"\n", a, q)
	return w.String()
}

func notes(w *strings.Builder, b resume.Brief) {
	if len(b.RelevantMemory) == 0 {
		return
	}
	w.WriteString("\nNotes (memory):\n")
	for _, m := range b.RelevantMemory {
		scope := m.Scope
		if m.ScopeID != "" {
			scope += ":" + m.ScopeID
		}
		fmt.Fprintf(w, "  - %s = %s [%s]\n", m.Key, clip(line(m.Value), 300), scope)
	}
}

// line collapses whitespace (newlines included) to single spaces.
func line(s string) string { return strings.Join(strings.Fields(s), " ") }

func clip(s string, max int) string {
	if len(s) > max {
		r := []rune(s[:max])
		if len(r) > 0 && r[len(r)-1] == '\uFFFD' {
			r = r[:len(r)-1]
		}
		return string(r) + "…"
	}
	return s
}
