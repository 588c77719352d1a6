package hardentest

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"testing"
)

// TestAgentMailTimestampsCarryTheLocalOffset: every timestamp agent-mail
// prints (created, read_at, acked_at) is ISO 8601 with the local offset, as
// Python's datetime.now().astimezone().isoformat() gives, here +05:30.
// (The shared tables keep UTC so text order is time order for every
// surface; the offset is applied on output.)
func TestAgentMailTimestampsCarryTheLocalOffset(t *testing.T) {
	dir := t.TempDir()
	env := []string{"AGENT_MAIL_DB=" + filepath.Join(dir, "mail.db"), "TZ=Asia/Kolkata"}
	local := regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{6})?\+05:30$`)
	check := func(what, ts string) {
		t.Helper()
		if !local.MatchString(ts) {
			t.Errorf("%s = %q, want a +05:30 timestamp", what, ts)
		}
	}
	var sent map[string]any
	if err := json.Unmarshal([]byte(must(t, dir, env, "agent-mail", "send", "--from", "p:a", "--to", "p:b", "--subject", "s", "--body", "b").stdout), &sent); err != nil {
		t.Fatal(err)
	}
	check("send created", sent["created"].(string))
	must(t, dir, env, "agent-mail", "read", "p:b")
	var rows []map[string]any
	if err := json.Unmarshal([]byte(must(t, dir, env, "agent-mail", "read", "p:b", "--all").stdout), &rows); err != nil || len(rows) != 1 {
		t.Fatalf("read --all: %v %v", err, rows)
	}
	check("read created", rows[0]["created"].(string))
	check("read_at", rows[0]["read_at"].(string))
	var ack map[string]any
	if err := json.Unmarshal([]byte(must(t, dir, env, "agent-mail", "ack", "p:b", sent["id"].(string)).stdout), &ack); err != nil {
		t.Fatal(err)
	}
	check("ack acked_at", ack["acked_at"].(string))
	if err := json.Unmarshal([]byte(must(t, dir, env, "agent-mail", "read", "p:b", "--all").stdout), &rows); err != nil {
		t.Fatal(err)
	}
	check("read acked_at", rows[0]["acked_at"].(string))
}

// TestVybeMemoryExplicitTypeStoredAsGiven: an explicit --type is stored as
// given, as the original does (`-v 1 -t boolean` was refused).
func TestVybeMemoryExplicitTypeStoredAsGiven(t *testing.T) {
	dir := newBoard(t)
	env := vybeEnv(dir)
	must(t, dir, env, "vybe", "--agent", "amber", "--request-id", "m1", "memory", "set", "-k", "flag", "-v", "1", "-t", "boolean")
	got := must(t, dir, env, "vybe", "--agent", "amber", "memory", "get", "-k", "flag").stdout
	if jsonField(t, got, "data.value") != "1" || jsonField(t, got, "data.value_type") != "boolean" {
		t.Fatalf("memory get: %s", got)
	}
}
