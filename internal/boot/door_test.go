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

// roleSources declare the role interfaces of the core, by import path.
var roleSources = map[string]string{
	"internal/app":              "../app/app.go",
	"internal/hub":              "../hub/api.go",
	"internal/hub/hooks":        "../hub/hooks/api.go",
	"internal/hub/agentmail":    "../hub/agentmail/api.go",
	"internal/hub/overview":     "../hub/overview/doc.go",
	"internal/hub/resume":       "../hub/resume/doc.go",
	"internal/hub/memory":       "../hub/memory/doc.go",
	"internal/hub/search":       "../hub/search/doc.go",
	"internal/hub/credentials":  "../hub/credentials/doc.go",
	"internal/hub/housekeeping": "../hub/housekeeping/doc.go",
	"internal/hub/artifacts":    "../hub/artifacts/doc.go",
	"internal/hub/oversight":    "../hub/oversight/doc.go",
}

// surfaceRoles are the roles each surface may name: its door into the core.
// A surface declares an interface of these roles (or takes app.API, all of
// them, when it serves every role: the bb CLI runs bb mcp and bb serve, the
// server answers every method over RPC).
var surfaceRoles = map[string][]string{
	"internal/cli/bb":        {"app.API"},
	"internal/cli/vybe":      {"hub.Admin", "hub.Identity", "memory.API", "hub.Tasks", "resume.API"},
	"internal/cli/agentmail": {"hub.Admin", "hub.Identity", "agentmail.API"},
	"internal/mcp":           {"hub.Admin", "hub.Identity", "hub.Mail", "hub.Messages", "hub.Reservations", "memory.API", "hub.Tasks", "hub.Timeline", "hooks.API", "resume.API", "search.API", "overview.API", "artifacts.API", "oversight.API"},
	"internal/server":        {"app.API"},
	"internal/server/remote": {"app.API"},
	"internal/notify":        {"hub.Admin", "hub.Timeline", "overview.API"},
	"internal/tui":           {"hub.Admin", "hub.Identity", "hub.Messages", "hub.Mail", "hub.Reservations", "hub.Tasks", "hub.Timeline", "overview.API", "search.API", "oversight.API"},
	"internal/view":          {},
	"internal/cli/flagerr":   {},
	"internal/cli/terminal":  {},
	"internal/cli/kit":       {},
	// test suites of the surfaces
	"internal/cli/agentmail/agentmailpg": {},
	"internal/cli/bb/pgscript":           {},
	"internal/cli/clibench":              {},
}

// roleNames returns, per import path, the interface types declared in its
// role file.
func roleNames(t *testing.T) map[string]map[string]bool {
	t.Helper()
	out := map[string]map[string]bool{}
	for path, src := range roleSources {
		f, err := parser.ParseFile(token.NewFileSet(), src, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		out[module+path] = map[string]bool{}
		ast.Inspect(f, func(n ast.Node) bool {
			if ts, ok := n.(*ast.TypeSpec); ok {
				if _, ok := ts.Type.(*ast.InterfaceType); ok {
					out[module+path][ts.Name.Name] = true
				}
			}
			return true
		})
	}
	return out
}

// Each surface names only the roles of its row in surfaceRoles: what it
// may call is what it declares, and the compiler holds it to that.
func TestSurfacesDeclareTheirRoles(t *testing.T) {
	roles := roleNames(t)
	for _, p := range listSurfaces(t) {
		rel := strings.TrimPrefix(p.ImportPath, module)
		allowed, ok := surfaceRoles[rel]
		if !ok {
			if strings.Contains(rel, "test") || strings.HasSuffix(rel, "/gen") {
				continue // test helpers and generators are not surfaces
			}
			t.Errorf("%s: a surface without a row in surfaceRoles", rel)
			continue
		}
		may := map[string]bool{}
		for _, r := range allowed {
			may[r] = true
		}
		for _, f := range p.GoFiles {
			path := filepath.Join(p.Dir, f)
			file, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			names := map[string]string{} // local import name -> import path
			for _, imp := range file.Imports {
				ip := strings.Trim(imp.Path.Value, `"`)
				if roles[ip] == nil {
					continue
				}
				name := ip[strings.LastIndex(ip, "/")+1:]
				if imp.Name != nil {
					name = imp.Name.Name
				}
				names[name] = ip
			}
			ast.Inspect(file, func(n ast.Node) bool {
				sel, ok := n.(*ast.SelectorExpr)
				if !ok {
					return true
				}
				id, ok := sel.X.(*ast.Ident)
				if !ok || names[id.Name] == "" || !roles[names[id.Name]][sel.Sel.Name] {
					return true
				}
				ip := names[id.Name]
				role := ip[strings.LastIndex(ip, "/")+1:] + "." + sel.Sel.Name
				if !may[role] {
					t.Errorf("%s names the role %s, which surface %s does not declare (surfaceRoles)", path, role, rel)
				}
				return true
			})
		}
	}
}
