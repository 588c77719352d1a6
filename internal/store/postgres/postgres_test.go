package postgres_test

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/store/postgres"
	"github.com/blackboard-hub/bb/internal/store/postgres/pgtest"
	"github.com/blackboard-hub/bb/internal/store/sqlite"
	"github.com/blackboard-hub/bb/internal/store/sqlstore"
	"github.com/blackboard-hub/bb/internal/store/storetest"
	"github.com/blackboard-hub/bb/internal/testkit/hubtest"
)

func TestMain(m *testing.M) {
	code := pgtest.Run(m)
	// On a server of the caller's ($BB_TEST_POSTGRES_URL), drop the
	// template; a throwaway cluster is gone already.
	if dropTemplate != nil {
		_ = dropTemplate()
	}
	os.Exit(code)
}

var dropTemplate func() error

// migrated returns a fresh database already at the latest schema, copied
// from a template migrated once (tests of migration itself use
// pgtest.URL for an empty one).
func migrated(t *testing.T) string {
	t.Helper()
	pgtest.Require(t)
	tmpl, err := templateOnce()
	if err != nil {
		t.Fatal(err)
	}
	return pgtest.URLFrom(t, tmpl)
}

var templateOnce = sync.OnceValues(func() (string, error) {
	u, drop, err := pgtest.NewDatabase("template")
	if err != nil {
		return "", err
	}
	dropTemplate = drop
	st, err := postgres.Open(context.Background(), u)
	if err != nil {
		return "", err
	}
	// A template must have no connections while it is copied.
	return pgtest.DatabaseName(u), st.Close()
})

