// Package mcp is Blackboard's MCP server: the hub's use cases exposed as
// MCP tools (official Go SDK), for stdio (`bb mcp`) and for streamable HTTP
// (`bb serve` mounts the same *sdk.Server at /mcp). It is a thin adapter:
// every tool validates its arguments, resolves the caller's identity and
// calls the core through the role interfaces this package declares
// (internal/boot's door test holds it to them); rules live in the core.
package mcp

import (
	"github.com/blackboard-hub/bb/internal/hub/leases"
	"github.com/blackboard-hub/bb/internal/hub/oversight"

	"github.com/blackboard-hub/bb/internal/hub/artifacts"

	"github.com/blackboard-hub/bb/internal/hub/overview"

	"github.com/blackboard-hub/bb/internal/hub/search"

	"github.com/blackboard-hub/bb/internal/hub/memory"

	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/hub/hooks"
	"github.com/blackboard-hub/bb/internal/hub/resume"
	"github.com/blackboard-hub/bb/internal/termtext"
)

// Tool profiles.
const (
	// ProfileAll registers every tool.
	ProfileAll = "all"
	// ProfileCore registers the ten most used tools only, to keep the
	// tool definitions an agent carries in its context small.
	ProfileCore = "core"
)

// Roles are the parts of the core the MCP tools use (their door into the
// board): every role of the kernel but the dashboard's read model, and the
// hook application (a session's identity).
type Roles interface {
	hub.Admin
	hub.Identity
	hub.Mail
	hub.Messages
	hub.Reservations
	memory.API
	hub.Tasks
	hub.Timeline
	hooks.API
	resume.API
	search.API
	overview.API
	artifacts.API
	oversight.API
	leases.API
}

// Options configure a server.
type Options struct {
	// Agent is an identity fixed by the operator (bb mcp --agent). It wins
	// over everything and bb_identify cannot change it.
	Agent string
	// EnvAgent is BB_AGENT_ID; bb_identify may only repeat it.
	EnvAgent string
	// Tools is the profile: "all" (default) or "core".
	Tools string
	// Open returns the service when New was given none (bb mcp opens the
	// board lazily, so that a server started before `bb init` starts
	// working once the board exists). It is called until it succeeds.
	Open func(ctx context.Context) (Roles, error)
	// Version is reported as the server version.
	Version string
	// ClientPID is the process id of the client that started the server
	// (0: unknown). Without a fixed, environment or bb_identify identity,
	// a tool call works as the agent of that client's most recent hook
	// session (bb hook records it), so MCP tools and hooks are one agent.
	ClientPID int64
	// Client and ClientSessionID name the client session this server was
	// started for, where the client hands its session id to its MCP
	// servers as it does to its hooks (procid.Session): that session's
	// agent wins over ClientPID's (hooks.Service.SessionOf).
	Client          string
	ClientSessionID string
	// Where is the work tree, branch and host this server was started in
	// (bb mcp; empty over bb serve): recorded on the agent that
	// identifies itself.
	Where hub.Where
	// LeaseProgressEvery is how often bb_lease_acquire sends a progress
	// notification while it waits, when the call asked for them (0:
	// leaseProgressEvery).
	LeaseProgressEvery time.Duration
	// Hook answers the client's hooks through HookTool (bb mcp: the same
	// answer as `bb hook`); nil serves no such tool. HookLog receives their
	// notes (bb mcp: its stderr, which the client keeps in its MCP log).
	Hook    HookFunc
	HookLog io.Writer
}

// Server is Blackboard's MCP server. SDK returns the *sdk.Server to run on a
// transport; identities are kept per MCP session.
type Server struct {
	sdk  *sdk.Server
	opts Options

	mu  sync.Mutex
	svc Roles
	// identified holds the identity set by bb_identify, per session.
	identified map[*sdk.ServerSession]string
	// pins holds identities fixed when an HTTP session started, by
	// session id (see HTTPHandler).
	pins map[string]pin
	// active is when each session last sent a request.
	active map[*sdk.ServerSession]time.Time
	// names of the registered tools, in registration order.
	names []string
	// hookLogMu keeps the notes of concurrent hook calls whole.
	hookLogMu sync.Mutex
	// stop ends when the server serving this handler starts to stop
	// (bb serve hands it with every request: wire.Stopping); nil until
	// then, and over stdio.
	stop context.Context
}

