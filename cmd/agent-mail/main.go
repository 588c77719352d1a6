// Command agent-mail is Agent Mail v1 (seed 004) over the Blackboard hub: a
// drop-in replacement of the original Python tool.
package main

import (
	"os"
	_ "time/tzdata" // timestamps carry the local offset even where the system has no zoneinfo

	"github.com/blackboard-hub/bb/internal/cli/agentmail"
)

func main() { os.Exit(agentmail.Main(os.Args[1:], agentmail.OSEnv())) }
