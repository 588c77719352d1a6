package install

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/blackboard-hub/bb/internal/hub"
)

// Trust states: whether a client will load the project's files and run
// bb's hooks there.
const (
	TrustTrusted   = "trusted"
	TrustUntrusted = "untrusted"
	TrustUnknown   = "unknown"
)

// Trust is what a client's own trust gate says about bb's entries in this
// project. Claude Code, Codex CLI, Gemini CLI, Copilot CLI and (when its
// optional folder trust is on) Qwen Code each ignore a project's files, or
// its hooks, until the user has trusted them.
type Trust struct {
	// State is trusted, untrusted or unknown (the gate could not be read).
	State string `json:"state"`
	// Detail says what was read.
	Detail string `json:"detail"`
	// Fix is what to do when it is not trusted.
	Fix string `json:"fix,omitempty"`
	// Recorded is true when bb recorded the trust just now (--trust).
	Recorded bool `json:"recorded,omitempty"`
	// CanRecord is true when bb install <client> --trust can record it.
	CanRecord bool `json:"can_record,omitempty"`
}

// CheckTrust reads the client's trust gate for the project (nil for a
// client without one, or for a --global install where it does not apply).
func (ie *Env) CheckTrust(cl Client) *Trust {
	switch cl.Name {
	case "codex":
		return ie.codexTrust()
	case "gemini":
		if ie.opts.Global {
			return nil
		}
		return ie.geminiTrust()
	case "claude":
		if ie.opts.Global {
			return nil
		}
		return ie.claudeTrust()
	case "copilot":
		if ie.opts.Global {
			return nil
		}
		return ie.copilotTrust()
	case "qwen":
		if ie.opts.Global {
			return nil
		}
		return ie.qwenTrust()
	}
	return nil
}

// RecordTrust records the client's trust for bb's entries where the
// client documents a way bb can take (Codex: its app-server, as the /hooks
// review does; Gemini CLI: its trusted-folders file), then reads the gate
// again. It returns that state; an error when it cannot record.
func (ie *Env) RecordTrust(cl Client) (*Trust, error) {
	var err error
	switch cl.Name {
	case "codex":
		err = ie.recordCodexTrust()
	case "gemini":
		if ie.opts.Global {
			return nil, nil
		}
		err = ie.recordGeminiTrust()
	case "copilot":
		if ie.opts.Global {
			return nil, nil
		}
		err = ie.recordCopilotTrust()
	case "qwen":
		if ie.opts.Global {
			return nil, nil
		}
		err = ie.recordQwenTrust()
	default:
		return ie.CheckTrust(cl), nil
	}
	if err != nil {
		return nil, err
	}
	t := ie.CheckTrust(cl)
	if t != nil && t.State == TrustTrusted {
		t.Recorded = true
	}
	return t, nil
}

// --- Codex CLI ---

func (ie *Env) codexFix() string {
	if ie.opts.Global {
		return "run 'bb install codex --global --trust' (records it through Codex's app-server, as the /hooks review does), or start codex and trust bb's hooks with /hooks"
	}
	return fmt.Sprintf("run 'bb install codex --trust' (records it through Codex's app-server, as the /hooks review does), or start codex in %s, trust the folder, and trust bb's hooks with /hooks", ie.base)
}

// bbCodexHooks are the hooks of the list that run `bb hook codex`.
func bbCodexHooks(hooks []codexHook) []codexHook {
	var out []codexHook
	for _, h := range hooks {
		if m := bbHookCommand.FindStringSubmatch(h.Command); m != nil && m[3] == "codex" {
			out = append(out, h)
		}
	}
	return out
}