// noteStopping keeps the stop signal a request brought.
func (s *Server) noteStopping(stop context.Context) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stop == nil {
		s.stop = stop
	}
}

// stopping is the stop signal of the server serving this handler (never
// nil: one that never ends when none was given).
func (s *Server) stopping() context.Context {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stop == nil {
		return context.Background()
	}
	return s.stop
}

// New builds the MCP server over svc — the local *hub.Service or a remote
// client of bb serve — or over opts.Open when svc is nil.
// It returns an error for an unknown profile or an invalid fixed identity.
func New(svc Roles, opts Options) (*Server, error) {
	if opts.Tools == "" {
		opts.Tools = ProfileAll
	}
	if opts.Tools != ProfileAll && opts.Tools != ProfileCore {
		return nil, hub.FieldErr(hub.CodeInvalidInput, "tools", "unknown tool profile %q: expected core or all", opts.Tools)
	}
	if svc == nil && opts.Open == nil {
		return nil, errors.New("mcp.New: no service and no Open function")
	}
	if opts.Version == "" {
		opts.Version = "dev"
	}
	s := &Server{opts: opts, svc: svc, identified: map[*sdk.ServerSession]string{}, pins: map[string]pin{}, active: map[*sdk.ServerSession]time.Time{}}
	// A value made of spaces is an invalid identity, not "none".
	if opts.Agent != "" {
		if err := s.checkAgent(context.Background(), opts.Agent); err != nil {
			return nil, fmt.Errorf("--agent: %w", err)
		}
	}
	if opts.EnvAgent != "" {
		if err := s.checkAgent(context.Background(), opts.EnvAgent); err != nil {
			return nil, fmt.Errorf("BB_AGENT_ID: %w", err)
		}
	}
	s.sdk = sdk.NewServer(&sdk.Implementation{Name: "blackboard", Title: "Blackboard", Version: opts.Version}, &sdk.ServerOptions{
		Instructions: instructions,
		Capabilities: &sdk.ServerCapabilities{Tools: &sdk.ToolCapabilities{ListChanged: false}},
	})
	s.sdk.AddReceivingMiddleware(s.trackActivity, oneInitialize, plainNames, s.tellIdentity, hideHookTool)
	s.addBoardTools()
	s.addMailTools()
	s.addReservationTools()
	s.addWaitTools()
	s.addTaskTools()
	s.addMemoryTools()
	s.addSearchTools()
	s.addEventTools()
	s.addLeaseTools()
	s.addHookTool()
	return s, nil
}

// trackActivity records when each session last sent a request.
func (s *Server) trackActivity(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		if ss, ok := req.GetSession().(*sdk.ServerSession); ok {
			s.mu.Lock()
			s.active[ss] = time.Now()
			s.mu.Unlock()
		}
		return next(ctx, method, req)
	}
}

// tellIdentity ends the instructions of a session whose identity is known
// when it starts with that id, so the model never picks one.
func (s *Server) tellIdentity(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		res, err := next(ctx, method, req)
		var instr *string
		switch r := res.(type) {
		case *sdk.InitializeResult:
			instr = &r.Instructions
		case *sdk.DiscoverResult: // the protocol's newer handshake
			instr = &r.Instructions
		}
		if err != nil || instr == nil {
			return res, err
		}
		id := ""
		if ex := req.GetExtra(); ex != nil && ex.TokenInfo != nil {
			if p, ok := ex.TokenInfo.Extra[principalKey].(hub.Principal); ok && p.Role != hub.AccessOperator {
				id = p.Agent
			}
		}
		if id == "" {
			id, _ = s.identity(nil)
		}
		if id == "" {
			id = s.hookAgent(ctx)
		}
		if id != "" {
			*instr += fmt.Sprintf(" Your agent id is %s: it is fixed for this session; do not call bb_identify with another.", id)
		}
		return res, nil
	}
}

