package agentmail

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/pyjson"
)

// Agent Mail (seed 004) rules. Everything the agent-mail binary decides —
// identity grammar, text and refs validation, UUID checks, the 24-hour TTL,
// inbox semantics, status counts and cleanup — lives here; the CLI only
// parses flags and prints.

// MailTTLHours is the fixed lifetime of an Agent Mail message (TC12).
const MailTTLHours = 24

// mailIdentity is Agent Mail's check of an identity read as input: the
// project:name grammar, unless the board already knows the id (another
// surface created it; see AgentID).
func (s *Service) mailIdentity(ctx context.Context, id string) error {
	_, err := s.kernel.AgentID(ctx, hub.GrammarMail, id)
	return err
}

// IsMailUUID reports whether s matches TC5 (8-4-4-4-12 hex, any case).
func IsMailUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i := 0; i < 36; i++ {
		c := s[i]
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')) {
				return false
			}
		}
	}
	return true
}

// ValidateMailUUID applies TC5 before any database lookup.
func ValidateMailUUID(s string) error {
	if !IsMailUUID(s) {
		return mailErr("message_id", "Invalid message id: %s. Must be a UUID (8-4-4-4-12 hex).", pyjson.Repr(s))
	}
	return nil
}

// ValidateMailText applies TC3: no character below 0x20 except \n, \r, \t.
// Text must also be valid UTF-8.
func ValidateMailText(field, s string) error {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 && c != '\n' && c != '\r' && c != '\t' {
			return mailErr(field, "Text contains invalid control characters.")
		}
	}
	if !utf8.ValidString(s) {
		return mailErr(field, "Text is not valid UTF-8.")
	}
	return nil
}

// ParseMailRefs applies TC4: raw must be a JSON array of strings; the
// result is its canonical re-serialization, Python's json.dumps(list)
// (`["a", "b"]`, non-ASCII as \uXXXX).
func ParseMailRefs(raw string) (string, error) {
	var v any
	var extra json.RawMessage
	dec := json.NewDecoder(strings.NewReader(raw))
	if !utf8.ValidString(raw) || dec.Decode(&v) != nil || !errors.Is(dec.Decode(&extra), io.EOF) {
		return "", mailErr("refs", "Invalid {field} JSON: %s. Expected JSON array of strings.", pyjson.Repr(raw))
	}
	list, ok := v.([]any)
	if !ok {
		return "", mailErr("refs", "{field} must be a JSON array of strings, got: %s", pyjson.Repr(raw))
	}
	out := make([]string, 0, len(list))
	for _, e := range list {
		s, ok := e.(string)
		if !ok {
			return "", mailErr("refs", "{field} must be a JSON array of strings, got: %s", pyjson.Repr(raw))
		}
		out = append(out, s)
	}
	return pyjson.DumpStrings(out), nil
}

// BodyFileProblem says why a surface could not use the file named by
// --body-file. The surface reads the file (the core never opens a file on
// a caller's behalf: over RPC that would hand the server's files to any
// sender) and passes the content or the problem; the core words the
// refusal in its place among the other checks, so the order of agent-mail's
// errors does not depend on who read the file.
type BodyFileProblem string

// The problems a surface reports for a body file.
const (
	BodyFileNotFound   BodyFileProblem = "not_found"
	BodyFileNotRegular BodyFileProblem = "not_regular"
	BodyFileUnreadable BodyFileProblem = "unreadable"
	BodyFileNotUTF8    BodyFileProblem = "not_utf8"
)

// MailBodyFile is what a surface read from the body file of a mail (TC6):
// its path (for messages), and either its content or the problem met.
type MailBodyFile struct {
	Path    string
	Content string
	Problem BodyFileProblem `json:",omitempty"`
	// Reason is the operating system's reason, for BodyFileUnreadable.
	Reason string `json:",omitempty"`
}

// bodyFromFile returns the body a surface read, or the refusal for its
// problem. Content that is not UTF-8 is refused whoever read it.
func bodyFromFile(f MailBodyFile) (string, error) {
	switch f.Problem {
	case "":
		if !utf8.ValidString(f.Content) {
			return "", mailErr("body_file", "{field} is not valid UTF-8: %s", f.Path)
		}
		return f.Content, nil
	case BodyFileNotFound:
		return "", mailErr("body_file", "{field} not found: %s", f.Path)
	case BodyFileNotRegular:
		return "", mailErr("body_file", "{field} is not a regular file: %s", f.Path)
	case BodyFileNotUTF8:
		return "", mailErr("body_file", "{field} is not valid UTF-8: %s", f.Path)
	case BodyFileUnreadable:
		return "", mailErr("body_file", "Cannot read {field} %s: %s", f.Path, f.Reason)
	}
	return "", mailErr("body_file", "Cannot read {field} %s: unknown problem %q", f.Path, string(f.Problem))
}