func (ie *Env) codexTrust() *Trust {
	t := &Trust{CanRecord: true}
	var hooks []codexHook
	var warnings []string
	err := withCodexApp(ie.getenv, func(app *codexApp) error {
		var err error
		hooks, err = app.hooks(ie.base)
		warnings = app.warnings
		return err
	})
	if errors.Is(err, errNoCodex) {
		return &Trust{State: TrustUnknown, Detail: "codex is not on PATH, so bb cannot ask Codex whether it trusts bb's hooks (Codex runs a hook only after it is trusted)", Fix: "install Codex CLI, then run 'bb doctor' again"}
	}
	if err != nil {
		return &Trust{State: TrustUnknown, Detail: "cannot ask Codex: " + oneLineErr(err), Fix: ie.codexFix()}
	}
	ours := bbCodexHooks(hooks)
	if len(ours) == 0 {
		t.State = TrustUntrusted
		t.Detail = "Codex lists none of bb's hooks here"
		for _, w := range warnings {
			if strings.Contains(w, "until the project is trusted") {
				t.Detail = fmt.Sprintf("Codex loads %s only in a trusted project, and %s is not trusted: neither the MCP entry nor the hooks are loaded", filepath.Join(ie.base, ".codex"), ie.base)
			}
		}
		t.Fix = ie.codexFix()
		return t
	}
	var pending []string
	for _, h := range ours {
		if h.TrustStatus != "trusted" && h.TrustStatus != "managed" {
			pending = append(pending, h.EventName+" ("+h.TrustStatus+")")
		}
	}
	if len(pending) > 0 {
		t.State = TrustUntrusted
		t.Detail = fmt.Sprintf("%d of bb's %d hooks are not trusted in Codex, so Codex skips them: %s", len(pending), len(ours), strings.Join(pending, ", "))
		t.Fix = ie.codexFix()
		return t
	}
	t.State = TrustTrusted
	t.Detail = fmt.Sprintf("Codex trusts bb's %d hooks", len(ours))
	return t
}

// recordCodexTrust trusts the project (for a project install) and then
// each of bb's hooks at the hash Codex reports for it.
func (ie *Env) recordCodexTrust() error {
	fail := func(err error) error {
		return hub.Errorf(hub.CodeInvalidInput, "cannot record Codex's trust: %s; %s", oneLineErr(err), ie.codexFix())
	}
	if !ie.opts.Global {
		err := withCodexApp(ie.getenv, func(app *codexApp) error {
			hooks, err := app.hooks(ie.base)
			if err != nil || len(bbCodexHooks(hooks)) > 0 {
				return err
			}
			return app.batchWrite([]map[string]any{{"keyPath": "projects", "mergeStrategy": "upsert",
				"value": map[string]any{ie.base: map[string]any{"trust_level": "trusted"}}}})
		})
		if err != nil {
			return fail(err)
		}
	}
	err := withCodexApp(ie.getenv, func(app *codexApp) error {
		hooks, err := app.hooks(ie.base)
		if err != nil {
			return err
		}
		state := map[string]any{}
		for _, h := range bbCodexHooks(hooks) {
			if h.TrustStatus != "trusted" && h.TrustStatus != "managed" && h.CurrentHash != "" {
				state[h.Key] = map[string]any{"trusted_hash": h.CurrentHash}
			}
		}
		if len(state) == 0 {
			return nil
		}
		return app.batchWrite([]map[string]any{{"keyPath": "hooks.state", "mergeStrategy": "upsert", "value": state}})
	})
	if err != nil {
		return fail(err)
	}
	return nil
}

// --- Gemini CLI ---

// Gemini CLI ignores a workspace's .gemini/settings.json (its MCP servers
// and hooks) unless the folder is trusted: folder trust is on unless
// security.folderTrust.enabled is false, the rules live in
// ~/.gemini/trustedFolders.json ($GEMINI_CLI_TRUSTED_FOLDERS_PATH) as
// {"<path>": "TRUST_FOLDER" | "TRUST_PARENT" | "DO_NOT_TRUST"}, the longest
// matching path wins, and GEMINI_CLI_TRUST_WORKSPACE=true|false overrides
// them. A headless run (gemini -p) refuses to start in an untrusted
// folder (0.61.0: "Gemini CLI is not running in a trusted directory").
// https://geminicli.com/docs/cli/trusted-folders (checked against
// @google/gemini-cli 0.61.0: packages/core/src/utils/trust.ts in its
// bundle).

func (ie *Env) geminiFoldersPath() string {
	if p := ie.getenv("GEMINI_CLI_TRUSTED_FOLDERS_PATH"); p != "" {
		return p
	}
	return filepath.Join(ie.getenv("HOME"), ".gemini", "trustedFolders.json")
}

func (ie *Env) geminiFix() string {
	return fmt.Sprintf("run 'bb install gemini --trust' (adds %s as TRUST_FOLDER to %s), or start gemini in it and trust the folder when asked", ie.base, ie.geminiFoldersPath())
}

