package agentsvc

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"strings"
	"testing"
)

// TestSessionStateAssignedInOnePlace: a live session's state (liveSession.st) is assigned by
// liveSession.step alone (which takes it from session.Step) and set once when the session is
// made (newLive): no other code of the package writes it, in whole or in part.
func TestSessionStateAssignedInOnePlace(t *testing.T) {
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var writers []string
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				var lhs []ast.Expr
				switch s := n.(type) {
				case *ast.AssignStmt:
					lhs = s.Lhs
				case *ast.IncDecStmt:
					lhs = []ast.Expr{s.X}
				case *ast.UnaryExpr: // &ls.st handed to something that may write it
					if s.Op == token.AND {
						lhs = []ast.Expr{s.X}
					}
				}
				for _, x := range lhs {
					if writesState(x) && fn.Name.Name != "step" {
						writers = append(writers, fset.Position(x.Pos()).String()+" in "+fn.Name.Name)
					}
				}
				return true
			})
		}
	}
	if len(writers) > 0 {
		t.Fatalf("the session's state is written outside liveSession.step:\n%s", strings.Join(writers, "\n"))
	}
}

// writesState tells whether x is .st, or a part of it (.st.Home...).
func writesState(x ast.Expr) bool {
	for {
		sel, ok := x.(*ast.SelectorExpr)
		if !ok {
			return false
		}
		if sel.Sel.Name == "st" {
			return true
		}
		x = sel.X
	}
}
