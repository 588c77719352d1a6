package main

import (
	"os/exec"
	"strings"
	"testing"
)

// A stream as go test -json writes it: a skipped test's reason is the line
// it logged before "--- SKIP" (not the next test's line), grouped with the
// others of the same reason; a failure's output is shown; the status says
// whether anything failed.
func TestReport(t *testing.T) {
	stream := `{"Action":"start","Package":"github.com/blackboard-hub/bb/internal/a"}
{"Action":"run","Package":"github.com/blackboard-hub/bb/internal/a","Test":"TestX"}
{"Action":"output","Package":"github.com/blackboard-hub/bb/internal/a","Test":"TestX","Output":"=== RUN   TestX\n"}
{"Action":"output","Package":"github.com/blackboard-hub/bb/internal/a","Test":"TestX","Output":"    x_test.go:50: tmux not installed (apt-get install -y tmux)\n"}
{"Action":"output","Package":"github.com/blackboard-hub/bb/internal/a","Test":"TestX","Output":"--- SKIP: TestX (0.00s)\n"}
{"Action":"skip","Package":"github.com/blackboard-hub/bb/internal/a","Test":"TestX"}
{"Action":"output","Package":"github.com/blackboard-hub/bb/internal/a","Test":"TestY","Output":"=== RUN   TestY\n"}
{"Action":"output","Package":"github.com/blackboard-hub/bb/internal/a","Test":"TestY","Output":"    y_test.go:9: tmux not installed (apt-get install -y tmux)\n"}
{"Action":"output","Package":"github.com/blackboard-hub/bb/internal/a","Test":"TestY","Output":"--- SKIP: TestY (0.00s)\n"}
{"Action":"skip","Package":"github.com/blackboard-hub/bb/internal/a","Test":"TestY"}
{"Action":"output","Package":"github.com/blackboard-hub/bb/internal/a","Test":"FuzzZ/seed#1","Output":"--- SKIP: FuzzZ/seed#1 (0.00s)\n"}
{"Action":"skip","Package":"github.com/blackboard-hub/bb/internal/a","Test":"FuzzZ/seed#1"}
{"Action":"output","Package":"github.com/blackboard-hub/bb/internal/a","Test":"TestPass","Output":"    p_test.go:3: chatter of a passing test\n"}
{"Action":"pass","Package":"github.com/blackboard-hub/bb/internal/a","Test":"TestPass"}
{"Action":"output","Package":"github.com/blackboard-hub/bb/internal/a","Output":"PASS\n"}
{"Action":"output","Package":"github.com/blackboard-hub/bb/internal/a","Output":"ok  \tgithub.com/blackboard-hub/bb/internal/a\t0.1s\n"}
{"Action":"pass","Package":"github.com/blackboard-hub/bb/internal/a"}
{"Action":"output","Package":"github.com/blackboard-hub/bb/internal/b","Test":"TestPG","Output":"    pg.go:88: PostgreSQL unavailable: initdb not found\n"}
{"Action":"skip","Package":"github.com/blackboard-hub/bb/internal/b","Test":"TestPG"}
{"Action":"output","Package":"github.com/blackboard-hub/bb/internal/b","Output":"ok  \tgithub.com/blackboard-hub/bb/internal/b\t0.1s\n"}
{"Action":"pass","Package":"github.com/blackboard-hub/bb/internal/b"}
`
	var out strings.Builder
	if code := run(strings.NewReader(stream), &out); code != 0 {
		t.Errorf("exit %d for a run that passed", code)
	}
	want := `ok  	github.com/blackboard-hub/bb/internal/a	0.1s
ok  	github.com/blackboard-hub/bb/internal/b	0.1s

skipped: 4 tests (1 without a reason: inputs a fuzz target or a table rejects)
- tmux not installed (apt-get install -y tmux)
    internal/a TestX
    internal/a TestY
- PostgreSQL unavailable: initdb not found
    internal/b TestPG
`
	if out.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", out.String(), want)
	}

	failing := `{"Action":"output","Package":"p","Test":"TestF","Output":"    f_test.go:7: got 1, want 2\n"}
{"Action":"output","Package":"p","Test":"TestF","Output":"--- FAIL: TestF (0.00s)\n"}
{"Action":"fail","Package":"p","Test":"TestF"}
{"Action":"output","Package":"p","Output":"FAIL\tp\t0.1s\n"}
{"Action":"fail","Package":"p"}
`
	out.Reset()
	if code := run(strings.NewReader(failing), &out); code != 1 {
		t.Errorf("exit %d for a run that failed, want 1", code)
	}
	if !strings.Contains(out.String(), "f_test.go:7: got 1, want 2\n--- FAIL: TestF") || !strings.Contains(out.String(), "skipped: nothing") {
		t.Errorf("a failure's output is not shown:\n%s", out.String())
	}
	out.Reset()
	if code := run(strings.NewReader(""), &out); code != 1 {
		t.Errorf("exit %d for an empty stream, want 1", code)
	}
}

// The real thing: go test -json on a package that skips, through the
// command, names the test and its reason.
func TestRealStream(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test (-short)")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go not on PATH")
	}
	cmd := exec.Command(goBin, "test", "-json", "-run", "^TestCrossPlatformVet$", "../../procid")
	cmd.Env = append(cmd.Environ(), "BB_TEST_CROSS=")
	stream, err := cmd.Output()
	if err != nil {
		t.Fatalf("go test -json: %v", err)
	}
	var out strings.Builder
	if code := run(strings.NewReader(string(stream)), &out); code != 0 {
		t.Errorf("exit %d:\n%s", code, out.String())
	}
	if !strings.Contains(out.String(), "- vets for darwin and windows only with BB_TEST_CROSS=1") || !strings.Contains(out.String(), "internal/procid TestCrossPlatformVet") {
		t.Errorf("the skip is not reported with its reason:\n%s", out.String())
	}
}
