package clienttest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// sessionEndScenario: a board that declares the leases every session
// gets (leases.session "name:db") hands session S its name at its start;
// run runs one non-interactive turn of S, which exits normally, and the
// client's session-end hook (bb hook <client> <event>) releases the name.
// The board's timeline says both: lease.acquired and lease.released for
// S's agent, and bb lease list shows no holder left.
func sessionEndScenario(t *testing.T, p *project, srv *modelServer, run func(session, step string)) {
	t.Helper()
	p.run("bb", "config", "set", "leases.session", "name:db")
	run("S", "end")
	if t.Failed() {
		t.FailNow()
	}
	id := identityOf(t, srv, "S")
	if db := leaseOf(t, p, "lease.acquired", id, "name:db"); db != "db-"+id {
		t.Fatalf("session S (%s): board granted name %q at its start", id, db)
	}
	if got := leaseOf(t, p, "lease.released", id, "name:db"); got != "db-"+id {
		t.Errorf("session S (%s): its end did not release its lease name:db (released %q)", id, got)
		t.Logf("bb events:\n%s", p.run("bb", "events"))
	}
	if out := p.run("bb", "lease", "list"); strings.Contains(out, id) {
		t.Errorf("session S (%s) ended and still holds a lease:\n%s", id, out)
	}
}

// TestCopilotSessionEnd: copilot -p fires sessionEnd once as the run
// ends (1.0.102's changelog: "Prompt-mode sessions fire a single
// sessionEnd hook after Stop-hook continuations complete"), and bb hook
// copilot sessionEnd releases the session's leases. Setup as in
// TestCopilotCLI.
func TestCopilotSessionEnd(t *testing.T) {
	t.Parallel()
	bin := clientBin(t, "copilot")
	p := newProject(t)
	srv := newModelServer(t, newPlans().script)
	p.env = append(p.env, "COPILOT_HOME="+filepath.Join(p.home, ".copilot"), "COPILOT_OFFLINE=true", "COPILOT_AUTO_UPDATE=false",
		"COPILOT_PROVIDER_BASE_URL="+srv.url+"/v1", "COPILOT_PROVIDER_TYPE=openai", "COPILOT_PROVIDER_WIRE_API=completions",
		"COPILOT_PROVIDER_API_KEY=test", "COPILOT_MODEL=gpt-5.4")
	if out := p.run("bb", "install", "copilot", "--trust"); !strings.Contains(out, "trust: recorded") {
		t.Fatalf("bb install copilot --trust:\n%s", out)
	}
	if !strings.Contains(p.read(filepath.Join(".github", "hooks", "blackboard.json")), `"sessionEnd"`) {
		t.Fatalf("bb install copilot wrote no sessionEnd hook:\n%s", p.read(filepath.Join(".github", "hooks", "blackboard.json")))
	}
	if out := p.run("bb", "doctor"); !strings.Contains(out, "GitHub Copilot CLI: entries current") {
		t.Fatalf("bb doctor after bb install copilot:\n%s", out)
	}
	sessionEndScenario(t, p, srv, func(session, step string) {
		sid := fmt.Sprintf("%08x-0000-4000-8000-000000000000", session[0])
		out, errOut, err := p.exec(nil, bin, "-p", "[session "+session+"] [step "+step+"] go on", "--allow-all-tools",
			"--output-format", "json", "--session-id", sid, "--no-auto-update")
		if err != nil || !strings.Contains(out, `"exitCode":0`) {
			t.Errorf("copilot %s: %v\n%s\n%s", step, err, out, errOut)
		}
	})
}

// TestCodexSessionEnd: codex exec runs SessionEnd as it exits (0.169.0),
// and bb hook codex SessionEnd releases the session's leases. Setup as in
// TestCodexCLI.
func TestCodexSessionEnd(t *testing.T) {
	t.Parallel()
	bin := clientBin(t, "codex")
	p := newProject(t)
	srv := newModelServer(t, newPlans().script)
	codexHome := filepath.Join(p.home, ".codex")
	p.write(filepath.Join(codexHome, "config.toml"), `model = "gpt-5.5"
model_provider = "scripted"

[model_providers.scripted]
name = "scripted"
base_url = "`+srv.url+`/v1"
wire_api = "responses"
env_key = "SCRIPTED_API_KEY"
`)
	p.env = append(p.env, "CODEX_HOME="+codexHome, "SCRIPTED_API_KEY=test",
		"PATH="+filepath.Dir(bin)+string(os.PathListSeparator)+binDir+string(os.PathListSeparator)+os.Getenv("PATH"))
	if out := p.run("bb", "install", "codex", "--trust"); !strings.Contains(out, "trust: recorded") {
		t.Fatalf("bb install codex --trust:\n%s", out)
	}
	if !strings.Contains(p.read(filepath.Join(".codex", "hooks.json")), `"SessionEnd"`) {
		t.Fatalf("bb install codex wrote no SessionEnd hook:\n%s", p.read(filepath.Join(".codex", "hooks.json")))
	}
	if out := p.run("bb", "doctor"); !strings.Contains(out, "Codex CLI: entries current") {
		t.Fatalf("bb doctor after bb install codex:\n%s", out)
	}
	sessionEndScenario(t, p, srv, func(session, step string) {
		out, errOut, err := p.exec(nil, bin, "exec", "--json", "[session "+session+"] [step "+step+"] go on")
		if err != nil {
			t.Errorf("codex %s: %v\n%s\n%s", step, err, out, errOut)
		}
	})
}
