package install

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"time"
)

// Codex runs a non-managed hook only after the user has trusted it, and
// only from a project whose .codex/ layer is trusted: "Non-managed command
// hooks must be reviewed and trusted before they run", trust is recorded
// per hook by the hook's current hash, and /hooks in the CLI is where a
// person reviews them (https://developers.openai.com/codex/hooks, "Review
// and trust hooks"). `codex exec` skips an untrusted hook silently.
//
// bb reads and records that trust through Codex's own app-server
// (https://developers.openai.com/codex/app-server), the protocol Codex's
// interfaces use: `hooks/list` answers each hook's key, currentHash and
// trustStatus for a working directory, and `config/batchWrite` writes
// hooks.state.<key>.trusted_hash (what the /hooks review writes) and
// projects.<dir>.trust_level into the user's config.toml. bb never
// computes a hash itself: it hands back the one Codex reported. Checked
// against @openai/codex 0.169.0 (`codex app-server generate-json-schema`:
// HooksListParams {cwds}, HookMetadata {key, command, sourcePath,
// currentHash, trustStatus, isManaged, enabled}, ConfigBatchWriteParams
// {edits: [{keyPath, value, mergeStrategy}]}).

// codexHook is one hook as Codex's app-server lists it.
type codexHook struct {
	Key         string `json:"key"`
	EventName   string `json:"eventName"`
	Command     string `json:"command"`
	SourcePath  string `json:"sourcePath"`
	Source      string `json:"source"`
	Enabled     bool   `json:"enabled"`
	IsManaged   bool   `json:"isManaged"`
	CurrentHash string `json:"currentHash"`
	TrustStatus string `json:"trustStatus"`
}

// codexApp is one `codex app-server` process spoken to over stdio
// (newline-delimited JSON requests {id, method, params}).
type codexApp struct {
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Reader
	nextID int
	// warnings are the configWarning notifications seen (such as "the
	// project is not trusted").
	warnings []string
}

// codexAppTimeout bounds one conversation with the app-server.
const codexAppTimeout = 30 * time.Second

func startCodexApp(ctx context.Context, bin string, env []string) (*codexApp, error) {
	cmd := exec.CommandContext(ctx, bin, "app-server")
	cmd.Env = env
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	c := &codexApp{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<20)}
	if _, err := c.call("initialize", map[string]any{
		"clientInfo":   map[string]any{"name": "bb", "title": "Blackboard", "version": "1"},
		"capabilities": map[string]any{"experimentalApi": true},
	}); err != nil {
		c.close()
		return nil, err
	}
	if err := c.send(map[string]any{"method": "initialized"}); err != nil {
		c.close()
		return nil, err
	}
	return c, nil
}

func (c *codexApp) send(msg map[string]any) error {
	b, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	_, err = c.in.Write(append(b, '\n'))
	return err
}

// call sends one request and reads until its response, keeping the
// configWarning notifications that arrive meanwhile.
func (c *codexApp) call(method string, params any) (json.RawMessage, error) {
	c.nextID++
	id := c.nextID
	if err := c.send(map[string]any{"id": id, "method": method, "params": params}); err != nil {
		return nil, fmt.Errorf("codex app-server: %w", err)
	}
	for {
		line, err := c.out.ReadBytes('\n')
		if err != nil {
			return nil, fmt.Errorf("codex app-server stopped before answering %s: %w", method, err)
		}
		var msg struct {
			ID     *int            `json:"id"`
			Method string          `json:"method"`
			Result json.RawMessage `json:"result"`
			Error  *struct {
				Message string `json:"message"`
			} `json:"error"`
			Params struct {
				Summary string `json:"summary"`
			} `json:"params"`
		}
		if json.Unmarshal(line, &msg) != nil {
			continue
		}
		if msg.ID == nil {
			if msg.Method == "configWarning" && msg.Params.Summary != "" {
				c.warnings = append(c.warnings, strings.TrimSpace(msg.Params.Summary))
			}
			continue
		}
		if *msg.ID != id {
			continue
		}
		if msg.Error != nil {
			return nil, fmt.Errorf("codex app-server %s: %s", method, msg.Error.Message)
		}
		return msg.Result, nil
	}
}

func (c *codexApp) close() {
	_ = c.in.Close()
	done := make(chan struct{})
	go func() { _ = c.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(3 * time.Second):
		_ = c.cmd.Process.Kill()
		<-done
	}
}

// hooks lists the hooks Codex would run in dir.
func (c *codexApp) hooks(dir string) ([]codexHook, error) {
	raw, err := c.call("hooks/list", map[string]any{"cwds": []string{dir}})
	if err != nil {
		return nil, err
	}
	var res struct {
		Data []struct {
			Hooks []codexHook `json:"hooks"`
		} `json:"data"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, fmt.Errorf("codex app-server hooks/list: unexpected answer: %w", err)
	}
	var out []codexHook
	for _, d := range res.Data {
		out = append(out, d.Hooks...)
	}
	return out, nil
}

// batchWrite applies edits to the user's config.toml.
func (c *codexApp) batchWrite(edits []map[string]any) error {
	_, err := c.call("config/batchWrite", map[string]any{"edits": edits})
	return err
}

// errNoCodex: the codex binary is not on PATH.
var errNoCodex = errors.New("codex is not on PATH")

// codexBin finds the codex binary ($BB_CODEX_BIN, else codex on PATH).
func codexBin(getenv func(string) string) (string, error) {
	if b := getenv("BB_CODEX_BIN"); b != "" {
		return b, nil
	}
	b, err := exec.LookPath("codex")
	if err != nil {
		return "", errNoCodex
	}
	return b, nil
}

// withCodexApp runs fn against a fresh app-server.
func withCodexApp(getenv func(string) string, fn func(*codexApp) error) error {
	bin, err := codexBin(getenv)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), codexAppTimeout)
	defer cancel()
	app, err := startCodexApp(ctx, bin, nil)
	if err != nil {
		return fmt.Errorf("cannot start %s app-server: %w", bin, err)
	}
	defer app.close()
	return fn(app)
}
