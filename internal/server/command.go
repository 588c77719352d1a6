package server

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"

	"github.com/blackboard-hub/bb/internal/hub"
)

// CommandRunner runs one bb command line (without the program name) with
// --json on the server's board, acting as agent, and returns what it
// printed on stdout: the bb --json envelope.
type CommandRunner func(ctx context.Context, agent string, args []string) []byte

type commandBody struct {
	Args []string `json:"args"`
}

// command serves POST /api/v1/command: {"args": ["agent", "send", …]} runs
// that bb command on the server's board and replies with exactly what
// `bb --json <args>` prints — every capability of the hub with the CLI's
// names, flags, shapes and codes. The acting agent is X-BB-Agent (or
// ?as=), like --as; an Idempotency-Key header is its --request-id.
func (s *Server) command(w http.ResponseWriter, r *http.Request) {
	if s.cfg.Commands == nil {
		writeError(w, "", hub.Errorf(hub.CodeNotFound, "commands are not enabled on this server"), http.StatusNotFound)
		return
	}
	var b commandBody
	if err := decodeBody(w, r, &b); err != nil {
		writeError(w, "", err, statusFor(err))
		return
	}
	if name, err := s.checkCommandArgs(b.Args); err != nil {
		writeError(w, name, err, 0)
		return
	}
	if err := s.checkRepository(r); err != nil {
		writeRPCError(w, b.Args[0], err) // 409, as on RPC
		return
	}
	agent := strings.TrimSpace(r.Header.Get(AgentHeader))
	if agent == "" {
		agent = r.URL.Query().Get("as")
	}
	if agent == "" {
		agent = hub.Acting(r.Context())
	}
	if err := hub.Allow(r.Context(), hub.Act(agent)); err != nil {
		writeError(w, b.Args[0], err, 0)
		return
	}
	if agent != "" {
		if _, err := s.svc.AgentID(r.Context(), hub.GrammarBoard, agent); err != nil {
			writeError(w, b.Args[0], err, 0)
			return
		}
	}
	args, err := withRequestID(b.Args, r.Header.Get(RequestIDHeader))
	if err != nil {
		writeError(w, b.Args[0], err, 0)
		return
	}
	out := s.cfg.Commands(r.Context(), agent, args)
	status := http.StatusOK
	var env struct {
		OK    bool `json:"ok"`
		Error *struct {
			Code string `json:"code"`
		} `json:"error"`
	}
	if json.Unmarshal(out, &env) == nil && !env.OK && env.Error != nil {
		status = StatusOf(hub.Code(env.Error.Code))
		if ra := retryAfter(hub.Code(env.Error.Code)); ra != "" {
			w.Header().Set("Retry-After", ra)
		}
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(out)
}

// checkCommandArgs refuses a command line the server does not run: one
// that names no served command, follows a stream, or moves the board; it
// returns the command's name for the error envelope.
func (s *Server) checkCommandArgs(args []string) (string, error) {
	if len(args) == 0 || !slices.Contains(s.cfg.CommandNames, args[0]) {
		name := ""
		if len(args) > 0 {
			name = args[0]
		}
		return name, hub.FieldErr(hub.CodeInvalidInput, "args",
			"args must start with one of: %s (got %q)", strings.Join(s.cfg.CommandNames, ", "), name)
	}
	for _, a := range args {
		switch {
		case a == "--follow" || a == "-f" || strings.HasPrefix(a, "--follow="):
			return args[0], hub.FieldErr(hub.CodeInvalidInput, "args", "--follow does not run over HTTP: use GET /api/v1/events/stream")
		case a == "--dir" || strings.HasPrefix(a, "--dir=") || a == "--database-url" || strings.HasPrefix(a, "--database-url="):
			return args[0], hub.FieldErr(hub.CodeInvalidInput, "args", "%s is fixed by the server", strings.SplitN(a, "=", 2)[0])
		}
	}
	return args[0], nil
}

// withRequestID makes the Idempotency-Key header rid the command's
// --request-id: the mutation is idempotent exactly like bb --request-id
// (a retry replays the stored reply). args naming another id are refused.
func withRequestID(args []string, rid string) ([]string, error) {
	if rid == "" {
		return args, nil
	}
	if err := hub.ValidateRequestID(rid); err != nil {
		return nil, err
	}
	for i, a := range args {
		if a == "--request-id" || strings.HasPrefix(a, "--request-id=") {
			given := strings.TrimPrefix(a, "--request-id=")
			if a == "--request-id" && i+1 < len(args) {
				given = args[i+1]
			}
			if given != rid {
				return nil, hub.FieldErr(hub.CodeInvalidInput, "args", "args give --request-id %q but the %s header is %q: give one", given, RequestIDHeader, rid)
			}
		}
	}
	return append([]string{"--request-id", rid}, args...), nil
}