// oneInitialize refuses a second initialize on a session with the
// standard invalid-request code (the SDK answers it with code 0).
func oneInitialize(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		if method == "initialize" {
			if ss, ok := req.GetSession().(*sdk.ServerSession); ok && ss.InitializeParams() != nil {
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: "invalid request: the session is already initialized"}
			}
		}
		return next(ctx, method, req)
	}
}

// plainNames accepts the original Blackboard's unprefixed tool names
// (identify, set_status, …) in tools/call as aliases of the seed 003 names,
// so that clients configured for it keep working; tools/list shows the
// bb_ names only.
func plainNames(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		if r, ok := req.(*sdk.CallToolRequest); ok && method == "tools/call" && r.Params != nil {
			if seedTools[r.Params.Name] {
				r.Params.Name = "bb_" + r.Params.Name
			} else if cur, ok := renamedTools[r.Params.Name]; ok {
				r.Params.Name = cur
			}
		}
		return next(ctx, method, req)
	}
}

// renamedTools are earlier tool names, still accepted in tools/call.
var renamedTools = map[string]string{"bb_send": "bb_send_mail"}

var seedTools = map[string]bool{"identify": true, "set_status": true, "get_status": true, "post_message": true,
	"read_messages": true, "register_artifact": true, "list_artifacts": true, "find_refs": true, "summary": true}

const instructions = `Blackboard is the coordination hub shared by the agents working on this project. ` +
	`Your agent id is usually given to you (by your hooks, --agent, BB_AGENT_ID or the server's credential): never pick or change one. ` +
	`Call bb_identify only when a tool answers IDENTITY_REQUIRED, with the id your user gave you. Start with bb_summary to see who is doing what. ` +
	`Keep your status current with bb_set_status. The board is public: bb_post_message posts to everyone, bb_read_messages reads it. ` +
	`Mail is addressed: bb_send_mail mails one agent about a bead, bb_inbox lists your mail, bb_ack acknowledges it. ` +
	`Reserve files with bb_reserve before editing. Replies carry a notice line when something waits for you.`

// ToolNames lists the tools of a profile ("all" or "core").
func ToolNames(profile string) []string {
	s, err := New(nil, Options{Tools: profile, Open: func(context.Context) (Roles, error) {
		return nil, errors.New("no service")
	}})
	if err != nil {
		return nil
	}
	return slices.Clone(s.names)
}

// SDK returns the MCP server to run on a transport (stdio, streamable
// HTTP…). One server serves any number of sessions.
func (s *Server) SDK() *sdk.Server { return s.sdk }

// service returns the hub service, opening it on first success.
func (s *Server) service(ctx context.Context) (Roles, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.svc != nil {
		return s.svc, nil
	}
	svc, err := s.opts.Open(ctx)
	if err != nil {
		return nil, err
	}
	s.svc = svc
	return svc, nil
}

// checkAgent applies the board's identity rule to an acting agent id:
// one the board knows is accepted as stored (vybe creates ids longer than
// Blackboard's own limit); the board is opened only for such a long id.
func (s *Server) checkAgent(ctx context.Context, id string) error {
	if len(id) <= hub.MaxAgentIDLen {
		return hub.ValidateBoardAgentID(id)
	}
	svc, err := s.service(ctx)
	if err != nil {
		return err
	}
	_, err = svc.AgentID(ctx, hub.GrammarBoard, id)
	return err
}

