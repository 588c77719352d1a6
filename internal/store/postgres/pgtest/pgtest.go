// Package pgtest gives tests a throwaway PostgreSQL: one cluster per test
// package (initdb + pg_ctl on a free loopback port in a temporary
// directory, started by Main), and a fresh, empty database per test (URL).
//
//	func TestMain(m *testing.M) { pgtest.Main(m) }
//
//	func TestSomething(t *testing.T) {
//		url := pgtest.URL(t) // skips when PostgreSQL is unavailable
//		…
//	}
//
// The binaries are found through $BB_PG_BIN (a directory), then $PATH,
// then /usr/lib/postgresql/*/bin (newest version first). Set
// $BB_TEST_POSTGRES_URL to the URL of an existing server (a superuser, or
// a role allowed to CREATE DATABASE) to use it instead of starting one.
// Without PostgreSQL the tests skip and say why; with CI=true they fail.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// Environment variables. Main publishes the cluster to URL through the
// process environment (inherited by the processes a test starts), so the
// helper keeps no package state.
const (
	// EnvURL is the admin URL of the server tests create databases on.
	EnvURL = "BB_TEST_POSTGRES_URL"
	// envSkip holds the reason PostgreSQL is unavailable.
	envSkip = "BB_PGTEST_SKIP_REASON"
	// EnvBin is a directory holding initdb and pg_ctl.
	EnvBin = "BB_PG_BIN"
)

// Main starts a cluster (unless $BB_TEST_POSTGRES_URL names a server),
// runs the package's tests, stops the cluster and exits.
func Main(m *testing.M) {
	os.Exit(Run(m))
}

// Run is Main without the exit, for a TestMain with its own set-up and
// clean-up around it.
func Run(m *testing.M) int {
	if os.Getenv(EnvURL) != "" {
		return m.Run()
	}
	c, err := start()
	if err != nil {
		os.Setenv(envSkip, err.Error())
		return m.Run()
	}
	defer c.stop()
	os.Setenv(EnvURL, c.url)
	return m.Run()
}

// Require skips t (fails it under CI=true) when no PostgreSQL is available.
func Require(t testing.TB) {
	t.Helper()
	if os.Getenv(EnvURL) != "" {
		return
	}
	reason := os.Getenv(envSkip)
	if reason == "" {
		reason = "pgtest.Main was not called from TestMain"
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("PostgreSQL is required under CI=true: %s", reason)
	}
	t.Skipf("PostgreSQL unavailable: %s", reason)
}

// URL creates an empty database for t, dropped when t ends, and returns its
// connection URL. It skips t (fails it under CI=true) when no PostgreSQL is
// available.
func URL(t testing.TB) string {
	t.Helper()
	return URLFrom(t, "")
}

// URLFrom is URL with the new database a copy of template, a database on
// the test server that nobody is connected to (e.g. one migrated once per
// package: copying it is much faster than migrating every test's).
func URLFrom(t testing.TB, template string) string {
	t.Helper()
	Require(t)
	u, drop, err := NewDatabaseFrom(t.Name(), template)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := drop(); err != nil {
			t.Error(err)
		}
	})
	return u
}

// NewDatabase creates an empty database named after hint on the test
// server and returns its URL and a function that drops it. Call Require
// first.
func NewDatabase(hint string) (string, func() error, error) {
	return NewDatabaseFrom(hint, "")
}

// NewDatabaseFrom is NewDatabase copying template ("" for an empty one).
func NewDatabaseFrom(hint, template string) (string, func() error, error) {
	admin := os.Getenv(EnvURL)
	if admin == "" {
		return "", nil, fmt.Errorf("pgtest: no server (%s is empty)", EnvURL)
	}
	u, err := url.Parse(admin)
	if err != nil {
		return "", nil, fmt.Errorf("pgtest: %s is not a URL: %v", EnvURL, err)
	}
	name := dbName(hint)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		return "", nil, fmt.Errorf("pgtest: connect to %s: %v", u.Redacted(), err)
	}
	defer conn.Close(ctx)
	if template == "" {
		template = "template0"
	}
	if _, err := conn.Exec(ctx, `CREATE DATABASE "`+name+`" TEMPLATE "`+template+`" ENCODING 'UTF8'`); err != nil {
		return "", nil, fmt.Errorf("pgtest: create database %s: %v", name, err)
	}
	drop := func() error {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		conn, err := pgx.Connect(ctx, admin)
		if err != nil {
			return fmt.Errorf("pgtest: connect to drop %s: %v", name, err)
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, `DROP DATABASE IF EXISTS "`+name+`" WITH (FORCE)`); err != nil {
			return fmt.Errorf("pgtest: drop database %s: %v", name, err)
		}
		return nil
	}
	u.Path = "/" + name
	return u.String(), drop, nil
}

