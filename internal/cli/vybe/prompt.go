package vybe

import (
	"github.com/blackboard-hub/bb/internal/hub/resume"

	"fmt"
	"strings"

	"github.com/blackboard-hub/bb/internal/shellquote"
	"github.com/blackboard-hub/bb/internal/view"
)

// The resume prompt of vybe's contract: the brief as text for an
// assistant's context, naming vybe's commands. The core returns the brief
// as data; internal/view renders the body once for bb and vybe, and this
// style gives vybe's words (its header, task ids, byte clipping and
// commands).

// PromptHeader starts every resume prompt.
const PromptHeader = "== VYBE (task tracker) =="

var promptStyle = view.ResumeStyle{
	Header:   PromptHeader + "\n\n",
	NoTask:   "No task assigned. You can work freely.\n",
	Clip:     clipBytes,
	Commands: promptCommands,
}

// Prompt renders the brief as the text injected into an assistant's context.
func Prompt(agent string, b resume.Brief) string {
	return view.Resume(agent, b, promptStyle)
}

func promptCommands(w *strings.Builder, agent string, t *resume.TaskView) {
	w.WriteString("\n== COMMANDS (run in Bash) ==\n")
	a := shellquote.Quote(agent)
	id := shellquote.Quote(t.ID)
	fmt.Fprintf(w, "DONE:  vybe task complete --agent %s --request-id \"done_$(date +%%s%%N)\" --id %s --outcome done --summary \"<what you did>\"\n", a, id)
	fmt.Fprintf(w, "STUCK: vybe task complete --agent %s --request-id \"stuck_$(date +%%s%%N)\" --id %s --outcome blocked --summary \"<why>\"\n", a, id)
	fmt.Fprintf(w, "LOG:   vybe push --agent %s --request-id \"log_$(date +%%s%%N)\" --json '{\"task_id\":\"%s\",\"event\":{\"kind\":\"progress\",\"message\":\"<what happened>\"}}'\n", a, t.ID)
	fmt.Fprintf(w, "SAVE:  vybe memory set --agent %s --request-id \"save_$(date +%%s%%N)\" --key <key> --value <value> --scope task --scope-id %s\n", a, id)
	fmt.Fprintf(w, "THINK: vybe push --agent %s --request-id \"think_$(date +%%s%%N)\" --json '{\"task_id\":\"%s\",\"event\":{\"kind\":\"reasoning\",\"message\":\"<your reasoning>\"}}'\n", a, t.ID)
}

// clipBytes cuts s to max bytes and marks the cut, as the original does
// (it may cut a character in two).
func clipBytes(s string, max int) string {
	if len(s) > max {
		s = s[:max] + "…"
	}
	return s
}
