package install

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"

	"github.com/pelletier/go-toml/v2"

	"github.com/blackboard-hub/bb/internal/hub"
)

// readConfig returns the file's content, or nil when it does not exist.
func readConfig(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, &hub.Error{Code: hub.CodeIOReadFailed, Message: "cannot read " + path, Err: err}
	}
	return b, nil
}

// writeConfig replaces the file's content atomically (through a temporary
// file renamed over it, keeping its permissions), writing through a
// symlink to its target.
func writeConfig(path string, content []byte) error {
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return &hub.Error{Code: hub.CodeIOWriteFailed, Message: "cannot create " + filepath.Dir(path), Err: err}
	}
	mode := os.FileMode(0o644)
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm()
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".bb-*")
	if err != nil {
		return &hub.Error{Code: hub.CodeIOWriteFailed, Message: "cannot write " + path, Err: err}
	}
	_, werr := tmp.Write(content)
	cerr := tmp.Close()
	if werr == nil && cerr == nil {
		werr = os.Chmod(tmp.Name(), mode)
	}
	if werr == nil && cerr == nil {
		werr = os.Rename(tmp.Name(), path)
	}
	if werr != nil || cerr != nil {
		_ = os.Remove(tmp.Name())
		return &hub.Error{Code: hub.CodeIOWriteFailed, Message: "cannot write " + path, Err: errors.Join(werr, cerr)}
	}
	return nil
}

// tomlString renders s as a TOML basic string (JSON escapes are valid TOML).
func tomlString(s string) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return strings.TrimSpace(buf.String())
}