// MailExpired reports TC12 for one row: now > created + ttl_hours. Rows
// without a TTL (Blackboard posts, bb agent mail) and rows whose created
// cannot be read never expire.
func MailExpired(created string, ttlHours *int, now time.Time) bool {
	if ttlHours == nil {
		return false
	}
	t, err := hub.ParseTime(created)
	if err != nil {
		return false
	}
	return now.After(t.Add(time.Duration(*ttlHours) * time.Hour))
}

// PyISOFormat renders t in loc as Python's datetime.isoformat() does:
// microseconds only when non-zero, numeric offset (+00:00, never Z).
func PyISOFormat(t time.Time, loc *time.Location) string {
	if loc != nil {
		t = t.In(loc)
	}
	var b strings.Builder
	b.WriteString(t.Format("2006-01-02T15:04:05"))
	if us := t.Nanosecond() / 1000; us != 0 {
		fmt.Fprintf(&b, ".%06d", us)
	}
	_, off := t.Zone()
	sign := byte('+')
	if off < 0 {
		sign = '-'
		off = -off
	}
	fmt.Fprintf(&b, "%c%02d:%02d", sign, off/3600, off/60%60)
	if s := off % 60; s != 0 {
		fmt.Fprintf(&b, ":%02d", s)
	}
	return b.String()
}

// RenderMailTime turns a stored timestamp into what Agent Mail prints:
// timestamps stored by this hub (UTC, storage format) are shown in loc as
// Python's isoformat would print them; text written by other tools is
// returned verbatim, as the original returned what it had stored.
func RenderMailTime(raw string, loc *time.Location) string {
	t, err := hub.ParseTime(raw)
	if err != nil || hub.FormatTime(t) != raw {
		return raw
	}
	return PyISOFormat(t, loc)
}

// sortMail orders rows oldest first: by created time when readable (rows
// whose created cannot be read come last, by text), then by seq. Each
// timestamp is parsed once.
func sortMail(rows []hub.MailRow) {
	type key struct {
		t  time.Time
		ok bool
	}
	keys := make([]key, len(rows))
	idx := make([]int, len(rows))
	for i, r := range rows {
		t, err := hub.ParseTime(r.Created)
		keys[i], idx[i] = key{t, err == nil}, i
	}
	sort.SliceStable(idx, func(a, b int) bool {
		i, j := idx[a], idx[b]
		ki, kj := keys[i], keys[j]
		if ki.ok != kj.ok {
			return ki.ok
		}
		if ki.ok && !ki.t.Equal(kj.t) {
			return ki.t.Before(kj.t)
		}
		if !ki.ok && rows[i].Created != rows[j].Created {
			return rows[i].Created < rows[j].Created
		}
		return rows[i].Seq < rows[j].Seq
	})
	sorted := make([]hub.MailRow, len(rows))
	for n, i := range idx {
		sorted[n] = rows[i]
	}
	copy(rows, sorted)
}

// purgeExpiredMail deletes every expired message (TC12) and records it on
// the timeline. Its cost is the number of expired rows plus the rows whose
// TTL or timestamp format is unusual, never the size of the mailbox.
func (s *Service) purgeExpiredMail(ctx context.Context, tx Tx, now time.Time, explicit bool) ([]hub.MailRow, error) {
	exp, err := expiredMail(ctx, tx, now)
	if err != nil || len(exp.rows) == 0 {
		return exp.rows, err
	}
	if exp.regular > 0 {
		if err := tx.DeleteMailBefore(ctx, exp.cutoff, exp.keep); err != nil {
			return nil, err
		}
	}
	if len(exp.irregular) > 0 {
		if err := tx.DeleteMail(ctx, exp.irregular); err != nil {
			return nil, err
		}
	}
	rows := exp.rows
	e := s.kernel.Event(hub.EventMailExpired, "", map[string]any{
		"deleted_count": len(rows), "oldest": rows[0].Created, "newest": rows[len(rows)-1].Created,
		"explicit": explicit,
	})
	e.Message = fmt.Sprintf("%d expired messages deleted", len(rows))
	return rows, tx.AppendEvent(ctx, e)
}