func open(t *testing.T, url string) *sqlstore.DB {
	t.Helper()
	st, err := postgres.Open(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	return st
}

func TestStoreSuite(t *testing.T) {
	storetest.Run(t, func(t *testing.T) hub.Store { return open(t, migrated(t)) })
}

// Every SQLite migration has its PostgreSQL twin with the same number and
// name, so both backends always sit at the same schema version.
func TestMigrationsMirrorSQLite(t *testing.T) {
	lite, err := sqlite.Migrations()
	if err != nil {
		t.Fatal(err)
	}
	pg, err := postgres.Migrations()
	if err != nil {
		t.Fatal(err)
	}
	var ln, pn []string
	for _, m := range lite {
		ln = append(ln, m.Name)
	}
	for _, m := range pg {
		pn = append(pn, m.Name)
	}
	if strings.Join(ln, ",") != strings.Join(pn, ",") {
		t.Fatalf("migrations differ: sqlite %v, postgres %v", ln, pn)
	}
}

// The PostgreSQL schema has the same tables, columns (in order), indexes
// and triggers as the SQLite one.
func TestSchemaMirrorsSQLite(t *testing.T) {
	ctx := context.Background()
	lite, err := sqlite.Open(ctx, t.TempDir()+"/bb.db", sqlite.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	defer lite.Close()
	pg, err := postgres.Open(ctx, pgtest.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Close()

	liteSchema := map[string]string{}
	// The full-text index is each dialect's own (008_search.sql): FTS5
	// virtual tables kept by triggers on SQLite, GIN expression indexes on
	// PostgreSQL. Both must cover the same five tables.
	ftsTables := map[string]string{}
	rows, err := lite.SQL().QueryContext(ctx, `SELECT name FROM pragma_table_list WHERE schema = 'main' AND type = 'virtual'`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		ftsTables[strings.TrimSuffix(n, "_fts")] = "sqlite"
	}
	rows.Close()
	rows, err = lite.SQL().QueryContext(ctx, `SELECT name FROM pragma_table_list WHERE schema = 'main' AND type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name`)
	if err != nil {
		t.Fatal(err)
	}
	var tables []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		tables = append(tables, n)
	}
	rows.Close()
	for _, tb := range tables {
		var cols []string
		r, err := lite.SQL().QueryContext(ctx, `SELECT name FROM pragma_table_info(?) ORDER BY cid`, tb)
		if err != nil {
			t.Fatal(err)
		}
		for r.Next() {
			var c string
			if err := r.Scan(&c); err != nil {
				t.Fatal(err)
			}
			cols = append(cols, c)
		}
		r.Close()
		liteSchema["table "+tb] = strings.Join(cols, ",")
	}
	for _, q := range []string{
		`SELECT 'index ' || name, tbl_name FROM sqlite_master WHERE type = 'index' AND name NOT LIKE 'sqlite_autoindex%'`,
		`SELECT 'trigger ' || name, tbl_name FROM sqlite_master WHERE type = 'trigger' AND name NOT LIKE '%\_fts\_%' ESCAPE '\'`,
	} {
		r, err := lite.SQL().QueryContext(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		for r.Next() {
			var k, v string
			if err := r.Scan(&k, &v); err != nil {
				t.Fatal(err)
			}
			liteSchema[k] = v
		}
		r.Close()
	}

	pgSchema := map[string]string{}
	r, err := pg.SQL().QueryContext(ctx, `SELECT table_name, string_agg(column_name, ',' ORDER BY ordinal_position)
		FROM information_schema.columns WHERE table_schema = current_schema() AND table_name <> 'schema_version'
		GROUP BY table_name`)
	if err != nil {
		t.Fatal(err)
	}
	for r.Next() {
		var k, v string
		if err := r.Scan(&k, &v); err != nil {
			t.Fatal(err)
		}
		pgSchema["table "+k] = v
	}
	r.Close()
	for _, q := range []string{
		`SELECT 'index ' || indexname, tablename FROM pg_indexes WHERE schemaname = current_schema() AND indexname LIKE 'idx_%' AND indexname NOT LIKE '%\_search'`,
		`SELECT DISTINCT 'trigger ' || trigger_name, event_object_table FROM information_schema.triggers WHERE trigger_schema = current_schema()`,
	} {
		r, err := pg.SQL().QueryContext(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		for r.Next() {
			var k, v string
			if err := r.Scan(&k, &v); err != nil {
				t.Fatal(err)
			}
			pgSchema[k] = v
		}
		r.Close()
	}
	r, err = pg.SQL().QueryContext(ctx, `SELECT tablename FROM pg_indexes WHERE schemaname = current_schema() AND indexname LIKE 'idx\_%\_search'`)
	if err != nil {
		t.Fatal(err)
	}
	for r.Next() {
		var tb string
		if err := r.Scan(&tb); err != nil {
			t.Fatal(err)
		}
		ftsTables[tb] += "+postgres"
	}
	r.Close()
	var diffs []string
	for _, tb := range []string{"messages", "tasks", "memory", "artifacts", "lease_holders"} {
		if ftsTables[tb] != "sqlite+postgres" {
			diffs = append(diffs, fmt.Sprintf("full-text index of %s: %q", tb, ftsTables[tb]))
		}
		delete(ftsTables, tb)
	}
	for tb, v := range ftsTables {
		diffs = append(diffs, fmt.Sprintf("full-text index of %s: %q", tb, v))
	}
	for k, v := range liteSchema {
		if pgSchema[k] != v {
			diffs = append(diffs, fmt.Sprintf("%s: sqlite %q, postgres %q", k, v, pgSchema[k]))
		}
	}
	for k, v := range pgSchema {
		if _, ok := liteSchema[k]; !ok {
			diffs = append(diffs, fmt.Sprintf("%s: only in postgres (%q)", k, v))
		}
	}
	sort.Strings(diffs)
	if len(diffs) > 0 {
		t.Errorf("schemas differ:\n%s", strings.Join(diffs, "\n"))
	}
}

// Many processes opening a fresh database at once migrate it exactly once.
func TestConcurrentOpenMigratesOnce(t *testing.T) {
	url := pgtest.URL(t)
	const n = 8
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			st, err := postgres.Open(context.Background(), url)
			if err != nil {
				errs <- err
				return
			}
			errs <- st.Close()
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Errorf("open: %v", err)
		}
	}
	st, err := postgres.Open(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var rows, max int
	if err := st.SQL().QueryRow(`SELECT COUNT(*), MAX(version) FROM schema_version`).Scan(&rows, &max); err != nil {
		t.Fatal(err)
	}
	ms, _ := postgres.Migrations()
	if rows != len(ms) || max != ms[len(ms)-1].Version {
		t.Errorf("schema_version has %d rows up to %d, want %d up to %d", rows, max, len(ms), ms[len(ms)-1].Version)
	}
}

func TestRefusesNewerSchema(t *testing.T) {
	url := pgtest.URL(t)
	st, err := postgres.Open(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.SQL().Exec(`INSERT INTO schema_version (version, name, applied_at) VALUES (999, '999_future.sql', '')`); err != nil {
		t.Fatal(err)
	}
	st.Close()
	_, err = postgres.Open(context.Background(), url)
	storetest.WantCode(t, err, hub.CodeSchemaTooNew)
	if !strings.Contains(err.Error(), "999") {
		t.Errorf("message does not name the version: %v", err)
	}
}

func TestBadURLAndUnreachableServer(t *testing.T) {
	_, err := postgres.Open(context.Background(), "mysql://x")
	storetest.WantCode(t, err, hub.CodeInvalidInput)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err = postgres.Open(ctx, "postgres://nobody:secret@127.0.0.1:1/none?sslmode=disable&connect_timeout=2")
	// Nothing listens there: an outage, which a long-lived process waits
	// out, not a configuration error.
	storetest.WantCode(t, err, hub.CodeDatabaseUnavailable)
	if strings.Contains(err.Error(), "secret") {
		t.Errorf("error leaks the password: %v", err)
	}
}

// A row inserted with only Agent Mail's TC9 columns gets the next message
// number from the trigger, as on SQLite.
func TestTC9InsertGetsSeq(t *testing.T) {
	st := open(t, pgtest.URL(t))
	f := storetest.New(t, func(t *testing.T) hub.Store { return st })
	f.Post(hub.PostInput{From: "alice", Content: "first"})
	if _, err := st.SQL().Exec(`INSERT INTO messages (id, sender, recipient, subject, body, created)
		VALUES ('tc9-1', 'proj:alice', 'proj:bob', 'hi', 'body', '2026-11-21T22:00:00.000000+00:00')`); err != nil {
		t.Fatal(err)
	}
	var m *hub.Message
	f.Read(func(tx hub.Tx) (err error) { m, err = tx.MessageByUUID(f.Ctx, "tc9-1"); return })
	if m == nil || m.Seq != 2 || m.Type != "direct" || m.TTLHours == nil || *m.TTLHours != 24 || m.Priority != hub.PriorityNormal {
		t.Errorf("TC9 row: got %+v, want seq 2 with defaults", m)
	}
}

// Writers through two independent pools (two servers) are serialized: 32
// concurrent posts that each compute MAX(seq)+1 all succeed with distinct,
// gapless numbers, and 16 concurrent retries of one request id through
// both pools store exactly one message.
func TestWritersSerializedAcrossPools(t *testing.T) {
	url := pgtest.URL(t)
	a, b := open(t, url), open(t, url)
	clock := &storetest.Clock{T: storetest.T0()}
	svcs := []*hub.Service{hub.NewService(a, clock, t.TempDir()), hub.NewService(b, clock, t.TempDir())}
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for i := 0; i < 32; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := svcs[i%2].Post(ctx, hub.PostInput{From: fmt.Sprintf("agent-%d", i), Content: "hello"})
			errs <- err
		}()
	}
	wg.Wait()
	ids := make(chan string, 16)
	for i := 0; i < 16; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ictx := hub.WithIdempotency(ctx, hub.IdemKey{Agent: "bob", RequestID: "req-1", Command: "post"})
			m, err := svcs[i%2].Post(ictx, hub.PostInput{From: "bob", Content: "once"})
			errs <- err
			ids <- m.UUID
		}()
	}
	wg.Wait()
	close(errs)
	close(ids)
	for err := range errs {
		if err != nil {
			t.Fatalf("concurrent write: %v", err)
		}
	}
	seen := map[string]bool{}
	for id := range ids {
		seen[id] = true
	}
	if len(seen) != 1 {
		t.Errorf("one request id produced %d different messages", len(seen))
	}
	var n, max, distinct int
	if err := a.SQL().QueryRow(`SELECT COUNT(*), MAX(seq), COUNT(DISTINCT seq) FROM messages`).Scan(&n, &max, &distinct); err != nil {
		t.Fatal(err)
	}
	if n != 33 || max != 33 || distinct != 33 {
		t.Errorf("messages: %d rows, max seq %d, %d distinct seqs; want 33 each", n, max, distinct)
	}
}