var unsafeChars = regexp.MustCompile(`[^a-z0-9_]+`)

// DatabaseName returns the database name in a URL made by this package.
func DatabaseName(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return ""
	}
	return strings.TrimPrefix(u.Path, "/")
}

// dbName derives a valid, unique database name from a test name.
func dbName(test string) string {
	s := unsafeChars.ReplaceAllString(strings.ToLower(test), "_")
	if len(s) > 40 {
		s = s[:40]
	}
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return "t_" + s + "_" + hex.EncodeToString(b)
}

type cluster struct {
	bin, dir, data string
	url            string
	port           int
	cred           *syscall.Credential
}

// BinDir finds the directory of initdb and pg_ctl.
func BinDir() (string, error) {
	if d := os.Getenv(EnvBin); d != "" {
		if _, err := os.Stat(filepath.Join(d, "initdb")); err != nil {
			return "", fmt.Errorf("%s=%s has no initdb", EnvBin, d)
		}
		return d, nil
	}
	if p, err := exec.LookPath("initdb"); err == nil {
		return filepath.Dir(p), nil
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool { return version(dirs[i]) > version(dirs[j]) })
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "initdb")); err == nil {
			return d, nil
		}
	}
	return "", fmt.Errorf("initdb and pg_ctl not found (install the postgresql package, or set %s or %s)", EnvBin, EnvURL)
}

func version(binDir string) int {
	v, _ := strconv.Atoi(filepath.Base(filepath.Dir(binDir)))
	return v
}

func start() (*cluster, error) {
	c, err := create()
	if err != nil {
		return nil, err
	}
	var lastErr error
	for attempt := 0; attempt < 3; attempt++ {
		port, err := freePort()
		if err != nil {
			c.stop()
			return nil, err
		}
		if lastErr = c.launch(port); lastErr == nil {
			return c, nil
		}
	}
	c.stop()
	return nil, lastErr
}

// create makes a cluster's directory and data (initdb), not started.
func create() (*cluster, error) {
	bin, err := BinDir()
	if err != nil {
		return nil, err
	}
	// As root the server runs as another account, which must be able to
	// reach the directory: /tmp always is (a $TMPDIR under /root is not).
	parent := ""
	if os.Geteuid() == 0 && isDir("/tmp") {
		parent = "/tmp"
	}
	reapOrphans(bin, parent)
	dir, err := os.MkdirTemp(parent, "bb-pgtest-")
	if err != nil {
		return nil, err
	}
	// The owner's pid lets a later run stop this cluster if this test
	// process dies without stopping it (a timeout, a kill).
	if err := os.WriteFile(filepath.Join(dir, ownerFile), []byte(strconv.Itoa(os.Getpid())), 0o644); err != nil {
		return nil, err
	}
	c := &cluster{bin: bin, dir: dir, data: filepath.Join(dir, "data")}
	ok := false
	defer func() {
		if !ok {
			c.stop()
		}
	}()
	// PostgreSQL refuses to run as root: run it as the "postgres" (or
	// "nobody") account and give it the directory.
	if os.Geteuid() == 0 {
		cred, err := unprivileged()
		if err != nil {
			return nil, err
		}
		c.cred = cred
		if err := os.Chown(dir, int(cred.Uid), int(cred.Gid)); err != nil {
			return nil, err
		}
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		return nil, err
	}
	if out, err := c.cmd("initdb", "-D", c.data, "-U", "bb", "--auth=trust", "--no-sync",
		"--encoding=UTF8", "--no-locale").CombinedOutput(); err != nil {
		return nil, fmt.Errorf("initdb: %v: %s", err, lastLines(out))
	}
	ok = true
	return c, nil
}

// launch starts the server on port and sets c.url.
func (c *cluster) launch(port int) error {
	opts := fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off "+
		"-c full_page_writes=off -c max_connections=300 -c shared_buffers=32MB", port, c.dir)
	out, err := c.cmd("pg_ctl", "-D", c.data, "-o", opts, "-l", filepath.Join(c.dir, "server.log"),
		"-w", "-t", "60", "start").CombinedOutput()
	if err != nil {
		log, _ := os.ReadFile(filepath.Join(c.dir, "server.log"))
		return fmt.Errorf("pg_ctl start: %v: %s %s", err, lastLines(out), lastLines(log))
	}
	c.port = port
	c.url = fmt.Sprintf("postgres://bb@127.0.0.1:%d/postgres?sslmode=disable", port)
	return nil
}

