package terminal

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

func TestNotTerminals(t *testing.T) {
	null, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	if Is(null) {
		t.Errorf("%s counted as a terminal", os.DevNull)
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	if Is(r) || Is(w) {
		t.Error("a pipe counted as a terminal")
	}
	f, err := os.Create(filepath.Join(t.TempDir(), "f"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if Is(f) {
		t.Error("a regular file counted as a terminal")
	}
	if Is(&bytes.Buffer{}) || Is(nil) || Is((*os.File)(nil)) {
		t.Error("a non-file counted as a terminal")
	}
}
