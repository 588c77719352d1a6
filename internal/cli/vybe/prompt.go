package vybe

import (
	"github.com/blackboard-hub/bb/internal/hub/resume"

	"fmt"
	"strings"

	"github.com/blackboard-hub/bb/internal/shellquote"
)

// The resume prompt of vybe's contract: the brief as text for an
// assistant's context, naming vybe's commands. The core returns the brief
// as data; bb renders its own prompt (internal/view.ResumePrompt).

// PromptHeader starts every resume prompt.
const PromptHeader = "== VYBE (task tracker) =="

// Prompt renders the brief as the text injected into an assistant's context.
func Prompt(agent string, b resume.Brief) string {
	var w strings.Builder
	w.WriteString(PromptHeader + "\n")
	if b.Task == nil {
		w.WriteString("\nNo task assigned. You can work freely.\n")
		writeNotes(&w, b)
		return w.String()
	}
	t := b.Task
	w.WriteString("\nYour current task:\n")
	// One-line fields are collapsed so a newline in them cannot forge a line.
	fmt.Fprintf(&w, "  Title: %s\n", oneLine(t.Title, len(t.Title)))
	fmt.Fprintf(&w, "  Status: %s\n", t.Status)
	if t.BlockedReason != "" {
		fmt.Fprintf(&w, "  Blocked: %s\n", oneLine(t.BlockedReason, len(t.BlockedReason)))
	}
	fmt.Fprintf(&w, "  ID: %s\n", t.ID)
	if t.Description != "" {
		fmt.Fprintf(&w, "  Description: %s\n", t.Description)
	}
	if b.Counts != nil {
		fmt.Fprintf(&w, "\n%d task(s) awaiting action in this project.\n", b.Counts.Pending+b.Counts.Blocked)
	}
	writeNotes(&w, b)
	if len(b.RecentEvents) > 0 {
		w.WriteString("\nRecent activity:\n")
		for _, e := range b.RecentEvents {
			fmt.Fprintf(&w, "  - [%s] %s\n", e.Kind, oneLine(e.Message, 200))
		}
	}
	if len(b.PriorReasoning) > 0 {
		w.WriteString("\nProgress so far (your reasoning):\n")
		for _, e := range b.PriorReasoning {
			fmt.Fprintf(&w, "  - %s\n", oneLine(e.Message, 300))
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
			fmt.Fprintf(&w, "  - %s (%s, priority %d)\n", oneLine(p.Title, len(p.Title)), p.ID, p.Priority)
		}
	}
	if len(b.Unlocks) > 0 {
		w.WriteString("\nCompleting this task unlocks:\n")
		for _, p := range b.Unlocks {
			fmt.Fprintf(&w, "  - %s (%s)\n", oneLine(p.Title, len(p.Title)), p.ID)
		}
	}
	w.WriteString("\n== COMMANDS (run in Bash) ==\n")
	a := shellquote.Quote(agent)
	id := shellquote.Quote(t.ID)
	fmt.Fprintf(&w, "DONE:  vybe task complete --agent %s --request-id \"done_$(date +%%s%%N)\" --id %s --outcome done --summary \"<what you did>\"\n", a, id)
	fmt.Fprintf(&w, "STUCK: vybe task complete --agent %s --request-id \"stuck_$(date +%%s%%N)\" --id %s --outcome blocked --summary \"<why>\"\n", a, id)
	fmt.Fprintf(&w, "LOG:   vybe push --agent %s --request-id \"log_$(date +%%s%%N)\" --json '{\"task_id\":\"%s\",\"event\":{\"kind\":\"progress\",\"message\":\"<what happened>\"}}'\n", a, t.ID)
	fmt.Fprintf(&w, "SAVE:  vybe memory set --agent %s --request-id \"save_$(date +%%s%%N)\" --key <key> --value <value> --scope task --scope-id %s\n", a, id)
	fmt.Fprintf(&w, "THINK: vybe push --agent %s --request-id \"think_$(date +%%s%%N)\" --json '{\"task_id\":\"%s\",\"event\":{\"kind\":\"reasoning\",\"message\":\"<your reasoning>\"}}'\n", a, t.ID)
	return w.String()
}

func writeNotes(w *strings.Builder, b resume.Brief) {
	if len(b.RelevantMemory) == 0 {
		return
	}
	w.WriteString("\nNotes (memory):\n")
	for _, m := range b.RelevantMemory {
		scope := m.Scope
		if m.ScopeID != "" {
			scope += ":" + m.ScopeID
		}
		fmt.Fprintf(w, "  - %s = %s [%s]\n", m.Key, oneLine(m.Value, 300), scope)
	}
}

func oneLine(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > max {
		s = s[:max] + "…"
	}
	return s
}
