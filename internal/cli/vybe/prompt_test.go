package vybe

import (
	"testing"

	"github.com/blackboard-hub/bb/internal/hub"
)

func TestPromptNoTask(t *testing.T) {
	got := Prompt("a", hub.Brief{})
	if got != "== VYBE (task tracker) ==\n\nNo task assigned. You can work freely.\n" {
		t.Fatalf("%q", got)
	}
}
