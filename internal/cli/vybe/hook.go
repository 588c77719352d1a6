package vybe

import (
	"github.com/blackboard-hub/bb/internal/hub/resume"

	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/install"
	"github.com/blackboard-hub/bb/internal/termtext"
)

// hookSpec is one Claude Code hook event vybe installs.
type hookSpec struct {
	Event   string
	Matcher string
	Sub     string
	Timeout int
}

// claudeHooks are the events, matchers, handler subcommands and timeouts of
// the original.
var claudeHooks = []hookSpec{
	{"SessionStart", "startup|resume|clear|compact", "session-start", 3000},
	{"UserPromptSubmit", "", "prompt", 2000},
	{"PostToolUseFailure", "", "tool-failure", 2000},
	{"PreCompact", "", "checkpoint", 4000},
	{"SessionEnd", "", "session-end", 5000},
	{"TaskCompleted", "", "task-completed", 2000},
	{"PostToolUse", "Write|Edit|MultiEdit|Bash|NotebookEdit", "tool-success", 2000},
	{"SubagentStop", "", "subagent-stop", 2000},
	{"SubagentStart", "", "subagent-start", 2000},
	{"Stop", "", "stop", 1000},
}

func hookSubs() map[string]bool {
	m := map[string]bool{}
	for _, h := range claudeHooks {
		m[h.Sub] = true
	}
	return m
}

func (a *app) hookCommand(sub string) string {
	return fmt.Sprintf("%q hook %s", a.env.Exe, sub)
}

// isVybeCommand reports whether a hook command string is one of ours.
func isVybeCommand(cmd string) bool {
	i := strings.LastIndex(cmd, " hook ")
	if i < 0 {
		return false
	}
	sub := strings.TrimSpace(cmd[i+len(" hook "):])
	exe := strings.Trim(strings.TrimSpace(cmd[:i]), `"'`)
	return hookSubs()[sub] && strings.Contains(strings.ToLower(filepath.Base(exe)), "vybe")
}

func groupIsVybe(g any) bool {
	m, ok := g.(map[string]any)
	if !ok {
		return false
	}
	hs, _ := m["hooks"].([]any)
	for _, h := range hs {
		hm, _ := h.(map[string]any)
		if c, _ := hm["command"].(string); isVybeCommand(c) {
			return true
		}
	}
	return false
}

func (a *app) claudeSettingsPath(project bool) (string, error) {
	if project {
		wd, err := a.env.Getwd()
		if err != nil {
			return "", err
		}
		return filepath.Join(wd, ".claude", "settings.json"), nil
	}
	if a.env.Home == "" {
		return "", hub.Errorf(hub.CodeInvalidInput, "cannot find the home directory (set HOME)")
	}
	return filepath.Join(a.env.Home, ".claude", "settings.json"), nil
}

func (a *app) opencodePluginPath() string {
	return filepath.Join(a.env.Home, ".config", "opencode", "plugins", "vybe-bridge.js")
}

// readSettings loads a JSON(C) settings file ({} when missing).
func readSettings(path string) (map[string]any, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]any{}, nil
	}
	if err != nil {
		return nil, hub.Errorf(hub.CodeIOReadFailed, "cannot read %s: %v", path, err)
	}
	var m map[string]any
	if err := install.DecodeJSONC(string(b), &m); err != nil {
		return nil, hub.Errorf(hub.CodeInvalidInput, "cannot parse %s: %v (fix or move it, then retry)", path, err)
	}
	if m == nil {
		m = map[string]any{}
	}
	return m, nil
}

type claudeInstall struct {
	Path      string   `json:"path"`
	Installed []string `json:"installed"`
	Updated   []string `json:"updated,omitempty"`
	Skipped   []string `json:"skipped"`
}

type opencodeInstall struct {
	Path   string `json:"path"`
	Status string `json:"status"`
}

// rawIsVybe recognises a matcher group of vybe's in the settings text.
func rawIsVybe(raw string) bool {
	var g any
	return install.DecodeJSONC(raw, &g) == nil && groupIsVybe(g)
}

