package install

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/blackboard-hub/bb/internal/hub"
)

// --- GitHub Copilot CLI ---

// Copilot CLI loads a repository's hooks (.github/hooks/*.json) and its
// workspace MCP servers (.github/mcp.json, .mcp.json) only in a trusted
// folder. Trust is the trustedFolders list of $COPILOT_HOME/config.json
// (~/.copilot), which the folder dialog of an interactive start fills in;
// COPILOT_ALLOW_ALL=true trusts the working directory for one run, and
// `copilot -p --trust-folder` for one session. In a folder that is not
// trusted, `copilot -p` runs without bb's hooks and MCP server, silently.
// `copilot help config` (trustedFolders), `copilot help environment`
// (COPILOT_HOME, COPILOT_ALLOW_ALL), and
// https://docs.github.com/en/copilot/reference/hooks-reference (checked
// against @github/copilot 1.0.102).

func (ie *Env) copilotConfigPath() string {
	if h := ie.getenv("COPILOT_HOME"); h != "" {
		return filepath.Join(h, "config.json")
	}
	return filepath.Join(ie.getenv("HOME"), ".copilot", "config.json")
}

func (ie *Env) copilotFix() string {
	return fmt.Sprintf("run 'bb install copilot --trust' (adds %s to trustedFolders in %s), or start copilot in it and trust the folder when asked", ie.base, ie.copilotConfigPath())
}

func (ie *Env) copilotTrust() *Trust {
	if ie.getenv("COPILOT_ALLOW_ALL") == "true" {
		return &Trust{State: TrustTrusted, Detail: "COPILOT_ALLOW_ALL=true trusts the working directory"}
	}
	path := ie.copilotConfigPath()
	var cfg struct {
		TrustedFolders []string `json:"trustedFolders"`
	}
	b, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return &Trust{State: TrustUnknown, Detail: "cannot read " + path + ": " + oneLineErr(err), Fix: ie.copilotFix()}
	}
	if err == nil && DecodeJSONC(string(b), &cfg) != nil {
		return &Trust{State: TrustUnknown, Detail: path + " is not a JSON object with a trustedFolders list", Fix: "fix or move " + path}
	}
	dir := realPath(ie.base)
	for _, f := range cfg.TrustedFolders {
		if isSubpath(realPath(f), dir) {
			return &Trust{State: TrustTrusted, Detail: fmt.Sprintf("%s trusts %s (trustedFolders: %s)", path, ie.base, f), CanRecord: true}
		}
	}
	return &Trust{State: TrustUntrusted, CanRecord: true, Fix: ie.copilotFix(),
		Detail: fmt.Sprintf("%s is not a trusted folder for GitHub Copilot CLI (not in trustedFolders of %s): it loads neither .github/hooks/blackboard.json nor .github/mcp.json there, and copilot -p runs without them", ie.base, path)}
}

func (ie *Env) recordCopilotTrust() error {
	path := ie.copilotConfigPath()
	d, _, err := readConfigDoc(path)
	if err != nil {
		return err
	}
	same := func(raw string) bool {
		var s string
		return DecodeJSONC(raw, &s) == nil && s == ie.base
	}
	if _, _, err := d.setElement([]string{"trustedFolders"}, ie.base, same); err != nil {
		return hub.Errorf(hub.CodeInvalidInput, "%s: %s; nothing was written", path, oneLineErr(err))
	}
	return writeConfig(path, []byte(d.text))
}
