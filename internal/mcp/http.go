package mcp

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/hub/leases"
	"github.com/blackboard-hub/bb/internal/server/wire"
)

// AgentHeader pins a streamable HTTP session's identity when it starts (on
// the initialize request); the query parameter agent does the same for
// clients that cannot set headers.
const AgentHeader = wire.AgentHeader

// HTTPOptions configure HTTPHandler.
type HTTPOptions struct {
	// SessionTimeout closes sessions idle that long (0 = never).
	SessionTimeout time.Duration
	Logger         *slog.Logger
}

// sessionIdle is how long a session may stay silent and still hold its
// identity against a new session claiming the same agent id.
const sessionIdle = 5 * time.Minute

// pin is an identity fixed when a session started.
type pin struct {
	agent string
	token [32]byte // hash of the bearer token the session started with
}

// HTTPHandler serves MCP over streamable HTTP (the SDK's handler) with the
// protocol rules of stdio:
//
//   - a body that is not JSON gets 400 with a -32700 reply, a message that
//     is not a valid request 400 with -32600, a body over 4 MiB 413;
//   - a POST without Mcp-Session-Id that is not initialize gets 400 (the
//     SDK would start a session and answer code 0);
//   - ids are echoed exactly (1.5, 12345678901234567890);
//   - the initialize request may pin the session's identity with the
//     X-BB-Agent header or ?agent=; a second live session claiming the same
//     agent id is refused with 409 (one silent for 5 minutes is closed and
//     replaced); later requests must carry the same bearer token.
func (s *Server) HTTPHandler(o HTTPOptions) http.Handler {
	logger := o.Logger
	if logger == nil {
		logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	next := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s.sdk },
		&sdk.StreamableHTTPOptions{SessionTimeout: o.SessionTimeout, MaxRequestBodyBytes: MaxMessageBytes, Logger: logger})
	return credentialed(&httpFront{s: s, next: next})
}

// principalKey is where a session's credential travels, in the SDK's
// token info, from the HTTP request to the tool calls.
const principalKey = "bb.principal"

// credentialed hands the credential of a request (bb serve's guard put
// its hub.Principal in the request's context) to the SDK, which gives it
// to every tool call of the session (and refuses a session's requests
// made with another credential). A credential must come as a bearer
// header: MCP requests carrying it only in a cookie are refused.
func credentialed(next http.Handler) http.Handler {
	withToken := auth.RequireBearerToken(func(ctx context.Context, _ string, r *http.Request) (*auth.TokenInfo, error) {
		p, _ := hub.PrincipalFrom(r.Context())
		return &auth.TokenInfo{UserID: p.Credential + "/" + p.ID, Extra: map[string]any{principalKey: p}}, nil
	}, &auth.RequireBearerTokenOptions{AllowMissingExpiration: true})(next)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, ok := hub.PrincipalFrom(r.Context()); ok {
			withToken.ServeHTTP(w, r)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// principalOf is the credential a tool call was made with.
func principalOf(req *sdk.CallToolRequest) (hub.Principal, bool) {
	if req == nil || req.Extra == nil || req.Extra.TokenInfo == nil {
		return hub.Principal{}, false
	}
	p, ok := req.Extra.TokenInfo.Extra[principalKey].(hub.Principal)
	return p, ok
}

type httpFront struct {
	s      *Server
	next   http.Handler
	marker atomic.Int64
}

func (h *httpFront) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if stop := wire.Stopping(r.Context()); stop != nil {
		h.s.noteStopping(stop)
	}
	sid := r.Header.Get("Mcp-Session-Id")
	if sid != "" {
		if err := h.s.checkPin(sid, r); err != nil {
			writeRPCError(w, http.StatusForbidden, nil, codeInvalidRequest, err.Error())
			return
		}
	}
	if r.Method != http.MethodPost {
		h.next.ServeHTTP(w, r)
		if r.Method == http.MethodDelete && sid != "" {
			h.s.unpin(sid)
		}
		return
	}
	body, ok := readBody(w, r)
	if !ok {
		return
	}
	var rewrites map[string]json.RawMessage // marker → id as sent
	isInit := false
	if body[0] == '{' {
		if body, rewrites, isInit, ok = h.single(w, body, sid); !ok {
			return
		}
	} else if sid == "" {
		writeRPCError(w, http.StatusBadRequest, nil, codeInvalidRequest, "invalid request: a batch needs an initialized session (Mcp-Session-Id)")
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.ContentLength = int64(len(body))
	var rw http.ResponseWriter = w
	if rewrites != nil {
		rw = &idWriter{ResponseWriter: w, rewrites: rewrites}
	}
	if isInit && sid == "" {
		if rw, ok = h.pinNew(w, r, rw); !ok {
			return
		}
	}
	h.next.ServeHTTP(rw, r)
}

// readBody reads a POST's body, at most MaxMessageBytes, without a
// byte-order mark or surrounding space; ok is false when it is not valid
// JSON, once the error is answered.
func readBody(w http.ResponseWriter, r *http.Request) (body []byte, ok bool) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxMessageBytes))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			writeRPCError(w, http.StatusRequestEntityTooLarge, nil, codeInvalidRequest, fmt.Sprintf("message too large: the limit is %d bytes", MaxMessageBytes))
			return nil, false
		}
		writeRPCError(w, http.StatusBadRequest, nil, codeParseError, "parse error: cannot read the body")
		return nil, false
	}
	body = bytes.TrimSpace(bytes.TrimPrefix(body, []byte("\xef\xbb\xbf")))
	if !json.Valid(body) {
		writeRPCError(w, http.StatusBadRequest, nil, codeParseError, "parse error: the body is not valid JSON")
		return nil, false
	}
	return body, true
}

