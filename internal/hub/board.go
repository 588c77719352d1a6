package hub

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/blackboard-hub/bb/internal/termtext"

	"github.com/google/uuid"
)

// AgentView is an agent with its derived liveness at read time.
type AgentView struct {
	Agent
	// Liveness is the board's word for Presence (active, stale, offline).
	Liveness     Liveness
	Presence     Presence
	MinutesSince int
	// Work is what the board shows it doing (nil: nothing); filled by
	// Board, AgentStatus and Summary.
	Work *Work
}

func ViewAgent(a Agent, l Live) AgentView {
	return AgentView{Agent: a, Liveness: l.Board, Presence: l.Presence, MinutesSince: l.MinutesSince}
}

// StatusUpdate carries the optional fields of `bb status set`; nil means
// "leave as is".
type StatusUpdate struct {
	Task     *string
	Progress *int
	Status   *string
	Blockers *string
}

func validateStatus(s string) error {
	if !slices.Contains(AgentStatuses, s) {
		return FieldErr(CodeInvalidInput, "status", "invalid status %q: expected one of %s", s, strings.Join(AgentStatuses, ", "))
	}
	return nil
}

// SetStatus updates the board fields of agent (creating it if needed).
// Fields apply in order task, progress, status, blockers; a status other
// than "blocked" clears blockers unless blockers are given in the same call.
func (s *Service) SetStatus(ctx context.Context, agent string, u StatusUpdate) (Agent, error) {
	if err := Allow(ctx, Act(agent)); err != nil {
		return Agent{}, err
	}
	if err := s.CheckBoardAgent(ctx, agent); err != nil {
		return Agent{}, err
	}
	if u.Task != nil {
		if err := CheckLen("task", *u.Task, MaxTaskLen); err != nil {
			return Agent{}, err
		}
	}
	if u.Progress != nil && (*u.Progress < 0 || *u.Progress > 100) {
		return Agent{}, FieldErr(CodeInvalidInput, "progress", "progress must be between 0 and 100, got %d", *u.Progress)
	}
	if u.Status != nil {
		if err := validateStatus(*u.Status); err != nil {
			return Agent{}, err
		}
	}
	if u.Blockers != nil {
		if err := CheckLen("blockers", *u.Blockers, MaxBlockersLen); err != nil {
			return Agent{}, err
		}
	}
	return Write(ctx, s, []any{agent, u}, func(tx Tx) (Agent, error) {
		now := s.Now()
		a, err := loadOrNewAgent(ctx, tx, agent, now)
		if err != nil {
			return Agent{}, err
		}
		if u.Task != nil {
			a.CurrentTask = *u.Task
		}
		if u.Progress != nil {
			a.Progress = *u.Progress
		}
		if u.Status != nil {
			a.SetStatus(*u.Status, now)
			if a.Status != "blocked" {
				a.Blockers = nil
			}
		}
		if u.Blockers != nil {
			b := *u.Blockers
			a.Blockers = &b
			if b == "" {
				a.Blockers = nil
			}
		}
		a.LastSeen, a.UpdatedAt = now, now
		if err := tx.PutAgent(ctx, a); err != nil {
			return Agent{}, err
		}
		e := s.Event(EventAgentStatus, agent, map[string]any{
			"current_task": a.CurrentTask, "progress": a.Progress, "status": a.Status, "blockers": a.Blockers,
		})
		e.Message = fmt.Sprintf("%s is %s: %s", agent, a.Status, a.CurrentTask)
		return *a, tx.AppendEvent(ctx, e)
	})
}

// ClearStatus resets agent to idle, no task, progress 0, no blockers.
func (s *Service) ClearStatus(ctx context.Context, agent string) (Agent, error) {
	if err := Allow(ctx, Act(agent)); err != nil {
		return Agent{}, err
	}
	if err := s.CheckBoardAgent(ctx, agent); err != nil {
		return Agent{}, err
	}
	return Write(ctx, s, agent, func(tx Tx) (Agent, error) {
		now := s.Now()
		a, err := loadOrNewAgent(ctx, tx, agent, now)
		if err != nil {
			return Agent{}, err
		}
		a.CurrentTask, a.Progress, a.Blockers = "", 0, nil
		a.SetStatus("idle", now)
		a.LastSeen, a.UpdatedAt = now, now
		if err := tx.PutAgent(ctx, a); err != nil {
			return Agent{}, err
		}
		e := s.Event(EventAgentCleared, agent, nil)
		e.Message = agent + " cleared its status"
		return *a, tx.AppendEvent(ctx, e)
	})
}

