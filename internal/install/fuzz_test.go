package install

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/pelletier/go-toml/v2"

	"github.com/blackboard-hub/bb/internal/hookio"
	"github.com/blackboard-hub/bb/internal/shellquote"
)

var fuzzEntry = map[string]any{"command": "bb", "args": []any{"mcp", "--dir", "/p"}}

// fuzzInstall applies what bb install claude does to a JSON(C) text and
// returns the result and the containers it created.
func fuzzInstall(text string) (string, [][]string, error) {
	d, err := openJSONDoc(text)
	if err != nil {
		return "", nil, err
	}
	var created [][]string
	c, _, err := d.setMember([]string{"mcpServers"}, mcpServerName, fuzzEntry)
	if err != nil {
		return "", nil, err
	}
	created = append(created, c...)
	for _, ev := range hookio.Events("claude") {
		c, _, err := d.setElement([]string{"hooks", ev.Name}, claudeHooks.hookEntry(ev, fuzzHandler(ev), headlessGuard("bb hook claude wake --dir /p")), ourHookEntry("claude"))
		if err != nil {
			return "", nil, err
		}
		created = append(created, c...)
	}
	return d.text, created, nil
}

// fuzzHandler is an event's handler as bb install claude writes it: the
// session start a command, every other event bb mcp's hook tool.
func fuzzHandler(ev hookio.EventSpec) orderedMap {
	if ev.Kind == hookio.KindStart {
		return commandHandler("bb hook claude " + ev.Name + " --dir /p")
	}
	return mcpHandler("claude", mcpServerName, ev, "")
}

// fuzzUninstall removes it again, pruning the containers install created.
func fuzzUninstall(t *testing.T, text string, created [][]string) string {
	d, err := openJSONDoc(text)
	if err != nil {
		t.Fatalf("installed text does not parse: %v\n%s", err, text)
	}
	if _, err := d.removeMember([]string{"mcpServers"}, mcpServerName); err != nil {
		t.Fatal(err)
	}
	for _, ev := range hookio.Events("claude") {
		if _, err := d.removeElements([]string{"hooks", ev.Name}, ourHookEntry("claude")); err != nil {
			t.Fatal(err)
		}
	}
	for i := len(created) - 1; i >= 0; i-- {
		if err := d.pruneEmpty(created[i]); err != nil {
			t.Fatal(err)
		}
	}
	return d.text
}

func decodeAny(t *testing.T, text string) any {
	var v any
	if err := decodeJSONC(text, &v); err != nil {
		t.Fatalf("not JSON(C): %v\n%s", err, text)
	}
	return v
}

// FuzzJSONMerge: any input is refused, or bb's entries are merged in
// keeping every other value, a second merge changes no byte, and removing
// them gives back the same data (and the same bytes when bb created no
// container in an object that was laid out empty over several lines).
func FuzzJSONMerge(f *testing.F) {
	for _, s := range []string{``, `{}`, "{\n}\n", `{"mcpServers":{}}`, `{"a":1,"mcpServers":{"x":{"command":"y"}}}`, `{"mcpServers":null}`,
		`[1]`, `{"mcpServers":[]}`, `{"a":"\u00e9<>&","mcpServers":{"blackboard":{"command":"old"}}}`, `{"a":1}{"b":2}`,
		"// c\n{\n  \"a\": 1, // x\n  /* y */ \"hooks\": {\"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"z\"}]},],},\n}\n",
		`{"hooks":{"PreToolUse":[{"hooks":[{"command":"bb hook claude PreToolUse --dir /old"}]},{"hooks":[{"command":"/x/bb hook claude PreToolUse"}]}]}}`,
		`{"a":{"b":[1,{"c":null}]}}`, "{\"a\": \"/*\", \"b\": \"//\"}", "{\r\n  \"a\": 1\r\n}\r\n", "{\n\t\"hooks\": {\n\t\t\"Stop\": []\n\t}\n}\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		out, created, err := fuzzInstall(in)
		if err != nil {
			return
		}
		after := decodeAny(t, out)
		again, _, err := fuzzInstall(out)
		if err != nil || again != out {
			t.Fatalf("second merge changed the file (err %v):\n%s\n---\n%s", err, out, again)
		}
		m, _ := after.(map[string]any)
		servers, _ := m["mcpServers"].(map[string]any)
		if !jsonEqual(string(mustJSON(servers[mcpServerName])), fuzzEntry) {
			t.Fatalf("entry missing: %s", out)
		}
		if strings.TrimSpace(in) != "" && strings.Contains(in, "\r\n") && strings.Count(out, "\n") != strings.Count(out, "\r\n") && strings.Count(in, "\n") == strings.Count(in, "\r\n") {
			t.Fatalf("a CRLF file got LF lines:\n%q", out)
		}
		if strings.TrimSpace(in) == "" {
			in = "{}"
		}
		// What was there, without any entries of bb's it already held.
		before := decodeAny(t, fuzzUninstall(t, in, nil))
		back := fuzzUninstall(t, out, created)
		if !reflect.DeepEqual(decodeAny(t, back), before) {
			t.Fatalf("uninstall did not restore the data:\n%s\n---\n%s", in, back)
		}
		if len(created) == 0 && back != in && strings.TrimSpace(in) != "{}" && !strings.Contains(in, "bb hook") && !strings.Contains(in, mcpServerName) {
			t.Fatalf("uninstall did not restore the bytes:\n%q\n---\n%q", in, back)
		}
	})
}

