package faulttest

import (
	"bytes"
	"context"
	"errors"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/blackboard-hub/bb/internal/store/postgres/pgtest"
)

// PostgreSQL down when bb serve starts, then restarted under load: the
// server waits for it at start (saying so on stderr), answers 503
// DATABASE_UNAVAILABLE with Retry-After while it is gone, logs the outage
// once and its end once, reconnects by itself, and clients that retry with
// an Idempotency-Key lose nothing and store nothing twice.
func TestPostgresRestartUnderLoad(t *testing.T) {
	pg := pgtest.NewCluster(t)
	dir := t.TempDir()
	env := baseEnv(dir, "BB_DATABASE_URL="+pg.URL())

	// Started while PostgreSQL is down: it says it waits (PostgreSQL
	// comes back only then, however slow the machine), then serves.
	pg.Stop(t)
	srv := launchServe(t, dir, env, "--wait-db", "60s")
	waitUntil(t, 50*time.Second, "bb serve saying it waits for the database", func() bool {
		return strings.Contains(srv.stderr.String(), "waiting up to 1m0s for the database")
	})
	pg.Start(t)
	srv.awaitURL(t, 70*time.Second)

	d := newDriver(srv.url, 8, true)
	d.reads = true
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { d.run(ctx); close(done) }()
	defer func() { cancel(); <-done }()
	d.waitAcked(t, 100, 30*time.Second, "before the restart")

	// Down until bb serve has seen it (logged the outage, answered 503).
	pg.Stop(t)
	waitUntil(t, 30*time.Second, "the outage seen", func() bool {
		d.out.mu.Lock()
		n := d.out.status503
		d.out.mu.Unlock()
		return n > 0 && strings.Contains(srv.stderr.String(), "database unavailable")
	})
	pg.Start(t)
	before := d.out.ackedCount()
	d.waitAcked(t, before+100, 30*time.Second, "after the restart")
	cancel()
	<-done

	if code, _ := srv.stop(t, syscall.SIGTERM, 15*time.Second); code != 0 {
		t.Errorf("bb serve exited %d", code)
	}
	stderr := srv.stderr.String()
	if n := countLines(stderr, "database unavailable"); n != 1 {
		t.Errorf("the outage is logged %d times, want once:\n%s", n, stderr)
	}
	if n := countLines(stderr, "database reachable again"); n != 1 {
		t.Errorf("the end of the outage is logged %d times, want once:\n%s", n, stderr)
	}
	d.out.mu.Lock()
	for c, n := range d.out.codes {
		if !strings.HasPrefix(c, "503 DATABASE_UNAVAILABLE") {
			t.Errorf("answered %s %d times during the outage", c, n)
		}
	}
	if d.out.status503 == 0 {
		t.Error("no request was answered 503 while PostgreSQL was down")
	}
	if d.out.retryAfter != d.out.status503 {
		t.Errorf("%d of %d 503 answers had no Retry-After", d.out.status503-d.out.retryAfter, d.out.status503)
	}
	d.out.mu.Unlock()
	db := stored(t, dir, env)
	checkAcknowledged(t, d.out, db)
	t.Logf("%d posts acknowledged (%d before the restart), %d stored, errors answered: %v", len(d.out.acked), before, len(db), d.out.codes)
}

// The wait for an unreachable database at start is bounded: after
// --wait-db, bb serve exits 1 with DATABASE_UNAVAILABLE, having said on
// stderr that it waits. (No PostgreSQL needed: nothing listens on port 1.)
func TestServeWaitsForTheDatabaseBounded(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command(bb(), "--dir", dir, "serve", "--addr", "127.0.0.1:0", "--wait-db", "1s")
	cmd.Env = baseEnv(dir, "BB_DATABASE_URL=postgres://bb@127.0.0.1:1/none?sslmode=disable&connect_timeout=2")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	err := cmd.Run()
	took := time.Since(start)
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Fatalf("bb serve: %v, want exit 1\n%s", err, stderr.String())
	}
	if took < time.Second || took > 20*time.Second {
		t.Errorf("gave up after %s, want about 1s", took)
	}
	for _, want := range []string{"waiting up to 1s for the database", "DATABASE_UNAVAILABLE", "waited 1s; see --wait-db"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
		}
	}
}
