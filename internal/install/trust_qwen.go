package install

import (
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
)

// --- Qwen Code ---

// Qwen Code's folder trust is off by default. Turned on
// (security.folderTrust.enabled in the user's settings, ~/.qwen/settings.json,
// or in the system's), a folder is trusted only by a rule of
// ~/.qwen/trustedFolders.json ($QWEN_CODE_TRUSTED_FOLDERS_PATH; ~/.qwen is
// $QWEN_HOME when set): TRUST_FOLDER trusts the rule's folder, TRUST_PARENT
// its parent, DO_NOT_TRUST distrusts it, the deepest rule holding the
// project wins (DO_NOT_TRUST on a tie), and a folder without a rule is not
// trusted. In a folder it does not trust, Qwen Code ignores the project's
// .qwen/settings.json: the MCP entry and bb's hooks. (An IDE's trust
// signal, when Qwen Code runs inside one, goes first; bb cannot read it.)
// https://qwenlm.github.io/qwen-code-docs/en/users/configuration/trusted-folders,
// checked against @qwen-code/qwen-code 0.24.4: its bundled
// docs/configuration/trusted-folders.md and packages/cli/src/config
// (trustedFolders.ts, trust-precedence.ts, settings.ts: the trust check
// merges the system defaults, user and system settings).

func (ie *Env) qwenDir() string {
	if d := ie.getenv("QWEN_HOME"); d != "" {
		if rest, ok := strings.CutPrefix(d, "~"); ok {
			return filepath.Join(ie.getenv("HOME"), rest)
		}
		return d
	}
	return filepath.Join(ie.getenv("HOME"), ".qwen")
}

func (ie *Env) qwenFoldersPath() string {
	if p := ie.getenv("QWEN_CODE_TRUSTED_FOLDERS_PATH"); p != "" {
		return p
	}
	return filepath.Join(ie.qwenDir(), "trustedFolders.json")
}

// qwenSettingsPaths are the settings files the trust check reads, weakest
// first: system defaults, user, system.
func (ie *Env) qwenSettingsPaths() []string {
	system := ie.getenv("QWEN_CODE_SYSTEM_SETTINGS_PATH")
	if system == "" {
		switch runtime.GOOS {
		case "darwin":
			system = "/Library/Application Support/QwenCode/settings.json"
		case "windows":
			system = `C:\ProgramData\qwen-code\settings.json`
		default:
			system = "/etc/qwen-code/settings.json"
		}
	}
	defaults := ie.getenv("QWEN_CODE_SYSTEM_DEFAULTS_PATH")
	if defaults == "" {
		defaults = filepath.Join(filepath.Dir(system), "system-defaults.json")
	}
	return []string{defaults, filepath.Join(ie.qwenDir(), "settings.json"), system}
}

func (ie *Env) qwenFix() string {
	return fmt.Sprintf("run 'bb install qwen --trust' (adds %s as TRUST_FOLDER to %s), or start qwen in it and trust the folder when asked", ie.base, ie.qwenFoldersPath())
}

func (ie *Env) qwenTrust() *Trust {
	enabled, from := false, ""
	for _, p := range ie.qwenSettingsPaths() {
		if e := folderTrustSetting(p); e != nil {
			enabled, from = *e, p
		}
	}
	if !enabled {
		return &Trust{State: TrustTrusted, Detail: "folder trust is off (security.folderTrust.enabled is not true, the default): Qwen Code loads the project's .qwen/settings.json"}
	}
	path := ie.qwenFoldersPath()
	rules, bad := readTrustRules(path, "Qwen Code", ie.qwenFix())
	if bad != nil {
		return bad
	}
	dir := realPath(ie.base)
	depth, level, rule := -1, "", ""
	for r, lvl := range rules {
		eff := r
		switch lvl {
		case "TRUST_PARENT":
			eff = filepath.Dir(r)
		case "TRUST_FOLDER", "DO_NOT_TRUST":
		default:
			continue
		}
		eff = realPath(eff)
		if !isSubpath(eff, dir) {
			continue
		}
		d := len(strings.FieldsFunc(eff, func(c rune) bool { return c == filepath.Separator }))
		if d > depth || d == depth && lvl == "DO_NOT_TRUST" {
			depth, level, rule = d, lvl, r
		}
	}
	t := &Trust{CanRecord: true}
	switch level {
	case "TRUST_FOLDER", "TRUST_PARENT":
		t.State, t.Detail = TrustTrusted, fmt.Sprintf("folder trust is on (%s) and %s trusts %s (%s %s)", from, path, ie.base, rule, level)
	case "DO_NOT_TRUST":
		t.State, t.Detail = TrustUntrusted, fmt.Sprintf("folder trust is on (%s) and %s marks %s DO_NOT_TRUST: Qwen Code ignores its .qwen/settings.json (the MCP entry and bb's hooks)", from, path, rule)
		t.Fix = ie.qwenFix()
	default:
		t.State, t.Detail = TrustUntrusted, fmt.Sprintf("folder trust is on (%s) and %s is not a trusted folder (no rule in %s): Qwen Code ignores its .qwen/settings.json (the MCP entry and bb's hooks)", from, ie.base, path)
		t.Fix = ie.qwenFix()
	}
	return t
}

func (ie *Env) recordQwenTrust() error { return ie.recordFolderTrust(ie.qwenFoldersPath()) }
