package clienttest

import (
	"fmt"
	"os"
	"path/filepath"
		"testing"
)

func TestCopilotCLI(t *testing.T) {
	t.Parallel()
	bin := clientBin(t, "copilot")
	p := newProject(t)
	pl := newPlans()
	srv := newModelServer(t, pl.script)
	p.env = append(p.env, "COPILOT_HOME="+filepath.Join(p.home, ".copilot"), "COPILOT_OFFLINE=true", "COPILOT_AUTO_UPDATE=false",
		"COPILOT_PROVIDER_BASE_URL="+srv.url+"/v1", "COPILOT_PROVIDER_TYPE=openai", "COPILOT_PROVIDER_WIRE_API=completions",
		"COPILOT_PROVIDER_API_KEY=test", "COPILOT_MODEL=gpt-5.4")
	p.run("bb", "install", "copilot")
	p.write(filepath.Join(p.home, ".copilot", "config.json"), `{"trustedFolders": ["`+p.dir+`"]}`)
	copilot := func(session, step string) {
		sid := fmt.Sprintf("%08x-0000-4000-8000-000000000000", session[0])
		out, errOut, err := p.exec(nil, bin, "-p", "[session "+session+"] [step "+step+"] go on", "--allow-all-tools",
			"--output-format", "json", "--session-id", sid, "--no-auto-update")
		t.Logf("copilot %s: %v\n%s\n%s", step, err, out, errOut)
	}
	copilot("A", "hello-A")
	pl.set("mcp", turnPart{Tool: "blackboard-bb_reserve", Input: map[string]any{"scope": "src/a.go", "bead": "bb-1"}})
	copilot("A", "mcp")
	pl.set("edit", turnPart{Tool: "edit", Input: map[string]any{"path": filepath.Join(p.dir, "src", "a.go"), "old_str": "package x", "new_str": "package y"}})
	copilot("B", "edit")
	for i, r := range srv.Requests() {
		os.WriteFile(fmt.Sprintf("/tmp/h32dump/cp-%d.json", i), []byte(r.Path+"\n"+r.Body), 0o644)
	}
}
