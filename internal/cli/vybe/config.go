package vybe

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
)

// configTemplate is written to ~/.config/vybe/config.yaml when missing, as
// the original does on every run. Everything in it is commented out.
const configTemplate = `# vybe configuration.
# Every setting is optional; flags and environment variables take precedence.
#
# Database file (default ~/.config/vybe/vybe.db; --db-path and VYBE_DB_PATH win):
# db_path: /path/to/vybe.db
`

func (a *app) userConfigPath() string {
	if a.env.Home == "" {
		return ""
	}
	return filepath.Join(a.env.Home, ".config", "vybe", "config.yaml")
}

// ensureConfigTemplate creates the commented user config file when it is
// missing. Failures are ignored: the file is a convenience, never needed.
func (a *app) ensureConfigTemplate() {
	p := a.userConfigPath()
	if p == "" {
		return
	}
	if _, err := os.Stat(p); err == nil || !os.IsNotExist(err) {
		return
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return
	}
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return
	}
	_, _ = f.WriteString(configTemplate)
	_ = f.Close()
}

// configFiles are searched in order for db_path.
func (a *app) configFiles() []string {
	var out []string
	if p := a.userConfigPath(); p != "" {
		out = append(out, p)
	}
	out = append(out, "/etc/vybe/config.yaml")
	if wd, err := a.env.Getwd(); err == nil {
		out = append(out, filepath.Join(wd, "config.yaml"))
	}
	return out
}

// readConfigValue returns the value of a top-level "key: value" line of a
// simple YAML file ("" when absent). Quotes and trailing comments are
// stripped.
func readConfigValue(path, key string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, " ") || strings.HasPrefix(line, "\t") {
			continue
		}
		k, v, ok := strings.Cut(line, ":")
		if !ok || strings.TrimSpace(k) != key {
			continue
		}
		v = strings.TrimSpace(v)
		if strings.HasPrefix(v, `"`) || strings.HasPrefix(v, `'`) {
			q := v[:1]
			if end := strings.Index(v[1:], q); end >= 0 {
				return v[1 : 1+end]
			}
			return strings.Trim(v, q)
		}
		if i := strings.Index(v, " #"); i >= 0 {
			v = strings.TrimSpace(v[:i])
		}
		return v
	}
	return ""
}

// resolveDBPath applies --db-path > VYBE_DB_PATH > config db_path > default
// and says where the answer came from (status's db.source).
func (a *app) resolveDBPath() (path, source string) {
	if a.g.dbPath != "" {
		return expandHome(a.g.dbPath, a.env.Home), "cli(--db-path)"
	}
	if v := a.env.Getenv("VYBE_DB_PATH"); v != "" {
		return expandHome(v, a.env.Home), "env(VYBE_DB_PATH)"
	}
	for _, f := range a.configFiles() {
		if v := readConfigValue(f, "db_path"); v != "" {
			return expandHome(v, a.env.Home), "config(" + f + ")"
		}
	}
	return filepath.Join(a.env.Home, ".config", "vybe", "vybe.db"), "default(~/.config/vybe/vybe.db)"
}

func expandHome(p, home string) string {
	if p == "~" {
		return home
	}
	if strings.HasPrefix(p, "~/") && home != "" {
		return filepath.Join(home, p[2:])
	}
	return p
}
