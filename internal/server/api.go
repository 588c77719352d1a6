package server

import (
	"github.com/blackboard-hub/bb/internal/hub/artifacts"

	"github.com/blackboard-hub/bb/internal/hub/search"

	"context"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/server/wire"
	"github.com/blackboard-hub/bb/internal/view"
)

// AgentHeader names the acting agent of an API request (like bb --as).
// The ?as= query parameter does the same.
const AgentHeader = wire.AgentHeader

// RequestIDHeader makes a mutation idempotent (like --request-id).
const RequestIDHeader = "Idempotency-Key"

func (s *Server) routes() {
	m := s.rmux
	m.HandleFunc("GET /api/v1/status", s.api("status", s.getBoard))
	m.HandleFunc("POST /api/v1/status", s.api("status set", s.setStatus))
	m.HandleFunc("POST /api/v1/status/clear", s.api("status clear", s.clearStatus))
	m.HandleFunc("GET /api/v1/status/{agent}", s.api("status get", s.getStatus))
	m.HandleFunc("GET /api/v1/agents", s.api("status", s.getBoard))
	m.HandleFunc("POST /api/v1/messages", s.api("post", s.postMessage))
	m.HandleFunc("GET /api/v1/messages", s.api("log", s.listMessages))
	m.HandleFunc("GET /api/v1/messages/{id}", s.api("message", s.getThread))
	m.HandleFunc("POST /api/v1/artifacts", s.api("artifact add", s.addArtifact))
	m.HandleFunc("GET /api/v1/artifacts", s.api("artifacts", s.listArtifacts))
	m.HandleFunc("GET /api/v1/artifacts/{path...}", s.api("artifact show", s.getArtifact))
	m.HandleFunc("GET /api/v1/refs/{ref}", s.api("refs", s.findRefs))
	m.HandleFunc("GET /api/v1/events", s.api("events", s.listEvents))
	m.HandleFunc("GET /api/v1/events/stream", s.stream)
	m.HandleFunc("GET /api/v1/summary", s.api("summary", s.summary))
	m.HandleFunc("GET /api/v1/search", s.api("search", s.search))
	m.HandleFunc("GET /api/v1/export", s.export)
	m.HandleFunc("POST /api/v1/rpc/{method}", s.rpc)
	m.HandleFunc("POST /api/v1/wait", s.api("agent wait", s.wait))
	m.HandleFunc("GET /api/v1/info", s.api("info", s.info))
	m.HandleFunc("POST /api/v1/command", s.command)
	s.leaseRoutes()
	m.HandleFunc("GET /api/v1/openapi.json", s.openAPI)
	m.Handle("GET "+MetricsPath, s.metricsHandler())
	m.HandleFunc("/api/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, "", hub.Errorf(hub.CodeNotFound, "no API endpoint %s %s (see docs/serve.md)", r.Method, r.URL.Path), http.StatusNotFound)
	})
	if s.cfg.MCP != nil {
		h := s.longLived(s.cfg.MCP)
		m.Handle("/mcp", h)
		m.Handle("/mcp/", h)
	} else {
		m.HandleFunc("/mcp", func(w http.ResponseWriter, r *http.Request) {
			writeError(w, "", hub.Errorf(hub.CodeNotFound, "MCP is not enabled on this server"), http.StatusNotFound)
		})
	}
	s.ui.routes(m)
}

// call is one API request being served.
type call struct {
	w   http.ResponseWriter
	r   *http.Request
	ctx context.Context
	// agent is the acting identity; explicit is false for the "human" default.
	agent    string
	explicit bool
	// notices set by handlers that did the check-in themselves.
	notices     *hub.Notices
	checkedIn   bool
	requestID   string
	commandName string
}

type handler func(c *call) (any, error)

