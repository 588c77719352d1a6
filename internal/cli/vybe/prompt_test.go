package vybe

import (
	"github.com/blackboard-hub/bb/internal/hub/resume"

	"testing"
)

func TestPromptNoTask(t *testing.T) {
	got := Prompt("a", resume.Brief{})
	if got != "== VYBE (task tracker) ==\n\nNo task assigned. You can work freely.\n" {
		t.Fatalf("%q", got)
	}
}
