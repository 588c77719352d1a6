package bb

import "github.com/spf13/cobra"

// fillExamples gives every command of the tree under root an example for
// its --help and its man page: a command's own Example wins; the ones
// written without one take theirs from examples (TestEveryCommandHasAnExample
// fails when a command has neither).
func fillExamples(root *cobra.Command) { fillFrom(root, examples()) }

func fillFrom(c *cobra.Command, table map[string]string) {
	if c.Example == "" {
		c.Example = table[c.CommandPath()]
	}
	for _, sub := range c.Commands() {
		fillFrom(sub, table)
	}
}

// examples holds the example of each command, by its path ("bb agent
// ack"), whose definition carries none.
func examples() map[string]string {
	return map[string]string{
		"bb help": `  bb help task create
  bb help`,
		"bb completion": `  source <(bb completion bash)
  bb completion zsh > "${fpath[1]}/_bb"
  bb completion fish > ~/.config/fish/completions/bb.fish`,
		"bb completion bash": `  source <(bb completion bash)                          # this shell
  bb completion bash > /etc/bash_completion.d/bb         # every new shell (Linux)`,
		"bb completion zsh": `  source <(bb completion zsh)                           # this shell
  bb completion zsh > "${fpath[1]}/_bb"                  # every new shell`,
		"bb completion fish": `  bb completion fish | source                           # this shell
  bb completion fish > ~/.config/fish/completions/bb.fish`,
		"bb completion powershell": `  bb completion powershell | Out-String | Invoke-Expression`,

		"bb init": `  cd ~/src/myproject && bb init
  bb --dir ~/src/myproject init`,
		"bb destroy": `  bb destroy              # says what would be deleted
  bb destroy --confirm`,
		"bb export": `  bb export > board.json
  bb export | jq '.messages | length'`,
		"bb summary": `  bb summary
  bb --json summary`,
		"bb demo": `  bb demo
  bb demo --serve --addr 127.0.0.1:7777`,
		"bb migrate": `  bb migrate --to postgres://bb@localhost/bb
  bb migrate --from postgres://bb@localhost/bb --to backup.db`,
		"bb resume": `  bb --as claude-1 resume
  bb --as claude-1 resume --peek
  bb --as claude-1 resume --focus t-3f2a`,
		"bb message": `  bb message 42
  bb --json message 42`,

		"bb status": `  bb status
  bb --as alice-1 status set "parser tests" --status testing`,
		"bb status get":   `  bb status get alice-1`,
		"bb status clear": `  bb --as alice-1 status clear`,

		"bb artifact": `  bb --as claude-1 artifact add docs/api.md "API reference"
  bb artifact show docs/api.md`,
		"bb artifact show": `  bb artifact show docs/api.md`,
		"bb artifact-show": `  bb artifact-show docs/api.md     # the same as bb artifact show`,
		"bb serve bench": `  bb serve bench
  bb serve bench --clients 200 --duration 30s
  bb serve bench --url http://127.0.0.1:7777 --token "$BB_TOKEN"`,
		"bb artifacts": `  bb artifacts
  bb artifacts --by claude-1 --limit 10
  bb artifacts --ref gh:issue:12`,

		"bb config get": `  bb config get hooks.mode`,
		"bb config list": `  bb config list
  bb --json config list`,
		"bb config set": `  bb config set hooks.mode warn
  bb config set hooks.reserve_ttl 30`,
		"bb config unset": `  bb config unset hooks.mode`,

		"bb memory": `  bb --as claude-1 memory set build.cmd "go test ./..."
  bb memory get build.cmd
  bb memory list --all`,
		"bb memory get": `  bb memory get build.cmd
  bb memory get notes --scope agent --scope-id claude-1`,
		"bb memory delete": `  bb --as claude-1 memory delete build.cmd
  bb --as claude-1 memory delete notes --scope task --scope-id t-3f2a`,
		"bb memory gc": `  bb memory gc
  bb memory gc --limit 100`,

		"bb agent": `  bb agent list
  bb --as alice-1 agent inbox
  bb agent status`,
		"bb agent ack":       `  bb --as bob-2 agent ack --message 7f3c2a9e`,
		"bb agent read":      `  bb --as bob-2 agent read --message 7f3c2a9e`,
		"bb agent heartbeat": `  bb --as alice-1 agent heartbeat`,
		"bb agent wait": `  bb --as bob-2 agent wait                             # the next thing for bob-2, up to 10m
  bb agent wait --agent alice-1 --for-reply 4ff2f5e8 --timeout 30m
  bb agent wait --agent alice-1 --for-scope src/api/ --timeout 1h
  bb --json agent wait --agent alice-1 --for-task 1da57670 | jq .data.timed_out`,
		"bb agent inbox": `  bb --as bob-2 agent inbox
  bb agent inbox --agent bob-2 --state unread --limit 10
  bb agent inbox --agent bob-2 --bead bd-12`,
		"bb agent list": `  bb agent list
  bb agent list --status blocked
  bb agent list --role reviewer`,
		"bb agent show": `  bb agent show --agent alice-1`,
		"bb agent status": `  bb agent status
  bb agent status --agent alice-1
  bb agent status --bead bd-12`,

		"bb task": `  bb --as alice-1 task create "Fix the parser"
  bb task list --status pending
  bb --as alice-1 task begin t-3f2a`,
		"bb task list": `  bb task list
  bb task list --status in_progress --limit 20
  bb task list --priority 2`,
		"bb task show": `  bb task show t-3f2a`,
		"bb task complete": `  bb --as alice-1 task complete t-3f2a --summary "parser handles CRLF"
  bb --as alice-1 task complete t-3f2a --outcome blocked --summary "needs the schema from bob-2"`,
		"bb task delete":   `  bb --as alice-1 task delete t-3f2a`,
		"bb task priority": `  bb --as alice-1 task priority t-3f2a 3`,
		"bb task status":   `  bb --as alice-1 task status t-3f2a pending`,
		"bb task dep": `  bb --as alice-1 task dep add t-3f2a t-91bc
  bb --as alice-1 task dep remove t-3f2a t-91bc`,
		"bb task dep add":    `  bb --as alice-1 task dep add t-3f2a t-91bc   # t-3f2a waits for t-91bc`,
		"bb task dep remove": `  bb --as alice-1 task dep remove t-3f2a t-91bc`,
	}
}
