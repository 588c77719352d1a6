package storetest

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/hub/hooks"
	"github.com/blackboard-hub/bb/internal/hub/leases"
	"github.com/blackboard-hub/bb/internal/hub/search"
)

// testHost is the host the suite's leases run on: its name, the ports
// found in use on it, and the processes that run there.
type testHost struct {
	mu   sync.Mutex
	name string
	busy map[int]bool
	dead map[int]bool
	pid  int
}

func (h *testHost) Host() string { return h.name }
func (h *testHost) PortFree(p int) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return !h.busy[p]
}
func (h *testHost) Alive(pid int) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return !h.dead[pid]
}
func (h *testHost) PID() int { return h.pid }

type leaseFixture struct {
	*Fixture
	host *testHost
	l    *leases.Service
}

func newLeases(t *testing.T, open Opener, agents ...string) *leaseFixture {
	f := New(t, open)
	h := &testHost{name: "box", busy: map[int]bool{}, dead: map[int]bool{}, pid: 100}
	lf := &leaseFixture{Fixture: f, host: h, l: leases.NewOn(f.Svc, h)}
	for _, a := range agents {
		role := "dev"
		if a == "pat" {
			role = hub.RolePerson
		}
		_, _, err := f.Svc.RegisterAgent(f.Ctx, hub.RegisterInput{ID: a, Role: role})
		Ok(t, err)
	}
	return lf
}

func (f *leaseFixture) acquire(in leases.AcquireInput) leases.Grant {
	f.T.Helper()
	g, err := f.l.AcquireLease(f.Ctx, in)
	if err != nil {
		f.T.Fatalf("acquire %+v: %v", in, err)
	}
	return g
}

func (f *leaseFixture) touch(agents ...string) {
	for _, a := range agents {
		_, err := f.Svc.Heartbeat(f.Ctx, a)
		Ok(f.T, err)
	}
}

func (f *leaseFixture) eventTypes(prefix string) []string {
	var out []string
	for _, e := range f.Events() {
		if len(e.Type) >= len(prefix) && e.Type[:len(prefix)] == prefix {
			out = append(out, e.Type)
		}
	}
	return out
}

