package hub

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"time"
)

// Service is the application core: every use case of every surface is a
// method here (one file per domain). It validates input, applies the rules
// and performs each mutation, with its timeline event, in one transaction.
type Service struct {
	store Store
	Clock Clock
	// ProjectRoot is the directory artifact paths and reservation scopes are
	// relative to (the folder that holds .bb/).
	ProjectRoot string
	// Env reads configuration (BB_AGENT_STALE_MINUTES…); nil means empty.
	Env func(string) string
	// feed fans new timeline events out to Follow callers.
	feed *feed
	// trees is the git repository of the project (worktree.go).
	trees *workTrees
}

// NewService builds a Service; clock defaults to the system clock.
func NewService(st Store, clock Clock, projectRoot string) *Service {
	if clock == nil {
		clock = SystemClock{}
	}
	return &Service{store: st, Clock: clock, ProjectRoot: projectRoot, feed: newFeed(st), trees: &workTrees{}}
}

// WithStore returns a copy of the service over wrap(its store): a test
// counts, delays or observes the transactions of the calls it makes
// through the copy. The copy shares the clock, the project, the
// environment and the feed of new events.
func (s *Service) WithStore(wrap func(Store) Store) *Service {
	c := *s
	c.store = wrap(s.store)
	return &c
}

// Now is the service's current time (UTC, truncated to microseconds so that
// what is stored equals what is returned).
func (s *Service) Now() time.Time { return s.Clock.Now().UTC().Truncate(time.Microsecond) }

func (s *Service) Getenv(k string) string {
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
	// AnyRequest replays the stored reply for any request of the same
	// command, whatever its arguments. Only vybe sets it: its contract
	// answers a retry "with new args" with the original result. Everywhere
	// else the same request id with a different request is refused
	// (IDEMPOTENCY_KEY_COLLISION).
	AnyRequest bool
}

type idemCtxKey struct{}

type replayCtxKey struct{}

// OnReplay has Write call fn whenever it answers a mutation of ctx with
// the stored reply of an earlier request (an idempotent replay): bb
// serve counts them.
func OnReplay(ctx context.Context, fn func()) context.Context {
	return context.WithValue(ctx, replayCtxKey{}, fn)
}

// WithIdempotency attaches a request id to ctx: the next mutation made with
// ctx stores its reply under the key, and a retry returns that reply
// unchanged without doing the work again. The request id is checked first
// (ValidateRequestID); an invalid one is refused by the mutation.
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

// refusal is a domain error whose transaction still commits (the INCURSION
// events of a refused reserve): write commits, stores no reply (a failure
// is retryable with the same request id) and returns err.
type refusal struct{ err error }

func (r *refusal) Error() string { return r.err.Error() }

// commitRefusal marks err as a refusal whose transaction commits.
func commitRefusal(err error) error { return &refusal{err: err} }

// fingerprint identifies a request by its normalized input: the same
// request gives the same fingerprint, any other argument another one.
func fingerprint(command string, req any) (string, error) {
	b, err := json.Marshal(req)
	if err != nil {
		return "", Internal("encode request", err)
	}
	h := sha256.New()
	h.Write([]byte(command))
	h.Write([]byte{0})
	h.Write(b)
	return hex.EncodeToString(h.Sum(nil)), nil
}

// Write runs fn in a Write transaction: the one path of every mutation.
// When ctx carries an idempotency key, a reply stored for the same request
// (same command, same req) is returned instead (decoded into T); a stored
// reply of another command or of a different request under that key is
// IDEMPOTENCY_KEY_COLLISION; otherwise the fresh reply is stored in the
// same transaction as the work. req is the mutation's normalized input
// (what makes two requests the same); it is only read when ctx carries a
// key.
func Write[T any](ctx context.Context, s *Service, req any, fn func(tx Tx) (T, error)) (T, error) {
	var out T
	k, idem := IdemFrom(ctx)
	switch req.(type) {
	case SideEffectRead, Maintenance:
		idem = false
	}
	var fp string
	if idem {
		if err := ValidateRequestID(k.RequestID); err != nil {
			return out, err
		}
		var err error
		if fp, err = fingerprint(k.Command, req); err != nil {
			return out, err
		}
	}
	var refused error
	var checkedIn func()
	err := s.store.Write(ctx, func(tx Tx) error {
		refused, checkedIn = nil, nil
		if idem {
			rec, err := tx.GetIdempotent(ctx, k.Agent, k.RequestID)
			if err != nil {
				return err
			}
			if rec != nil {
				if rec.Command != k.Command {
					return Errorf(CodeIdempotencyMismatch, "idempotency key collision: request_id %q already used for command %q (new: %q)", k.RequestID, rec.Command, k.Command)
				}
				if !k.AnyRequest && rec.Fingerprint != "" && rec.Fingerprint != fp {
					return Errorf(CodeIdempotencyMismatch, "idempotency key collision: request_id %q already used for a different %q request; use a new request id for a new request", k.RequestID, k.Command)
				}
				return &errReplay{reply: rec.Reply}
			}
		}
		v, err := fn(tx)
		var r *refusal
		if errors.As(err, &r) {
			out, refused = v, r.err
			return nil
		}
		if err != nil {
			return err
		}
		out = v
		if idem {
			b, err := json.Marshal(v)
			if err != nil {
				return Internal("encode reply", err)
			}
			if err := tx.PutIdempotent(ctx, k.Agent, k.RequestID, IdemRecord{Command: k.Command, Fingerprint: fp, Reply: b}, s.Now()); err != nil {
				return err
			}
		}
		checkedIn = s.foldedCheckIn(ctx, tx)
		return nil
	})
	if err == nil && checkedIn != nil {
		checkedIn()
	}
	var rep *errReplay
	if errors.As(err, &rep) {
		if fn, ok := ctx.Value(replayCtxKey{}).(func()); ok {
			fn()
		}
		var zero T
		if err := json.Unmarshal(rep.reply, &zero); err != nil {
			return zero, Internal("decode stored reply", err)
		}
		return zero, nil
	}
	if err == nil && refused != nil {
		return out, refused
	}
	return out, err
}

