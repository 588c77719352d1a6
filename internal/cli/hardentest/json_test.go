package hardentest

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"
)

// jsonField returns the value at a dot path ("data.0.id") of a JSON
// document, as text (strings raw, anything else compact JSON).
func jsonField(t testing.TB, doc, path string) string {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(doc), &v); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, doc)
	}
	for _, k := range strings.Split(path, ".") {
		switch x := v.(type) {
		case map[string]any:
			v = x[k]
		case []any:
			i, err := strconv.Atoi(k)
			if err != nil || i >= len(x) {
				t.Fatalf("%s: no %s in %s", path, k, doc)
			}
			v = x[i]
		default:
			t.Fatalf("%s: no %s in %s", path, k, doc)
		}
	}
	if s, ok := v.(string); ok {
		return s
	}
	b, _ := json.Marshal(v)
	return fmt.Sprint(string(b))
}