// single checks one JSON-RPC message (not a batch): its shape, a session
// unless it is initialize, and a call's wait, which lifts the write
// deadline. An id the SDK would not give back exactly is replaced by a
// marker, rewrites mapping it back in the reply. ok is false once an
// error is answered.
func (h *httpFront) single(w http.ResponseWriter, body []byte, sid string) (_ []byte, rewrites map[string]json.RawMessage, isInit, ok bool) {
	m, reply := inspect(body)
	if reply != nil {
		writeRaw(w, http.StatusBadRequest, reply)
		return nil, nil, false, false
	}
	isInit = m.method == "initialize"
	if d := callWait(m); d > 0 {
		liftDeadlines(w, d)
	}
	if sid == "" && !isInit {
		writeRPCError(w, http.StatusBadRequest, m.id, codeInvalidRequest,
			"invalid request: no Mcp-Session-Id header: start a session with initialize, then send its Mcp-Session-Id with every request")
		return nil, nil, false, false
	}
	if m.id != nil && !exactID(m.id) {
		marker := fmt.Sprintf("bb-id-%d-%d", time.Now().UnixNano(), h.marker.Add(1))
		var err error
		if body, err = replaceID(body, marker); err != nil {
			writeRPCError(w, http.StatusBadRequest, m.id, codeInvalidRequest, "invalid request: "+err.Error())
			return nil, nil, false, false
		}
		q, _ := json.Marshal(marker)
		rewrites = map[string]json.RawMessage{string(q): m.id}
	}
	return body, rewrites, isInit, true
}

// pinNew, for an initialize that asks for an identity (header or query),
// checks the agent may be claimed and wraps rw so the new session is
// pinned to it and to the request's token. ok is false once a refusal is
// answered.
func (h *httpFront) pinNew(w http.ResponseWriter, r *http.Request, rw http.ResponseWriter) (_ http.ResponseWriter, ok bool) {
	agent, given := requestedAgent(r)
	if !given {
		return rw, true
	}
	if err := hub.Allow(r.Context(), hub.Act(agent)); err != nil {
		writeRPCError(w, http.StatusForbidden, nil, codeInvalidRequest, fmt.Sprintf("%s: %s: %s", AgentHeader, hub.CodeOf(err), hub.MessageOf(err)))
		return nil, false
	}
	if err := h.s.checkAgent(r.Context(), agent); err != nil {
		writeRPCError(w, http.StatusBadRequest, nil, codeInvalidRequest, fmt.Sprintf("%s: %s: %s", AgentHeader, hub.CodeOf(err), hub.MessageOf(err)))
		return nil, false
	}
	if err := h.s.claimable(agent, ""); err != nil {
		writeRPCError(w, http.StatusConflict, nil, codeInvalidRequest, err.Error())
		return nil, false
	}
	return &pinWriter{ResponseWriter: rw, s: h.s, pin: pin{agent: agent, token: tokenHash(r)}}, true
}

// requestedAgent is the identity asked for by the header or the query.
func requestedAgent(r *http.Request) (string, bool) {
	if v, ok := r.Header[http.CanonicalHeaderKey(AgentHeader)]; ok && len(v) > 0 {
		return v[0], true
	}
	if r.URL.Query().Has("agent") {
		return r.URL.Query().Get("agent"), true
	}
	return "", false
}

func tokenHash(r *http.Request) [32]byte {
	tok, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	return sha256.Sum256([]byte(strings.TrimSpace(tok)))
}

