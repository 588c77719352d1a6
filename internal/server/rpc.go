package server

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"reflect"
	"time"

	"github.com/blackboard-hub/bb/internal/app"
	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/server/wire"
	"github.com/blackboard-hub/bb/internal/view"
)

// The RPC surface is what BB_SERVER clients (internal/server/remote) call:
// POST /api/v1/rpc/<Method> with a JSON array of the method's arguments
// (without the context) runs that method of app.API on the server's
// service and replies {"ok":true,"command":"<Method>","data":[results…]}
// (results without the error), or the error envelope with its code. Only
// the methods listed as served in rpc_allow.go are callable, each after
// the check of the least role it names. It is the same
// core, the same rules and the same transactions as a local call; the
// stable public surface for scripts remains the REST endpoints above.

// Headers of an RPC call.
const (
	// RPCAgentHeader names the agent an idempotent call is made for.
	RPCAgentHeader = wire.IdempotencyAgentHeader
	// RPCCommandHeader names the command of an idempotent call.
	RPCCommandHeader = wire.IdempotencyCommandHeader
)

var (
	ctxType = reflect.TypeOf((*context.Context)(nil)).Elem()
	errType = reflect.TypeOf((*error)(nil)).Elem()
)

// rpcMethod is one method served over RPC, with the least role that may
// call it (rpc_allow.go).
type rpcMethod struct {
	reflect.Method
	need hub.Access
}

// rpcMethods returns the methods of app.API served over RPC, by name:
// those remotable and listed as served by rpcRules. A remotable method
// with no entry is not served (and fails TestRPCAllowListCoversEveryMethod).
func rpcMethods() map[string]rpcMethod {
	rules := rpcRules()
	t := reflect.TypeOf((*app.API)(nil)).Elem()
	out := map[string]rpcMethod{}
	for i := 0; i < t.NumMethod(); i++ {
		m := t.Method(i)
		r, ok := rules[m.Name]
		if remotable(m.Type) && ok && r.Need != "" {
			out[m.Name] = rpcMethod{Method: m, need: r.Need}
		}
	}
	return out
}

// remotable is the rule of the remote client's generator: the first
// parameter is a context, no parameter is a func or a channel, and the last
// result is an error.
func remotable(t reflect.Type) bool {
	if t.NumIn() == 0 || t.In(0) != ctxType || t.NumOut() == 0 || t.Out(t.NumOut()-1) != errType {
		return false
	}
	for i := 1; i < t.NumIn(); i++ {
		if k := t.In(i).Kind(); k == reflect.Func || k == reflect.Chan {
			return false
		}
	}
	return true
}

