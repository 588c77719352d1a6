package bb

import "github.com/spf13/cobra"

// extraCommands lists the command groups of the other features (bb agent,
// tasks, memory, mcp, serve…); each lives in its own file.
func (a *app) extraCommands() []*cobra.Command {
	return []*cobra.Command{
		a.mcpCmd(),
		a.agentCmd(),
		a.migrateCmd(),
		a.taskCmd(), a.memoryCmd(), a.resumeCmd(), a.pushCmd(), // tasks, memory, resume, push (seed 002)
		a.serveCmd(),
		a.hookCmd(), a.configCmd(),
	}
}
