// Command vybe is the vybe agent contract (seed 002) over the Blackboard
// core: tasks, resume, push, memory, events and artifacts.
package main

import (
	"os"

	"github.com/blackboard-hub/bb/internal/cli/vybe"
)

func main() { os.Exit(vybe.Main(os.Args[1:], vybe.OSEnv())) }