// expiry is what expiredMail found: the expired rows (oldest first), and
// how to delete them — the regular ones by range minus keep (candidates
// whose text sorts before the cutoff but whose time does not), the
// irregular ones by id.
type expiry struct {
	rows      []hub.MailRow
	cutoff    time.Time
	regular   int
	keep      []string
	irregular []string
}

func expiredMail(ctx context.Context, tx Tx, now time.Time) (expiry, error) {
	x := expiry{cutoff: now.Add(-MailTTLHours * time.Hour)}
	regular, irregular, err := tx.MailExpiryCandidates(ctx, x.cutoff)
	if err != nil {
		return x, err
	}
	for _, r := range regular {
		if MailExpired(r.Created, r.TTLHours, now) {
			x.rows = append(x.rows, r)
			x.regular++
		} else {
			x.keep = append(x.keep, r.ID)
		}
	}
	for _, r := range irregular {
		if MailExpired(r.Created, r.TTLHours, now) {
			x.rows = append(x.rows, r)
			x.irregular = append(x.irregular, r.ID)
		}
	}
	sortMail(x.rows)
	return x, nil
}

// MailSendInput is `agent-mail send`. Nil pointers are flags not given.
type MailSendInput struct {
	From     string
	To       string
	Subject  string
	Body     *string
	BodyFile *MailBodyFile // what the surface read from --body-file
	Refs     string        // "" = none
	ReplyTo  *string
}

// SendAgentMail validates and stores one message (after the opportunistic
// cleanup), in one transaction.
func (s *Service) SendAgentMail(ctx context.Context, in MailSendInput) (hub.MailRow, error) {
	if err := hub.Allow(ctx, hub.Act(in.From)); err != nil {
		return hub.MailRow{}, err
	}
	if err := s.mailIdentity(ctx, in.From); err != nil {
		return hub.MailRow{}, err
	}
	if in.To != hub.Broadcast {
		if err := s.mailIdentity(ctx, in.To); err != nil {
			return hub.MailRow{}, err
		}
	}
	if err := ValidateMailText("subject", in.Subject); err != nil {
		return hub.MailRow{}, err
	}
	if in.Body != nil && in.BodyFile != nil {
		return hub.MailRow{}, mailErr("body", "Cannot use both {body} and {body_file}. Choose one.")
	}
	body := ""
	if in.BodyFile != nil {
		b, err := bodyFromFile(*in.BodyFile)
		if err != nil {
			return hub.MailRow{}, err
		}
		body = b
	} else if in.Body != nil {
		body = *in.Body
	}
	if err := ValidateMailText("body", body); err != nil {
		return hub.MailRow{}, err
	}
	var refs *string
	if in.Refs != "" {
		r, err := ParseMailRefs(in.Refs)
		if err != nil {
			return hub.MailRow{}, err
		}
		refs = &r
	}
	if in.ReplyTo != nil {
		if err := ValidateMailUUID(*in.ReplyTo); err != nil {
			return hub.MailRow{}, err
		}
	}
	typ := hub.TypeDirect
	if in.To == hub.Broadcast {
		typ = hub.BroadcastName
	}
	return hub.WriteAs(ctx, s.kernel, in, func(tx Tx) (hub.MailRow, error) {
		now := s.kernel.Now()
		if _, err := s.purgeExpiredMail(ctx, tx, now, false); err != nil {
			return hub.MailRow{}, err
		}
		ttl := MailTTLHours
		m := hub.Message{UUID: uuid.NewString(), From: in.From, To: in.To, Subject: in.Subject, Body: body,
			MailRefs: refs, Type: typ, TTLHours: &ttl, CreatedAt: now}
		if in.ReplyTo != nil {
			m.ReplyTo = *in.ReplyTo
		}
		if err := hub.StoreMessage(ctx, tx, &m); err != nil {
			return hub.MailRow{}, err
		}
		if err := tx.TouchAgent(ctx, in.From, now); err != nil {
			return hub.MailRow{}, err
		}
		// One mail event whatever the surface: agent-mail's own keys (id,
		// type, seq) and the message_id every surface's mail.sent carries.
		e := s.kernel.Event(hub.EventMailSent, in.From, map[string]any{"message_id": m.UUID, "id": m.UUID, "type": typ, "seq": m.Seq, "subject": m.Subject})
		e.ToAgent = in.To
		e.Message = hub.Preview(in.Subject, 120)
		if err := tx.AppendEvent(ctx, e); err != nil {
			return hub.MailRow{}, err
		}
		row := hub.MailRow{ID: m.UUID, Sender: m.From, Recipient: m.To, Subject: m.Subject, Body: m.Body, Refs: refs,
			Type: typ, TTLHours: &ttl, Created: hub.FormatTime(now), Seq: m.Seq}
		if in.ReplyTo != nil {
			row.ReplyTo = in.ReplyTo
		}
		return row, nil
	})
}