// installClaude merges vybe's hook entries into the settings file: other
// keys and other tools' hooks are kept byte for byte, vybe's own entries
// are replaced.
func (a *app) installClaude(path string) (*claudeInstall, error) {
	var groups []install.HookGroup
	for _, h := range claudeHooks {
		groups = append(groups, install.HookGroup{Event: h.Event, Entry: map[string]any{"matcher": h.Matcher, "hooks": []any{map[string]any{
			"type": "command", "command": a.hookCommand(h.Sub), "timeout": h.Timeout}}}})
	}
	verdicts, err := install.SetHookGroups(path, groups, rawIsVybe)
	if err != nil {
		return nil, err
	}
	res := &claudeInstall{Path: path}
	for i, v := range verdicts {
		ev := groups[i].Event
		switch v {
		case install.HookAdded:
			res.Installed = append(res.Installed, ev)
		case install.HookReplaced:
			res.Updated = append(res.Updated, ev)
		default:
			res.Skipped = append(res.Skipped, ev)
		}
	}
	return res, nil
}

type claudeUninstall struct {
	Path    string   `json:"path"`
	Removed []string `json:"removed"`
}

func (a *app) uninstallClaude(path string) (*claudeUninstall, error) {
	m, err := readSettings(path)
	if err != nil {
		return nil, err
	}
	if _, ok := m["hooks"].(map[string]any); !ok {
		return &claudeUninstall{Path: path, Removed: []string{}}, nil
	}
	var events []string
	for _, h := range claudeHooks {
		events = append(events, h.Event)
	}
	removed, err := install.RemoveHookGroups(path, events, rawIsVybe)
	if err != nil {
		return nil, err
	}
	return &claudeUninstall{Path: path, Removed: removed}, nil
}

// opencodePlugin is the OpenCode bridge: it forwards session and tool
// events to the vybe hook handlers.
func (a *app) opencodePlugin() string {
	exe, _ := json.Marshal(a.env.Exe)
	return `// vybe-bridge.js — installed by 'vybe hook install --opencode'. Do not edit:
// 'vybe hook install' rewrites it and 'vybe status' reports local changes.
const VYBE = ` + string(exe) + `;

async function run($, sub, payload) {
  try {
    const input = JSON.stringify(payload ?? {});
    const out = await $` + "`${VYBE} hook ${sub} < ${new Response(input)}`" + `.quiet().nothrow().text();
    return out;
  } catch (_) {
    return "";
  }
}

export const VybeBridge = async ({ $, directory }) => {
  return {
    event: async ({ event }) => {
      if (event.type === "session.created") {
        await run($, "session-start", { cwd: directory, source: "startup", hook_event_name: "SessionStart" });
      } else if (event.type === "session.idle") {
        await run($, "stop", { cwd: directory, hook_event_name: "Stop" });
      } else if (event.type === "session.compacted") {
        await run($, "checkpoint", { cwd: directory, hook_event_name: "PreCompact" });
      }
    },
    "tool.execute.after": async (input, output) => {
      await run($, "tool-success", { cwd: directory, tool_name: input.tool, hook_event_name: "PostToolUse" });
    },
  };
};
`
}

func (a *app) opencodeStatus() (installed bool, status string) {
	b, err := os.ReadFile(a.opencodePluginPath())
	if err != nil {
		return false, "missing"
	}
	if string(b) == a.opencodePlugin() {
		return true, "current"
	}
	return true, "modified"
}

func (a *app) hookCmd() *cobra.Command {
	var t hookTargets
	install := &cobra.Command{
		Use:   "install",
		Short: "Install the Claude Code hooks (and/or the OpenCode plugin)",
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return a.hookInstall(cmd, &t) },
	}
	uninstall := &cobra.Command{
		Use:   "uninstall",
		Short: "Remove vybe's Claude Code hooks (and/or the OpenCode plugin)",
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return a.hookUninstall(cmd, &t) },
	}
	for _, c := range []*cobra.Command{install, uninstall} {
		c.Flags().BoolVar(&t.claude, "claude", true, "Claude Code hooks (~/.claude/settings.json)")
		c.Flags().BoolVar(&t.opencode, "opencode", false, "OpenCode plugin (~/.config/opencode/plugins/vybe-bridge.js)")
		c.Flags().BoolVar(&t.project, "project", false, "use ./.claude/settings.json instead of the user settings")
		mutating(c, false)
	}
	c := namespace("hook", "Install or remove the coding-assistant hooks", install, uninstall)
	for _, h := range claudeHooks {
		c.AddCommand(a.hookHandler(h))
	}
	a.namespaceRun(c)
	return c
}

