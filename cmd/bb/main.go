// Command bb is Blackboard, a local coordination hub for AI coding agents.
package main

import (
	"os"

	"github.com/blackboard-hub/bb/internal/cli/bb"
)

func main() { os.Exit(bb.Main(os.Args[1:], bb.OSEnv())) }
