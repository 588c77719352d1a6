package hub_test

import (
	"testing"

	"github.com/blackboard-hub/bb/internal/hub"
)

func TestHandleText(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"Dependency added: task_1796189168975273000_314b87ee8271 depends on task_1796189168885763000_bce53e137a38",
			"Dependency added: 314b87ee depends on bce53e13"},
		{"bead:task_1796189168975273000_314b87ee8271", "bead:314b87ee"},
		{`task "task_1796189168975273000_314b87ee8271" (pending)`, `task "314b87ee" (pending)`},
		{"task_created by bob", "task_created by bob"},
		{"my_task_1_abcdef12 stays", "my_task_1_abcdef12 stays"},
		{"task_1_abc is too short", "task_1_abc is too short"},
		{"task_1_abcdef12xyz is not an id", "task_1_abcdef12xyz is not an id"},
		{"", ""},
	} {
		if got := hub.HandleText(c.in); got != c.want {
			t.Errorf("HandleText(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	if hub.ShortHandleWords("abc") == "" || hub.ShortHandleWords("abcd") != "" {
		t.Error("ShortHandleWords explains only a handle under 4 characters")
	}
}
