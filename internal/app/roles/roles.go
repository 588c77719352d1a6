// Package roles reads the one list of the board's applications and roles:
// the interfaces that app.API (internal/app/app.go) embeds. The remote
// client's generator (internal/server/remote/gen) and the door test of
// internal/boot read it here instead of keeping lists of their own, so a
// new application is added to app.API and nowhere else.
package roles

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Module is the import path of this module's root.
const Module = "github.com/blackboard-hub/bb"

// Role is one interface app.API embeds.
type Role struct {
	// Pkg is the package's name as app.go imports it ("hub", "hooks").
	Pkg string
	// Path is its import path relative to the module ("internal/hub/hooks").
	Path string
	// Name is the interface ("Identity", "API").
	Name string
}

// String is the role as a surface names it ("hooks.API").
func (r Role) String() string { return r.Pkg + "." + r.Name }

// Read returns the roles of app.API in the order app.go embeds them;
// internal is the module's internal/ directory.
func Read(internal string) ([]Role, error) {
	src := filepath.Join(internal, "app", "app.go")
	f, err := parser.ParseFile(token.NewFileSet(), src, nil, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	imports := map[string]string{}
	for _, imp := range f.Imports {
		p := strings.Trim(imp.Path.Value, `"`)
		name := p[strings.LastIndex(p, "/")+1:]
		if imp.Name != nil {
			name = imp.Name.Name
		}
		imports[name] = strings.TrimPrefix(p, Module+"/")
	}
	var api *ast.InterfaceType
	ast.Inspect(f, func(n ast.Node) bool {
		if ts, ok := n.(*ast.TypeSpec); ok && ts.Name.Name == "API" {
			api, _ = ts.Type.(*ast.InterfaceType)
		}
		return api == nil
	})
	if api == nil {
		return nil, fmt.Errorf("%s: no interface API", src)
	}
	var out []Role
	for _, m := range api.Methods.List {
		sel, ok := m.Type.(*ast.SelectorExpr)
		if !ok {
			return nil, fmt.Errorf("%s: app.API holds roles of the applications only, not %T", src, m.Type)
		}
		pkg := sel.X.(*ast.Ident).Name
		path, ok := imports[pkg]
		if !ok {
			return nil, fmt.Errorf("%s: %s.%s: package not imported", src, pkg, sel.Sel.Name)
		}
		out = append(out, Role{Pkg: pkg, Path: path, Name: sel.Sel.Name})
	}
	return out, nil
}

// Packages are the import paths (relative to the module) of internal/app
// and of every package that declares a role, each once, in the order of
// first appearance.
func Packages(rs []Role) []string {
	out := []string{"internal/app"}
	for _, r := range rs {
		if !slices.Contains(out, r.Path) {
			out = append(out, r.Path)
		}
	}
	return out
}

// Interfaces parses the non-test Go files of the package at path (relative
// to the module; internal is its internal/ directory) and returns the
// interface types they declare, with the file set that positions them.
func Interfaces(internal, path string) (map[string]*ast.InterfaceType, *token.FileSet, error) {
	dir := filepath.Join(internal, strings.TrimPrefix(path, "internal/"))
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, nil, err
	}
	fset := token.NewFileSet()
	out := map[string]*ast.InterfaceType{}
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() || !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, n), nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, nil, err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if ts, ok := n.(*ast.TypeSpec); ok {
				if it, ok := ts.Type.(*ast.InterfaceType); ok {
					out[ts.Name.Name] = it
				}
			}
			return true
		})
	}
	return out, fset, nil
}
