package bb

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/pelletier/go-toml/v2"
)

var fuzzEntry = mcpEntry("/usr/local/bin/bb", "claude-1", "all", false)

// FuzzMergeJSONServer: any input either is refused, or yields a JSON
// object that holds the entry, keeps every other top-level key and server
// unchanged, and merges again without a change.
func FuzzMergeJSONServer(f *testing.F) {
	for _, s := range []string{``, `{}`, `{"mcpServers":{}}`, `{"a":1,"mcpServers":{"x":{"command":"y"}}}`, `{"mcpServers":null}`,
		`[1]`, `{"mcpServers":[]}`, `{"a":"\u00e9<>&","mcpServers":{"blackboard":{"command":"old"}}}`, `{"a":1}{"b":2}`, `{"a":{"b":[1,{"c":null}]}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		out, changed, err := mergeJSONServer("f.json", in, mcpServerName, fuzzEntry)
		if err != nil {
			return
		}
		if !changed {
			out = in
		}
		var before, after map[string]any
		_ = json.Unmarshal(in, &before)
		if err := json.Unmarshal(out, &after); err != nil {
			t.Fatalf("merged file is not JSON: %v\n%s", err, out)
		}
		servers, _ := after["mcpServers"].(map[string]any)
		if !sameJSON(mustJSON(servers[mcpServerName]), entryJSON(fuzzEntry)) {
			t.Fatalf("entry missing: %s", out)
		}
		for k, v := range before {
			if k == "mcpServers" {
				old, _ := v.(map[string]any)
				for name, sv := range old {
					if name != mcpServerName && !reflect.DeepEqual(servers[name], sv) {
						t.Fatalf("server %q changed", name)
					}
				}
				continue
			}
			if !reflect.DeepEqual(after[k], v) {
				t.Fatalf("key %q changed", k)
			}
		}
		if _, again, err := mergeJSONServer("f.json", out, mcpServerName, fuzzEntry); err != nil || again {
			t.Fatalf("second merge: changed=%v err=%v", again, err)
		}
	})
}

func mustJSON(v any) []byte { b, _ := json.Marshal(v); return b }

// FuzzMergeTOMLServer: any input is refused, or yields TOML that parses to
// the old document plus the entry and merges again without a change.
func FuzzMergeTOMLServer(f *testing.F) {
	for _, s := range []string{``, "model = \"o3\"\n", "# c\n[mcp_servers.x]\ncommand = \"y\"\n",
		"[mcp_servers.blackboard]\ncommand = \"old\"\n[mcp_servers.blackboard.env]\nA = \"b\"\n[z]\nk = 1\n",
		"[mcp_servers]\nblackboard = { command = \"x\" }\n", "mcp_servers = 3\n", "a = \"\"\"\n[mcp_servers.blackboard]\n\"\"\"\n",
		"[[mcp_servers.blackboard]]\ncommand = \"x\"\n", "k = 1"} {
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
	})
}