// MailReadInput is `agent-mail read`. Empty strings mean "not given" (the
// original tested them for truth).
type MailReadInput struct {
	Agent string
	All   bool
	From  string
	// Limit caps the rows; a negative limit is no cap. The original
	// handed --limit to SQLite's LIMIT, where -1 means "no limit", and
	// scripts written for it pass -1 (bb's own inbox refuses limits
	// outside 1..500: this is Agent Mail's contract, not bb's).
	Limit      int
	Thread     string
	NoMarkRead bool
	// LocalOffset is the reader's UTC offset in seconds: read_at is
	// written with it, as the original's datetime.now().astimezone()
	// (seed 004 TC11), where every other timestamp is stored in UTC.
	LocalOffset int
}

// ReadAgentMail returns an inbox (or a thread) after the opportunistic cleanup.
// The default mode marks what it returns as read; the rows show the state
// from before marking.
func (s *Service) ReadAgentMail(ctx context.Context, in MailReadInput) ([]hub.MailRow, error) {
	if err := hub.Allow(ctx, hub.Act(in.Agent)); err != nil {
		return nil, err
	}
	if err := s.mailIdentity(ctx, in.Agent); err != nil {
		return nil, err
	}
	if in.Thread != "" {
		if err := ValidateMailUUID(in.Thread); err != nil {
			return nil, err
		}
	} else if in.From != "" {
		if err := s.mailIdentity(ctx, in.From); err != nil {
			return nil, err
		}
	}
	return hub.WriteAs(ctx, s.kernel, hub.SideEffectRead{}, func(tx Tx) ([]hub.MailRow, error) {
		now := s.kernel.Now()
		if _, err := s.purgeExpiredMail(ctx, tx, now, false); err != nil {
			return nil, err
		}
		if err := touchMailReader(ctx, tx, in.Agent, now); err != nil {
			return nil, err
		}
		if in.Thread != "" {
			return mailThread(ctx, tx, in.Thread)
		}
		q := hub.MailInboxQuery{Agent: in.Agent, Unread: !in.All, From: in.From, Limit: in.Limit}
		rows, err := tx.MailInbox(ctx, q)
		if err != nil {
			return nil, err
		}
		q.Broadcast = true
		bc, err := tx.MailInbox(ctx, q)
		if err != nil {
			return nil, err
		}
		rows = append(rows, bc...)
		sortMail(rows)
		if in.Limit >= 0 && len(rows) > in.Limit {
			rows = rows[:in.Limit]
		}
		if in.NoMarkRead || len(rows) == 0 {
			return rows, nil
		}
		broadcasts := false
		for _, r := range rows {
			if err := tx.MarkRead(ctx, &hub.Message{UUID: r.ID, To: r.Recipient}, in.Agent, now.In(time.FixedZone("", in.LocalOffset))); err != nil {
				return nil, err
			}
			broadcasts = broadcasts || r.Recipient == hub.Broadcast
		}
		if broadcasts {
			if err := tx.AdvanceMailCursor(ctx, in.Agent); err != nil {
				return nil, err
			}
		}
		e := s.kernel.Event(hub.EventMailRead, in.Agent, map[string]any{"count": len(rows), "first": rows[0].ID, "last": rows[len(rows)-1].ID})
		e.Message = fmt.Sprintf("%s read %d messages", in.Agent, len(rows))
		return rows, tx.AppendEvent(ctx, e)
	})
}

func touchMailReader(ctx context.Context, tx Tx, agent string, now time.Time) error {
	a, err := tx.GetAgent(ctx, agent)
	if err != nil {
		return err
	}
	if a != nil && now.Sub(a.LastSeen) < hub.MailTouchInterval {
		return nil
	}
	return tx.TouchAgent(ctx, agent, now)
}

// mailThread walks reply_to up to the root (stopping on cycles), then
// returns the root and all its descendants, oldest first.
func mailThread(ctx context.Context, tx Tx, id string) ([]hub.MailRow, error) {
	root := id
	seen := map[string]bool{}
	for root != "" && !seen[root] {
		seen[root] = true
		parent, found, err := tx.MailReplyTo(ctx, root)
		if err != nil {
			return nil, err
		}
		if !found || parent == "" {
			break
		}
		root = parent
	}
	rows, err := tx.MailThread(ctx, root)
	if err != nil {
		return nil, err
	}
	sortMail(rows)
	return rows, nil
}

