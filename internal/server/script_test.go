package server_test

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/blackboard-hub/bb/internal/testkit"
)

// TestServeScripts runs testdata/script/serve/*.txtar against the built bb.
// Each script gets a free port in $PORT for `exec bb serve ... &`.
//
// Extra script commands:
//
//	http [-token t] [-as agent] <method> <path> [body]
//	    one request to 127.0.0.1:$PORT (retried until the server is up);
//	    stdout is "HTTP <status>" then the body
//	dbexec <file> <sql>
//	    one statement written on a SQLite file
func TestServeScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 filepath.Join("..", "..", "testdata", "script", "serve"),
		RequireExplicitExec: true,
		Setup: func(e *testscript.Env) error {
			e.Setenv("PATH", filepath.Dir(bbBin)+string(os.PathListSeparator)+e.Getenv("PATH"))
			e.Setenv("HOME", filepath.Join(e.WorkDir, "home"))
			e.Setenv("BBEXE", bbBin)
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				return err
			}
			e.Setenv("PORT", strconv.Itoa(ln.Addr().(*net.TCPAddr).Port))
			return ln.Close()
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){"http": cmdHTTP,
			"exits": testkit.Exits, "jget": testkit.Jget, "jset": testkit.Jset, "dbexec": testkit.DBExec},
	})
}

func cmdHTTP(ts *testscript.TestScript, neg bool, args []string) {
	var token, as, key string
	for len(args) > 1 && strings.HasPrefix(args[0], "-") {
		switch args[0] {
		case "-token":
			token = args[1]
		case "-as":
			as = args[1]
		case "-key":
			key = args[1]
		default:
			ts.Fatalf("http: unknown flag %s", args[0])
		}
		args = args[2:]
	}
	if len(args) < 2 || len(args) > 3 {
		ts.Fatalf("usage: http [-token t] [-as agent] [-key idempotency-key] <method> <path> [body]")
	}
	url := "http://127.0.0.1:" + ts.Getenv("PORT") + args[1]
	var resp *http.Response
	var err error
	for deadline := time.Now().Add(60 * time.Second); ; {
		var body io.Reader
		if len(args) == 3 {
			body = strings.NewReader(args[2])
		}
		req, _ := http.NewRequest(args[0], url, body)
		if body != nil {
			req.Header.Set("Content-Type", "application/json")
		}
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		if as != "" {
			req.Header.Set("X-BB-Agent", as)
		}
		if key != "" {
			req.Header.Set("Idempotency-Key", key)
		}
		resp, err = http.DefaultClient.Do(req)
		if err == nil || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err != nil {
		ts.Fatalf("http %s %s: %v", args[0], url, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	fmt.Fprintf(ts.Stdout(), "HTTP %d\n%s", resp.StatusCode, b)
	if neg != (resp.StatusCode >= 400) {
		ts.Fatalf("http %s %s: status %d", args[0], args[1], resp.StatusCode)
	}
}