// SetStatus sets a's status at now. StatusSince moves only when the
// status changes: an agent blocked again and again without leaving
// "blocked" stays blocked since the first time.
func (a *Agent) SetStatus(status string, now time.Time) {
	if a.Status != status || a.StatusSince.IsZero() {
		a.StatusSince = now
	}
	a.Status = status
}

func loadOrNewAgent(ctx context.Context, tx Tx, id string, now time.Time) (*Agent, error) {
	a, err := tx.GetAgent(ctx, id)
	if err != nil || a != nil {
		return a, err
	}
	return &Agent{ID: id, Status: "idle", CreatedAt: now, LastSeen: now, UpdatedAt: now, StatusSince: now, Version: 1}, nil
}

// Board lists every agent with its liveness (seed 003 §5.1). As a side
// effect of reading, agents unseen for longer than the stale threshold are
// marked offline.
func (s *Service) Board(ctx context.Context) ([]AgentView, error) {
	now := s.Now()
	stale, err := s.StaleMinutes()
	if err != nil {
		return nil, err
	}
	agents, err := readAlso(ctx, s, func(tx Tx) ([]Agent, error) {
		if _, err := tx.MarkOfflineBefore(ctx, OfflineBefore(now, stale)); err != nil {
			return nil, err
		}
		return ListAgentsIn(ctx, tx)
	}, func(tx Tx) ([]Agent, error) { return ListAgentsIn(ctx, tx) })
	if err != nil {
		return nil, err
	}
	out := views(agents, now, stale)
	work, err := s.workRead(ctx, agents)
	for i := range out {
		out[i].Work = work[out[i].ID]
	}
	return out, err
}

func views(agents []Agent, now time.Time, stale int) []AgentView {
	out := make([]AgentView, 0, len(agents))
	for _, a := range agents {
		out = append(out, ViewAgent(a, LiveOf(a.LastSeen, now, stale)))
	}
	return out
}

// AgentStatus returns one agent with liveness (no side effect).
func (s *Service) AgentStatus(ctx context.Context, id string) (AgentView, error) {
	if err := s.CheckBoardAgent(ctx, id); err != nil {
		return AgentView{}, err
	}
	a, err := Read(ctx, s, func(tx Tx) (*Agent, error) { return findAgent(ctx, tx, id) })
	if err != nil {
		return AgentView{}, err
	}
	if a == nil {
		return AgentView{}, Errorf(CodeNotFound, "agent %q not found", id)
	}
	stale, err := s.StaleMinutes()
	if err != nil {
		return AgentView{}, err
	}
	v := ViewAgent(*a, LiveOf(a.LastSeen, s.Now(), stale))
	work, err := s.workRead(ctx, []Agent{*a})
	v.Work = work[a.ID]
	return v, err
}

// PostInput is a Blackboard post (a broadcast message).
type PostInput struct {
	From     string
	Content  string
	Tags     []string
	Priority string
	// ReplyTo is the seq of the message answered (0 = none).
	ReplyTo int64
	Refs    []Ref
}

// Post stores a message addressed to everyone.
func (s *Service) Post(ctx context.Context, in PostInput) (Message, error) {
	p, err := s.checkPost(ctx, in)
	if err != nil {
		return Message{}, err
	}
	return Write(ctx, s, in, func(tx Tx) (Message, error) { return s.postTx(ctx, tx, p) })
}

// checkPost validates a post before any transaction; the returned input
// carries the normalized tags, priority and refs.
func (s *Service) checkPost(ctx context.Context, in PostInput) (postFields, error) {
	if err := Allow(ctx, Act(in.From)); err != nil {
		return postFields{}, err
	}
	if err := s.CheckBoardAgent(ctx, in.From); err != nil {
		return postFields{}, err
	}
	if strings.TrimSpace(in.Content) == "" {
		return postFields{}, FieldErr(CodeInvalidInput, "content", "message content cannot be empty")
	}
	if err := CheckLen("content", in.Content, MaxMessageLen); err != nil {
		return postFields{}, err
	}
	tags, err := ValidateTags(in.Tags)
	if err != nil {
		return postFields{}, err
	}
	prio, err := ParsePriority(in.Priority)
	if err != nil {
		return postFields{}, err
	}
	refs, err := ValidateRefs(in.Refs)
	if err != nil {
		return postFields{}, err
	}
	if in.ReplyTo < 0 {
		return postFields{}, FieldErr(CodeInvalidInput, "reply-to", "reply-to must be a message number, got %d", in.ReplyTo)
	}
	return postFields{in: in, tags: tags, prio: prio, refs: refs}, nil
}

