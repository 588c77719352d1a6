package install

import (
	"os"
	"path/filepath"
	"strings"
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

// TestQwenTrust: folder trust off (the default) trusts every folder; on
// (user or system settings, the system's last), the deepest rule holding
// the project wins, DO_NOT_TRUST on a tie, TRUST_PARENT covers the rule's
// parent, no rule is untrusted; QWEN_HOME moves ~/.qwen.
func TestQwenTrust(t *testing.T) {
	home := t.TempDir()
	proj := filepath.Join(home, "work", "proj")
	if err := os.MkdirAll(proj, 0o755); err != nil {
		t.Fatal(err)
	}
	system := filepath.Join(home, "etc", "settings.json")
	env := map[string]string{"HOME": home, "QWEN_CODE_SYSTEM_SETTINGS_PATH": system}
	ie := New(Options{}, proj, "", envOf(env))
	cl, _ := Select("qwen")
	write := func(path, s string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	state := func() string { return ie.CheckTrust(cl[0]).State }
	user := filepath.Join(home, ".qwen", "settings.json")
	folders := filepath.Join(home, ".qwen", "trustedFolders.json")
	if s := state(); s != TrustTrusted {
		t.Fatalf("folder trust off: %s", s)
	}
	write(user, `{"security": {"folderTrust": {"enabled": true}}}`)
	if s := state(); s != TrustUntrusted {
		t.Fatalf("on, no rule: %s", s)
	}
	write(system, `{"security": {"folderTrust": {"enabled": false}}}`)
	if s := state(); s != TrustTrusted {
		t.Fatalf("the system's settings turn it off: %s", s)
	}
	_ = os.Remove(system)
	work := filepath.Join(home, "work")
	for _, c := range []struct{ rules, want string }{
		{`{"` + work + `": "TRUST_FOLDER"}`, TrustTrusted},
		{`{"` + work + `": "TRUST_FOLDER", "` + proj + `": "DO_NOT_TRUST"}`, TrustUntrusted},
		{`{"` + work + `": "DO_NOT_TRUST", "` + proj + `": "TRUST_FOLDER"}`, TrustTrusted},
		{`{"` + filepath.Join(proj, "x") + `": "TRUST_PARENT", "` + proj + `": "DO_NOT_TRUST"}`, TrustUntrusted},
		{`{"` + filepath.Join(proj, "x") + `": "TRUST_PARENT"}`, TrustTrusted},
		{`{"` + filepath.Join(proj, "x") + `": "TRUST_FOLDER"}`, TrustUntrusted},
	} {
		write(folders, c.rules)
		if got := ie.CheckTrust(cl[0]); got.State != c.want {
			t.Errorf("%s: %+v, want %s", c.rules, got, c.want)
		}
	}
	write(folders, `{"/elsewhere": "DO_NOT_TRUST"}`)
	tr, err := ie.RecordTrust(cl[0])
	if err != nil || tr.State != TrustTrusted || !tr.Recorded {
		t.Fatalf("record: %+v %v", tr, err)
	}
	env["QWEN_HOME"] = filepath.Join(home, "qh")
	if s := state(); s != TrustTrusted {
		t.Fatalf("QWEN_HOME without settings: folder trust off: %s", s)
	}
	write(filepath.Join(home, "qh", "settings.json"), `{"security": {"folderTrust": {"enabled": true}}}`)
	if got := ie.CheckTrust(cl[0]); got.State != TrustUntrusted || !strings.Contains(got.Detail, filepath.Join(home, "qh", "trustedFolders.json")) {
		t.Fatalf("QWEN_HOME: %+v", got)
	}
}