func tomlValue(v any) string {
	switch x := v.(type) {
	case string:
		return tomlString(x)
	case []any:
		parts := make([]string, 0, len(x))
		for _, e := range x {
			parts = append(parts, tomlValue(e))
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		parts := make([]string, 0, len(x))
		for _, k := range keys {
			parts = append(parts, tomlKey(k)+" = "+tomlValue(x[k]))
		}
		return "{ " + strings.Join(parts, ", ") + " }"
	}
	return fmt.Sprint(v)
}

var bareKey = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

func tomlKey(k string) string {
	if bareKey.MatchString(k) {
		return k
	}
	return tomlString(k)
}

// tomlTable renders the server entry as a [mcp_servers.<name>] table.
func tomlTable(name string, entry map[string]any) string {
	var b strings.Builder
	fmt.Fprintf(&b, "[mcp_servers.%s]\n", tomlKey(name))
	for _, k := range []string{"command", "args", "env"} {
		if v, ok := entry[k]; ok {
			fmt.Fprintf(&b, "%s = %s\n", k, tomlValue(v))
		}
	}
	return b.String()
}

// tomlTableIn renders the table with the line endings of text (a CRLF
// file stays CRLF).
func tomlTableIn(text, name string, entry map[string]any) string {
	t := tomlTable(name, entry)
	if strings.Contains(text, "\r\n") {
		t = strings.ReplaceAll(t, "\n", "\r\n")
	}
	return t
}

// tableHeader matches a TOML table header line: [a.b] or [[a.b]].
var tableHeader = regexp.MustCompile(`^\s*\[`)

// mergeTOMLServer sets [mcp_servers.<name>] in a TOML config by editing the
// text: the table is appended when absent, or its lines (with its
// sub-tables) replaced when it differs, so every other line — comments
// included — stays as it was. The result is parsed again and must hold
// exactly the old document plus the new entry; otherwise nothing is
// written.
func mergeTOMLServer(path string, old []byte, name string, entry map[string]any) ([]byte, bool, error) {
	var doc map[string]any
	if err := toml.Unmarshal(old, &doc); err != nil {
		return nil, false, hub.Errorf(hub.CodeInvalidInput, "%s is not valid TOML (%s): fix or move it; nothing was written", path, oneLineErr(err))
	}
	if doc == nil {
		doc = map[string]any{}
	}
	want := normalizeTOML(entry)
	servers, isMap := doc["mcp_servers"].(map[string]any)
	if doc["mcp_servers"] != nil && !isMap {
		return nil, false, hub.Errorf(hub.CodeInvalidInput, "%s: mcp_servers is not a table; nothing was written", path)
	}
	if cur, ok := servers[name]; ok && reflect.DeepEqual(normalizeTOML(cur), want) {
		return old, false, nil
	}
	table := tomlTableIn(string(old), name, entry)
	nl := "\n"
	if bytes.Contains(old, []byte("\r\n")) { // keep a CRLF file CRLF
		nl = "\r\n"
	}
	var out string
	if _, exists := servers[name]; !exists {
		text := string(old)
		if text != "" && !strings.HasSuffix(text, "\n") {
			text += nl
		}
		if strings.TrimSpace(text) != "" {
			text += nl
		}
		out = text + table
	} else {
		lines := strings.SplitAfter(string(old), "\n")
		start, end := tomlServerSpan(lines, name)
		if start < 0 {
			return nil, false, hub.Errorf(hub.CodeInvalidInput, "%s defines mcp_servers.%s in a form bb cannot edit safely: replace it with the entry from 'bb install codex --print'; nothing was written", path, name)
		}
		out = strings.Join(lines[:start], "") + table + strings.Join(lines[end:], "")
	}
	// Verify: the edited file must parse to the old document plus the entry.
	var got map[string]any
	if err := toml.Unmarshal([]byte(out), &got); err != nil {
		return nil, false, hub.Errorf(hub.CodeInvalidInput, "%s: cannot add mcp_servers.%s safely (%s): add the entry from 'bb install codex --print' by hand; nothing was written", path, name, oneLineErr(err))
	}
	exp := normalizeTOML(doc).(map[string]any)
	expServers, _ := exp["mcp_servers"].(map[string]any)
	if expServers == nil {
		expServers = map[string]any{}
	}
	expServers[name] = want
	exp["mcp_servers"] = expServers
	if !reflect.DeepEqual(normalizeTOML(got), exp) {
		return nil, false, hub.Errorf(hub.CodeInvalidInput, "%s: cannot add mcp_servers.%s without changing other settings: add the entry from 'bb install codex --print' by hand; nothing was written", path, name)
	}
	return []byte(out), true, nil
}

// tomlServerSpan finds the lines of the [mcp_servers.<name>] table and its
// sub-tables: lines[start:end], without the blank lines and comments that
// precede the next table. start is -1 when there is no such header.
func tomlServerSpan(lines []string, name string) (int, int) {
	header := regexp.MustCompile(`^\s*\[\s*mcp_servers\s*\.\s*("` + regexp.QuoteMeta(name) + `"|` + regexp.QuoteMeta(name) + `)\s*(\]|\.)`)
	start, end := -1, len(lines)
	for i, l := range lines {
		if start < 0 {
			if header.MatchString(l) {
				start = i
			}
			continue
		}
		if tableHeader.MatchString(l) && !header.MatchString(l) {
			end = i
			break
		}
	}
	if start < 0 {
		return -1, -1
	}
	for end > start+1 && isBlankOrComment(lines[end-1]) {
		end--
	}
	return start, end
}

// removeTOMLServer deletes the [mcp_servers.<name>] table from a TOML
// config by editing the text; prefix is what bb added before the table when
// it appended it (removed with it when the table is still last). The
// result must parse to the old document without the server.
func removeTOMLServer(path string, old []byte, name, prefix string) ([]byte, bool, error) {
	var doc map[string]any
	if err := toml.Unmarshal(old, &doc); err != nil {
		return nil, false, hub.Errorf(hub.CodeInvalidInput, "%s is not valid TOML (%s): fix or move it; nothing was written", path, oneLineErr(err))
	}
	servers, _ := doc["mcp_servers"].(map[string]any)
	if _, ok := servers[name]; !ok {
		return old, false, nil
	}
	lines := strings.SplitAfter(string(old), "\n")
	start, end := tomlServerSpan(lines, name)
	if start < 0 {
		return nil, false, hub.Errorf(hub.CodeInvalidInput, "%s defines mcp_servers.%s in a form bb cannot edit safely: remove it by hand; nothing was written", path, name)
	}
	before := strings.Join(lines[:start], "")
	if strings.TrimSpace(strings.Join(lines[end:], "")) == "" && prefix != "" && strings.HasSuffix(before, prefix) {
		before = strings.TrimSuffix(before, prefix)
	}
	out := before + strings.Join(lines[end:], "")
	var got map[string]any
	if err := toml.Unmarshal([]byte(out), &got); err != nil {
		return nil, false, hub.Errorf(hub.CodeInvalidInput, "%s: cannot remove mcp_servers.%s safely: remove it by hand; nothing was written", path, name)
	}
	delete(servers, name)
	exp := normalizeTOML(doc).(map[string]any)
	if len(servers) == 0 {
		if gs, _ := got["mcp_servers"].(map[string]any); gs == nil {
			delete(exp, "mcp_servers")
		} else {
			exp["mcp_servers"] = map[string]any{}
		}
	}
	if got == nil {
		got = map[string]any{}
	}
	if !reflect.DeepEqual(normalizeTOML(got), exp) {
		return nil, false, hub.Errorf(hub.CodeInvalidInput, "%s: cannot remove mcp_servers.%s without changing other settings: remove it by hand; nothing was written", path, name)
	}
	return []byte(out), true, nil
}

func isBlankOrComment(l string) bool {
	t := strings.TrimSpace(l)
	return t == "" || strings.HasPrefix(t, "#")
}

// normalizeTOML maps decoded TOML and our entry to comparable values.
func normalizeTOML(v any) any {
	switch x := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = normalizeTOML(e)
		}
		return m
	case []any:
		s := make([]any, len(x))
		for i, e := range x {
			s[i] = normalizeTOML(e)
		}
		return s
	case []string:
		s := make([]any, len(x))
		for i, e := range x {
			s[i] = e
		}
		return s
	case map[string]string:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = e
		}
		return m
	}
	return v
}

