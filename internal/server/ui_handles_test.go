package server_test

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/blackboard-hub/bb/internal/hub"
)

// Issue 39: the dashboard's timeline names tasks by their handles, as
// bb task list does; the full id stays only in links and titles.
func TestDashboardTimelineNamesTaskHandles(t *testing.T) {
	e := newEnv(t)
	var ids []string
	for _, title := range []string{"Write the parser", "Write the tests"} {
		var out struct {
			Data struct{ ID string } `json:"data"`
		}
		if err := json.Unmarshal([]byte(run(t, e.dir, "--json", "--as", "alice", "task", "create", title)), &out); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, out.Data.ID)
	}
	run(t, e.dir, "--as", "alice", "task", "dep", "add", ids[1], ids[0])
	_, tl := e.html("GET", "/ui/timeline", nil, "bb_human=ada-human")
	want := "Dependency added: " + hub.TaskHandle(ids[1]) + " depends on " + hub.TaskHandle(ids[0])
	if !strings.Contains(tl, want) {
		t.Fatalf("the timeline lacks %q:\n%s", want, tl)
	}
	// Outside attributes (links, titles), no full task id is shown.
	text := regexp.MustCompile(`<[^>]*>`).ReplaceAllString(tl, " ")
	if strings.Contains(text, "task_") {
		t.Errorf("the timeline's text shows a full task id:\n%s", text)
	}
}
