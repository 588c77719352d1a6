package procid

import "strings"

// Session returns the client session a process was started for, when the
// client hands its session id to its MCP servers and its hook commands
// alike through the environment; client is "" when none does.
//
// What each client hands, read in its installed npm package and checked
// by running it (internal/cli/bb/clienttest):
//   - Claude Code (@anthropic-ai/claude-code 2.1.328) sets
//     CLAUDE_CODE_SESSION_ID (with CLAUDECODE=1) in the environment of
//     every child it starts — hook commands, stdio MCP servers, Bash tool
//     commands — and it is the session_id of the hook payloads. (Hooks
//     also get CLAUDE_PID; MCP servers do not.) The hooks reference lists
//     the payload's session_id: https://code.claude.com/docs/en/hooks.
//   - Codex CLI (@openai/codex 0.169.0) hands none: MCP servers get a
//     filtered environment, hooks get only CODEX_HOME; CODEX_THREAD_ID is
//     set for the shell commands it runs, not for hooks or MCP servers.
//   - Gemini CLI (@google/gemini-cli 0.61.0) sets GEMINI_SESSION_ID for
//     hook commands only (docs/hooks/index.md of the package, "Environment
//     variables"); MCP servers get a sanitized environment with
//     GEMINI_CLI=1 and no session id.
//
// Where none is handed, the process walk (Client) ties hooks and MCP
// servers together.
func Session(getenv func(string) string) (client, id string) {
	if getenv("CLAUDECODE") == "1" {
		if id := strings.TrimSpace(getenv("CLAUDE_CODE_SESSION_ID")); id != "" {
			return "claude", id
		}
	}
	return "", ""
}