// realPath resolves symlinks where the path exists.
func realPath(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return filepath.Clean(p)
}

func isSubpath(parent, p string) bool {
	rel, err := filepath.Rel(parent, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

func (ie *Env) geminiTrust() *Trust {
	switch ie.getenv("GEMINI_CLI_TRUST_WORKSPACE") {
	case "true":
		return &Trust{State: TrustTrusted, Detail: "GEMINI_CLI_TRUST_WORKSPACE=true"}
	case "false":
		return &Trust{State: TrustUntrusted, Detail: "GEMINI_CLI_TRUST_WORKSPACE=false: Gemini CLI ignores the project's settings", Fix: "unset GEMINI_CLI_TRUST_WORKSPACE"}
	}
	if e := folderTrustSetting(filepath.Join(ie.getenv("HOME"), ".gemini", "settings.json")); e != nil && !*e {
		return &Trust{State: TrustTrusted, Detail: "folder trust is off (security.folderTrust.enabled is false)"}
	}
	path := ie.geminiFoldersPath()
	t := &Trust{CanRecord: true}
	rules, bad := readTrustRules(path, "Gemini CLI", ie.geminiFix())
	if bad != nil {
		return bad
	}
	dir := realPath(ie.base)
	best, level := -1, ""
	for rule, lvl := range rules {
		eff := rule
		if lvl == "TRUST_PARENT" {
			eff = filepath.Dir(rule)
		}
		if isSubpath(realPath(eff), dir) && len(rule) > best {
			best, level = len(rule), lvl
		}
	}
	switch level {
	case "TRUST_FOLDER", "TRUST_PARENT":
		t.State, t.Detail = TrustTrusted, fmt.Sprintf("%s trusts %s (%s)", path, ie.base, level)
	case "DO_NOT_TRUST":
		t.State, t.Detail = TrustUntrusted, fmt.Sprintf("%s marks %s DO_NOT_TRUST: Gemini CLI ignores its .gemini/settings.json (the MCP entry and the hooks)", path, ie.base)
		t.Fix = ie.geminiFix()
	default:
		t.State, t.Detail = TrustUntrusted, fmt.Sprintf("%s is not a trusted folder for Gemini CLI (no rule in %s): it ignores the project's .gemini/settings.json (the MCP entry and the hooks), and gemini -p refuses to start there", ie.base, path)
		t.Fix = ie.geminiFix()
	}
	return t
}

func (ie *Env) recordGeminiTrust() error { return ie.recordFolderTrust(ie.geminiFoldersPath()) }

// folderTrustSetting is security.folderTrust.enabled of the settings file
// at path (Gemini CLI's and Qwen Code's shape), nil when the file or the
// setting is missing or the file cannot be read as JSON.
func folderTrustSetting(path string) *bool {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var s struct {
		Security struct {
			FolderTrust struct {
				Enabled *bool `json:"enabled"`
			} `json:"folderTrust"`
		} `json:"security"`
	}
	if DecodeJSONC(string(b), &s) != nil {
		return nil
	}
	return s.Security.FolderTrust.Enabled
}

// readTrustRules reads a trustedFolders.json (Gemini CLI's, Qwen Code's: a
// JSON object of folder -> TRUST_FOLDER | TRUST_PARENT | DO_NOT_TRUST); a
// missing file is no rules. bad is the answer when the file cannot be
// read or is not such an object.
func readTrustRules(path, client, fix string) (rules map[string]string, bad *Trust) {
	rules = map[string]string{}
	b, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, &Trust{State: TrustUnknown, Detail: "cannot read " + path + ": " + oneLineErr(err), Fix: fix}
	}
	if err == nil {
		if err := DecodeJSONC(string(b), &rules); err != nil {
			return nil, &Trust{State: TrustUnknown, Detail: path + " is not a JSON object of trust rules (" + client + " refuses to start with it)", Fix: "fix or move " + path}
		}
	}
	return rules, nil
}

// recordFolderTrust adds the project as TRUST_FOLDER to the trustedFolders
// file at path, keeping every other rule, comment and the file's layout; a
// file it creates is private (0600), as the clients create it.
func (ie *Env) recordFolderTrust(path string) error {
	d, existed, err := readConfigDoc(path)
	if err != nil {
		return err
	}
	if _, _, err := d.setMember(nil, ie.base, "TRUST_FOLDER"); err != nil {
		return hub.Errorf(hub.CodeInvalidInput, "%s: %s; nothing was written", path, oneLineErr(err))
	}
	if err := writeConfig(path, []byte(d.text)); err != nil {
		return err
	}
	if !existed {
		_ = os.Chmod(path, 0o600)
	}
	return nil
}

// --- Claude Code ---

// Claude Code asks, the first time it starts in a folder, whether to trust
// it (then loads the folder's settings and hooks), and asks again before it
// starts a project MCP server from .mcp.json; the answers are kept in
// ~/.claude.json under projects.<dir> (hasTrustDialogAccepted,
// enabledMcpjsonServers / disabledMcpjsonServers), and settings may approve
// .mcp.json servers with enableAllProjectMcpServers or
// enabledMcpjsonServers. `claude -p` skips the trust dialog.
// https://docs.claude.com/en/docs/claude-code/security and
// https://docs.claude.com/en/docs/claude-code/settings

func (ie *Env) claudeConfigPath() string {
	if d := ie.getenv("CLAUDE_CONFIG_DIR"); d != "" {
		return filepath.Join(d, ".claude.json")
	}
	return filepath.Join(ie.getenv("HOME"), ".claude.json")
}

func (ie *Env) claudeTrust() *Trust {
	fix := fmt.Sprintf("start claude in %s once: accept the folder trust dialog, and approve the %q MCP server when asked", ie.base, mcpServerName)
	type approvals struct {
		EnableAll *bool    `json:"enableAllProjectMcpServers"`
		Enabled   []string `json:"enabledMcpjsonServers"`
		Disabled  []string `json:"disabledMcpjsonServers"`
	}
	var cfg struct {
		Projects map[string]struct {
			approvals
			Trusted bool `json:"hasTrustDialogAccepted"`
		} `json:"projects"`
	}
	path := ie.claudeConfigPath()
	if b, err := os.ReadFile(path); err == nil {
		if DecodeJSONC(string(b), &cfg) != nil {
			return &Trust{State: TrustUnknown, Detail: path + " is not valid JSON", Fix: fix}
		}
	}
	trusted := false
	var sets []approvals
	for dir, p := range cfg.Projects {
		if isSubpath(realPath(dir), realPath(ie.base)) && p.Trusted {
			trusted = true
		}
		if realPath(dir) == realPath(ie.base) {
			sets = append(sets, p.approvals)
		}
	}
	for _, f := range []string{filepath.Join(ie.base, ".claude", "settings.local.json"), filepath.Join(ie.base, ".claude", "settings.json"), filepath.Join(ie.getenv("HOME"), ".claude", "settings.json")} {
		var a approvals
		if b, err := os.ReadFile(f); err == nil && DecodeJSONC(string(b), &a) == nil {
			sets = append(sets, a)
		}
	}
	mcp := ""
	for _, a := range sets {
		switch {
		case slices.Contains(a.Disabled, mcpServerName):
			mcp = "disabled"
		case mcp == "" && (slices.Contains(a.Enabled, mcpServerName) || a.EnableAll != nil && *a.EnableAll):
			mcp = "enabled"
		}
	}
	switch {
	case trusted && mcp == "enabled":
		return &Trust{State: TrustTrusted, Detail: fmt.Sprintf("%s: the folder is trusted and the %q MCP server approved", path, mcpServerName)}
	case mcp == "disabled":
		return &Trust{State: TrustUntrusted, Detail: fmt.Sprintf("the %q MCP server of .mcp.json was declined in Claude Code", mcpServerName), Fix: "run /mcp in claude and enable it, or remove it from disabledMcpjsonServers in " + path}
	case trusted:
		return &Trust{State: TrustUntrusted, Detail: fmt.Sprintf("the folder is trusted, but the %q MCP server of .mcp.json is not approved yet (Claude Code asks at its next start)", mcpServerName), Fix: fix}
	default:
		return &Trust{State: TrustUntrusted, Detail: fmt.Sprintf("Claude Code has not been trusted in %s yet: it asks at its first interactive start, and until then loads neither the hooks nor the MCP server (claude -p skips the dialog)", ie.base), Fix: fix}
	}
}
