package hub

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// One inbox per agent, two kinds of item: what is addressed to it (direct
// mail, handoffs, blockers, decisions — from bb agent send, agent-mail or
// MCP) and board traffic (broadcasts: bb post, agent-mail --to '*', bb
// agent send --to broadcast). Every surface counts them here, and reading an
// item on any surface clears it everywhere: an addressed item is read by
// bb agent read, agent-mail read or MCP bb_read_mail; board traffic by
// bb log or MCP bb_read_messages (which advance the reader's cursor), or
// by reading the one broadcast.

// UnreadCounts are an agent's unread inbox items by kind, each capped, with
// the newest message seq of each kind (0 when none).
type UnreadCounts struct {
	Addressed       int64
	Board           int64
	NewestAddressed int64
	NewestBoard     int64
}

// NoticeCounts is everything a check-in reads, in one store call.
type NoticeCounts struct {
	Unread     UnreadCounts
	AcksOwed   int64
	Incursions int64
	// Mark is the agent's notice mark (see Tx.NoticeMark).
	Mark string
	// ReadCursor is the agent's read cursor (see Tx.ReadCursor; 0 for an
	// unknown agent) and NewestBroadcast the seq of the newest broadcast
	// (0 when there is none).
	ReadCursor, NewestBroadcast int64
	// LastSeen is the agent's last_seen (zero for an unknown agent), so a
	// check-in knows whether it has a heartbeat to record.
	LastSeen time.Time
}

// Notices is what an identified caller should know without asking: it is
// attached to every reply made for an agent (the "agents don't poll" rule).
// Every count is capped at NoticeCap and computed by index-driven queries,
// so checking in stays cheap whatever the size of the board.
type Notices struct {
	// Unread is Addressed + Board (capped at NoticeCap).
	Unread int64 `json:"unread"`
	// Addressed counts unread messages addressed to the agent (direct
	// mail, HANDOFF, BLOCKED, DECISION).
	Addressed int64 `json:"addressed"`
	// Board counts unread broadcasts.
	Board int64 `json:"board"`
	// AcksOwed (omitted when 0) counts messages addressed to the agent that require an ack
	// (HANDOFF, BLOCKED) it has not given.
	AcksOwed int64 `json:"acks_owed,omitempty"`
	// Incursions (omitted when 0) counts attempts by other agents to reserve scopes
	// overlapping the agent's active reservations, since the oldest of them
	// was made.
	Incursions int64 `json:"incursions,omitempty"`
	// Changed reports that these notices differ from the last ones the
	// agent was given (on any surface): human renderers show them only then.
	Changed bool `json:"changed"`
}

// NoticeCap bounds the counting work done for notices on every command.
const NoticeCap = 100

// Empty reports whether there is nothing to tell.
func (n Notices) Empty() bool { return n.Unread == 0 && n.AcksOwed == 0 && n.Incursions == 0 }

// NoticeCommands name, for one surface, what clears each kind of notice.
type NoticeCommands struct {
	Addressed, Board, Acks, Incursions string
}

// Text renders the notices as one line (without a prefix): each count with
// the command that clears it; "" when there is nothing to tell.
func (n Notices) Text(c NoticeCommands) string {
	count := func(v int64, one, many, cmd string) string {
		more, what := "", many
		if v >= NoticeCap {
			more = "+"
		}
		if v == 1 {
			what = one
		}
		return fmt.Sprintf("%d%s %s (%s)", v, more, what, cmd)
	}
	var parts []string
	if n.Addressed > 0 {
		parts = append(parts, count(n.Addressed, "unread message addressed to you", "unread messages addressed to you", c.Addressed))
	}
	if n.Board > 0 {
		parts = append(parts, count(n.Board, "unread board post", "unread board posts", c.Board))
	}
	if n.AcksOwed > 0 {
		parts = append(parts, count(n.AcksOwed, "message awaiting your ack", "messages awaiting your ack", c.Acks))
	}
	if n.Incursions > 0 {
		parts = append(parts, count(n.Incursions, "incursion on your reservations", "incursions on your reservations", c.Incursions))
	}
	return strings.Join(parts, "; ")
}