type postFields struct {
	in   PostInput
	tags []string
	prio Priority
	refs []Ref
}

// postTx stores one validated post and its event. A domain error (unknown
// reply-to) is returned before anything is written, so a batch may carry on.
func (s *Service) postTx(ctx context.Context, tx Tx, p postFields) (Message, error) {
	in := p.in
	now := s.Now()
	m := Message{
		UUID: uuid.NewString(), From: in.From, To: Broadcast, Type: BroadcastName, Body: in.Content,
		Tags: p.tags, Priority: p.prio, Refs: p.refs, CreatedAt: now,
	}
	if in.ReplyTo > 0 {
		parent, err := tx.MessageBySeq(ctx, in.ReplyTo)
		if err != nil {
			return Message{}, err
		}
		if parent == nil {
			return Message{}, Errorf(CodeNotFound, "message %d not found (reply-to)", in.ReplyTo)
		}
		m.ReplyTo = parent.UUID
		m.ReplyToSeq = &parent.Seq
		m.ThreadID = parent.ThreadID
		m.BeadID = parent.BeadID
	}
	if err := StoreMessage(ctx, tx, &m); err != nil {
		return Message{}, err
	}
	e := s.Event(EventMessagePosted, in.From, map[string]any{"id": m.Seq, "uuid": m.UUID, "priority": m.Priority, "tags": m.Tags})
	e.ToAgent = Broadcast
	e.BeadID = m.BeadID
	e.Message = Preview(m.Body, 120)
	return m, tx.AppendEvent(ctx, e)
}

func Preview(s string, n int) string {
	return termtext.Clip(strings.Join(strings.Fields(s), " "), n)
}

// LogQuery filters the board log.
type LogQuery struct {
	Since       time.Duration // 0 = all time
	Tags        []string      // OR
	From        string
	MinPriority string
	Ref         *Ref
	Limit       int
	// Before, when set, pages back: only messages older than this id.
	Before int64
	// MaxBytes, when set, cuts the page once its messages' text passes
	// this many bytes (at least one message is returned), so that a
	// surface can bound the size of a reply; a read marks only the
	// messages of the cut page.
	MaxBytes int
	// Reader, when set, is the identified agent reading: an unfiltered
	// read advances its read cursor to the newest message shown, but only
	// when no unread message older than the page was left out, so that a
	// read never marks read a message it did not show.
	Reader string
}

// Log returns board messages, newest first.
func (s *Service) Log(ctx context.Context, q LogQuery) ([]Message, error) {
	if q.Reader != "" {
		// An unfiltered read moves the reader's read cursor.
		if err := Allow(ctx, Act(q.Reader)); err != nil {
			return nil, err
		}
	}
	if q.Before < 0 {
		return nil, FieldErr(CodeInvalidInput, "before", "before must be a message id, got %d", q.Before)
	}
	f := MessageFilter{From: q.From, Ref: q.Ref, Limit: ClampLimit(q.Limit, DefaultLogLimit, MaxLogLimit), BeforeSeq: q.Before}
	if q.Since < 0 {
		return nil, FieldErr(CodeInvalidInput, "since", "since must not be negative")
	}
	if q.Since > 0 {
		f.Since = s.Now().Add(-q.Since)
	}
	tags, err := ValidateTags(q.Tags)
	if err != nil {
		return nil, err
	}
	f.Tags = tags
	if q.MinPriority != "" {
		p, err := ParsePriority(q.MinPriority)
		if err != nil {
			return nil, err
		}
		f.Priorities = p.AtLeast()
	}
	unfiltered := q.Since == 0 && len(f.Tags) == 0 && f.From == "" && f.Priorities == nil && f.Ref == nil
	plain := func(tx Tx) ([]Message, error) {
		msgs, err := tx.ListMessages(ctx, f)
		return msgs[:pageBytes(msgs, q.MaxBytes)], err
	}
	if q.Reader == "" || !unfiltered {
		return Read(ctx, s, plain)
	}
	// An identified reader's unfiltered read advances its read cursor to
	// the newest message shown, in the same transaction as the read, when
	// the page reaches back to the cursor: one message more than the page
	// tells whether an unread one was left out.
	limit := f.Limit
	g := f
	g.Limit++
	return readAlso(ctx, s, func(tx Tx) ([]Message, error) {
		msgs, err := tx.ListMessages(ctx, g)
		if err != nil || len(msgs) == 0 {
			return msgs, err
		}
		n := pageBytes(msgs[:min(limit, len(msgs))], q.MaxBytes)
		reaches := n == len(msgs)
		if !reaches {
			cursor, err := tx.ReadCursor(ctx, q.Reader)
			if err != nil {
				return nil, err
			}
			reaches = msgs[n].Seq <= cursor
			msgs = msgs[:n]
		}
		if !reaches {
			return msgs, nil
		}
		if err := tx.TouchAgent(ctx, q.Reader, s.Now()); err != nil {
			return nil, err
		}
		return msgs, tx.SetReadCursor(ctx, q.Reader, msgs[0].Seq)
	}, plain)
}

