package bb

import (
	"testing"

	"github.com/blackboard-hub/bb/internal/install"
	bbmcp "github.com/blackboard-hub/bb/internal/mcp"
)

// install names bb mcp's tool profiles without linking the MCP server:
// its names are the server's.
func TestInstallProfilesAreTheMCPServers(t *testing.T) {
	if install.ToolsAll != bbmcp.ProfileAll || install.ToolsCore != bbmcp.ProfileCore {
		t.Fatalf("install's profiles %q/%q, bb mcp's %q/%q", install.ToolsAll, install.ToolsCore, bbmcp.ProfileAll, bbmcp.ProfileCore)
	}
	if len(bbmcp.ToolNames(install.ToolsCore)) == 0 || len(bbmcp.ToolNames(install.ToolsCore)) >= len(bbmcp.ToolNames(install.ToolsAll)) {
		t.Fatal("the core profile is not a smaller list of tools than all")
	}
}

// The mcp_tool hooks bb install writes call bb mcp's hook tool by its name.
func TestInstallHookToolIsTheMCPServers(t *testing.T) {
	if install.MCPHookTool != bbmcp.HookTool {
		t.Fatalf("install writes hooks calling %q, bb mcp serves %q", install.MCPHookTool, bbmcp.HookTool)
	}
}