// identity returns the caller's agent id ("" when unknown) and its source.
func (s *Server) identity(ss *sdk.ServerSession) (id, source string) {
	if s.opts.Agent != "" {
		return s.opts.Agent, "flag"
	}
	if s.opts.EnvAgent != "" {
		return s.opts.EnvAgent, "env"
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if ss != nil {
		if p, ok := s.pins[ss.ID()]; ok && ss.ID() != "" {
			return p.agent, "header"
		}
	}
	if id := s.identified[ss]; id != "" {
		return id, "identify"
	}
	return "", ""
}

// hookAgent is the agent of the hook session of the client session or
// process that started this server ("" when none or unknown).
func (s *Server) hookAgent(ctx context.Context) string {
	if !s.hasClient() {
		return ""
	}
	svc, err := s.service(ctx)
	if err != nil {
		return ""
	}
	return s.clientAgent(ctx, svc)
}

// hasClient reports whether this server knows the client that started it.
func (s *Server) hasClient() bool {
	return s.opts.ClientPID > 0 || (s.opts.Client != "" && s.opts.ClientSessionID != "")
}

// clientAgent is the agent of the client's hook session ("" when none).
func (s *Server) clientAgent(ctx context.Context, svc Roles) string {
	hs, err := svc.SessionOf(ctx, hooks.ClientRef{Client: s.opts.Client, SessionID: s.opts.ClientSessionID, PID: s.opts.ClientPID})
	if err != nil {
		return ""
	}
	return hs.AgentID
}

// agentFor is the caller's identity, else the agent of the hook session
// of the client that started this server ("" when none).
func (s *Server) agentFor(ctx context.Context, svc Roles, ss *sdk.ServerSession) string {
	if id, _ := s.identity(ss); id != "" || !s.hasClient() {
		return id
	}
	return s.clientAgent(ctx, svc)
}

// sessionAgent is a session's identity from a pin or bb_identify (s.mu held).
func (s *Server) sessionAgent(ss *sdk.ServerSession) string {
	if p, ok := s.pins[ss.ID()]; ok && ss.ID() != "" {
		return p.agent
	}
	return s.identified[ss]
}

// claimable refuses an agent id that another live session of this server
// holds (pinned or identified) and used within sessionIdle; a holder
// silent for longer is closed, and the id is free. self is the session
// asking ("" for a session still starting).
func (s *Server) claimable(agent string, self string) error {
	var stale []*sdk.ServerSession
	s.mu.Lock()
	now := time.Now()
	var err error
	for x := range s.sdk.Sessions() {
		if x.ID() == self && self != "" {
			continue
		}
		if s.sessionAgent(x) != agent {
			continue
		}
		if now.Sub(s.active[x]) < sessionIdle {
			err = fmt.Errorf("agent id %q is in use by another live MCP session: pick another id, or end that session (it is released after %s without requests)", agent, sessionIdle)
			break
		}
		stale = append(stale, x)
	}
	if err == nil {
		live := map[string]bool{}
		for x := range s.sdk.Sessions() {
			live[x.ID()] = true
		}
		for sid := range s.pins {
			if !live[sid] {
				delete(s.pins, sid)
			}
		}
		for _, x := range stale {
			delete(s.pins, x.ID())
			delete(s.identified, x)
			delete(s.active, x)
		}
	}
	s.mu.Unlock()
	if err != nil {
		return err
	}
	for _, x := range stale {
		_ = x.Close()
	}
	return nil
}

// identify applies seed 003 §7.1: a fixed identity cannot change, an
// environment identity may only be repeated, and an identity set by
// bb_identify is set once per session.
func (s *Server) identify(ctx context.Context, ss *sdk.ServerSession, id string) (string, error) {
	id = strings.TrimSpace(id)
	if err := s.checkAgent(ctx, id); err != nil {
		return "", err
	}
	if own := hub.Acting(ctx); own != "" {
		// The credential names who the session is.
		if err := hub.Allow(ctx, hub.Act(id)); err != nil {
			return "", err
		}
		return "credential", nil
	}
	if s.opts.Agent != "" {
		if id == s.opts.Agent {
			return "flag", nil
		}
		return "", hub.FieldErr(hub.CodeInvalidInput, "agent_id", "identity already fixed by --agent as %q: it cannot be changed", s.opts.Agent)
	}
	if s.opts.EnvAgent != "" {
		if id == s.opts.EnvAgent {
			return "env", nil
		}
		return "", hub.FieldErr(hub.CodeInvalidInput, "agent_id", "cannot change identity set by BB_AGENT_ID (%q)", s.opts.EnvAgent)
	}
	if cur, src := s.identity(ss); cur != "" {
		if cur == id {
			return src, nil
		}
		return "", hub.FieldErr(hub.CodeInvalidInput, "agent_id", "identity already set to %q for this session: it cannot be changed", cur)
	}
	if cur := s.hookAgent(ctx); cur != "" {
		// The client's hooks gave this session its identity.
		if cur == id {
			return "hook", nil
		}
		return "", hub.FieldErr(hub.CodeForbidden, "agent_id", "this session is %q (its identity comes from its hooks): it cannot become %q; keep working as %s", cur, id, cur)
	}
	if ss != nil && ss.ID() != "" {
		// Over HTTP, one live session per agent id.
		if err := s.claimable(id, ss.ID()); err != nil {
			return "", hub.FieldErr(hub.CodeInvalidInput, "agent_id", "%s", err.Error())
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	// Forget sessions that have ended (streamable HTTP serves many).
	if len(s.identified) > 0 {
		live := map[*sdk.ServerSession]bool{}
		for x := range s.sdk.Sessions() {
			live[x] = true
		}
		for x := range s.identified {
			if !live[x] {
				delete(s.identified, x)
			}
		}
		for x := range s.active {
			if !live[x] {
				delete(s.active, x)
			}
		}
	}
	s.identified[ss] = id
	if !s.opts.Where.IsZero() && s.svc != nil {
		_ = s.svc.ReportWhere(ctx, id, s.opts.Where) // informative: never fails the identification
	}
	return "identify", nil
}

// call is what a tool handler gets besides its arguments.
type call struct {
	svc     Roles
	agent   string // "" when the caller is not identified
	session *sdk.ServerSession
	// checkedIn is set by a tool that checked the caller in inside its
	// own transaction (with the notices it got), so the call does not
	// run a second one.
	checkedIn bool
	notices   *hub.Notices
	// live is the request's own context, which ends when the client
	// cancels the call; the handlers' context does not (a write runs to
	// completion), so a tool that blocks (bb_wait) watches this one.
	live context.Context
	// progressToken is the call's _meta.progressToken (nil: none asked).
	progressToken any
}

// tool describes one tool.
type tool struct {
	name string
	// desc is one line telling an agent when to use the tool.
	desc string
	// needsID makes the tool fail with IDENTITY_REQUIRED until the caller
	// is identified.
	needsID bool
	// touchFirst checks the caller in before the call (tools of the agent
	// protocol need the agent to exist); others check in after it, so that
	// the notices reflect what the call did (e.g. messages just read).
	touchFirst bool
	// core tools are part of the "core" profile.
	core bool
	// Annotations, for clients deciding what to ask approval for:
	// readOnly changes nothing (the caller's last_seen aside); destructive
	// may overwrite or remove what others rely on; idempotent: repeating
	// the call with the same arguments changes nothing more. No tool
	// reaches outside the board (openWorldHint false).
	readOnly, destructive, idempotent bool
}

var schemaOpts = &jsonschema.ForOptions{TypeSchemas: map[reflect.Type]*jsonschema.Schema{
	reflect.TypeFor[hub.RefID]():       {Types: []string{"integer", "string"}},
	reflect.TypeFor[json.RawMessage](): {},
}}

// addTool registers a typed tool. Input and output schemas are generated
// from In and Out; arguments are validated against the input schema before
// the handler runs. Errors become MCP tool errors (isError) whose text
// starts with the stable code and whose structured content is
// {"error":{code,message,field}}.
func addTool[In, Out any](s *Server, t tool, h func(ctx context.Context, c *call, in In) (Out, error)) {
	if s.opts.Tools == ProfileCore && !t.core {
		return
	}
	in, out, resolved := toolSchemas[In, Out](t.name)
	s.names = append(s.names, t.name)
	def := &sdk.Tool{Name: t.name, Description: t.desc, InputSchema: in, OutputSchema: out,
		Annotations: &sdk.ToolAnnotations{ReadOnlyHint: t.readOnly, DestructiveHint: &t.destructive,
			IdempotentHint: t.idempotent || t.readOnly, OpenWorldHint: new(bool)}}
	s.sdk.AddTool(def, func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		return runTool(ctx, s, t, resolved, h, req)
	})
}

// toolSchemas are a tool's input and output schemas, generated from In and
// Out, and the input schema its arguments are checked against, resolved.
// A type no schema can describe is a programming error: it panics.
func toolSchemas[In, Out any](name string) (in, out *jsonschema.Schema, resolved *jsonschema.Resolved) {
	in, err := jsonschema.For[In](schemaOpts)
	if err != nil {
		panic(fmt.Sprintf("mcp: input schema of %s: %v", name, err))
	}
	out, err = jsonschema.For[Out](schemaOpts)
	if err != nil {
		panic(fmt.Sprintf("mcp: output schema of %s: %v", name, err))
	}
	// An error result carries {"error":{…}} as structured content; some
	// clients validate it against the output schema even when isError is
	// set, so the schema admits it: no required keys at the root, and an
	// "error" property.
	compactOut(out, 0)
	if out.Properties == nil {
		out.Properties = map[string]*jsonschema.Schema{}
	}
	out.Properties["error"] = &jsonschema.Schema{Type: "object"}
	shapeInput(name, in, false)
	check, err := jsonschema.For[In](schemaOpts)
	if err != nil {
		panic(fmt.Sprintf("mcp: input schema of %s: %v", name, err))
	}
	shapeInput(name, check, true)
	resolved, err = check.Resolve(nil)
	if err != nil {
		panic(fmt.Sprintf("mcp: input schema of %s: %v", name, err))
	}
	return in, out, resolved
}

// runTool answers one call of tool t: it finds the caller, checks and
// decodes the arguments, runs h to completion and checks the caller in
// (before the call for t.touchFirst, else inside the tool's own write).
func runTool[In, Out any](ctx context.Context, s *Server, t tool, resolved *jsonschema.Resolved, h func(ctx context.Context, c *call, in In) (Out, error), req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
	svc, err := s.service(ctx)
	if err != nil {
		return errorResult(t.name, err, nil), nil
	}
	ctx, agent := s.callAgent(ctx, svc, req)
	if t.needsID && agent == "" {
		return errorResult(t.name, errIdentityRequired(), nil), nil
	}
	var args In
	if err := decodeArgs(t.name, req.Params.Arguments, resolved, &args); err != nil {
		return errorResult(t.name, err, nil), nil
	}
	// A tool call runs to completion once started: the client going
	// away or a shutdown must not cut a transaction in half.
	live := ctx
	ctx = context.WithoutCancel(ctx)
	var notices *hub.Notices
	if t.touchFirst && agent != "" {
		notices = checkInNotices(ctx, svc, agent)
	}
	c := &call{svc: svc, agent: agent, session: req.Session, live: live}
	if req.Params != nil {
		c.progressToken = req.Params.GetProgressToken()
	}
	// A tool that writes checks its caller in inside its own write
	// transaction, as a CLI command does (hub.WithCheckIn): one
	// transaction, not two.
	var slot *hub.CheckInSlot
	if !t.touchFirst && agent != "" {
		ctx, slot = hub.WithCheckIn(ctx, func() string { return agent })
	}
	res, herr := h(ctx, c, args)
	if c.checkedIn {
		notices = c.notices
	} else if !t.touchFirst {
		notices = s.afterCallNotices(ctx, svc, req, slot)
	}
	if herr != nil {
		return errorResult(t.name, herr, notices), nil
	}
	return okResult(t.name, res, notices)
}

// callAgent is the agent a call acts as: the session's, or, for a call
// with a credential, the credential's agent; the credential goes into the
// context, so the core checks everything the call does against it.
func (s *Server) callAgent(ctx context.Context, svc Roles, req *sdk.CallToolRequest) (context.Context, string) {
	agent := s.agentFor(ctx, svc, req.Session)
	if p, ok := principalOf(req); ok {
		// Everything the call does is checked against its credential
		// by the core; an agent's credential is its identity.
		ctx = hub.WithPrincipal(ctx, p)
		if own := hub.Acting(ctx); own != "" {
			agent = own
		}
	}
	return ctx, agent
}

// afterCallNotices are the notices of a tool that writes, for the agent
// it acted as (the one it names, else the session's): those of the
// check-in made inside its write (slot), or of a check-in now when it made
// none; nil without an agent.
func (s *Server) afterCallNotices(ctx context.Context, svc Roles, req *sdk.CallToolRequest, slot *hub.CheckInSlot) *hub.Notices {
	agent := hub.Acting(ctx)
	if agent == "" {
		agent = s.agentFor(ctx, svc, req.Session)
	}
	if agent == "" {
		return nil
	}
	if n, ok := slot.NoticesFor(agent); ok {
		return &n
	}
	return checkInNotices(ctx, svc, agent)
}

// checkInNotices checks agent in and returns its notices (nil when the
// check-in fails).
func checkInNotices(ctx context.Context, svc Roles, agent string) *hub.Notices {
	if n, err := svc.CheckIn(ctx, agent); err == nil {
		return &n
	}
	return nil
}

// compactOut trims a generated output schema to keep tools/list small: it
// keeps the type of every top-level field and of the fields of a returned
// object, but not the fields of listed objects (a list is "array of
// object"; the objects are those of bb --json). It drops what only a
// validator needs (required lists, closed objects) so that replies may
// gain fields without breaking strict clients.
func compactOut(s *jsonschema.Schema, depth int) {
	if s == nil {
		return
	}
	s.Title, s.PropertyOrder, s.Description = "", nil, ""
	s.Required, s.AdditionalProperties = nil, nil
	if depth >= 2 {
		s.Properties, s.Items = nil, nil
		return
	}
	for _, p := range s.Properties {
		compactOut(p, depth+1)
	}
	compactOut(s.Items, depth+1)
}

// decodeArgs validates raw arguments against the tool's input schema and
// decodes them into v.
func decodeArgs(tool string, raw json.RawMessage, resolved *jsonschema.Resolved, v any) error {
	m := map[string]any{}
	if len(raw) > 0 && string(raw) != "null" {
		if err := json.Unmarshal(raw, &m); err != nil {
			return hub.Errorf(hub.CodeInvalidInput, "invalid arguments: expected a JSON object of named arguments")
		}
	}
	// A null argument means "not given" (some clients send null for every
	// optional parameter).
	for k, v := range m {
		if v == nil {
			delete(m, k)
		}
	}
	renameAliases(tool, m)
	var generic any = m
	if err := resolved.Validate(&generic); err != nil {
		return schemaErr(err)
	}
	b, _ := json.Marshal(m)
	if err := json.Unmarshal(b, v); err != nil {
		return argErr(err)
	}
	return nil
}

// argErr words a decoding failure of arguments that passed the schema (a
// number too large for its parameter) in the tool's terms: the parameter
// and the value, never the decoder's text (Go type and struct names).
func argErr(err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" {
		param := te.Field
		if i := strings.LastIndexByte(param, '.'); i >= 0 {
			param = param[i+1:]
		}
		return hub.FieldErr(hub.CodeInvalidInput, param, "invalid argument %s: %s is out of range", param, te.Value)
	}
	return hub.Errorf(hub.CodeInvalidInput, "invalid arguments: they do not match the tool's input schema")
}

var propertyRe = regexp.MustCompile(`/properties/([A-Za-z0-9_]+)(?:/items/\d+)?: (.*)$`)

// schemaErr turns a schema validation error into INVALID_INPUT naming the
// parameter: "progress: type: "40" has type "string", want "integer"".
func schemaErr(err error) error {
	msg := oneLine(err.Error())
	if m := propertyRe.FindStringSubmatch(msg); m != nil {
		return hub.FieldErr(hub.CodeInvalidInput, m[1], "invalid argument %s: %s", m[1], m[2])
	}
	msg = strings.TrimPrefix(msg, "validating root: ")
	if m := regexp.MustCompile(`unexpected additional properties \["?([A-Za-z0-9_]+)`).FindStringSubmatch(msg); m != nil {
		return hub.FieldErr(hub.CodeInvalidInput, m[1], "unknown argument %q: %s", m[1], msg)
	}
	if m := regexp.MustCompile(`missing properties: \["?([A-Za-z0-9_]+)`).FindStringSubmatch(msg); m != nil {
		return hub.FieldErr(hub.CodeInvalidInput, m[1], "missing argument %s (%s)", m[1], msg)
	}
	return hub.Errorf(hub.CodeInvalidInput, "invalid arguments: %s", msg)
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func errIdentityRequired() error {
	return hub.Errorf(hub.CodeIdentityRequired, "call bb_identify with your agent id first (or start bb mcp with --agent <id> or BB_AGENT_ID)")
}

// ErrorBody is the structured content of an error result.
type ErrorBody struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Field   string `json:"field,omitempty"`
}

func errorResult(tool string, err error, n *hub.Notices) *sdk.CallToolResult {
	code, msg := hub.CodeOf(err), hub.WordsOf(err, hub.Vocabulary{Field: func(f string) string { return paramOf(tool, f) }, Action: mcpAction})
	msg = termtext.Line(msg) // the model reads it: stored text echoed in it is escaped
	var field string
	var he *hub.Error
	if errors.As(err, &he) {
		field = paramOf(tool, he.Field)
	}
	r := &sdk.CallToolResult{
		IsError:           true,
		Content:           []sdk.Content{&sdk.TextContent{Text: string(code) + ": " + msg}},
		StructuredContent: map[string]ErrorBody{"error": {Code: string(code), Message: msg, Field: field}},
	}
	attachNotices(r, n)
	return r
}

func okResult(tool string, v any, n *hub.Notices) (*sdk.CallToolResult, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return errorResult(tool, hub.Internal("encode reply", err), n), nil
	}
	// The same JSON with DEL, C1 and bidi characters as \u escapes: the
	// model reads this text.
	b = termtext.JSON(b)
	r := &sdk.CallToolResult{
		Content:           []sdk.Content{&sdk.TextContent{Text: string(b)}},
		StructuredContent: json.RawMessage(b),
	}
	attachNotices(r, n)
	return r, nil
}

