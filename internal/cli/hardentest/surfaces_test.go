package hardentest

import (
	"path/filepath"
	"strings"
	"testing"
)

// vybeEnv points vybe at dir's board.
func vybeEnv(dir string) []string {
	return []string{"VYBE_DB_PATH=" + filepath.Join(dir, ".bb", "blackboard.db")}
}

// TestSamePathAndLimitRulesOnEverySurface: task artifact paths that `bb
// artifact add` refuses are refused by bb push too, and a push to a task
// that does not exist records nothing. The drop-ins follow their originals
// instead: vybe push records any artifact path as given (the original never
// opens it), agent-mail read --limit -1 means no cap (the original handed it
// to SQLite's LIMIT) and vybe resume --limit -1 the default (the original
// reads <= 0 so).
func TestSamePathAndLimitRulesOnEverySurface(t *testing.T) {
	dir := newBoard(t)
	venv := vybeEnv(dir)
	task := jsonField(t, must(t, dir, venv, "vybe", "--agent", "amber", "--request-id", "c1", "task", "create", "--title", "t").stdout, "data.task.id")
	events := func() string {
		return jsonField(t, must(t, dir, nil, "bb", "--json", "events").stdout, "data")
	}
	before := events()
	for i, p := range []string{"../../../etc/shadow", "/home/someone/.ssh/id_rsa", "src/../../x", "a/\xff.go"} {
		body := `{"task_id":"` + task + `","artifacts":[{"file_path":` + quote(p) + `}]}`
		b := runIn(t, dir, nil, "bb", "--json", "--as", "amber", "push", "--data", body)
		if b.code != 1 || (jsonField(t, b.stdout, "error.code") != "PATH_TRAVERSAL" && jsonField(t, b.stdout, "error.code") != "INVALID_INPUT") {
			t.Errorf("bb push %q: exit %d %s", p, b.code, b.stdout)
		}
		a := runIn(t, dir, nil, "bb", "--json", "--as", "amber", "artifact", "add", p, "d")
		if a.code != 1 || (i < 3 && jsonField(t, a.stdout, "error.code") != jsonField(t, b.stdout, "error.code")) {
			t.Errorf("bb artifact add %q and bb push disagree: %s / %s", p, a.stdout, b.stdout)
		}
	}
	r := runIn(t, dir, venv, "vybe", "--agent", "amber", "--request-id", "n1", "push", "--json", `{"task_id":"nope","event":{"kind":"progress","message":"x"}}`)
	if r.code != 1 || !strings.Contains(r.stdout, "task not found") {
		t.Errorf("vybe push to a missing task: exit %d %s", r.code, r.stdout)
	}
	if after := events(); after != before {
		t.Fatalf("refused pushes recorded events:\nbefore %s\nafter  %s", before, after)
	}
	// A path inside the project works on both.
	must(t, dir, venv, "vybe", "--agent", "amber", "--request-id", "ok1", "push", "--json", `{"task_id":"`+task+`","artifacts":[{"file_path":"out/report.md"}]}`)
	must(t, dir, nil, "bb", "--as", "amber", "push", "--data", `{"task_id":"`+task+`","artifacts":[{"file_path":"out/other.md"}]}`)
	// vybe records any path as given, and never opens it (none exists).
	outside := []string{"../../../etc/shadow", "/home/someone/.ssh/id_rsa", "src/../../x"}
	for i, p := range outside {
		body := `{"task_id":"` + task + `","artifacts":[{"file_path":` + quote(p) + `}]}`
		must(t, dir, venv, "vybe", "--agent", "amber", "--request-id", "v"+string(rune('a'+i)), "push", "--json", body)
	}
	// A document cannot ask bb push for vybe's rule.
	b := runIn(t, dir, nil, "bb", "--json", "--as", "amber", "push", "--data",
		`{"task_id":"`+task+`","artifact_paths_as_given":true,"artifacts":[{"file_path":"/etc/passwd"}]}`)
	if b.code != 1 || jsonField(t, b.stdout, "error.code") != "PATH_TRAVERSAL" {
		t.Errorf("bb push with artifact_paths_as_given: exit %d %s", b.code, b.stdout)
	}
	listed := must(t, dir, venv, "vybe", "--agent", "amber", "artifacts", "list", "--task-id", task).stdout
	for _, p := range append(outside, "out/report.md", "out/other.md") {
		if !strings.Contains(listed, `"file_path":`+quote(p)) {
			t.Errorf("vybe artifacts list lacks %q:\n%s", p, listed)
		}
	}
	if strings.Contains(listed, "/etc/passwd") {
		t.Errorf("bb push stored a refused path:\n%s", listed)
	}

	// Negative limits: the drop-ins as their originals, bb refuses.
	must(t, dir, venv, "vybe", "--agent", "amber", "--request-id", "r1", "resume", "--limit", "-1")
	if r := runIn(t, dir, nil, "bb", "--json", "--as", "amber", "resume", "--limit", "-1"); r.code != 1 || !strings.Contains(r.stdout, "limit must be between 1 and 1000") {
		t.Errorf("bb resume --limit -1: exit %d %s", r.code, r.stdout)
	}
	am := []string{"AGENT_MAIL_DB=" + filepath.Join(dir, ".bb", "blackboard.db")}
	for i := range 3 {
		must(t, dir, am, "agent-mail", "send", "--from", "proj:ann", "--to", "proj:bob", "--subject", "s"+string(rune('0'+i)))
	}
	if r := must(t, dir, am, "agent-mail", "read", "proj:bob", "--limit", "-1"); strings.Count(r.stdout, `"id"`) != 3 {
		t.Errorf("agent-mail read --limit -1 returned not all 3:\n%s", r.stdout)
	}
	if r := must(t, dir, am, "agent-mail", "read", "proj:bob", "--all", "--limit", "-5"); strings.Count(r.stdout, `"id"`) != 3 {
		t.Errorf("agent-mail read --limit -5 returned not all 3:\n%s", r.stdout)
	}
}

