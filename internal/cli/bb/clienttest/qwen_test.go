package clienttest

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

func TestQwenCode(t *testing.T) {
	t.Parallel()
	bin := clientBin(t, "qwen")
	p := newProject(t)
	pl := newPlans()
	srv := newModelServer(t, pl.script)
	p.write(filepath.Join(p.home, ".qwen", "settings.json"), `{"security": {"auth": {"selectedType": "openai"}}, "privacy": {"usageStatisticsEnabled": false}, "general": {"disableAutoUpdate": true}}`)
	p.env = append(p.env, "OPENAI_API_KEY=test", "OPENAI_BASE_URL="+srv.url+"/v1", "OPENAI_MODEL=qwen3-coder-plus")
	p.run("bb", "install", "qwen")
	qwen := func(session, step string) {
		sid := fmt.Sprintf("%08x-0000-4000-8000-000000000000", session[0])
		out, errOut, err := p.exec(nil, bin, "-p", "[session "+session+"] [step "+step+"] go on", "--approval-mode", "yolo",
			"--output-format", "json", "--session-id", sid)
		t.Logf("qwen %s: %v\n%s\n%s", step, err, out, errOut)
	}
	qwen("A", "hello-A")
	pl.set("mcp", turnPart{Tool: "mcp__blackboard__bb_reserve", Input: map[string]any{"scope": "src/a.go", "bead": "bb-1"}})
	qwen("A", "mcp")
	pl.set("edit", turnPart{Tool: "edit", Input: map[string]any{"file_path": filepath.Join(p.dir, "src", "a.go"), "old_string": "package x", "new_string": "package y"}})
	qwen("B", "edit")
	for i, r := range srv.Requests() {
		os.WriteFile(fmt.Sprintf("/tmp/h32dump/qw-%d.json", i), []byte(r.Path+"\n"+r.Body), 0o644)
	}
}