// CheckIn refreshes agent's last_seen (the passive heartbeat every command
// made by an identified agent gives) and returns its notices, marking them
// given. A check-in that would record nothing — the agent was seen within
// MailTouchInterval (liveness is judged in minutes) and its notices are
// the ones last given — only reads: no write transaction.
func (s *Service) CheckIn(ctx context.Context, agent string) (Notices, error) {
	if err := Allow(ctx, Act(agent)); err != nil {
		return Notices{}, err
	}
	if err := s.CheckBoardAgent(ctx, agent); err != nil {
		return Notices{}, err
	}
	// This is the check-in: a slot on ctx (WithCheckIn) would make a
	// second one.
	ctx = context.WithValue(ctx, checkInKey{}, (*CheckInSlot)(nil))
	type quiet struct {
		n  Notices
		ok bool
	}
	now := s.Now()
	q, err := Read(ctx, s, func(tx Tx) (quiet, error) {
		a, err := tx.GetAgent(ctx, agent)
		if err != nil || a == nil || now.Sub(a.LastSeen) >= MailTouchInterval {
			return quiet{}, err
		}
		n, mark, c, err := CountNotices(ctx, tx, agent)
		return quiet{n, c.Mark == mark && !cursorBehind(c)}, err
	})
	if err != nil {
		return Notices{}, err
	}
	if q.ok {
		return q.n, nil
	}
	return Write(ctx, s, SideEffectRead{}, func(tx Tx) (Notices, error) {
		if err := tx.TouchAgent(ctx, agent, now); err != nil {
			return Notices{}, err
		}
		return s.giveNotices(ctx, tx, agent)
	})
}

// ReadCheckIn is the check-in of an identified read without its writes:
// the notices CheckIn would give, from one read transaction, and whether
// CheckIn still owes a write (the agent was not seen within
// MailTouchInterval, its notices were not given yet, or its read cursor
// moves). A server answering reads replies at once with these notices and
// hands an owed check-in to CheckInAgents, batched with others, so that a
// read never waits for the write path.
func (s *Service) ReadCheckIn(ctx context.Context, agent string) (Notices, bool, error) {
	if err := Allow(ctx, Act(agent)); err != nil {
		return Notices{}, false, err
	}
	if err := s.CheckBoardAgent(ctx, agent); err != nil {
		return Notices{}, false, err
	}
	type peek struct {
		n    Notices
		owed bool
	}
	now := s.Now()
	p, err := Read(ctx, s, func(tx Tx) (peek, error) {
		n, mark, c, err := CountNotices(ctx, tx, agent)
		if err != nil {
			return peek{}, err
		}
		given := c.Mark == mark
		if !given {
			n.Changed = !n.Empty()
		}
		return peek{n, !given || cursorBehind(c) || c.LastSeen.IsZero() || now.Sub(c.LastSeen) >= MailTouchInterval}, nil
	})
	return p.n, p.owed, err
}

// CheckInAgents makes the check-ins of agents in one write transaction:
// for each, what CheckIn records (its last_seen, its notices given).
func (s *Service) CheckInAgents(ctx context.Context, agents []string) error {
	for _, a := range agents {
		if err := Allow(ctx, Act(a)); err != nil {
			return err
		}
	}
	if len(agents) == 0 {
		return nil
	}
	ctx = context.WithValue(ctx, checkInKey{}, (*CheckInSlot)(nil))
	_, err := Write(ctx, s, SideEffectRead{}, func(tx Tx) (struct{}, error) {
		now := s.Now()
		for _, a := range agents {
			if !s.boardAgentTx(ctx, tx, a) {
				continue
			}
			if err := tx.TouchAgent(ctx, a, now); err != nil {
				return struct{}{}, err
			}
			if _, err := s.giveNotices(ctx, tx, a); err != nil {
				return struct{}{}, err
			}
		}
		return struct{}{}, nil
	})
	return err
}

// CheckInSlot receives the check-in a command's own write transaction made
// for its caller (WithCheckIn).
type CheckInSlot struct {
	who     func() string
	agent   string
	notices Notices
	done    bool
}

type checkInKey struct{}

// WithCheckIn returns a context whose writes also check in the caller of a
// command: the same refresh of last_seen and the same notices CheckIn
// gives, made at the end of the command's own write transaction instead of
// in a second one. who names the caller when a write runs (a command may
// learn its acting agent from its own flags); "" means nobody is checked
// in. A write that fails, is refused or replays a stored reply checks
// nobody in; Notices then reports false and the caller uses CheckIn.
func WithCheckIn(ctx context.Context, who func() string) (context.Context, *CheckInSlot) {
	slot := &CheckInSlot{who: who}
	return context.WithValue(ctx, checkInKey{}, slot), slot
}