// hookTargets are vybe hook install/uninstall's flags: which assistants,
// and for Claude Code the project's settings instead of the user's.
type hookTargets struct {
	claude, opencode, project bool
}

// selected is which assistants the command acts on: --opencode alone
// means OpenCode only (--claude defaults to true).
func (t *hookTargets) selected(cmd *cobra.Command) (bool, bool, error) {
	c, o := t.claude, t.opencode
	if cmd.Flags().Changed("opencode") && !cmd.Flags().Changed("claude") {
		c = false
	}
	if !c && !o {
		return false, false, hub.Errorf(hub.CodeInvalidInput, "nothing selected: use --claude and/or --opencode")
	}
	return c, o, nil
}

// hookInstall is vybe hook install: the Claude Code hooks and/or the
// OpenCode plugin, each with a line of the message.
func (a *app) hookInstall(cmd *cobra.Command, t *hookTargets) error {
	c, o, err := t.selected(cmd)
	if err != nil {
		return err
	}
	// Best effort: make sure the database is migrated.
	if _, err := a.service(cmd.Context()); err != nil {
		a.log.Warn("database migration skipped", "error", err.Error())
	}
	out := map[string]any{}
	var msgs []string
	if c {
		r, msg, err := a.hookInstallClaude(t.project)
		if err != nil {
			return err
		}
		out["claude"] = r
		msgs = append(msgs, msg)
	}
	if o {
		r, err := a.hookInstallOpenCode()
		if err != nil {
			return err
		}
		out["opencode"] = r
		msgs = append(msgs, "OpenCode plugin "+r.Status+" ("+r.Path+").")
	}
	out["message"] = strings.Join(msgs, " ")
	return a.ok(out)
}

// hookInstallClaude installs the Claude Code hooks in the user's (or the
// project's) settings and says what changed.
func (a *app) hookInstallClaude(project bool) (*claudeInstall, string, error) {
	path, err := a.claudeSettingsPath(project)
	if err != nil {
		return nil, "", err
	}
	r, err := a.installClaude(path)
	if err != nil {
		return nil, "", err
	}
	if changed := append(append([]string{}, r.Installed...), r.Updated...); len(changed) > 0 {
		return r, fmt.Sprintf("Claude Code hooks installed (%s). Run 'vybe status' to verify.", strings.Join(changed, ", ")), nil
	}
	return r, "Claude Code hooks already installed. Run 'vybe status' to verify.", nil
}

// hookInstallOpenCode writes the OpenCode plugin unless it is current.
func (a *app) hookInstallOpenCode() (opencodeInstall, error) {
	path := a.opencodePluginPath()
	_, st := a.opencodeStatus()
	status := map[string]string{"missing": "installed", "modified": "updated", "current": "skipped"}[st]
	if st != "current" {
		if err := install.WriteFile(path, []byte(a.opencodePlugin())); err != nil {
			return opencodeInstall{}, err
		}
	}
	return opencodeInstall{Path: path, Status: status}, nil
}

// hookUninstall is vybe hook uninstall: it removes vybe's Claude Code
// hooks and/or the OpenCode plugin.
func (a *app) hookUninstall(cmd *cobra.Command, t *hookTargets) error {
	c, o, err := t.selected(cmd)
	if err != nil {
		return err
	}
	out := map[string]any{}
	if c {
		path, err := a.claudeSettingsPath(t.project)
		if err != nil {
			return err
		}
		r, err := a.uninstallClaude(path)
		if err != nil {
			return err
		}
		out["claude"] = r
	}
	if o {
		path := a.opencodePluginPath()
		err := os.Remove(path)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return hub.Errorf(hub.CodeIOWriteFailed, "cannot remove %s: %v", path, err)
		}
		out["opencode"] = map[string]any{"path": path, "removed": err == nil}
	}
	return a.ok(out)
}