// api adapts a handler: identity, idempotency, the envelope, status codes
// and the identified caller's check-in (last_seen and notices), exactly as
// bb --json does.
func (s *Server) api(command string, h handler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		c := &call{w: w, r: r, ctx: r.Context(), commandName: command}
		if err := s.checkRepository(r); err != nil {
			writeRPCError(w, command, err) // 409, as on RPC
			return
		}
		c.agent = strings.TrimSpace(r.Header.Get(AgentHeader))
		if c.agent == "" {
			c.agent = r.URL.Query().Get("as")
		}
		if c.agent == "" {
			// A credential's holder is its agent.
			c.agent = hub.Acting(r.Context())
		}
		if err := hub.Allow(r.Context(), hub.Act(c.agent)); err != nil {
			writeError(w, command, err, 0)
			return
		}
		if c.agent != "" {
			if _, err := s.svc.AgentID(r.Context(), hub.GrammarBoard, c.agent); err != nil {
				writeError(w, command, err, 0)
				return
			}
			c.explicit = true
		} else {
			c.agent = "human"
		}
		if rid := r.Header.Get(RequestIDHeader); rid != "" && r.Method != http.MethodGet {
			if err := hub.ValidateRequestID(rid); err != nil {
				writeError(w, command, err, 0)
				return
			}
			c.requestID = rid
			c.ctx = hub.WithIdempotency(c.ctx, hub.IdemKey{Agent: c.agent, RequestID: rid, Command: command})
		}
		data, err := h(c)
		if err != nil {
			writeError(w, command, err, statusFor(err))
			return
		}
		if c.explicit && !c.checkedIn {
			c.notices = s.checkIn(r, c.agent)
		}
		writeOK(w, command, data, c.notices)
	}
}

// checkIn is the identified caller's check-in after its request: a
// write's own; a read's notices come from a read, and the heartbeat it owes
// is batched (heartbeats), so that a read never waits for the write path.
func (s *Server) checkIn(r *http.Request, agent string) *hub.Notices {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		if n, err := s.svc.CheckIn(r.Context(), agent); err == nil {
			return &n
		}
		return nil
	}
	n, owed, err := s.svc.ReadCheckIn(r.Context(), agent)
	if err != nil {
		return nil
	}
	if owed {
		s.beats.owe(r.Context(), agent)
	}
	return &n
}

func (c *call) q(name string) string { return c.r.URL.Query().Get(name) }

func (s *Server) getBoard(c *call) (any, error) {
	return render(view.AgentsLive)(s.svc.Board(c.ctx))
}

func (s *Server) getStatus(c *call) (any, error) {
	return render(view.AgentLive)(s.svc.AgentStatus(c.ctx, c.r.PathValue("agent")))
}

type statusBody struct {
	Task     *string `json:"task"`
	Progress *int    `json:"progress"`
	Status   *string `json:"status"`
	Blockers *string `json:"blockers"`
}

func (s *Server) setStatus(c *call) (any, error) {
	var b statusBody
	if err := decodeBody(c.w, c.r, &b); err != nil {
		return nil, err
	}
	if b.Task == nil {
		return nil, hub.FieldErr(hub.CodeInvalidInput, "task", "task is required (the same as bb status set <task>)")
	}
	return render(view.AgentOf)(s.svc.SetStatus(c.ctx, c.agent, hub.StatusUpdate{Task: b.Task, Progress: b.Progress, Status: b.Status, Blockers: b.Blockers}))
}

func (s *Server) clearStatus(c *call) (any, error) {
	return render(view.AgentOf)(s.svc.ClearStatus(c.ctx, c.agent))
}

type postBody struct {
	Content  string   `json:"content"`
	Tags     []string `json:"tags"`
	Priority string   `json:"priority"`
	ReplyTo  int64    `json:"reply_to"`
	Refs     []string `json:"refs"`
}