// A commit through one pool (one server) wakes the watcher of another;
// a rolled-back write sends nothing.
func TestWatchWakesOnCommitsOfOtherProcesses(t *testing.T) {
	url := pgtest.URL(t)
	a, b := open(t, url), open(t, url)
	if a.Watch == nil {
		t.Fatal("postgres store has no Watch")
	}
	ctx, cancel := context.WithCancel(context.Background())
	woke := make(chan struct{}, 16)
	done := make(chan error, 1)
	go func() {
		done <- a.Watch(ctx, func() {
			select {
			case woke <- struct{}{}:
			default:
			}
		}, func(bool) {})
	}()
	select {
	case <-woke: // the wake after connecting
	case <-time.After(60 * time.Second):
		t.Fatal("no wake after LISTEN")
	}
	clock := &storetest.Clock{T: storetest.T0()}
	svc := hub.NewService(b, clock, t.TempDir())
	// A failing write (rolled back) must not wake anyone.
	err := b.Write(context.Background(), func(tx hub.Tx) error {
		if err := tx.AppendEvent(context.Background(), &hub.Event{Type: "x", CreatedAt: clock.T}); err != nil {
			return err
		}
		return hub.Errorf(hub.CodeInvalidInput, "no")
	})
	storetest.WantCode(t, err, hub.CodeInvalidInput)
	if _, err := svc.Post(context.Background(), hub.PostInput{From: "bob", Content: "wake up"}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-woke:
	case <-time.After(60 * time.Second):
		t.Fatal("a commit on another pool did not wake the watcher")
	}
	select {
	case <-woke:
		t.Error("woken twice: the rolled-back write sent a notification")
	case <-time.After(300 * time.Millisecond):
	}
	cancel()
	if err := <-done; err != context.Canceled {
		t.Errorf("Watch returned %v, want context.Canceled", err)
	}
}

