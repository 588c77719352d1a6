package boot_test

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/blackboard-hub/bb/internal/app/roles"
)

const module = "github.com/blackboard-hub/bb/"

// surfaces are the packages that must enter the core through app.API
// only: every row of surfaceRoles and the packages below it (which need a
// row of their own, test suites and generators aside).
func surfaces() []string {
	var out []string
	for rel := range surfaceRoles {
		out = append(out, "./"+rel+"/...")
	}
	slices.Sort(out)
	return out
}

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
	pkgs := goList(t, surfaces()...)
	if len(pkgs) < 5 {
		t.Fatalf("go list found only %d surface packages", len(pkgs))
	}
	return pkgs
}

// goList lists the packages of the patterns (relative to the module).
func goList(t *testing.T, patterns ...string) []pkg {
	t.Helper()
	cmd := exec.Command("go", append([]string{"list", "-json=ImportPath,Dir,GoFiles,Imports,Deps"}, patterns...)...)
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

// surfaceRoles are the roles each surface may name: its door into the core.
// A surface declares an interface of these roles (or takes app.API, all of
// them, when it serves every role: the bb CLI runs bb mcp and bb serve, the
// server answers every method over RPC).
var surfaceRoles = map[string][]string{
	"internal/cli/bb":        {"app.API"},
	"internal/cli/vybe":      {"hub.Admin", "hub.Identity", "memory.API", "hub.Tasks", "resume.API"},
	"internal/cli/agentmail": {"hub.Admin", "hub.Identity", "agentmail.API"},
	"internal/mcp":           {"hub.Admin", "hub.Identity", "hub.Mail", "hub.Messages", "hub.Reservations", "memory.API", "hub.Tasks", "hub.Timeline", "hooks.API", "resume.API", "search.API", "overview.API", "artifacts.API", "oversight.API", "leases.API"},
	"internal/server":        {"app.API", "hooks.API"}, // hooks.API: the metrics count the hook methods by name
	"internal/server/remote": {"app.API"},
	"internal/server/wire":   {}, // header names both sides write
	"internal/notify":        {"hub.Admin", "hub.Timeline", "overview.API"},
	"internal/tui":           {"hub.Admin", "hub.Identity", "hub.Messages", "hub.Mail", "hub.Reservations", "hub.Tasks", "hub.Timeline", "overview.API", "search.API", "oversight.API", "leases.API"},
	"internal/view":          {},
	"internal/install":       {}, // writes clients' files; names no role
	"internal/hookio":        {}, // clients' hook payloads and replies
	"internal/loadgen":       {}, // drives a bb serve over HTTP
	"internal/cli/flagerr":   {},
	"internal/cli/terminal":  {},
	"internal/cli/kit":       {},
	// test suites of the surfaces
	"internal/cli/agentmail/agentmailpg": {},
	"internal/cli/bb/pgscript":           {},
	"internal/cli/clibench":              {},
}

// roleNames returns, per import path, the roles of the core: app.API and
// the interfaces it embeds (internal/app/roles reads the one list).
func roleNames(t *testing.T) map[string]map[string]bool {
	t.Helper()
	rs, err := roles.Read("..")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]map[string]bool{module + "internal/app": {"API": true}}
	for _, r := range rs {
		if out[module+r.Path] == nil {
			out[module+r.Path] = map[string]bool{}
		}
		out[module+r.Path][r.Name] = true
	}
	if len(out) < 5 {
		t.Fatalf("app.API embeds the roles of only %d packages", len(out))
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

// fileAccess are the calls that read or write a file's content or run a
// program: the core decides on what a surface hands it and never reads a
// file a caller names (over RPC that would be bb serve's file system).
// The kernel's path rules may look at links (os.Lstat, os.Readlink,
// filepath.EvalSymlinks) to keep a path inside the project.
var fileAccess = map[string]map[string]bool{
	"os":        {"Open": true, "OpenFile": true, "ReadFile": true, "ReadDir": true, "DirFS": true, "Create": true, "WriteFile": true, "OpenRoot": true, "OpenInRoot": true},
	"io/ioutil": {"ReadFile": true, "ReadDir": true, "ReadAll": false, "WriteFile": true},
	"io/fs":     {"ReadFile": true, "ReadDir": true},
	"os/exec":   {"Command": true, "CommandContext": true},
}

// No package of the core (internal/hub and its applications) opens, reads
// or writes a file or runs a program.
func TestCoreReadsNoFiles(t *testing.T) {
	pkgs := goList(t, "./internal/hub/...")
	if len(pkgs) < 5 {
		t.Fatalf("go list found only %d packages under internal/hub", len(pkgs))
	}
	for _, p := range pkgs {
		for _, f := range p.GoFiles {
			path := filepath.Join(p.Dir, f)
			file, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			names := map[string]string{}
			for _, imp := range file.Imports {
				ip := strings.Trim(imp.Path.Value, `"`)
				if fileAccess[ip] == nil {
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
				if id, ok := sel.X.(*ast.Ident); ok && names[id.Name] != "" && fileAccess[names[id.Name]][sel.Sel.Name] {
					t.Errorf("%s calls %s.%s: the core works on what a surface hands it, never on files", path, names[id.Name], sel.Sel.Name)
				}
				return true
			})
		}
	}
}

// vybe and agent-mail do not link the MCP server (nor its SDK): they are
// small CLIs over the board.
func TestSmallCLIsDoNotLinkMCP(t *testing.T) {
	for _, p := range goList(t, "./cmd/vybe", "./cmd/agent-mail", "./internal/cli/vybe", "./internal/cli/agentmail") {
		for _, d := range p.Deps {
			if d == module+"internal/mcp" || strings.HasPrefix(d, "github.com/modelcontextprotocol/") {
				t.Errorf("%s links %s", p.ImportPath, d)
			}
		}
	}
}

// The applications under internal/hub reach the store only through the
// kernel's unit of work (hub.WriteAs, ReadAs, WriteObserved): the store
// is unexported, and none takes it out through WithStore, which is for
// tests.
func TestApplicationsDoNotTakeTheStore(t *testing.T) {
	for _, p := range goList(t, "./internal/hub/...") {
		if p.ImportPath == module+"internal/hub" {
			continue
		}
		for _, f := range p.GoFiles {
			path := filepath.Join(p.Dir, f)
			file, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			ast.Inspect(file, func(n ast.Node) bool {
				if sel, ok := n.(*ast.SelectorExpr); ok && sel.Sel.Name == "WithStore" {
					t.Errorf("%s calls WithStore: an application uses the kernel's unit of work", path)
				}
				return true
			})
		}
	}
}