// NoticesFor returns the notices of the last write made with the slot's
// context that checked agent in, and whether there was one.
func (c *CheckInSlot) NoticesFor(agent string) (Notices, bool) {
	if c == nil || !c.done || c.agent != agent {
		return Notices{}, false
	}
	return c.notices, true
}

// foldedCheckIn checks in the caller named by ctx's slot inside tx, the
// transaction of a write that succeeded. It never fails the write: a
// check-in that cannot be made leaves the slot empty.
// It returns what records the check-in in the slot once tx has committed
// (nil: nobody was checked in).
func (s *Service) foldedCheckIn(ctx context.Context, tx Tx) func() {
	slot, _ := ctx.Value(checkInKey{}).(*CheckInSlot)
	if slot == nil || slot.who == nil {
		return nil
	}
	agent := slot.who()
	if agent == "" || !s.boardAgentTx(ctx, tx, agent) {
		return nil
	}
	if err := tx.TouchAgent(ctx, agent, s.Now()); err != nil {
		return nil
	}
	n, err := s.giveNotices(ctx, tx, agent)
	if err != nil {
		return nil
	}
	return func() {
		// Notices given by an earlier write of the same command and not
		// shown yet are still news.
		n.Changed = (n.Changed || slot.done && slot.agent == agent && slot.notices.Changed) && !n.Empty()
		slot.agent, slot.notices, slot.done = agent, n, true
	}
}

// InboxCounts returns agent's notices without refreshing its last_seen or
// marking them given (for views that look at an agent: the dashboard, bb
// agent inbox, summaries).
func (s *Service) InboxCounts(ctx context.Context, agent string) (Notices, error) {
	if err := ValidateStoredAgentID(agent); err != nil {
		return Notices{}, err
	}
	return Read(ctx, s, func(tx Tx) (Notices, error) {
		n, _, _, err := CountNotices(ctx, tx, agent)
		return n, err
	})
}

// giveNotices counts agent's notices inside tx and records them as given.
//
// A check-in that finds no unread broadcast also moves the agent's read
// cursor up to the newest broadcast: every broadcast it passes is the
// agent's own or one it has already read, so nothing reads differently,
// but the next count does not walk the agent's own posts again (an agent
// that posts and never reads the board would otherwise make every
// check-in slower than the last).
func (s *Service) giveNotices(ctx context.Context, tx Tx, agent string) (Notices, error) {
	n, mark, c, err := CountNotices(ctx, tx, agent)
	if err != nil {
		return n, err
	}
	return recordNotices(ctx, tx, agent, n, mark, c)
}

// recordNotices records notices counted by countNotices as given (the
// writes of giveNotices, apart from its reads).
func recordNotices(ctx context.Context, tx Tx, agent string, n Notices, mark string, c NoticeCounts) (Notices, error) {
	if cursorBehind(c) {
		if err := tx.SetReadCursor(ctx, agent, c.NewestBroadcast); err != nil {
			return n, err
		}
	}
	if c.Mark == mark {
		return n, nil
	}
	n.Changed = !n.Empty()
	return n, tx.SetNoticeMark(ctx, agent, mark)
}

// cursorBehind reports whether a check-in moves the agent's read cursor:
// no unread broadcast, and broadcasts (its own, or read) past the cursor.
func cursorBehind(c NoticeCounts) bool {
	return c.Unread.Board == 0 && c.NewestBroadcast > c.ReadCursor
}

// CountNotices counts agent's notices; it returns them with their mark
// and the store's counts (c.Mark is the mark last given).
func CountNotices(ctx context.Context, tx Tx, agent string) (n Notices, mark string, c NoticeCounts, err error) {
	c, err = tx.NoticeCounts(ctx, agent, NoticeCap)
	if err != nil {
		return n, "", c, err
	}
	n, mark = noticesOf(c)
	return n, mark, c, nil
}

// noticesOf turns a store's counts into notices and their mark.
func noticesOf(c NoticeCounts) (n Notices, mark string) {
	n.Addressed, n.Board = c.Unread.Addressed, c.Unread.Board
	n.Unread = min(c.Unread.Addressed+c.Unread.Board, NoticeCap)
	n.AcksOwed, n.Incursions = c.AcksOwed, c.Incursions
	mark = fmt.Sprintf("a%d@%d b%d@%d k%d i%d", n.Addressed, c.Unread.NewestAddressed, n.Board, c.Unread.NewestBoard, n.AcksOwed, n.Incursions)
	return n, mark
}
