// Command skips reads the event stream of `go test -json` on stdin, prints
// what a plain `go test` prints (a line per package, the output of what
// failed), and ends with what was skipped and why, grouped by reason:
//
//	go test -json ./... | go run ./internal/testkit/skips
//
// It exits 1 when a test or a package failed (or the stream held no
// result at all), so the pipe's status is the run's.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strings"
)

// event is one line of test2json's output (cmd/test2json).
type event struct {
	Action     string
	Package    string
	Test       string
	Output     string
	ImportPath string
}

// skipped is one skipped test and the reason it logged.
type skipped struct {
	pkg, test, reason string
}

func main() {
	os.Exit(run(os.Stdin, os.Stdout))
}

func run(in io.Reader, out io.Writer) int {
	w := bufio.NewWriter(out)
	defer w.Flush()
	s := summary{logs: map[string][]string{}}
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for sc.Scan() {
		var e event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			// Not an event (go vet's or the build's own words): as is.
			fmt.Fprintln(w, sc.Text())
			continue
		}
		s.add(w, e)
	}
	if err := sc.Err(); err != nil {
		fmt.Fprintln(w, "skips: reading the go test -json stream:", err)
		return 1
	}
	s.report(w)
	if s.failed || s.results == 0 {
		return 1
	}
	return 0
}

type summary struct {
	logs    map[string][]string // output so far, per package and test
	skips   []skipped
	failed  bool
	results int // packages that reported a result
}

func key(pkg, test string) string { return pkg + "\x00" + test }

func (s *summary) add(w io.Writer, e event) {
	switch e.Action {
	case "build-output":
		fmt.Fprint(w, e.Output)
	case "build-fail":
		s.failed = true
	case "output":
		if e.Test == "" {
			// The package's own lines: its "ok"/"FAIL" line, a TestMain's
			// words; test2json's bare PASS/FAIL lines are noise here.
			if t := strings.TrimSpace(e.Output); t != "PASS" && t != "FAIL" {
				fmt.Fprint(w, e.Output)
			}
			return
		}
		k := key(e.Package, e.Test)
		s.logs[k] = append(s.logs[k], e.Output)
	case "pass":
		if e.Test == "" {
			s.results++
		}
		delete(s.logs, key(e.Package, e.Test))
	case "skip":
		if e.Test == "" {
			s.results++ // no test files, or every test skipped
			return
		}
		k := key(e.Package, e.Test)
		s.skips = append(s.skips, skipped{e.Package, e.Test, reason(s.logs[k])})
		delete(s.logs, k)
	case "fail":
		s.failed = true
		if e.Test == "" {
			s.results++
			return
		}
		k := key(e.Package, e.Test)
		for _, l := range s.logs[k] {
			fmt.Fprint(w, l)
		}
		delete(s.logs, k)
	}
}

// framing matches the lines go test writes around a test's own output.
var framing = regexp.MustCompile(`^\s*(=== (RUN|PAUSE|CONT|NAME)|--- (SKIP|PASS|FAIL))`)

// located is the "file_test.go:12: " that t.Log puts before a line.
var located = regexp.MustCompile(`^\s*[\w.-]+\.go:\d+: `)

// reason is the last line a skipped test logged: t.Skip's own words.
func reason(lines []string) string {
	for i := len(lines) - 1; i >= 0; i-- {
		l := strings.TrimRight(lines[i], "\n")
		if strings.TrimSpace(l) == "" || framing.MatchString(l) {
			continue
		}
		return strings.TrimSpace(located.ReplaceAllString(l, ""))
	}
	return ""
}

// report prints the skipped tests grouped by reason, the groups with the
// most tests first.
func (s *summary) report(w io.Writer) {
	if len(s.skips) == 0 {
		fmt.Fprintln(w, "\nskipped: nothing")
		return
	}
	type group struct {
		reason string
		tests  []string
	}
	var groups []*group
	byReason := map[string]*group{}
	quiet := 0
	for _, sk := range s.skips {
		if sk.reason == "" {
			quiet++ // a fuzz target's seed it rejects, mostly
			continue
		}
		g := byReason[sk.reason]
		if g == nil {
			g = &group{reason: sk.reason}
			byReason[sk.reason] = g
			groups = append(groups, g)
		}
		g.tests = append(g.tests, strings.TrimPrefix(sk.pkg, "github.com/blackboard-hub/bb/")+" "+sk.test)
	}
	slices.SortStableFunc(groups, func(a, b *group) int { return len(b.tests) - len(a.tests) })
	fmt.Fprintf(w, "\nskipped: %d tests", len(s.skips))
	if quiet > 0 {
		fmt.Fprintf(w, " (%d without a reason: inputs a fuzz target or a table rejects)", quiet)
	}
	fmt.Fprintln(w)
	for _, g := range groups {
		fmt.Fprintf(w, "- %s\n", g.reason)
		const shown = 4
		for _, t := range g.tests[:min(shown, len(g.tests))] {
			fmt.Fprintf(w, "    %s\n", t)
		}
		if n := len(g.tests) - shown; n > 0 {
			fmt.Fprintf(w, "    … and %d more\n", n)
		}
	}
}