// 32 agents race to reserve mutually overlapping scopes, each through its
// own connection pool (as if through 32 servers), released all at once:
// exactly one wins. This is the rule that needs the write lock: without it,
// several check-then-insert transactions see no conflict and all insert.
func TestReservationRaceAcrossPools(t *testing.T) {
	url := migrated(t)
	clock := &storetest.Clock{T: storetest.T0()}
	root := t.TempDir()
	ctx := context.Background()
	const n = 32
	svcs := make([]*hub.Service, n)
	for i := range svcs {
		svcs[i] = hub.NewService(open(t, url), clock, root)
	}
	a := hubtest.StoreOf(svcs[0]).(*sqlstore.DB)
	for i := 0; i < n; i++ {
		if _, _, err := svcs[0].RegisterAgent(ctx, hub.RegisterInput{ID: fmt.Sprintf("agent-%02d", i), Role: "worker"}); err != nil {
			t.Fatal(err)
		}
	}
	scopes := []string{"src/*", "src/lib/*", "src/lib/parser.go"}
	var wg sync.WaitGroup
	start := make(chan struct{})
	errs := make([]error, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			_, errs[i] = svcs[i].Reserve(ctx, hub.ReserveInput{Agent: fmt.Sprintf("agent-%02d", i),
				Scope: scopes[i%len(scopes)], BeadID: "bb-1"})
		}()
	}
	close(start)
	wg.Wait()
	wins := 0
	for i, err := range errs {
		switch {
		case err == nil:
			wins++
		case hub.IsCode(err, hub.CodeReservationConflict):
		default:
			t.Errorf("agent-%02d: %v", i, err)
		}
	}
	var active int
	if err := a.SQL().QueryRow(`SELECT COUNT(*) FROM reservations WHERE state = 'active'`).Scan(&active); err != nil {
		t.Fatal(err)
	}
	if wins != 1 || active != 1 {
		t.Errorf("%d winners, %d active reservations; want exactly 1", wins, active)
	}
}