// MailAckResult is the reply of `agent-mail ack`.
type MailAckResult struct {
	MessageID string
	Agent     string
	AckedAt   string // storage format
}

// AckAgentMail records that agent acted on message id. Any agent may ack any
// message (seed 004 Key Decisions); every ack restamps acked_at.
func (s *Service) AckAgentMail(ctx context.Context, agent, id string) (MailAckResult, error) {
	if err := hub.Allow(ctx, hub.Act(agent)); err != nil {
		return MailAckResult{}, err
	}
	if err := s.mailIdentity(ctx, agent); err != nil {
		return MailAckResult{}, err
	}
	if err := ValidateMailUUID(id); err != nil {
		return MailAckResult{}, err
	}
	return hub.WriteAs(ctx, s.kernel, []string{agent, id}, func(tx Tx) (MailAckResult, error) {
		m, err := tx.MailByID(ctx, id)
		if err != nil {
			return MailAckResult{}, err
		}
		if m == nil {
			return MailAckResult{}, hub.Errorf(hub.CodeMessageNotFound, "Message not found: %s", id)
		}
		now := s.kernel.Now()
		if err := tx.MarkAckedLatest(ctx, &hub.Message{UUID: m.ID, To: m.Recipient}, agent, now); err != nil {
			return MailAckResult{}, err
		}
		if m.Recipient == hub.Broadcast {
			if err := tx.AdvanceAckCursor(ctx, agent); err != nil {
				return MailAckResult{}, err
			}
		}
		if err := tx.TouchAgent(ctx, agent, now); err != nil {
			return MailAckResult{}, err
		}
		e := s.kernel.Event(hub.EventMailAcked, agent, map[string]any{"message_id": m.ID, "seq": m.Seq})
		e.ToAgent = m.Sender
		e.Message = agent + " acked: " + hub.Preview(m.Subject, 100)
		return MailAckResult{MessageID: id, Agent: agent, AckedAt: hub.FormatTime(now)}, tx.AppendEvent(ctx, e)
	})
}

// AgentMailStatus returns unread/unacked counts per agent seen in the traffic
// (after the opportunistic cleanup). agent, when non-empty, selects one
// identity; otherwise project, when non-empty, selects "<project>:*".
func (s *Service) AgentMailStatus(ctx context.Context, agent, project string) ([]hub.MailCounts, error) {
	if agent != "" {
		if err := s.mailIdentity(ctx, agent); err != nil {
			return nil, err
		}
	}
	return hub.WriteAs(ctx, s.kernel, hub.SideEffectRead{}, func(tx Tx) ([]hub.MailCounts, error) {
		if _, err := s.purgeExpiredMail(ctx, tx, s.kernel.Now(), false); err != nil {
			return nil, err
		}
		all, err := tx.MailAgents(ctx)
		if err != nil {
			return nil, err
		}
		agents := all[:0]
		for _, a := range all {
			switch {
			case agent != "":
				if a == agent {
					agents = append(agents, a)
				}
			case project != "":
				if strings.HasPrefix(a, project+":") {
					agents = append(agents, a)
				}
			default:
				agents = append(agents, a)
			}
		}
		if len(agents) == 0 {
			return []hub.MailCounts{}, nil
		}
		return tx.MailCounts(ctx, agents)
	})
}

// MailCleanupResult is what `agent-mail cleanup` found (and deleted
// unless DryRun), oldest first.
type MailCleanupResult struct {
	DryRun  bool
	Expired []hub.MailRow
}

// CleanAgentMail purges expired messages, or lists them with dryRun.
func (s *Service) CleanAgentMail(ctx context.Context, dryRun bool) (MailCleanupResult, error) {
	if err := hub.Allow(ctx, hub.Needs(hub.AccessOperator, "cleaning expired mail")); err != nil {
		return MailCleanupResult{}, err
	}
	if dryRun {
		rows, err := hub.ReadAs(ctx, s.kernel, func(tx Tx) ([]hub.MailRow, error) {
			x, err := expiredMail(ctx, tx, s.kernel.Now())
			return x.rows, err
		})
		return MailCleanupResult{DryRun: true, Expired: rows}, err
	}
	rows, err := hub.WriteAs(ctx, s.kernel, dryRun, func(tx Tx) ([]hub.MailRow, error) { return s.purgeExpiredMail(ctx, tx, s.kernel.Now(), true) })
	return MailCleanupResult{Expired: rows}, err
}

func mailErr(field, format string, args ...any) *hub.Error {
	return hub.FieldErr(hub.CodeInvalidInput, field, format, args...)
}