// mcpNotices names the tool that clears each kind of notice.
var mcpNotices = hub.NoticeCommands{
	Addressed:  "bb_inbox mark_read",
	Board:      "bb_read_messages",
	Acks:       "bb_ack",
	Incursions: "bb_events",
}

// attachNotices puts the caller's notices in _meta (for programs) and, when
// they changed since the agent was last told on any surface, in a short
// text line (for the model).
func attachNotices(r *sdk.CallToolResult, n *hub.Notices) {
	if n == nil {
		return
	}
	r.Meta = sdk.Meta{"bb/notices": n}
	if !n.Changed {
		return
	}
	if t := n.Text(mcpNotices); t != "" {
		r.Content = append(r.Content, &sdk.TextContent{Text: "notice: " + t})
	}
}

// mcpAction words a core error's action for a model calling the tools.
func mcpAction(a hub.Action) string {
	switch a.Do {
	case hub.ActIdentify:
		return "call bb_identify with your agent id"
	case hub.ActHandOff:
		return fmt.Sprintf("bb_send_mail to %s with category HANDOFF", a.Args["agent"])
	case hub.ActWaitFor:
		if sc := a.Args["scope"]; sc != "" {
			return fmt.Sprintf("call bb_wait with for scope:%s", sc)
		}
		return fmt.Sprintf("call bb_wait with for reply:%s", a.Args["message"])
	}
	return ""
}