// BenchmarkPost: one bb post (a write transaction: message, tags, event)
// through the service, serially and from 8 goroutines, on PostgreSQL and,
// for comparison in the same run, on SQLite.
func BenchmarkPost(b *testing.B) {
	backends := map[string]func(b *testing.B) hub.Store{
		"postgres": func(b *testing.B) hub.Store {
			pgtest.Require(b)
			u, drop, err := pgtest.NewDatabase(b.Name())
			if err != nil {
				b.Fatal(err)
			}
			st, err := postgres.Open(context.Background(), u)
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { st.Close(); _ = drop() })
			return st
		},
		"sqlite": func(b *testing.B) hub.Store {
			st, err := sqlite.Open(context.Background(), b.TempDir()+"/bb.db", sqlite.Options{Create: true})
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { st.Close() })
			return st
		},
	}
	for _, name := range []string{"postgres", "sqlite"} {
		for _, par := range []int{1, 8} {
			b.Run(fmt.Sprintf("%s/writers=%d", name, par), func(b *testing.B) {
				svc := hub.NewService(backends[name](b), &storetest.Clock{T: storetest.T0()}, b.TempDir())
				ctx := context.Background()
				b.SetParallelism(par)
				b.ResetTimer()
				if par == 1 {
					for i := 0; i < b.N; i++ {
						if _, err := svc.Post(ctx, hub.PostInput{From: "bench", Content: "hello", Tags: []string{"x"}}); err != nil {
							b.Fatal(err)
						}
					}
					return
				}
				b.RunParallel(func(pb *testing.PB) {
					for pb.Next() {
						if _, err := svc.Post(ctx, hub.PostInput{From: "bench", Content: "hello", Tags: []string{"x"}}); err != nil {
							b.Error(err)
							return
						}
					}
				})
			})
		}
	}
}

// BenchmarkPostMany: group commits as `bb serve` makes them (16 posts by
// 16 agents, each checking in, per transaction) from one server's pool
// and from two (two servers) on PostgreSQL, and for comparison in the same
// run from one process on SQLite (whose whole write transaction holds the
// file's writer lock). Reported per post: the time the write lock was held
// (the serial section every server waits for, sqlstore.Stats.SerialTime),
// statements and round trips.
func BenchmarkPostMany(b *testing.B) {
	pgtest.Require(b)
	for _, v := range []struct {
		backend string
		servers int
	}{{"sqlite", 1}, {"postgres", 1}, {"postgres", 2}} {
		servers := v.servers
		b.Run(fmt.Sprintf("%s/servers=%d", v.backend, servers), func(b *testing.B) {
			var stores []*sqlstore.DB
			var svcs []*hub.Service
			drop := func() error { return nil }
			for range servers {
				var st *sqlstore.DB
				var err error
				if v.backend == "sqlite" {
					st, err = sqlite.Open(context.Background(), b.TempDir()+"/bb.db",
						sqlite.Options{Create: true, CheckpointEvery: 250 * time.Millisecond, NoMemoryMap: true})
				} else {
					var u string
					if len(stores) == 0 {
						u, drop, err = pgtest.NewDatabase(b.Name())
						if err != nil {
							b.Fatal(err)
						}
						b.Setenv("BB_BENCH_PG_URL", u)
					}
					st, err = postgres.Open(context.Background(), os.Getenv("BB_BENCH_PG_URL"))
				}
				if err != nil {
					b.Fatal(err)
				}
				stores = append(stores, st)
				svcs = append(svcs, hub.NewService(st, &storetest.Clock{T: storetest.T0()}, b.TempDir()))
			}
			b.Cleanup(func() {
				for _, st := range stores {
					st.Close()
				}
				_ = drop()
			})
			const batch = 16
			ctx := context.Background()
			ops := func(s int) []hub.PostOp {
				out := make([]hub.PostOp, batch)
				for i := range out {
					out[i] = hub.PostOp{In: hub.PostInput{From: fmt.Sprintf("agent-%d-%d", s, i), Content: "hello", Tags: []string{"x"}}, CheckIn: true}
				}
				return out
			}
			stat := func() (st sqlstore.Stats) {
				for _, s := range stores {
					x := s.Stats()
					st.Statements += x.Statements
					st.RoundTrips += x.RoundTrips
					st.SerialTime += x.SerialTime
					st.Writes += x.Writes
				}
				return st
			}
			before := stat()
			b.ResetTimer()
			var wg sync.WaitGroup
			for s := range servers {
				wg.Go(func() {
					for i := s; i < b.N; i += servers {
						for _, r := range svcs[s].PostMany(ctx, ops(s)) {
							if r.Err != nil {
								b.Error(r.Err)
								return
							}
						}
					}
				})
			}
			wg.Wait()
			b.StopTimer()
			after := stat()
			posts := float64(b.N * batch)
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/posts/1e3, "µs/post")
			b.ReportMetric(float64((after.SerialTime-before.SerialTime).Nanoseconds())/posts/1e3, "serial-µs/post")
			b.ReportMetric(float64(after.Statements-before.Statements)/posts, "stmts/post")
			b.ReportMetric(float64(after.RoundTrips-before.RoundTrips)/posts, "trips/post")
		})
	}
}