func testLeases(t *testing.T, open Opener) {
	t.Run("ExclusiveLockFencing", func(t *testing.T) {
		f := newLeases(t, open, "ann", "bob")
		g := f.acquire(leases.AcquireInput{Agent: "ann", Name: "deploy:staging"})
		if g.Lease.Fence != 1 || g.Lease.Kind != leases.KindLock || g.Renewed {
			t.Fatalf("first grant: %+v", g)
		}
		_, err := f.l.AcquireLease(f.Ctx, leases.AcquireInput{Agent: "bob", Name: "deploy:staging"})
		WantCode(t, err, leases.CodeLeaseConflict)
		again := f.acquire(leases.AcquireInput{Agent: "ann", Name: "deploy:staging"})
		if !again.Renewed || again.Lease.Fence != 1 || again.Lease.ID != g.Lease.ID {
			t.Fatalf("acquire again renews the same grant: %+v", again)
		}
		_, err = f.l.ReleaseLease(f.Ctx, leases.ReleaseInput{Agent: "bob", Name: "deploy:staging"})
		WantCode(t, err, hub.CodeReleaseForbidden)
		c, err := f.l.CheckLease(f.Ctx, "ann", "deploy:staging", 1)
		Ok(t, err)
		if !c.Held {
			t.Fatalf("check: %+v", c)
		}
		_, err = f.l.ReleaseLease(f.Ctx, leases.ReleaseInput{Agent: "ann", Name: "deploy:staging"})
		Ok(t, err)
		c, err = f.l.CheckLease(f.Ctx, "ann", "deploy:staging", 1)
		Ok(t, err)
		if c.Held || c.Reason != "released" {
			t.Fatalf("check after release: %+v", c)
		}
		g2 := f.acquire(leases.AcquireInput{Agent: "bob", Name: "deploy:staging"})
		if g2.Lease.Fence != 2 {
			t.Fatalf("the fence only grows: %+v", g2.Lease)
		}
		c, err = f.l.CheckLease(f.Ctx, "ann", "deploy:staging", 2)
		Ok(t, err)
		if c.Held || c.Latest != 2 {
			t.Fatalf("another holder's fence: %+v", c)
		}
		_, err = f.l.ReleaseLease(f.Ctx, leases.ReleaseInput{Agent: "ann", Name: "nothing"})
		WantCode(t, err, leases.CodeLeaseNotFound)
		got := f.eventTypes("lease.")
		want := []string{"lease.acquired", "lease.released", "lease.acquired"}
		if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
			t.Fatalf("events %v, want %v", got, want)
		}
	})

	t.Run("SlotCapacity", func(t *testing.T) {
		f := newLeases(t, open, "ann", "bob", "cid")
		f.acquire(leases.AcquireInput{Agent: "ann", Name: "build", Capacity: ptr(2)})
		f.acquire(leases.AcquireInput{Agent: "bob", Name: "build"})
		_, err := f.l.AcquireLease(f.Ctx, leases.AcquireInput{Agent: "cid", Name: "build"})
		WantCode(t, err, leases.CodeLeaseConflict)
		_, err = f.l.AcquireLease(f.Ctx, leases.AcquireInput{Agent: "cid", Name: "build", Capacity: ptr(3)})
		WantCode(t, err, hub.CodeInvalidArgs)
		st, err := f.l.LeaseStatus(f.Ctx, "build")
		Ok(t, err)
		if st.Capacity != 2 || len(st.Holders) != 2 || st.Free != 0 || st.Fence != 2 {
			t.Fatalf("status: %+v", st)
		}
		_, err = f.l.ReleaseLease(f.Ctx, leases.ReleaseInput{Agent: "ann", Name: "build"})
		Ok(t, err)
		g := f.acquire(leases.AcquireInput{Agent: "cid", Name: "build"})
		if g.Lease.Fence != 3 {
			t.Fatalf("third grant: %+v", g.Lease)
		}
	})

	t.Run("BadInputWritesNothing", func(t *testing.T) {
		f := newLeases(t, open, "ann")
		long := make([]byte, leases.MaxNameLen+1)
		for i := range long {
			long[i] = 'a'
		}
		for _, in := range []leases.AcquireInput{
			{Agent: "ann", Name: ""},
			{Agent: "ann", Name: string(long)},
			{Agent: "ann", Name: "src/main.go"},
			{Agent: "ann", Name: "Build"},
			{Agent: "ann", Name: "port:"},
			{Agent: "ann", Name: "build", Capacity: ptr(0)},
			{Agent: "ann", Name: "build", Capacity: ptr(leases.MaxCapacity + 1)},
			{Agent: "ann", Name: "port:web", Capacity: ptr(2)},
			{Agent: "ann", Name: "build", TTLMinutes: ptr(0)},
			{Agent: "ann", Name: "build", Wait: 2 * time.Hour},
		} {
			_, err := f.l.AcquireLease(f.Ctx, in)
			WantCode(t, err, hub.CodeInvalidArgs)
			var he *hub.Error
			if !errors.As(err, &he) || he.Field == "" {
				t.Fatalf("%+v: the refusal names no field: %v", in, err)
			}
		}
		if got := f.eventTypes("lease."); len(got) != 0 {
			t.Fatalf("bad input wrote events: %v", got)
		}
		ls, err := f.l.ListLeases(f.Ctx, leases.ListFilter{All: true})
		Ok(t, err)
		if len(ls) != 0 {
			t.Fatalf("bad input wrote leases: %+v", ls)
		}
	})

	t.Run("ExpiryAndStaleTakeover", func(t *testing.T) {
		f := newLeases(t, open, "ann", "bob", "cid")
		f.acquire(leases.AcquireInput{Agent: "ann", Name: "db:migrations", TTLMinutes: ptr(1)})
		f.Clock.Advance(2 * time.Minute)
		f.touch("bob")
		g := f.acquire(leases.AcquireInput{Agent: "bob", Name: "db:migrations"})
		if g.Lease.Fence != 2 {
			t.Fatalf("after expiry: %+v", g.Lease)
		}
		// bob falls silent past the stale window; cid is active.
		f.Clock.Advance(16 * time.Minute)
		f.touch("cid")
		_, err := f.l.AcquireLease(f.Ctx, leases.AcquireInput{Agent: "cid", Name: "db:migrations"})
		WantCode(t, err, leases.CodeLeaseStaleFound)
		g = f.acquire(leases.AcquireInput{Agent: "cid", Name: "db:migrations", TakeoverStale: true})
		if g.Lease.Fence != 3 || len(g.TakenOver) != 1 || g.TakenOver[0].Agent != "bob" || g.TakenOver[0].State != leases.StateTakenOver {
			t.Fatalf("takeover: %+v", g)
		}
		c, err := f.l.CheckLease(f.Ctx, "bob", "db:migrations", 2)
		Ok(t, err)
		if c.Held {
			t.Fatalf("the taken-over holder still holds: %+v", c)
		}
		got := f.eventTypes("lease.")
		want := []string{"lease.acquired", "lease.expired", "lease.acquired", "lease.taken_over", "lease.acquired"}
		if len(got) != len(want) {
			t.Fatalf("events %v, want %v", got, want)
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("events %v, want %v", got, want)
			}
		}
	})

	t.Run("PersonStepsIn", func(t *testing.T) {
		f := newLeases(t, open, "ann", "bob", "pat")
		f.acquire(leases.AcquireInput{Agent: "ann", Name: "deploy"})
		_, err := f.l.ReleaseLease(f.Ctx, leases.ReleaseInput{Agent: "pat", Name: "deploy", Holder: "ann"})
		WantCode(t, err, hub.CodeReleaseForbidden) // ann is active
		_, err = f.l.ReleaseLease(f.Ctx, leases.ReleaseInput{Agent: "bob", Name: "deploy", Holder: "ann"})
		WantCode(t, err, hub.CodeReleaseForbidden) // bob is no person
		f.Clock.Advance(20 * time.Minute)
		f.touch("pat", "bob")
		_, err = f.l.ReleaseLease(f.Ctx, leases.ReleaseInput{Agent: "bob", Name: "deploy", Holder: "ann"})
		WantCode(t, err, hub.CodeReleaseForbidden)
		r, err := f.l.ReleaseLease(f.Ctx, leases.ReleaseInput{Agent: "pat", Name: "deploy", Holder: "ann", To: "bob"})
		Ok(t, err)
		if !r.ByPerson || r.HandedOver == nil || r.HandedOver.Agent != "bob" || r.HandedOver.Fence != 2 || r.HolderPresence != hub.PresStale {
			t.Fatalf("hand over: %+v", r)
		}
		c, err := f.l.CheckLease(f.Ctx, "bob", "deploy", 2)
		Ok(t, err)
		if !c.Held {
			t.Fatalf("bob holds after the hand-over: %+v", c)
		}
	})

	t.Run("PortsPerHost", func(t *testing.T) {
		f := newLeases(t, open, "ann", "bob", "cid", "pat")
		_, err := f.Svc.SetConfig(f.Ctx, "pat", hub.ConfigLeasesPortRange, "41000-41002")
		Ok(t, err)
		a := f.acquire(leases.AcquireInput{Agent: "ann", Name: "port:web"})
		b := f.acquire(leases.AcquireInput{Agent: "bob", Name: "port:web"})
		if a.Lease.Value == b.Lease.Value || !a.Probed {
			t.Fatalf("two holders, two ports: %+v %+v", a.Lease, b.Lease)
		}
		again := f.acquire(leases.AcquireInput{Agent: "ann", Name: "port:web"})
		if again.Lease.Value != a.Lease.Value || !again.Renewed {
			t.Fatalf("the same agent gets its port back: %+v", again.Lease)
		}
		// The third port is in use on the host: nothing is left.
		for p := 41000; p <= 41002; p++ {
			if strconv.Itoa(p) != a.Lease.Value && strconv.Itoa(p) != b.Lease.Value {
				f.host.busy[p] = true
			}
		}
		_, err = f.l.AcquireLease(f.Ctx, leases.AcquireInput{Agent: "cid", Name: "port:api"})
		WantCode(t, err, leases.CodePortsExhausted)
		// Another host has its own ports; the caller there said which it
		// found in use.
		other := f.acquire(leases.AcquireInput{Agent: "cid", Name: "port:web", Host: "far", Avoid: []int{41000, 41001}})
		if other.Lease.Value != "41002" || other.Probed {
			t.Fatalf("on another host: %+v", other)
		}
		// There, port 41002 turns out to be in use: cid gives it back for
		// another, under a new fence.
		moved := f.acquire(leases.AcquireInput{Agent: "cid", Name: "port:web", Host: "far", Avoid: []int{41002}})
		if moved.Lease.Value == "41002" || moved.Renewed || moved.Lease.Fence <= other.Lease.Fence {
			t.Fatalf("a port found in use is exchanged: %+v", moved)
		}
		_, err = f.l.ReleaseLease(f.Ctx, leases.ReleaseInput{Agent: "bob", Name: "port:web"})
		Ok(t, err)
		c := f.acquire(leases.AcquireInput{Agent: "cid", Name: "port:api"})
		if c.Lease.Value != b.Lease.Value || c.Lease.Env != "BB_PORT_API" {
			t.Fatalf("a released port is handed out again: %+v", c.Lease)
		}
		for _, bad := range []string{"", "41000", "2000-1999", "80-90", "65000-70000", "a-b"} {
			_, err := f.Svc.SetConfig(f.Ctx, "pat", hub.ConfigLeasesPortRange, bad)
			if bad == "" {
				Ok(t, err)
				continue
			}
			WantCode(t, err, hub.CodeInvalidInput)
		}
	})

	t.Run("NamesAndSessionLeases", func(t *testing.T) {
		f := newLeases(t, open, "wise-robin", "calm-otter", "pat")
		_, err := f.Svc.SetConfig(f.Ctx, "pat", hub.ConfigLeasesSession, "port:web port:api name:db")
		Ok(t, err)
		a, err := f.l.AcquireSessionLeases(f.Ctx, leases.SessionInput{Agent: "wise-robin", Session: "s1", Worktree: "/w/a"})
		Ok(t, err)
		b, err := f.l.AcquireSessionLeases(f.Ctx, leases.SessionInput{Agent: "calm-otter", Session: "s2", Worktree: "/w/b"})
		Ok(t, err)
		if len(a) != 3 || len(b) != 3 {
			t.Fatalf("three leases each: %+v %+v", a, b)
		}
		env := leases.EnvLines(a)
		if len(env) != 3 || env[2] != "BB_LEASE_DB=db-wise-robin" || env[0][:len("BB_PORT_WEB=")] != "BB_PORT_WEB=" {
			t.Fatalf("env %v", env)
		}
		if a[0].Value == b[0].Value || a[1].Value == b[1].Value || a[0].Value == a[1].Value || a[2].Value == b[2].Value {
			t.Fatalf("two work trees, different ports and names: %+v %+v", a, b)
		}
		again, err := f.l.AcquireSessionLeases(f.Ctx, leases.SessionInput{Agent: "wise-robin", Session: "s1"})
		Ok(t, err)
		if again[0].Value != a[0].Value || again[0].Fence != a[0].Fence {
			t.Fatalf("the session gets its port back: %+v", again[0])
		}
		gone, err := f.l.ReleaseAgentLeases(f.Ctx, "wise-robin")
		Ok(t, err)
		if len(gone) != 3 {
			t.Fatalf("session end releases all: %+v", gone)
		}
		ls, err := f.l.ListLeases(f.Ctx, leases.ListFilter{Agent: "wise-robin"})
		Ok(t, err)
		if len(ls) != 0 {
			t.Fatalf("nothing left: %+v", ls)
		}
		for _, bad := range []string{"port", "disk:x", "port:web port:web", "port:" + strings.Repeat("a", 40)} {
			_, err := f.Svc.SetConfig(f.Ctx, "pat", hub.ConfigLeasesSession, bad)
			WantCode(t, err, hub.CodeInvalidInput)
		}
	})

	t.Run("EvictedHolderFreesItsLease", func(t *testing.T) {
		f := newLeases(t, open, "ann", "bob")
		f.acquire(leases.AcquireInput{Agent: "ann", Name: "deploy", TTLMinutes: ptr(leases.MaxTTL)})
		f.Clock.Advance(40 * time.Minute) // past twice the stale window
		f.touch("bob")
		g := f.acquire(leases.AcquireInput{Agent: "bob", Name: "deploy"})
		if g.Lease.Fence != 2 || len(g.TakenOver) != 0 {
			t.Fatalf("an evicted holder's lease ends by itself: %+v", g)
		}
	})

	t.Run("SessionEndReleasesSessionLeases", func(t *testing.T) {
		f := newLeases(t, open, "wise-robin", "calm-otter", "pat")
		_, err := f.Svc.SetConfig(f.Ctx, "pat", hub.ConfigLeasesSession, "port:web name:db")
		Ok(t, err)
		a, err := f.l.AcquireSessionLeases(f.Ctx, leases.SessionInput{Agent: "wise-robin", Session: "s1", Worktree: "/w/a"})
		Ok(t, err)
		_, err = f.l.AcquireSessionLeases(f.Ctx, leases.SessionInput{Agent: "calm-otter", Session: "s2", Worktree: "/w/b"})
		Ok(t, err)
		f.acquire(leases.AcquireInput{Agent: "wise-robin", Name: "build"})
		// The client's hook mapped s1 to wise-robin.
		Ok(t, f.Store.Write(f.Ctx, func(tx hub.Tx) error {
			return tx.(hooks.Tx).PutHookSession(f.Ctx, &hub.HookSession{Client: "claude", SessionID: "s1", AgentID: "wise-robin", CreatedAt: f.Clock.Now(), LastSeen: f.Clock.Now()})
		}))
		before := len(f.Events())
		none, err := f.l.ReleaseSessionLeases(f.Ctx, leases.SessionEndInput{Client: "claude", Session: "never-seen"})
		Ok(t, err)
		other, err := f.l.ReleaseSessionLeases(f.Ctx, leases.SessionEndInput{Agent: "wise-robin", Session: "s2"})
		Ok(t, err)
		if len(none) != 0 || len(other) != 0 || len(f.Events()) != before {
			t.Fatalf("a session unknown, or not the agent's, ends nothing: %+v %+v", none, other)
		}
		gone, err := f.l.ReleaseSessionLeases(f.Ctx, leases.SessionEndInput{Client: "claude", Session: "s1"})
		Ok(t, err)
		if len(gone) != 2 || gone[0].State != leases.StateReleased || gone[0].Session != "s1" {
			t.Fatalf("the session's two leases end: %+v", gone)
		}
		if got := f.eventTypes("lease.released"); len(got) != 2 {
			t.Fatalf("lease.released per lease: %v", got)
		}
		mine, err := f.l.ListLeases(f.Ctx, leases.ListFilter{Agent: "wise-robin"})
		Ok(t, err)
		if len(mine) != 1 || mine[0].Name != "build" {
			t.Fatalf("the lock taken outside the session stays: %+v", mine)
		}
		theirs, err := f.l.ListLeases(f.Ctx, leases.ListFilter{Agent: "calm-otter"})
		Ok(t, err)
		if len(theirs) != 2 {
			t.Fatalf("another session's leases stay: %+v", theirs)
		}
		again, err := f.l.ReleaseSessionLeases(f.Ctx, leases.SessionEndInput{Agent: "wise-robin", Session: "s1"})
		Ok(t, err)
		if len(again) != 0 {
			t.Fatalf("a second end finds nothing: %+v", again)
		}
		next, err := f.l.AcquireSessionLeases(f.Ctx, leases.SessionInput{Agent: "calm-otter", Session: "s3"})
		Ok(t, err)
		if next[0].Value == a[0].Value {
			t.Fatalf("calm-otter keeps its own port: %+v", next)
		}
		for _, bad := range []leases.SessionEndInput{{Agent: "wise-robin"}, {Session: "s1"}, {Agent: "wise-robin", Session: strings.Repeat("s", 300)}} {
			_, err := f.l.ReleaseSessionLeases(f.Ctx, bad)
			WantCode(t, err, hub.CodeInvalidArgs)
		}
	})

	t.Run("EvictedSessionPortGoesToAnother", func(t *testing.T) {
		f := newLeases(t, open, "ann", "bob", "pat")
		_, err := f.Svc.SetConfig(f.Ctx, "pat", hub.ConfigLeasesPortRange, "41000-41000")
		Ok(t, err)
		_, err = f.Svc.SetConfig(f.Ctx, "pat", hub.ConfigLeasesSession, "port:web")
		Ok(t, err)
		a, err := f.l.AcquireSessionLeases(f.Ctx, leases.SessionInput{Agent: "ann", Session: "s1"})
		Ok(t, err)
		if len(a) != 1 || a[0].Value != "41000" {
			t.Fatalf("ann gets the one port: %+v", a)
		}
		_, err = f.l.AcquireSessionLeases(f.Ctx, leases.SessionInput{Agent: "bob", Session: "s2"})
		WantCode(t, err, leases.CodePortsExhausted)
		f.Clock.Advance(40 * time.Minute) // ann is past twice the stale window: evicted
		f.touch("bob")
		b, err := f.l.AcquireSessionLeases(f.Ctx, leases.SessionInput{Agent: "bob", Session: "s2"})
		Ok(t, err)
		if len(b) != 1 || b[0].Value != "41000" || b[0].Agent != "bob" {
			t.Fatalf("the evicted agent's port goes to bob: %+v", b)
		}
		if got := f.eventTypes("lease.expired"); len(got) != 1 {
			t.Fatalf("ann's grant ended as expired: %v", got)
		}
	})

	t.Run("SearchFindsLeases", func(t *testing.T) {
		f := newLeases(t, open, "wise-robin", "calm-otter")
		web := f.acquire(leases.AcquireInput{Agent: "wise-robin", Name: "port:web"})
		f.acquire(leases.AcquireInput{Agent: "calm-otter", Name: "name:db"})
		f.acquire(leases.AcquireInput{Agent: "wise-robin", Name: "deploy:staging"})
		f.Post(hub.PostInput{From: "calm-otter", Content: "the staging deploy is next"})
		find := func(q search.Query) []string {
			t.Helper()
			res, err := search.New(f.Svc).Search(f.Ctx, q)
			Ok(t, err)
			out := []string{}
			for _, h := range res.Hits {
				out = append(out, h.Kind+":"+h.ID+"="+h.Agent)
			}
			return out
		}
		want := func(q search.Query, w ...string) {
			t.Helper()
			got := find(q)
			if strings.Join(got, " ") != strings.Join(w, " ") {
				t.Fatalf("search %+v = %v, want %v", q, got, w)
			}
		}
		// By the lease's name, its holder, its value (port, name).
		want(search.Query{Text: "staging", Kinds: []string{"leases"}}, "lease:deploy:staging=wise-robin")
		want(search.Query{Text: web.Lease.Value}, "lease:port:web=wise-robin")
		want(search.Query{Text: "db-calm-otter"}, "lease:name:db=calm-otter")
		want(search.Query{Text: "calm otter", Kinds: []string{"lease"}}, "lease:name:db=calm-otter")
		want(search.Query{Text: "robin", Kinds: []string{"lease"}, Agent: "calm-otter"})
		got := find(search.Query{Text: "wise", Kinds: []string{"lease"}, Agent: "wise-robin"})
		if len(got) != 2 {
			t.Fatalf("wise-robin's two leases: %v", got)
		}
		if got := find(search.Query{Text: "staging"}); len(got) != 2 {
			t.Fatalf("the lease and the post: %v", got)
		}
		// A grant that ended is still found, saying so.
		_, err := f.l.ReleaseLease(f.Ctx, leases.ReleaseInput{Agent: "wise-robin", Name: "deploy:staging"})
		Ok(t, err)
		res, err := search.New(f.Svc).Search(f.Ctx, search.Query{Text: "deploy staging", Kinds: []string{"lease"}})
		Ok(t, err)
		if len(res.Hits) != 1 || res.Hits[0].Title != "deploy:staging" || !strings.Contains(res.Hits[0].Snippet, "released") ||
			!strings.Contains(res.Hits[0].Snippet, "fence 1") || len(res.Hits[0].TitleMarks) != 2 {
			t.Fatalf("the released grant: %+v", res.Hits)
		}
	})

	t.Run("WaitersServedInOrder", func(t *testing.T) {
		f := newLeases(t, open, "ann", "wa1", "wa2", "wa3")
		f.acquire(leases.AcquireInput{Agent: "ann", Name: "build"})
		ctx, cancel := context.WithCancel(f.Ctx)
		defer cancel()
		queued := make(chan string, 8)
		ready := make(chan struct{})
		go func() {
			_ = f.Svc.Follow(ctx, hub.FollowInput{Filter: hub.EventFilter{Types: []string{leases.EventQueued}},
				Started: func(int64) error { close(ready); return nil }}, func(e hub.Event) error {
				queued <- e.Agent
				return nil
			})
		}()
		<-ready // listening before the first waiter arrives
		type res struct {
			who string
			g   leases.Grant
			err error
		}
		done := make(chan res, 3)
		for _, w := range []string{"wa1", "wa2", "wa3"} {
			go func() {
				g, err := f.l.AcquireLease(ctx, leases.AcquireInput{Agent: w, Name: "build", Wait: 30 * time.Second})
				done <- res{w, g, err}
			}()
			if got := <-queued; got != w {
				t.Fatalf("queued %s, want %s", got, w)
			}
		}
		holder := "ann"
		for _, want := range []string{"wa1", "wa2", "wa3"} {
			_, err := f.l.ReleaseLease(f.Ctx, leases.ReleaseInput{Agent: holder, Name: "build"})
			Ok(t, err)
			r := <-done
			Ok(t, r.err)
			if r.who != want {
				t.Fatalf("granted %s, want %s (arrival order)", r.who, want)
			}
			holder = r.who
		}
	})

	t.Run("WaitEndsAndLeavesTheQueue", func(t *testing.T) {
		f := newLeases(t, open, "ann", "bob")
		f.acquire(leases.AcquireInput{Agent: "ann", Name: "build"})
		start := time.Now()
		_, err := f.l.AcquireLease(f.Ctx, leases.AcquireInput{Agent: "bob", Name: "build", Wait: 50 * time.Millisecond})
		WantCode(t, err, leases.CodeLeaseConflict)
		if time.Since(start) < 50*time.Millisecond {
			t.Fatalf("returned before the wait was over")
		}
		st, err := f.l.LeaseStatus(f.Ctx, "build")
		Ok(t, err)
		if len(st.Waiters) != 0 {
			t.Fatalf("the waiter left the queue: %+v", st.Waiters)
		}
		got := f.eventTypes("lease.")
		if len(got) != 3 || got[1] != leases.EventQueued || got[2] != leases.EventUnqueued {
			t.Fatalf("events %v", got)
		}
	})
}
