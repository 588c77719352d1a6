package bb

import "github.com/spf13/cobra"

// fillExamples gives every command of the tree under root an example for
// its --help and its man page: a command's own Example wins; the ones
// written without one take theirs from exampleFor (TestEveryCommandHasAnExample
// fails when a command has neither).
func fillExamples(root *cobra.Command) {
	if root.Example == "" {
		root.Example = exampleFor(root.CommandPath())
	}
	for _, c := range root.Commands() {
		fillExamples(c)
	}
}

// exampleFor is the example of a command, by its path ("bb agent ack"),
// for the commands whose definition carries none; "" for any other.
func exampleFor(path string) string {
	switch path {
	case "bb help":
		return `  bb help task create
  bb help`
	case "bb completion":
		return `  source <(bb completion bash)
  bb completion zsh > "${fpath[1]}/_bb"
  bb completion fish > ~/.config/fish/completions/bb.fish`
	case "bb completion bash":
		return `  source <(bb completion bash)                          # this shell
  bb completion bash > /etc/bash_completion.d/bb         # every new shell (Linux)`
	case "bb completion zsh":
		return `  source <(bb completion zsh)                           # this shell
  bb completion zsh > "${fpath[1]}/_bb"                  # every new shell`
	case "bb completion fish":
		return `  bb completion fish | source                           # this shell
  bb completion fish > ~/.config/fish/completions/bb.fish`
	case "bb completion powershell":
		return `  bb completion powershell | Out-String | Invoke-Expression`

	case "bb init":
		return `  cd ~/src/myproject && bb init
  bb --dir ~/src/myproject init`
	case "bb destroy":
		return `  bb destroy              # says what would be deleted
  bb destroy --confirm`
	case "bb export":
		return `  bb export > board.json
  bb export | jq '.messages | length'`
	case "bb summary":
		return `  bb summary
  bb --json summary`
	case "bb demo":
		return `  bb demo
  bb demo --serve --addr 127.0.0.1:7777`
	case "bb migrate":
		return `  bb migrate --to postgres://bb@localhost/bb
  bb migrate --from postgres://bb@localhost/bb --to backup.db`
	case "bb resume":
		return `  bb --as claude-1 resume
  bb --as claude-1 resume --peek
  bb --as claude-1 resume --focus t-3f2a`
	case "bb message":
		return `  bb message 42
  bb --json message 42`

	case "bb status":
		return `  bb status
  bb --as alice-1 status set "parser tests" --status testing`
	case "bb status get":
		return `  bb status get alice-1`
	case "bb status clear":
		return `  bb --as alice-1 status clear`

	case "bb artifact":
		return `  bb --as claude-1 artifact add docs/api.md "API reference"
  bb artifact show docs/api.md`
	case "bb artifact show":
		return `  bb artifact show docs/api.md`
	case "bb artifact-show":
		return `  bb artifact-show docs/api.md     # the same as bb artifact show`
	case "bb serve bench":
		return `  bb serve bench
  bb serve bench --clients 200 --duration 30s
  bb serve bench --url http://127.0.0.1:7777 --token "$BB_TOKEN"`
	case "bb artifacts":
		return `  bb artifacts
  bb artifacts --by claude-1 --limit 10
  bb artifacts --ref gh:issue:12`

	case "bb config get":
		return `  bb config get hooks.mode`
	case "bb config list":
		return `  bb config list
  bb --json config list`
	case "bb config set":
		return `  bb config set hooks.mode warn
  bb config set hooks.reserve_ttl 30`
	case "bb config unset":
		return `  bb config unset hooks.mode`

	case "bb memory":
		return `  bb --as claude-1 memory set build.cmd "go test ./..."
  bb memory get build.cmd
  bb memory list --all`
	case "bb memory get":
		return `  bb memory get build.cmd
  bb memory get notes --scope agent --scope-id claude-1`
	case "bb memory delete":
		return `  bb --as claude-1 memory delete build.cmd
  bb --as claude-1 memory delete notes --scope task --scope-id t-3f2a`
	case "bb memory gc":
		return `  bb memory gc
  bb memory gc --limit 100`

	case "bb agent":
		return `  bb agent list
  bb --as alice-1 agent inbox
  bb agent status`
	case "bb agent ack":
		return `  bb --as bob-2 agent ack --message 7f3c2a9e`
	case "bb agent read":
		return `  bb --as bob-2 agent read --message 7f3c2a9e`
	case "bb agent heartbeat":
		return `  bb --as alice-1 agent heartbeat`
	case "bb agent wait":
		return `  bb --as bob-2 agent wait                             # the next thing for bob-2, up to 10m
  bb agent wait --agent alice-1 --for-reply 4ff2f5e8 --timeout 30m
  bb agent wait --agent alice-1 --for-scope src/api/ --timeout 1h
  bb --json agent wait --agent alice-1 --for-task 1da57670 | jq .data.timed_out`
	case "bb agent inbox":
		return `  bb --as bob-2 agent inbox
  bb agent inbox --agent bob-2 --state unread --limit 10
  bb agent inbox --agent bob-2 --bead bd-12`
	case "bb agent list":
		return `  bb agent list
  bb agent list --status blocked
  bb agent list --role reviewer`
	case "bb agent show":
		return `  bb agent show --agent alice-1`
	case "bb agent status":
		return `  bb agent status
  bb agent status --agent alice-1
  bb agent status --bead bd-12`

	case "bb task":
		return `  bb --as alice-1 task create "Fix the parser"
  bb task list --status pending
  bb --as alice-1 task begin t-3f2a`
	case "bb task list":
		return `  bb task list
  bb task list --status in_progress --limit 20
  bb task list --priority 2`
	case "bb task show":
		return `  bb task show t-3f2a`
	case "bb task complete":
		return `  bb --as alice-1 task complete t-3f2a --summary "parser handles CRLF"
  bb --as alice-1 task complete t-3f2a --outcome blocked --summary "needs the schema from bob-2"`
	case "bb task delete":
		return `  bb --as alice-1 task delete t-3f2a`
	case "bb task priority":
		return `  bb --as alice-1 task priority t-3f2a 3`
	case "bb task status":
		return `  bb --as alice-1 task status t-3f2a pending`
	case "bb task dep":
		return `  bb --as alice-1 task dep add t-3f2a t-91bc
  bb --as alice-1 task dep remove t-3f2a t-91bc`
	case "bb task dep add":
		return `  bb --as alice-1 task dep add t-3f2a t-91bc   # t-3f2a waits for t-91bc`
	case "bb task dep remove":
		return `  bb --as alice-1 task dep remove t-3f2a t-91bc`
	}
	return ""
}
