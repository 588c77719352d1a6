package mcp

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// interopDir holds the TypeScript client (interop.mjs) and its pinned
// dependencies (package.json, package-lock.json; `npm ci` installs them).
const interopDir = "testdata/interop"

// nodeOrSkip returns the node binary, or skips (fails under CI=true, where
// .ci/run installs Node and the packages) when Node or the TypeScript SDK
// is missing.
func nodeOrSkip(t *testing.T) string {
	t.Helper()
	miss := func(why string) {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s (CI installs it: see .ci/run)", why)
		}
		t.Skipf("%s: install Node and run `npm ci` in internal/mcp/%s to run this test", why, interopDir)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		miss("node is not installed")
	}
	if _, err := os.Stat(filepath.Join(interopDir, "node_modules", "@modelcontextprotocol", "sdk", "package.json")); err != nil {
		miss("the TypeScript MCP SDK is not installed")
	}
	return node
}

// runInterop runs interop.mjs and checks its report.
func runInterop(t *testing.T, node string, args ...string) {
	t.Helper()
	cmd := exec.Command(node, append([]string{"interop.mjs"}, args...)...)
	cmd.Dir = interopDir
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	err := cmd.Run()
	var rep struct {
		Mode     string   `json:"mode"`
		Tools    int      `json:"tools"`
		Calls    int      `json:"calls"`
		Failures []string `json:"failures"`
	}
	if jerr := json.Unmarshal(bytes.TrimSpace(out.Bytes()), &rep); jerr != nil {
		t.Fatalf("interop.mjs %v: %v, no report (stdout %q, stderr %q)", args, err, out.String(), stderr.String())
	}
	for _, f := range rep.Failures {
		t.Errorf("%s: %s", rep.Mode, f)
	}
	if err != nil || rep.Tools != len(ToolNames(ProfileAll)) || rep.Calls != rep.Tools {
		t.Fatalf("%s: exit %v, %d tools listed, %d called (stderr %s)", rep.Mode, err, rep.Tools, rep.Calls, stderr.String())
	}
}

// interopBoard is a fresh board with a file to register as an artifact.
func interopBoard(t *testing.T) string {
	t.Helper()
	dir := initBoard(t)
	if err := os.WriteFile(filepath.Join(dir, "notes.md"), []byte("notes"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestInteropTypeScriptStdio drives the real `bb mcp` from the official
// TypeScript SDK (@modelcontextprotocol/sdk, pinned in
// testdata/interop/package.json) over stdio.
func TestInteropTypeScriptStdio(t *testing.T) {
	node := nodeOrSkip(t)
	runInterop(t, node, "stdio", bbBin, interopBoard(t))
}

// TestInteropTypeScriptHTTP drives the real `bb serve` from the official
// TypeScript SDK over streamable HTTP, the identity pinned by X-BB-Agent.
func TestInteropTypeScriptHTTP(t *testing.T) {
	node := nodeOrSkip(t)
	runInterop(t, node, "http", startServe(t, interopBoard(t)))
}

// startServe runs the real `bb serve` on dir (extra flags appended) until
// the test ends and returns its MCP URL.
func startServe(t *testing.T, dir string, flags ...string) string {
	t.Helper()
	serve := exec.Command(bbBin, append([]string{"--json", "serve", "--addr", "127.0.0.1:0"}, flags...)...)
	serve.Dir, serve.Env = dir, bbEnv()
	stdout, err := serve.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	serve.Stderr = &stderr
	if err := serve.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = serve.Process.Signal(syscall.SIGINT)
		done := make(chan struct{})
		go func() { _ = serve.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(20 * time.Second): // a hang detector, not a speed assertion
			_ = serve.Process.Kill()
		}
	})
	var started struct {
		Data struct {
			MCP string `json:"mcp"`
		} `json:"data"`
	}
	if err := json.NewDecoder(stdout).Decode(&started); err != nil || started.Data.MCP == "" {
		t.Fatalf("bb serve did not start: %v (stderr %s)", err, stderr.String())
	}
	return started.Data.MCP
}

// TestInteropTypeScriptCredentials drives MCP over HTTP from the
// TypeScript SDK with an agent's credential (credentials.mjs): it works as
// its agent, cannot take another id or write the global memory, and is
// cut off once revoked.
func TestInteropTypeScriptCredentials(t *testing.T) {
	node := nodeOrSkip(t)
	dir := interopBoard(t)
	out, err := exec.Command(bbBin, "--dir", dir, "--json", "token", "create", "--agent", "mallory").Output()
	if err != nil {
		t.Fatal(err)
	}
	var created struct {
		Data struct {
			Token string `json:"token"`
		} `json:"data"`
	}
	if err := json.Unmarshal(out, &created); err != nil || created.Data.Token == "" {
		t.Fatalf("token create: %v %s", err, out)
	}
	const operator = "operator-0123456789abcdef"
	url := startServe(t, dir, "--token", operator)
	cmd := exec.Command(node, "credentials.mjs", url, created.Data.Token, operator, "mallory")
	cmd.Dir = interopDir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	var rep struct {
		Failures []string `json:"failures"`
	}
	if jerr := json.Unmarshal(bytes.TrimSpace(stdout.Bytes()), &rep); jerr != nil {
		t.Fatalf("credentials.mjs: %v, no report (stdout %q, stderr %q)", err, stdout.String(), stderr.String())
	}
	for _, f := range rep.Failures {
		t.Error(f)
	}
	if err != nil && len(rep.Failures) == 0 {
		t.Fatalf("credentials.mjs: %v (stderr %s)", err, stderr.String())
	}
}