// Cluster is a PostgreSQL server of one test's own, which the test may
// stop and start again (an outage) without disturbing other tests.
type Cluster struct {
	c *cluster
}

// NewCluster starts a private cluster for t, removed when t ends. It skips
// t (fails it under CI=true) when PostgreSQL is not installed. It costs an
// initdb (a second or two): use URL for anything that needs no outage.
func NewCluster(t testing.TB) *Cluster {
	t.Helper()
	c, err := start()
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("PostgreSQL is required under CI=true: %v", err)
		}
		t.Skipf("PostgreSQL unavailable: %v", err)
	}
	t.Cleanup(c.stop)
	return &Cluster{c: c}
}

// URL is the cluster's admin URL (database postgres, user bb, no password).
func (c *Cluster) URL() string { return c.c.url }

// Stop shuts the server down (fast mode: sessions are disconnected, as in
// a restart) and waits until it is down.
func (c *Cluster) Stop(t testing.TB) {
	t.Helper()
	if out, err := c.c.cmd("pg_ctl", "-D", c.c.data, "-m", "fast", "-w", "-t", "60", "stop").CombinedOutput(); err != nil {
		t.Fatalf("pg_ctl stop: %v: %s", err, lastLines(out))
	}
}

// Start starts the stopped server again on the same port.
func (c *Cluster) Start(t testing.TB) {
	t.Helper()
	if err := c.c.launch(c.c.port); err != nil {
		t.Fatal(err)
	}
}

// ownerFile holds the pid of the test process that started a cluster.
const ownerFile = "owner.pid"

// reapOrphans stops and removes the clusters of earlier test processes that
// died without doing so (their owner pid is gone).
func reapOrphans(bin, parent string) {
	if parent == "" {
		parent = os.TempDir()
	}
	dirs, _ := filepath.Glob(filepath.Join(parent, "bb-pgtest-*"))
	for _, d := range dirs {
		b, err := os.ReadFile(filepath.Join(d, ownerFile))
		if err != nil {
			continue // not ours, or still being set up
		}
		pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
		if err != nil || pid <= 0 || processAlive(pid) {
			continue
		}
		c := &cluster{bin: bin, dir: d, data: filepath.Join(d, "data")}
		if os.Geteuid() == 0 {
			c.cred, _ = unprivileged()
		}
		c.stop()
	}
}

func processAlive(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	if err := p.Signal(syscall.Signal(0)); err != nil && err != syscall.EPERM {
		return false
	}
	// A killed process not yet reaped by its parent still answers signals.
	st, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err == nil {
		if i := strings.LastIndexByte(string(st), ')'); i > 0 && i+2 < len(st) && st[i+2] == 'Z' {
			return false
		}
	}
	return true
}

func (c *cluster) cmd(name string, args ...string) *exec.Cmd {
	cmd := exec.Command(filepath.Join(c.bin, name), args...)
	cmd.Dir = c.dir
	cmd.Env = append(os.Environ(), "LC_ALL=C")
	if c.cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: c.cred}
	}
	return cmd
}

func (c *cluster) stop() {
	if _, err := os.Stat(filepath.Join(c.data, "postmaster.pid")); err == nil {
		_ = c.cmd("pg_ctl", "-D", c.data, "-m", "immediate", "-w", "stop").Run()
	}
	_ = os.RemoveAll(c.dir)
}

func unprivileged() (*syscall.Credential, error) {
	for _, name := range []string{"postgres", "nobody"} {
		u, err := user.Lookup(name)
		if err != nil {
			continue
		}
		uid, err1 := strconv.Atoi(u.Uid)
		gid, err2 := strconv.Atoi(u.Gid)
		if err1 == nil && err2 == nil && uid != 0 {
			return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), NoSetGroups: true}, nil
		}
	}
	return nil, fmt.Errorf("running as root and no unprivileged account (postgres, nobody) to run PostgreSQL as")
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func lastLines(b []byte) string {
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) > 5 {
		lines = lines[len(lines)-5:]
	}
	return strings.Join(lines, " | ")
}
