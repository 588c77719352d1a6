package boot_test

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

const module = "github.com/blackboard-hub/bb/"

// surfaces are the packages that must enter the core through app.API only.
var surfaces = []string{"./internal/cli/...", "./internal/mcp/...", "./internal/server/...", "./internal/view/..."}

// core names a surface must not use: the store port, its transactions and
// the concrete service (whose Store and project root a surface could
// otherwise reach). Only this package builds a service.
var forbidden = map[string]bool{
	"Store": true, "Tx": true, "Service": true, "NewService": true, "CommitSignaler": true,
}

type pkg struct {
	ImportPath string
	Dir        string
	GoFiles    []string
	Imports    []string
	Deps       []string
}

func listSurfaces(t *testing.T) []pkg {
	t.Helper()
	cmd := exec.Command("go", append([]string{"list", "-json=ImportPath,Dir,GoFiles,Imports,Deps"}, surfaces...)...)
	cmd.Dir = "../.."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var pkgs []pkg
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for dec.More() {
		var p pkg
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, p)
	}
	if len(pkgs) < 5 {
		t.Fatalf("go list found only %d surface packages", len(pkgs))
	}
	return pkgs
}

// No surface imports a store package; the ones that do not construct the
// service (MCP, the server, the views) do not even depend on one.
func TestSurfacesDoNotImportTheStore(t *testing.T) {
	for _, p := range listSurfaces(t) {
		for _, imp := range p.Imports {
			if strings.HasPrefix(imp, module+"internal/store") {
				t.Errorf("%s imports %s: surfaces get an app.API from internal/boot", p.ImportPath, imp)
			}
		}
		if strings.HasPrefix(p.ImportPath, module+"internal/cli/") {
			continue // the binaries build their board with internal/boot
		}
		for _, d := range p.Deps {
			if strings.HasPrefix(d, module+"internal/store") || d == module+"internal/boot" {
				t.Errorf("%s depends on %s: it should be handed an app.API", p.ImportPath, d)
			}
		}
	}
}

// No surface names hub.Store, hub.Tx or hub.Service: they reach the core
// through app.API only.
func TestSurfacesUseOnlyTheAPI(t *testing.T) {
	for _, p := range listSurfaces(t) {
		for _, f := range p.GoFiles {
			path := filepath.Join(p.Dir, f)
			file, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			hubName := ""
			for _, imp := range file.Imports {
				if strings.Trim(imp.Path.Value, `"`) == module+"internal/hub" {
					hubName = "hub"
					if imp.Name != nil {
						hubName = imp.Name.Name
					}
				}
			}
			if hubName == "" {
				continue
			}
			ast.Inspect(file, func(n ast.Node) bool {
				sel, ok := n.(*ast.SelectorExpr)
				if !ok {
					return true
				}
				if id, ok := sel.X.(*ast.Ident); ok && id.Name == hubName && forbidden[sel.Sel.Name] {
					t.Errorf("%s uses hub.%s: surfaces call the core through app.API only", path, sel.Sel.Name)
				}
				return true
			})
		}
	}
}