// hookInput is the part of a hook's stdin JSON the handlers use.
type hookInput struct {
	SessionID     string `json:"session_id"`
	Cwd           string `json:"cwd"`
	HookEventName string `json:"hook_event_name"`
	Source        string `json:"source"`
	Prompt        string `json:"prompt"`
	ToolName      string `json:"tool_name"`
	Error         string `json:"error"`
	Reason        string `json:"reason"`
}

// hookHandler is a hidden subcommand run by the assistant: it reads the
// hook JSON on stdin, records what happened, and always exits 0.
func (a *app) hookHandler(h hookSpec) *cobra.Command {
	return &cobra.Command{
		Use:    h.Sub,
		Short:  "hook handler for " + h.Event,
		Hidden: true,
		Args:   cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := a.runHook(cmd, h); err != nil {
				a.log.Warn("hook handler failed", "hook", h.Sub, "error", err.Error())
			}
			return nil
		},
	}
}

func (a *app) hookAgent() string {
	if n, err := a.optionalAgent(); err == nil && n != "" {
		return n
	}
	return "claude"
}

func (a *app) runHook(cmd *cobra.Command, h hookSpec) error {
	var in hookInput
	if a.env.StdinDocument() {
		b, err := io.ReadAll(io.LimitReader(a.env.Stdin, resume.MaxPushInput))
		if err == nil && len(bytes.TrimSpace(b)) > 0 {
			_ = json.Unmarshal(b, &in)
		}
	}
	if in.Cwd == "" {
		in.Cwd, _ = a.env.Getwd()
	}
	ctx := cmd.Context()
	agent := a.hookAgent()
	svc, err := a.service(ctx)
	if err != nil {
		return err
	}
	rid := fmt.Sprintf("hook_%s_%d", strings.ReplaceAll(h.Sub, "-", "_"), time.Now().UnixNano())
	if h.Sub == "session-start" {
		rctx := hub.WithIdempotency(ctx, vybeKey(agent, rid, "resume"))
		r, err := svc.Resume(rctx, resume.ResumeInput{Agent: agent, ProjectDir: in.Cwd})
		if err != nil {
			return err
		}
		r = resume.WithPrompt(r, func(b resume.Brief) string { return Prompt(agent, b) })
		// The prompt goes into the model's context: stored control
		// characters and bidi overrides arrive as visible escapes
		// (termtext, the rule of bb's hooks and human output); the
		// original passed them through, printable text is the same.
		b, _ := json.Marshal(map[string]any{"hookSpecificOutput": map[string]any{
			"hookEventName": "SessionStart", "additionalContext": termtext.Text(r.Prompt)}})
		_, _ = a.env.Stdout.Write(append(b, '\n'))
		return nil
	}
	kind, msg := hookEvent(h, in)
	if kind == "" {
		return nil
	}
	pctx := hub.WithIdempotency(ctx, vybeKey(agent, rid, "push"))
	meta, _ := json.Marshal(map[string]string{"session_id": in.SessionID, "hook": h.Event, "cwd": in.Cwd, "tool_name": in.ToolName})
	_, err = svc.Push(pctx, agent, resume.PushInput{Event: &resume.PushEvent{Kind: kind, Message: msg, Metadata: meta}})
	return err
}

// hookEvent maps a hook to the event it records ("" = none).
func hookEvent(h hookSpec, in hookInput) (kind, msg string) {
	clip := func(s string) string {
		if len(s) > hub.MaxEventMessageLen {
			return s[:hub.MaxEventMessageLen]
		}
		return s
	}
	switch h.Sub {
	case "prompt":
		if strings.TrimSpace(in.Prompt) == "" {
			return "", ""
		}
		return "user_prompt", clip(in.Prompt)
	case "tool-failure":
		return "tool_failure", clip(strings.TrimSpace("Tool failed: " + in.ToolName + " " + in.Error))
	case "tool-success":
		return "tool_success", "Tool succeeded: " + in.ToolName
	case "checkpoint":
		return "checkpoint", "Context compaction checkpoint"
	case "session-end":
		return "session_end", clip(strings.TrimSpace("Session ended " + in.Reason))
	case "task-completed":
		return "task_completed", "Assistant task completed"
	case "subagent-start":
		return "subagent_start", "Subagent started"
	case "subagent-stop":
		return "subagent_stop", "Subagent stopped"
	case "stop":
		return "agent_stop", "Assistant stopped"
	}
	return "", ""
}
