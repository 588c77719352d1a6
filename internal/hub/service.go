package hub

import (
	"context"
	"encoding/json"
	"errors"
	"time"
)

// Service is the application core: every use case of every surface is a
// method here (one file per domain). It validates input, applies the rules
// and performs each mutation, with its timeline event, in one transaction.
type Service struct {
	Store Store
	Clock Clock
	// ProjectRoot is the directory artifact paths and reservation scopes are
	// relative to (the folder that holds .bb/).
	ProjectRoot string
	// Env reads configuration (BB_AGENT_STALE_MINUTES…); nil means empty.
	Env func(string) string
	// feed fans new timeline events out to Follow callers.
	feed *feed
}

// NewService builds a Service; clock defaults to the system clock.
func NewService(st Store, clock Clock, projectRoot string) *Service {
	if clock == nil {
		clock = SystemClock{}
	}
	return &Service{Store: st, Clock: clock, ProjectRoot: projectRoot, feed: newFeed(st)}
}

// Now is the service's current time (UTC, truncated to microseconds so that
// what is stored equals what is returned).
func (s *Service) Now() time.Time { return s.Clock.Now().UTC().Truncate(time.Microsecond) }

func (s *Service) getenv(k string) string {
	if s.Env == nil {
		return ""
	}
	return s.Env(k)
}

// IdemKey identifies a mutation made with a request id.
type IdemKey struct {
	Agent     string
	RequestID string
	// Command names the operation ("task.create", "agent send"…); reusing
	// a request id for another command is an error.
	Command string
}

type idemCtxKey struct{}

// WithIdempotency attaches a request id to ctx: the next mutation made with
// ctx stores its reply under the key, and a retry returns that reply
// unchanged without doing the work again.
func WithIdempotency(ctx context.Context, k IdemKey) context.Context {
	if k.RequestID == "" {
		return ctx
	}
	return context.WithValue(ctx, idemCtxKey{}, k)
}

// IdemFrom returns the idempotency key attached to ctx, if any.
func IdemFrom(ctx context.Context) (IdemKey, bool) {
	k, ok := ctx.Value(idemCtxKey{}).(IdemKey)
	return k, ok
}

// errReplay carries a stored reply out of a write transaction.
type errReplay struct{ reply []byte }

func (e *errReplay) Error() string { return "replay" }

// write runs fn in a write transaction. When ctx carries an idempotency key,
// a stored reply for it is returned instead (decoded into T), and a fresh
// reply is stored in the same transaction as the work.
func write[T any](ctx context.Context, s *Service, fn func(tx Tx) (T, error)) (T, error) {
	var out T
	k, idem := IdemFrom(ctx)
	if idem {
		if err := CheckUTF8("request_id", k.RequestID); err != nil {
			return out, err
		}
	}
	err := s.Store.Write(ctx, func(tx Tx) error {
		if idem {
			cmd, reply, found, err := tx.GetIdempotent(ctx, k.Agent, k.RequestID)
			if err != nil {
				return err
			}
			if found {
				if cmd != k.Command {
					return Errorf(CodeIdempotencyMismatch, "idempotency key collision: request_id %q already used for command %q (new: %q)", k.RequestID, cmd, k.Command)
				}
				return &errReplay{reply: reply}
			}
		}
		v, err := fn(tx)
		if err != nil {
			return err
		}
		out = v
		if idem {
			b, err := json.Marshal(v)
			if err != nil {
				return Internal("encode reply", err)
			}
			return tx.PutIdempotent(ctx, k.Agent, k.RequestID, k.Command, b, s.Now())
		}
		return nil
	})
	var rep *errReplay
	if errors.As(err, &rep) {
		var zero T
		if err := json.Unmarshal(rep.reply, &zero); err != nil {
			return zero, Internal("decode stored reply", err)
		}
		return zero, nil
	}
	return out, err
}

// read runs fn in a read transaction.
func read[T any](ctx context.Context, s *Service, fn func(tx Tx) (T, error)) (T, error) {
	var out T
	err := s.Store.Read(ctx, func(tx Tx) error {
		v, err := fn(tx)
		out = v
		return err
	})
	return out, err
}

// event builds a timeline event stamped now.
func (s *Service) event(typ, agent string, payload any) *Event {
	e := &Event{Type: typ, Agent: agent, CreatedAt: s.Now()}
	if payload != nil {
		b, _ := json.Marshal(payload)
		e.Payload = b
	}
	return e
}