func (s *Server) postMessage(c *call) (any, error) {
	var b postBody
	refs, err := decodeWithRefs(c, &b, &b.Refs)
	if err != nil {
		return nil, err
	}
	in := hub.PostInput{From: c.agent, Content: b.Content, Tags: b.Tags, Priority: b.Priority, ReplyTo: b.ReplyTo, Refs: refs}
	if c.requestID != "" {
		// Idempotent posts take the direct path: their reply is stored
		// with the work.
		m, err := s.svc.Post(c.ctx, in)
		if err != nil {
			return nil, err
		}
		return view.MessageOf(m), nil
	}
	res := s.posts.post(c.ctx, hub.PostOp{In: in, CheckIn: c.explicit})
	if res.Err != nil {
		return nil, res.Err
	}
	c.notices, c.checkedIn = res.Notices, c.explicit
	return view.MessageOf(res.Message), nil
}

func (s *Server) listMessages(c *call) (any, error) {
	qs := c.r.URL.Query()
	q := hub.LogQuery{Tags: qs["tag"], From: c.q("from"), MinPriority: c.q("priority")}
	var err error
	if q.Since, err = sinceParam(c); err != nil {
		return nil, err
	}
	if q.Limit, err = limitParam(c.q("limit"), hub.DefaultLogLimit, hub.MaxLogLimit); err != nil {
		return nil, err
	}
	if q.Ref, err = view.OptionalRef(c.q("ref")); err != nil {
		return nil, err
	}
	if c.explicit {
		q.Reader = c.agent
	}
	return render(view.Messages)(s.svc.Log(c.ctx, q))
}

func parseSeq(field, v string) (int64, error) {
	n, err := strconv.ParseInt(strings.TrimPrefix(v, "#"), 10, 64)
	if err != nil || n < 1 {
		return 0, hub.FieldErr(hub.CodeInvalidInput, field, "invalid message id %q: expected a message number such as 42", v)
	}
	return n, nil
}

func (s *Server) getThread(c *call) (any, error) {
	seq, err := parseSeq("id", c.r.PathValue("id"))
	if err != nil {
		return nil, err
	}
	return render(view.Messages)(s.svc.Thread(c.ctx, seq))
}

type artifactBody struct {
	Path        string   `json:"path"`
	Description string   `json:"description"`
	Version     *string  `json:"version"`
	Refs        []string `json:"refs"`
}

func (s *Server) addArtifact(c *call) (any, error) {
	var b artifactBody
	refs, err := decodeWithRefs(c, &b, &b.Refs)
	if err != nil {
		return nil, err
	}
	a, _, err := s.svc.AddArtifact(c.ctx, artifacts.Input{Agent: c.agent, Path: b.Path, Description: b.Description, Version: b.Version, Refs: refs})
	if err != nil {
		return nil, err
	}
	return view.ArtifactOf(a), nil
}

func (s *Server) listArtifacts(c *call) (any, error) {
	q := artifacts.Query{By: c.q("by")}
	var err error
	if q.Limit, err = limitParam(c.q("limit"), hub.DefaultArtifactsLimit, hub.MaxArtifactsLimit); err != nil {
		return nil, err
	}
	if q.Ref, err = view.OptionalRef(c.q("ref")); err != nil {
		return nil, err
	}
	return render(view.Artifacts)(s.svc.Artifacts(c.ctx, q))
}

func (s *Server) getArtifact(c *call) (any, error) {
	return render(view.ArtifactOf)(s.svc.ArtifactByPath(c.ctx, c.r.PathValue("path")))
}

func (s *Server) findRefs(c *call) (any, error) {
	r, err := hub.ParseRef(c.r.PathValue("ref"))
	if err != nil {
		return nil, err
	}
	m, err := s.svc.FindRefs(c.ctx, r)
	if err != nil {
		return nil, err
	}
	return view.Refs(r, m), nil
}

// eventQuery reads the query of GET /api/v1/events; the limit, when given,
// is checked by the core's one event-list rule.
func eventQuery(c *call) (hub.EventQuery, error) {
	f := hub.EventQuery{Agent: c.q("agent"), BeadID: c.q("bead")}
	if v := c.q("type"); v != "" {
		f.Types = strings.Split(v, ",")
	}
	if v := c.q("after"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return f, hub.FieldErr(hub.CodeInvalidInput, "since_seq", "{field} must be an event sequence number, got %q", v)
		}
		f.AfterSeq = n
	}
	if v := c.q("limit"); v != "" {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil {
			return f, hub.FieldErr(hub.CodeInvalidInput, "limit", "{field} must be a whole number, got %q", v)
		}
		f.Limit = &n
	}
	return f, nil
}

