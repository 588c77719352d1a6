package bb

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestReadmeListsEveryErrorCode: README's "Error codes" table names every
// error code declared in the code (a constant of type hub.Code, in
// internal/hub or any of its applications), and no code that is not.
func TestReadmeListsEveryErrorCode(t *testing.T) {
	root := filepath.Join("..", "..", "..")
	declared := declaredCodes(t, filepath.Join(root, "internal"))
	if len(declared) < 30 {
		t.Fatalf("found only %d declared codes: %v (is the declaration pattern still type hub.Code?)", len(declared), declared)
	}
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(readme), "#### Error codes")
	if !ok {
		t.Fatal(`README.md has no "#### Error codes" section`)
	}
	if i := strings.Index(section, "\n#"); i >= 0 {
		section = section[:i]
	}
	// The codes are the first cell of each row of the table.
	listed := map[string]bool{}
	for _, line := range strings.Split(section, "\n") {
		cells := strings.Split(line, "|")
		if len(cells) < 3 || !strings.HasPrefix(strings.TrimSpace(cells[1]), "`") {
			continue
		}
		for _, m := range regexp.MustCompile("`([A-Z][A-Z_]+)`").FindAllStringSubmatch(cells[1], -1) {
			listed[m[1]] = true
		}
	}
	for _, c := range declared {
		if !listed[c] {
			t.Errorf("README.md's error codes miss %s", c)
		}
	}
	for c := range listed {
		if !slices.Contains(declared, c) {
			t.Errorf("README.md lists %s, which no code declares", c)
		}
	}
}

// declaredCodes are the values of the constants of type Code (in package
// hub) or hub.Code (elsewhere) declared under dir, tests left out.
func declaredCodes(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	fset := token.NewFileSet()
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if !ok || gd.Tok != token.CONST {
				continue
			}
			for _, spec := range gd.Specs {
				vs := spec.(*ast.ValueSpec)
				if !isCodeType(vs.Type, f.Name.Name) {
					continue
				}
				for _, v := range vs.Values {
					if lit, ok := v.(*ast.BasicLit); ok && lit.Kind == token.STRING {
						s, err := strconv.Unquote(lit.Value)
						if err != nil {
							return err
						}
						if !slices.Contains(out, s) {
							out = append(out, s)
						}
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

func isCodeType(e ast.Expr, pkg string) bool {
	switch x := e.(type) {
	case *ast.Ident:
		return pkg == "hub" && x.Name == "Code"
	case *ast.SelectorExpr:
		id, ok := x.X.(*ast.Ident)
		return ok && id.Name == "hub" && x.Sel.Name == "Code"
	}
	return false
}
