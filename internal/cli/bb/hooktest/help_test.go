package hooktest

import (
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/blackboard-hub/bb/internal/hookio"
)

// TestHookHelpListsEveryClient: `bb hook --help` names every client bb
// install supports, each on its own line with the events the board uses
// for it (hookio.Events, the list bb install writes), in that order.
func TestHookHelpListsEveryClient(t *testing.T) {
	c := exec.Command(bbPath(), "hook", "--help")
	c.Dir = t.TempDir()
	out, err := c.Output()
	if err != nil {
		t.Fatalf("bb hook --help: %v", err)
	}
	help := string(out)
	if len(hookio.Clients) < 7 {
		t.Fatalf("hookio.Clients lists %d clients: %v", len(hookio.Clients), hookio.Clients)
	}
	for _, client := range hookio.Clients {
		var names []string
		for _, e := range hookio.Events(client) {
			names = append(names, regexp.QuoteMeta(e.Name))
		}
		if len(names) == 0 {
			t.Fatalf("hookio.Events(%q) is empty", client)
		}
		line := regexp.MustCompile(`(?m)^  ` + regexp.QuoteMeta(client) + ` +` + strings.Join(names, " ") + `$`)
		if !line.MatchString(help) {
			t.Errorf("bb hook --help has no line for %s with its events %v:\n%s", client, names, help)
		}
	}
}