func oneLineErr(err error) string { return strings.Join(strings.Fields(err.Error()), " ") }

// installRecord is what bb remembers about one file it edited, so that
// uninstall removes exactly what install added: whether the file was
// created, which containers (JSON member paths) it created, and what it
// added before an appended TOML table.
type installRecord struct {
	Created    bool       `json:"created,omitempty"`
	Containers [][]string `json:"containers,omitempty"`
	TOMLPrefix string     `json:"toml_prefix,omitempty"`
	// Lines are the lines it appended to a line-based file
	// (.worktreeinclude).
	Lines []string `json:"lines,omitempty"`
}

func (r *installRecord) addContainers(ps [][]string) {
next:
	for _, p := range ps {
		for _, c := range r.Containers {
			if reflect.DeepEqual(c, p) {
				continue next
			}
		}
		r.Containers = append(r.Containers, p)
	}
}

// installState is the record of every file bb install edited on this
// machine, kept in $XDG_STATE_HOME/bb/installed.json (default
// ~/.local/state/bb/installed.json), keyed by absolute path.
type installState struct {
	path  string
	Files map[string]*installRecord `json:"files"`
	// Dirs are the directories bb created to hold a file it created.
	Dirs []string `json:"dirs,omitempty"`
}

func loadState(getenv func(string) string) *installState {
	st := &installState{Files: map[string]*installRecord{}}
	dir := getenv("XDG_STATE_HOME")
	if dir == "" {
		home := getenv("HOME")
		if home == "" {
			return st // nowhere to keep it: uninstall then leaves empty containers
		}
		dir = filepath.Join(home, ".local", "state")
	}
	st.path = filepath.Join(dir, "bb", "installed.json")
	if b, err := os.ReadFile(st.path); err == nil {
		_ = json.Unmarshal(b, st)
		if st.Files == nil {
			st.Files = map[string]*installRecord{}
		}
	}
	return st
}

func (st *installState) record(path string) *installRecord {
	r := st.Files[path]
	if r == nil {
		r = &installRecord{}
	}
	return r
}

func (st *installState) save() error {
	if st.path == "" {
		return nil
	}
	for k, r := range st.Files {
		if r == nil || (!r.Created && len(r.Containers) == 0 && r.TOMLPrefix == "" && len(r.Lines) == 0) {
			delete(st.Files, k)
		}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	_ = enc.Encode(st)
	return writeConfig(st.path, buf.Bytes())
}