func (s *Server) rpc(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("method")
	m, ok := s.rpcs[name]
	if !ok {
		writeError(w, name, hub.Errorf(hub.CodeNotFound, "no RPC method %q", name), http.StatusNotFound)
		return
	}
	if err := hub.Allow(r.Context(), hub.Needs(m.need, name+" over RPC")); err != nil {
		writeRPCError(w, name, err)
		return
	}
	if err := s.checkRepository(r); err != nil {
		writeRPCError(w, name, err) // 409, with the actions the client words
		return
	}
	var raw []json.RawMessage
	if err := decodeBody(w, r, &raw); err != nil {
		writeError(w, name, err, statusFor(err))
		return
	}
	nargs := m.Type.NumIn() - 1
	if len(raw) > nargs {
		writeError(w, name, hub.Errorf(hub.CodeInvalidInput, "%s takes %d arguments, got %d", name, nargs, len(raw)), 0)
		return
	}
	ctx := r.Context()
	if rid := r.Header.Get(RequestIDHeader); rid != "" {
		// A stored reply is its agent's: a credential replays only its own.
		agent := r.Header.Get(RPCAgentHeader)
		if err := hub.Allow(ctx, hub.Act(agent)); err != nil {
			writeRPCError(w, name, err)
			return
		}
		ctx = hub.WithIdempotency(ctx, hub.IdemKey{Agent: agent, RequestID: rid, Command: r.Header.Get(RPCCommandHeader)})
	}
	args := []reflect.Value{reflect.ValueOf(ctx)}
	for i, b := range raw {
		p := reflect.New(m.Type.In(i + 1))
		if err := json.Unmarshal(b, p.Interface()); err != nil {
			writeError(w, name, hub.Errorf(hub.CodeInvalidInput, "argument %d of %s: %v", i+1, name, err), 0)
			return
		}
		args = append(args, p.Elem())
	}
	// A client built before a method gained a trailing argument sends
	// fewer: the missing ones are their zero values (the method's
	// behaviour before the argument existed).
	for i := len(raw); i < nargs; i++ {
		args = append(args, reflect.Zero(m.Type.In(i+1)))
	}
	if d := callWait(args); d > 0 {
		// A call that waits on the server (an acquire with --wait)
		// outlives the server's timeouts: give it its own, and end it when
		// the server starts to stop (the waiter leaves its queue).
		lift(w, d)
		c, cancel := context.WithCancel(ctx)
		defer cancel()
		defer context.AfterFunc(s.streams, cancel)()
		args[0] = reflect.ValueOf(c)
	}
	out := reflect.ValueOf(s.svc).MethodByName(name).Call(args)
	last := out[len(out)-1]
	if m.Type.Out(m.Type.NumOut()-1) == errType {
		if !last.IsNil() {
			writeRPCError(w, name, last.Interface().(error))
			return
		}
		out = out[:len(out)-1]
	}
	res := make([]any, 0, len(out))
	for _, v := range out {
		res = append(res, v.Interface())
	}
	writeOK(w, name, res, nil)
}

// callWait is the longest wait an argument of a call asks the server
// for (wire.Waiter), 0 when none.
func callWait(args []reflect.Value) time.Duration {
	var d time.Duration
	for _, a := range args[1:] {
		if w, ok := a.Interface().(wire.Waiter); ok {
			d = max(d, w.CallWait())
		}
	}
	return d
}

// lift gives a request that waits d on the server a write deadline of d
// plus waitSlack instead of the server's write timeout, and no read
// deadline (its body is read; a read deadline passing would cancel it).
func lift(w http.ResponseWriter, d time.Duration) {
	rc := http.NewResponseController(w)
	_ = rc.SetWriteDeadline(time.Now().Add(d + waitSlack))
	_ = rc.SetReadDeadline(time.Time{})
}

// writeRPCError replies with the envelope of a method's error, with the
// message's template so that the remote client renders its fields in its
// own vocabulary (bb flags), like a local call.
func writeRPCError(w http.ResponseWriter, method string, err error) {
	var he *hub.Error
	if !errors.As(err, &he) {
		writeError(w, method, err, 0)
		return
	}
	if ra := retryAfter(he.Code); ra != "" {
		w.Header().Set("Retry-After", ra)
	}
	writeJSON(w, StatusOf(he.Code), view.Envelope{OK: false, Command: method,
		Error: &view.ErrorBody{Code: string(he.Code), Message: he.Error(), Field: he.Field, Template: he.Template, Actions: he.Actions}})
}

// checkRepository refuses a call from a checkout of another repository
// than the board's (the client's fingerprint in wire.RepositoryHeader;
// none: not checked). An accepted fingerprint is remembered, so the board
// is read once per fingerprint, not once per call.
func (s *Server) checkRepository(r *http.Request) error {
	id := r.Header.Get(wire.RepositoryHeader)
	if id == "" {
		return nil
	}
	if _, ok := s.repos.Load(id); ok {
		return nil
	}
	board, err := s.svc.ClaimRepository(r.Context(), id)
	if err != nil {
		return err
	}
	// Only the board's own repository is remembered: a fingerprint served
	// on an unclaimed board (a credential that may not claim it) is asked
	// again next time, since the operator may claim another meanwhile.
	if board == id {
		s.repos.Store(id, true)
	}
	return nil
}
