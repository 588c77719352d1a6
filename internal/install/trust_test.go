package install

import (
	"os"
	"path/filepath"
	"testing"
)

func envOf(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

// TestGeminiTrust: the longest matching rule of trustedFolders.json wins,
// TRUST_PARENT covers the rule's parent, the environment overrides the
// file, and --trust adds the folder as TRUST_FOLDER keeping other rules.
func TestGeminiTrust(t *testing.T) {
	home := t.TempDir()
	proj := filepath.Join(home, "work", "proj")
	if err := os.MkdirAll(proj, 0o755); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"HOME": home}
	ie := New(Options{}, proj, "", envOf(env))
	gemini := Clients()[2]
	folders := filepath.Join(home, ".gemini", "trustedFolders.json")
	write := func(s string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(folders), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(folders, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	state := func() string { return ie.CheckTrust(gemini).State }
	if s := state(); s != TrustUntrusted {
		t.Fatalf("no file: %s", s)
	}
	write(`{"` + filepath.Join(home, "work") + `": "TRUST_FOLDER"}`)
	if s := state(); s != TrustTrusted {
		t.Fatalf("parent folder trusted: %s", s)
	}
	write(`{"` + filepath.Join(home, "work") + `": "TRUST_FOLDER", "` + proj + `": "DO_NOT_TRUST"}`)
	if s := state(); s != TrustUntrusted {
		t.Fatalf("longer DO_NOT_TRUST rule: %s", s)
	}
	write(`{"` + filepath.Join(proj, "x") + `": "TRUST_PARENT"}`)
	if s := state(); s != TrustTrusted {
		t.Fatalf("TRUST_PARENT of a child: %s", s)
	}
	env["GEMINI_CLI_TRUST_WORKSPACE"] = "false"
	if s := state(); s != TrustUntrusted {
		t.Fatalf("env false: %s", s)
	}
	delete(env, "GEMINI_CLI_TRUST_WORKSPACE")
	write("{\n  // other rules stay\n  \"/elsewhere\": \"DO_NOT_TRUST\"\n}\n")
	tr, err := ie.RecordTrust(gemini)
	if err != nil || tr.State != TrustTrusted || !tr.Recorded {
		t.Fatalf("record: %+v %v", tr, err)
	}
	b, _ := os.ReadFile(folders)
	var rules map[string]string
	if err := DecodeJSONC(string(b), &rules); err != nil || rules["/elsewhere"] != "DO_NOT_TRUST" || rules[proj] != "TRUST_FOLDER" {
		t.Fatalf("after record: %v %s", err, b)
	}
}

// TestClaudeTrust: trusted only when ~/.claude.json has accepted the
// folder's trust dialog and the MCP server of .mcp.json is approved.
func TestClaudeTrust(t *testing.T) {
	home := t.TempDir()
	proj := filepath.Join(home, "proj")
	if err := os.MkdirAll(filepath.Join(proj, ".claude"), 0o755); err != nil {
		t.Fatal(err)
	}
	ie := New(Options{}, proj, "", envOf(map[string]string{"HOME": home}))
	claude := Clients()[0]
	cfg := filepath.Join(home, ".claude.json")
	for _, c := range []struct{ json, want string }{
		{``, TrustUntrusted},
		{`{"projects": {"` + proj + `": {"hasTrustDialogAccepted": true}}}`, TrustUntrusted},
		{`{"projects": {"` + proj + `": {"hasTrustDialogAccepted": true, "enabledMcpjsonServers": ["blackboard"]}}}`, TrustTrusted},
		{`{"projects": {"` + proj + `": {"hasTrustDialogAccepted": true, "enabledMcpjsonServers": ["blackboard"], "disabledMcpjsonServers": ["blackboard"]}}}`, TrustUntrusted},
		{`{"projects": {"` + proj + `": {"enabledMcpjsonServers": ["blackboard"]}}}`, TrustUntrusted},
		{`{"projects": {"` + home + `": {"hasTrustDialogAccepted": true}, "` + proj + `": {"enableAllProjectMcpServers": true}}}`, TrustTrusted},
	} {
		if c.json == "" {
			_ = os.Remove(cfg)
		} else if err := os.WriteFile(cfg, []byte(c.json), 0o600); err != nil {
			t.Fatal(err)
		}
		if got := ie.CheckTrust(claude); got.State != c.want {
			t.Errorf("%s: %+v, want %s", c.json, got, c.want)
		}
	}
}