// pageBytes is how many of msgs fit in max bytes of text (0 = no bound),
// at least one.
func pageBytes(msgs []Message, max int) int {
	if max <= 0 {
		return len(msgs)
	}
	used := 0
	for i, m := range msgs {
		used += len(m.Subject) + len(m.Body) + messageOverhead
		if used > max && i > 0 {
			return i
		}
	}
	return len(msgs)
}

// messageOverhead estimates the bytes of a message's JSON besides its text.
const messageOverhead = 256

// Thread returns message seq and its direct replies (oldest first), at most
// MaxThreadMessages in all.
func (s *Service) Thread(ctx context.Context, seq int64) ([]Message, error) {
	return Read(ctx, s, func(tx Tx) ([]Message, error) {
		m, err := tx.MessageBySeq(ctx, seq)
		if err != nil {
			return nil, err
		}
		if m == nil {
			return nil, Errorf(CodeNotFound, "message %d not found", seq)
		}
		replies, err := tx.Replies(ctx, m.UUID, MaxThreadMessages-1)
		if err != nil {
			return nil, err
		}
		return append([]Message{*m}, replies...), nil
	})
}

// CleanArtifactPath validates an artifact path against the project root:
// relative, no ".." component, and — following symlinks of whatever part
// of it exists — inside the root. It returns the cleaned, slash-separated
// path relative to the root.
func CleanArtifactPath(root, p string) (string, error) {
	if p == "" {
		return "", FieldErr(CodeInvalidInput, "path", "artifact path cannot be empty")
	}
	if len(p) > MaxArtifactPathLen {
		return "", FieldErr(CodeInvalidInput, "path", "artifact path too long: %d bytes (max %d)", len(p), MaxArtifactPathLen)
	}
	if HasControl(p) || strings.ContainsRune(p, 0) {
		return "", FieldErr(CodeInvalidInput, "path", "artifact path contains control characters")
	}
	if err := CheckUTF8("path", p); err != nil {
		return "", err
	}
	if filepath.IsAbs(p) || strings.HasPrefix(p, "/") || strings.HasPrefix(p, `\`) || filepath.VolumeName(p) != "" {
		return "", FieldErr(CodePathTraversal, "path", "absolute path not allowed: %s (give a path relative to the project root)", p)
	}
	for _, part := range strings.FieldsFunc(p, func(r rune) bool { return r == '/' || r == '\\' }) {
		if part == ".." {
			return "", FieldErr(CodePathTraversal, "path", "path traversal not allowed: %s", p)
		}
	}
	clean := filepath.ToSlash(filepath.Clean(p))
	if clean == "." {
		return "", FieldErr(CodeInvalidInput, "path", "artifact path must name a file or directory inside the project")
	}
	if root == "" {
		return clean, nil
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return "", FieldErr(CodeInvalidInput, "path", "invalid project directory %s", root)
	}
	// Follow every symlink along the path, including dangling ones and
	// links inside links: the place it resolves to must be inside the root.
	real, err := resolvePath(filepath.Join(realRoot, filepath.FromSlash(clean)))
	if err != nil {
		return "", FieldErr(CodeInvalidInput, "path", "cannot check path %s: %v", p, errors.Unwrap(err))
	}
	rel, err := filepath.Rel(realRoot, real)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", FieldErr(CodePathTraversal, "path", "path escapes project directory: %s", p)
	}
	return clean, nil
}

// resolvePath returns where the absolute path p leads once every symlink
// along it is followed. Unlike filepath.EvalSymlinks it accepts paths whose
// tail does not exist (an artifact may be registered before it is written)
// and follows dangling links to their (missing) target.
func resolvePath(p string) (string, error) {
	vol := filepath.VolumeName(p)
	cur := vol + string(filepath.Separator)
	todo := splitPath(p[len(vol):])
	for hops := 0; len(todo) > 0; {
		c := todo[0]
		todo = todo[1:]
		switch c {
		case ".":
			continue
		case "..":
			cur = filepath.Dir(cur)
			continue
		}
		next := filepath.Join(cur, c)
		fi, err := os.Lstat(next)
		if errors.Is(err, fs.ErrNotExist) {
			cur = next
			continue
		}
		if err != nil {
			return "", err
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			cur = next
			continue
		}
		if hops++; hops > 40 {
			return "", &fs.PathError{Op: "resolve", Path: p, Err: errors.New("too many levels of symbolic links")}
		}
		target, err := os.Readlink(next)
		if err != nil {
			return "", err
		}
		if filepath.IsAbs(target) {
			tv := filepath.VolumeName(target)
			cur = tv + string(filepath.Separator)
			target = target[len(tv):]
		}
		todo = append(splitPath(target), todo...)
	}
	return cur, nil
}

func splitPath(p string) []string {
	return strings.FieldsFunc(p, func(r rune) bool { return r == filepath.Separator || r == '/' })
}

// EventQuery selects timeline events, oldest first.
type EventQuery struct {
	// AfterSeq is the cursor: only events after this sequence number.
	AfterSeq int64
	// Types keeps only events of these types. A type that is neither one
	// the board records (EventTypes) nor stored on this timeline is
	// refused as INVALID_INPUT.
	Types  []string
	Agent  string
	BeadID string
	// Limit is nil when not given (DefaultEventsLimit); given, it must be
	// 1..MaxEventsLimit (EventLimit).
	Limit *int
	// Newest takes the newest Limit matching events (after AfterSeq)
	// instead of the oldest; they are still returned oldest first.
	Newest bool
}

// EventPage is one page of the timeline. More is true when the limit cut
// it: ask again with AfterSeq = NextSeq. With EventQuery.Newest, More
// instead says that older matching events were left out. When retention
// removed events after the cursor (not with Newest), the first event is a
// timeline.cursor_expired (EventCursorExpired, never stored, not counted
// in the limit) and the page goes on from the oldest kept.
type EventPage struct {
	Events  []Event
	More    bool
	NextSeq int64
}

// NameTasks fills each event's Task from its task id, else from a bead id
// that names a task: every task event names its task (id, handle, title).
func NameTasks(ctx context.Context, tx Tx, evs []Event) error {
	refs := map[string]*TaskRef{}
	for i := range evs {
		id := evs[i].TaskID
		if id == "" && strings.HasPrefix(evs[i].BeadID, "task_") {
			id = evs[i].BeadID
		}
		if id == "" {
			continue
		}
		ref, seen := refs[id]
		if !seen {
			t, err := tx.GetTask(ctx, id)
			if err != nil {
				return err
			}
			if t != nil {
				r := RefOf(*t)
				ref = &r
			}
			refs[id] = ref
		}
		evs[i].Task = ref
	}
	return nil
}

// Events lists timeline events, at most the query's limit of them.
func (s *Service) Events(ctx context.Context, q EventQuery) (EventPage, error) {
	if q.AfterSeq < 0 {
		return EventPage{}, FieldErr(CodeInvalidInput, "since_seq", "{field} must not be negative, got %d", q.AfterSeq)
	}
	limit, err := EventLimit(q.Limit)
	if err != nil {
		return EventPage{}, err
	}
	// A cursor older than what retention kept (expired, the last seq
	// removed) is said first; the page resumes at the oldest kept. The
	// newest events (Newest) are not read from a cursor.
	var expired int64
	evs, err := Read(ctx, s, func(tx Tx) ([]Event, error) {
		types, err := checkEventTypes(ctx, tx, q.Types)
		if err != nil {
			return nil, err
		}
		bead, err := WorkItem(ctx, tx, q.BeadID)
		if err != nil {
			return nil, err
		}
		after := q.AfterSeq
		if !q.Newest {
			if expired, err = expiredIn(ctx, tx, after); err != nil {
				return nil, err
			}
			after = max(after, expired)
		}
		// One more than asked tells whether there is more.
		f := EventFilter{AfterSeq: after, Types: types, Agent: q.Agent, BeadID: bead, Limit: limit + 1, Desc: q.Newest}
		evs, err := tx.ListEvents(ctx, f)
		if err != nil {
			return nil, err
		}
		return evs, NameTasks(ctx, tx, evs)
	})
	if err != nil {
		return EventPage{}, err
	}
	p := EventPage{Events: evs, NextSeq: q.AfterSeq}
	if len(evs) > limit {
		p.Events, p.More = evs[:limit], true
	}
	if q.Newest {
		slices.Reverse(p.Events)
	}
	if expired > 0 {
		p.Events = append([]Event{s.cursorExpired(q.AfterSeq, expired)}, p.Events...)
	}
	if len(p.Events) > 0 {
		p.NextSeq = p.Events[len(p.Events)-1].Seq
	}
	return p, nil
}