func mustJSON(v any) []byte { b, _ := json.Marshal(v); return b }

// FuzzMergeTOMLServer: any input is refused, or yields TOML that parses to
// the old document plus the entry, merges again without a change, and —
// when the table was appended — is removed back to the same bytes.
func FuzzMergeTOMLServer(f *testing.F) {
	for _, s := range []string{``, "model = \"o3\"\n", "model = \"o3\"", "# c\n[mcp_servers.x]\ncommand = \"y\"\n",
		"[mcp_servers.blackboard]\ncommand = \"old\"\n[mcp_servers.blackboard.env]\nA = \"b\"\n[z]\nk = 1\n",
		"[mcp_servers]\nblackboard = { command = \"x\" }\n", "mcp_servers = 3\n", "a = \"\"\"\n[mcp_servers.blackboard]\n\"\"\"\n",
		"[[mcp_servers.blackboard]]\ncommand = \"x\"\n", "k = 1", "k = 1\n\n\n", "k = 1\r\n# c\r\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		out, changed, err := mergeTOMLServer("f.toml", in, mcpServerName, fuzzEntry)
		if err != nil {
			return
		}
		if !changed {
			out = in
		}
		var doc map[string]any
		if err := toml.Unmarshal(out, &doc); err != nil {
			t.Fatalf("merged file is not TOML: %v\n%s", err, out)
		}
		servers, _ := doc["mcp_servers"].(map[string]any)
		if !reflect.DeepEqual(normalizeTOML(servers[mcpServerName]), normalizeTOML(fuzzEntry)) {
			t.Fatalf("entry missing:\n%s", out)
		}
		if _, again, err := mergeTOMLServer("f.toml", out, mcpServerName, fuzzEntry); err != nil || again {
			t.Fatalf("second merge: changed=%v err=%v", again, err)
		}
		if !strings.Contains(string(in), "blackboard") && strings.HasPrefix(string(out), string(in)) {
			prefix := strings.TrimSuffix(string(out)[len(in):], tomlTableIn(string(in), mcpServerName, fuzzEntry))
			back, _, err := removeTOMLServer("f.toml", out, mcpServerName, prefix)
			if err != nil || string(back) != string(in) {
				t.Fatalf("remove did not restore the bytes (err %v):\n%q\n---\n%q", err, in, back)
			}
		}
	})
}

// FuzzShellWords: a command line of words quoted as bb writes them
// (shellquote.Quote) splits back into those words; any input splits
// without panicking.
func FuzzShellWords(f *testing.F) {
	f.Add("bb", "/home/a b/proj")
	f.Add("", `say "hi"`)
	f.Fuzz(func(t *testing.T, a, b string) {
		_ = shellWords(a + " " + b)
		if strings.Contains(a+b, "'") {
			return // Quote writes a quote inside as '\'', which bb's own lines never hold
		}
		got := shellWords(shellquote.Quote(a) + " " + shellquote.Quote(b))
		if len(got) != 2 || got[0] != a || got[1] != b {
			t.Fatalf("%q %q split into %q", a, b, got)
		}
	})
}