// TestInvalidUTF8RefusedEverywhere: the core refuses invalid UTF-8 in every
// field, whichever surface it comes from.
func TestInvalidUTF8RefusedEverywhere(t *testing.T) {
	dir := newBoard(t)
	x := "a\xffb"
	must(t, dir, nil, "bb", "agent", "register", "--name", "amber-otter", "--role", "r")
	must(t, dir, nil, "bb", "agent", "register", "--name", "blue-heron", "--role", "r")
	for _, args := range [][]string{
		{"--as", "abc", "post", x},
		{"--as", "abc", "status", "set", x},
		{"--as", "abc", "task", "create", x},
		{"--as", "abc", "memory", "set", "k", x},
		{"--as", "abc", "artifact", "add", "src/" + x + ".go", "d"},
		{"agent", "send", "--from", "amber-otter", "--to", "blue-heron", "--bead", "b" + x, "--category", "INFO", "--subject", "s", "--body", "b"},
		{"agent", "send", "--from", "amber-otter", "--to", "blue-heron", "--bead", "b", "--category", "INFO", "--subject", x, "--body", "b"},
		{"agent", "reserve", "--agent", "amber-otter", "--scope", x, "--bead", "b"},
		{"--as", "abc", "--request-id", x, "post", "hi"},
	} {
		r := runIn(t, dir, nil, "bb", append([]string{"--json"}, args...)...)
		if r.code != 1 || !strings.Contains(r.stdout, "UTF-8") {
			t.Errorf("bb %q: exit %d %s", args, r.code, r.stdout)
		}
	}
	venv := vybeEnv(dir)
	for _, args := range [][]string{
		{"--agent", "al" + x, "--request-id", "v1", "task", "create", "--title", "t"},
		{"--agent", "al", "--request-id", "v" + x, "task", "create", "--title", "t"},
		{"--agent", "al", "--request-id", "v2", "task", "create", "--title", x},
	} {
		r := runIn(t, dir, venv, "vybe", args...)
		if r.code != 1 || !strings.Contains(r.stdout, "UTF-8") {
			t.Errorf("vybe %q: exit %d %s", args, r.code, r.stdout)
		}
	}
	if out := must(t, dir, nil, "bb", "--json", "export").stdout; strings.Contains(out, "\ufffd") {
		t.Fatalf("a replacement character was stored:\n%s", out)
	}
}