// checkPin refuses a request of a pinned session that presents another
// bearer token or claims another identity.
func (s *Server) checkPin(sid string, r *http.Request) error {
	s.mu.Lock()
	p, ok := s.pins[sid]
	s.mu.Unlock()
	if !ok {
		return nil
	}
	if tokenHash(r) != p.token {
		return errors.New("this session was started with another token")
	}
	if a, given := requestedAgent(r); given && a != p.agent {
		return fmt.Errorf("this session's identity is %q: it cannot change", p.agent)
	}
	return nil
}

func (s *Server) unpin(sid string) {
	s.mu.Lock()
	delete(s.pins, sid)
	s.mu.Unlock()
}

// pinWriter records the pin once the SDK has named the new session.
type pinWriter struct {
	http.ResponseWriter
	s    *Server
	pin  pin
	done bool
}

func (p *pinWriter) WriteHeader(code int) {
	if !p.done {
		p.done = true
		if sid := p.Header().Get("Mcp-Session-Id"); sid != "" && code < 300 {
			p.s.mu.Lock()
			p.s.pins[sid] = p.pin
			p.s.mu.Unlock()
		}
	}
	p.ResponseWriter.WriteHeader(code)
}

func (p *pinWriter) Write(b []byte) (int, error) {
	if !p.done {
		p.WriteHeader(http.StatusOK)
	}
	return p.ResponseWriter.Write(b)
}

func (p *pinWriter) Flush() {
	if f, ok := p.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// idWriter puts back the ids the SDK could not represent: it replaces the
// marker the request carried instead (an SSE event or a JSON body is
// written in one piece).
type idWriter struct {
	http.ResponseWriter
	rewrites map[string]json.RawMessage
}

func (w *idWriter) Write(b []byte) (int, error) {
	out := b
	for marker, id := range w.rewrites {
		out = bytes.ReplaceAll(out, []byte(`"id":`+marker), append([]byte(`"id":`), id...))
	}
	if _, err := w.ResponseWriter.Write(out); err != nil {
		return 0, err
	}
	return len(b), nil
}

func (w *idWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

var intID = regexp.MustCompile(`^-?(0|[1-9][0-9]*)$`)

// exactID reports whether the SDK echoes an id as sent: a string, or an
// integer in int64 range without fraction or exponent.
func exactID(id json.RawMessage) bool {
	if id[0] == '"' {
		return true
	}
	if !intID.Match(id) {
		return false
	}
	_, err := strconv.ParseInt(string(id), 10, 64)
	return err == nil
}

// replaceID sets a message's id to the string marker.
func replaceID(body []byte, marker string) ([]byte, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(body, &m); err != nil {
		return nil, err
	}
	q, _ := json.Marshal(marker)
	m["id"] = q
	return json.Marshal(m)
}

func writeRPCError(w http.ResponseWriter, status int, id json.RawMessage, code int, msg string) {
	writeRaw(w, status, errorReply(id, code, msg))
}

func writeRaw(w http.ResponseWriter, status int, b []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(append(b, '\n'))
}

// waitSlack is how much longer than its wait a waiting tool call's
// response may take to be written.
const waitSlack = 15 * time.Second

// callWait is how long a tool call may block on the board (0: it does
// not): bb_lease_acquire with a wait, bb_wait for its timeout_s. Only a
// well-formed call counts; the tool refuses any other.
func callWait(m inMsg) time.Duration {
	if m.method != "tools/call" || len(m.params) == 0 {
		return 0
	}
	var p struct {
		Name      string `json:"name"`
		Arguments struct {
			Wait     string `json:"wait"`
			TimeoutS *int   `json:"timeout_s"`
		} `json:"arguments"`
	}
	if json.Unmarshal(m.params, &p) != nil {
		return 0
	}
	switch p.Name {
	case "bb_lease_acquire":
		if p.Arguments.Wait == "" {
			return 0
		}
		d, err := hub.ParseDuration(p.Arguments.Wait)
		if err != nil || d <= 0 {
			return 0
		}
		return min(d, leases.MaxWait)
	case "bb_wait":
		secs := waitDefaultS
		if p.Arguments.TimeoutS != nil {
			secs = *p.Arguments.TimeoutS
		}
		if secs < 1 {
			return 0
		}
		return time.Duration(min(secs, waitCapS)) * time.Second
	}
	return 0
}

// liftDeadlines gives a tool call that waits d on the board (its reply
// and progress notifications come on this request's response) a write
// deadline of d plus waitSlack instead of the server's write timeout, and
// no read deadline: the server's read timeout passing would end the
// request, and with it the reply, before the wait ends (bb serve: 15 s
// to read, 30 s to write).
func liftDeadlines(w http.ResponseWriter, d time.Duration) {
	rc := http.NewResponseController(w)
	_ = rc.SetWriteDeadline(time.Now().Add(d + waitSlack))
	_ = rc.SetReadDeadline(time.Time{})
}