func (s *Server) listEvents(c *call) (any, error) {
	f, err := eventQuery(c)
	if err != nil {
		return nil, err
	}
	page, err := s.svc.Events(c.ctx, f)
	if err != nil {
		return nil, err
	}
	evs := page.Events
	return view.Events(evs), nil
}

func (s *Server) summary(c *call) (any, error) {
	return render(view.Summary)(s.svc.Summary(c.ctx))
}

// export writes the raw dump, like bb export (a file format: no envelope).
func (s *Server) export(w http.ResponseWriter, r *http.Request) {
	x, err := s.svc.Export(r.Context())
	if err != nil {
		writeError(w, "export", err, 0)
		return
	}
	writeJSON(w, http.StatusOK, view.Export(x, s.svc.Root()))
}

// render turns a core reply into its view, or passes the core's error on:
// render(view.X)(s.svc.Y(…)) is the body of a read handler.
func render[T, V any](to func(T) V) func(T, error) (any, error) {
	return func(x T, err error) (any, error) {
		if err != nil {
			return nil, err
		}
		return to(x), nil
	}
}

// sinceParam parses a ?since= age such as 2h (0, no bound, when absent).
func sinceParam(c *call) (time.Duration, error) {
	if v := c.q("since"); v != "" {
		return hub.ParseDuration(v)
	}
	return 0, nil
}

// decodeWithRefs decodes the JSON body into b and parses its refs field
// (refs points into b).
func decodeWithRefs(c *call, b any, refs *[]string) ([]hub.Ref, error) {
	if err := decodeBody(c.w, c.r, b); err != nil {
		return nil, err
	}
	return hub.ParseRefs(*refs)
}

// limitParam parses a ?limit= value: absent means def; above max is clamped.
func limitParam(v string, def, max int) (int, error) {
	if strings.TrimSpace(v) == "" {
		return def, nil
	}
	return hub.ParseLimit(v, max)
}

// longLived lifts the server's write timeout from MCP's GET streams
// (server-to-client notifications), which stay open by design; POSTs keep
// the normal timeouts.
func (s *Server) longLived(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			rc := http.NewResponseController(w)
			_ = rc.SetReadDeadline(time.Time{})
			_ = rc.SetWriteDeadline(time.Time{})
			// A GET is a stream that never ends by itself: a stopping
			// server ends it. Tool calls (POST) run to their end.
			ctx, cancel := context.WithCancel(r.Context())
			defer cancel()
			defer context.AfterFunc(s.streams, cancel)()
			r = r.WithContext(ctx)
		}
		// A tool call that waits (bb_lease_acquire, bb_wait) ends its
		// wait when the server starts to stop.
		r = r.WithContext(wire.WithStopping(r.Context(), s.streams))
		h.ServeHTTP(w, r)
	})
}

// info describes the server: the project it serves and its store.
func (s *Server) info(c *call) (any, error) {
	return s.svc.Info(c.ctx)
}

// search answers GET /api/v1/search?q=…&kind=…&agent=…&since=…&limit=…
// with the ranked hits of hub.Search.
func (s *Server) search(c *call) (any, error) {
	qs := c.r.URL.Query()
	q := search.Query{Text: c.q("q"), Kinds: qs["kind"], Agent: c.q("agent")}
	var err error
	if q.Since, err = sinceParam(c); err != nil {
		return nil, err
	}
	if q.Limit, err = limitParam(c.q("limit"), hub.DefaultSearchLimit, hub.MaxSearchLimit); err != nil {
		return nil, err
	}
	return s.svc.Search(c.ctx, q)
}