func quote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		default:
			b.WriteByte(c) // invalid bytes pass through raw on purpose
		}
	}
	b.WriteByte('"')
	return b.String()
}

// TestBroadcastNamesAreNotIdentities: "*" and "broadcast" name the
// broadcast address, so no surface accepts them as an agent (an agent "*"
// was told every broadcast was addressed to it); sending to them still
// broadcasts.
func TestBroadcastNamesAreNotIdentities(t *testing.T) {
	dir := newBoard(t)
	for _, id := range []string{"*", "broadcast", "Broadcast"} {
		r := runIn(t, dir, nil, "bb", "--json", "--as", id, "post", "hi")
		if r.code != 1 || jsonField(t, r.stdout, "error.code") != "INVALID_IDENTITY" || !strings.Contains(r.stdout, "broadcast address") {
			t.Errorf("bb --as %q post: exit %d %s", id, r.code, r.stdout)
		}
		r = runIn(t, dir, vybeEnv(dir), "vybe", "--agent", id, "--request-id", "b1", "task", "create", "--title", "t")
		if r.code != 1 || !strings.Contains(r.stdout, "broadcast address") {
			t.Errorf("vybe --agent %q: exit %d %s", id, r.code, r.stdout)
		}
	}
	r := runIn(t, dir, nil, "bb", "--json", "agent", "register", "--name", "broadcast", "--role", "r")
	if r.code != 1 || !strings.Contains(r.stdout, "broadcast") {
		t.Errorf("bb agent register --name broadcast: exit %d %s", r.code, r.stdout)
	}
	am := []string{"AGENT_MAIL_DB=" + filepath.Join(dir, ".bb", "blackboard.db")}
	if r := runIn(t, dir, am, "agent-mail", "read", "*"); r.code != 1 {
		t.Errorf("agent-mail read '*': exit %d %s %s", r.code, r.stdout, r.stderr)
	}
	// Broadcasting still works on every surface.
	must(t, dir, nil, "bb", "--as", "alice", "post", "to all")
	must(t, dir, am, "agent-mail", "send", "--from", "p:ann", "--to", "*", "--subject", "to all")
	must(t, dir, nil, "bb", "agent", "register", "--name", "amber-otter", "--role", "r")
	must(t, dir, nil, "bb", "agent", "send", "--from", "amber-otter", "--to", "broadcast", "--bead", "b-1", "--category", "INFO", "--subject", "s", "--body", "b")
	if out := must(t, dir, nil, "bb", "--json", "agent", "list").stdout; strings.Contains(out, `"agent_id":"*"`) || strings.Contains(out, `"agent_id":"broadcast"`) {
		t.Errorf("a broadcast name is listed as an agent:\n%s", out)
	}
}

// TestPushErrorsNeverShowDecoderText: bb push and vybe push refuse a
// wrongly typed document naming the field, never with Go's decoder text
// ("cannot unmarshal … into Go struct field PushInput.task_id of type
// string"). Every field is walked by hub's TestParsePushInputErrorText.
func TestPushErrorsNeverShowDecoderText(t *testing.T) {
	dir := newBoard(t)
	const doc = `{"task_id":7,"event":{"kind":"k","message":"m"}}`
	const want = "invalid JSON input: field task_id must be a string, not a number"
	r := runIn(t, dir, nil, "bb", "--json", "--as", "amber", "push", "--data", doc)
	if r.code != 1 || jsonField(t, r.stdout, "error.message") != want {
		t.Errorf("bb push: exit %d %s", r.code, r.stdout)
	}
	r = runIn(t, dir, vybeEnv(dir), "vybe", "--agent", "amber", "--request-id", "d1", "push", "--json", doc)
	if r.code != 1 || jsonField(t, r.stdout, "error") != want {
		t.Errorf("vybe push: exit %d %s", r.code, r.stdout)
	}
}