// Read runs fn in a Read transaction.
func Read[T any](ctx context.Context, s *Service, fn func(tx Tx) (T, error)) (T, error) {
	var out T
	err := s.store.Read(ctx, func(tx Tx) error {
		v, err := fn(tx)
		out = v
		return err
	})
	return out, err
}

// WriteAs is Write for an application whose persistence port P extends
// Tx (hooks.Tx, memory.Tx…): fn gets the transaction as P. A store that
// does not implement P is an internal error.
func WriteAs[P Tx, T any](ctx context.Context, s *Service, req any, fn func(tx P) (T, error)) (T, error) {
	return Write(ctx, s, req, func(tx Tx) (T, error) {
		p, err := portOf[P](tx)
		if err != nil {
			var zero T
			return zero, err
		}
		return fn(p)
	})
}

// ReadAs is Read with the transaction as the application's port P.
func ReadAs[P Tx, T any](ctx context.Context, s *Service, fn func(tx P) (T, error)) (T, error) {
	return Read(ctx, s, func(tx Tx) (T, error) {
		p, err := portOf[P](tx)
		if err != nil {
			var zero T
			return zero, err
		}
		return fn(p)
	})
}

// WriteObserved writes what the board saw for itself rather than what a
// caller asked for: a hook's client session, the incursions of an edit
// check, a reminder given. It is not a request, so unlike Write it never
// stores or replays a reply and folds no check-in; fn gets the
// transaction as the application's port P.
func WriteObserved[P Tx](ctx context.Context, s *Service, fn func(tx P) error) error {
	return s.store.Write(ctx, func(tx Tx) error {
		p, err := portOf[P](tx)
		if err != nil {
			return err
		}
		return fn(p)
	})
}

// portOf is tx as the application's port P.
func portOf[P Tx](tx Tx) (P, error) {
	p, ok := tx.(P)
	if !ok {
		return p, Errorf(CodeInternal, "this board's store does not keep %T", (*P)(nil))
	}
	return p, nil
}

// Event builds a timeline Event stamped now.
func (s *Service) Event(typ, agent string, payload any) *Event {
	e := &Event{Type: typ, Agent: agent, CreatedAt: s.Now()}
	if payload != nil {
		b, _ := json.Marshal(payload)
		e.Payload = b
	}
	return e
}

// SideEffectRead is the req of a read that writes as a side effect (marks
// agents offline, mail read, purges expired mail): it is never replayed,
// whatever request id its context carries.
type SideEffectRead struct{}

// Maintenance is the req of a write the board does to itself in many
// small transactions (retention's batches): never idempotent, since each
// batch is a new one even under the request id of the command that
// started them.
type Maintenance struct{}

// ErrReadOnlyBoard is wrapped by the error a store gives for a write to a
// board that cannot be written (a read-only file or file system).
var ErrReadOnlyBoard = errors.New("the board is read-only")

// readAlso runs a read that writes as a side effect (effect, in a write
// transaction). On a board that cannot be written the read still answers:
// plain, the same read without the side effect, runs in a read
// transaction.
func readAlso[T any](ctx context.Context, s *Service, effect, plain func(tx Tx) (T, error)) (T, error) {
	v, err := Write(ctx, s, SideEffectRead{}, effect)
	if errors.Is(err, ErrReadOnlyBoard) {
		return Read(ctx, s, plain)
	}
	return v, err
}

// Refused reports whether err is a refusal whose transaction still
// commits (ReserveTx's conflict or stale-found, after its INCURSION
// events), and returns the domain error inside.
func Refused(err error) (error, bool) {
	var r *refusal
	if errors.As(err, &r) {
		return r.err, true
	}
	return err, false
}
