// Package notify tells people, through webhooks, when something on the
// board needs them: each "needs attention" item of the core
// (overview.Attention: an unaccepted HANDOFF or BLOCKED, a blocked agent, a
// critical post, an incursion) is POSTed once as a JSON object, and once
// more when a HANDOFF or BLOCKED is escalated (it waited unaccepted for the
// board's attention.escalate_after minutes). It is bb notify's engine.
//
// It wakes when the timeline moves (the core's Follow) and when the next
// escalation falls due, never on a timer of its own. Deliveries go through
// a bounded queue, each retried with a doubling pause; a delivery that
// still fails, or finds the queue full, is dropped and said on the log.
//
// Each delivery is recorded on the board once it succeeded, per channel
// (a webhook, named by a hash of its URL, or the desktop): a restarted
// notifier sends only what it never delivered (overview.MarkNotified).
package notify

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/hub/overview"
)

// API is the roles the notifier uses.
type API interface {
	hub.Admin
	hub.Timeline
	overview.API
}

// Payload is the JSON object POSTed for one item (Content-Type
// application/json). Fields are in JSON key order.
type Payload struct {
	// ID names the item (the same for as long as it waits); an escalation
	// carries the item's id with ":escalated" appended.
	ID string `json:"id"`
	// Type is handoff, blocked, stuck, critical or incursion.
	Type string `json:"type"`
	// Escalated is true for the second notice of a HANDOFF or BLOCKED
	// nobody accepted in time.
	Escalated bool `json:"escalated"`
	// Agent raised it; To is who it waits on ("" for everyone).
	Agent string `json:"agent"`
	To    string `json:"to"`
	// BeadID is the work item it is about ("" when none).
	BeadID  string `json:"bead_id"`
	Subject string `json:"subject"`
	// Asked is what is asked of the one it waits on (a BLOCKED's
	// requested action, a HANDOFF's next action, a blocked agent's
	// blockers); Urgency a BLOCKED's (low, medium, high); Files the files
	// concerned; Task the task it is about (id, handle, title), if any.
	Asked   string       `json:"asked"`
	Urgency string       `json:"urgency"`
	Files   []string     `json:"files"`
	Task    *hub.TaskRef `json:"task"`
	// Choices are what a person may do about it (accept, answer, nudge,
	// step_in: the dashboard's and bb top's actions), as the board's
	// person sees them.
	Choices []string `json:"choices"`
	// Reassign names, when Choices holds reassign, each reservation the
	// person may hand over: its holder, scope, who would get it and why it
	// no longer protects its holder (never null).
	Reassign []overview.Reassignment `json:"reassign"`
	// Text is one line for a chat message: who waits on whom, for what,
	// for how long.
	Text           string    `json:"text"`
	WaitingMinutes int       `json:"waiting_minutes"`
	At             time.Time `json:"at"`
	// Board is the project directory of the board.
	Board string `json:"board"`
	// Link is the dashboard (bb serve) where a person answers it.
	Link string `json:"link"`
}

// Options configure a Notifier.
type Options struct {
	// Webhooks are the URLs every item is POSTed to.
	Webhooks []string
	// Desktop, when set, shows every item as a desktop notification
	// (title, one-line text); an error is said on Log, never retried.
	Desktop func(ctx context.Context, title, text string) error
	// Dashboard is the URL of the board's dashboard, for Payload.Link.
	Dashboard string
	// Queue bounds the deliveries waiting to be sent (default 256).
	Queue int
	// Attempts per delivery (default 5), the first retry after Backoff
	// (default 1 s), each next after twice the previous pause.
	Attempts int
	Backoff  time.Duration
	// Client sends the requests (default: a 10 s timeout).
	Client *http.Client
	// Log receives one line per delivery dropped.
	Log io.Writer
	// Delivered, when set, hears the outcome of every webhook delivery
	// (after its retries): bb serve counts them in its metrics.
	Delivered func(ok bool)
}

// Notifier delivers attention items to webhooks.
type Notifier struct {
	api   API
	o     Options
	queue chan delivery
	// sent holds the ids already queued (or found delivered), for the
	// items still waiting.
	sent map[string]bool
	// channels are the webhooks' channels (WebhookChannel) then, with
	// Desktop, DesktopChannel; hooks maps a webhook's channel to its URL.
	channels []string
	hooks    map[string]string
	// unrecorded says once that the board refuses the record.
	unrecorded sync.Once
}

// delivery is one payload for the channels that have not had it.
type delivery struct {
	Payload
	channels []string
}

// stopWait bounds a webhook attempt that a stop lets finish.
const stopWait = 10 * time.Second

// DesktopChannel is the channel of desktop notifications in the record of
// what was delivered.
const DesktopChannel = "desktop"

// WebhookChannel names a webhook in the record of what was delivered: a
// hash of its URL, never the URL (it may hold a secret token).
func WebhookChannel(url string) string {
	h := sha256.Sum256([]byte(url))
	return "webhook:" + hex.EncodeToString(h[:12])
}

// New makes a notifier; Run starts it.
func New(api API, o Options) *Notifier {
	if o.Queue <= 0 {
		o.Queue = 256
	}
	if o.Attempts <= 0 {
		o.Attempts = 5
	}
	if o.Backoff <= 0 {
		o.Backoff = time.Second
	}
	if o.Client == nil {
		o.Client = &http.Client{Timeout: 10 * time.Second}
	}
	// A webhook never follows a redirect: a 302 or 303 would turn the
	// POST into a GET without its body, a 307 or 308 would send the item
	// to another host. A 3xx is a failed delivery naming where it points.
	c := *o.Client
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	o.Client = &c
	if o.Log == nil {
		o.Log = io.Discard
	}
	n := &Notifier{api: api, o: o, queue: make(chan delivery, o.Queue), sent: map[string]bool{}, hooks: map[string]string{}}
	for _, u := range o.Webhooks {
		c := WebhookChannel(u)
		if _, dup := n.hooks[c]; !dup {
			n.hooks[c] = u
			n.channels = append(n.channels, c)
		}
	}
	if o.Desktop != nil {
		n.channels = append(n.channels, DesktopChannel)
	}
	return n
}

// Check reads what needs attention now and queues every item (and every
// escalation) not queued before. It returns when the next escalation
// falls due (zero when none will).
func (n *Notifier) Check(ctx context.Context) (time.Time, error) {
	a, err := n.api.Attention(ctx, overview.AttentionFilter{})
	if err != nil {
		return time.Time{}, err
	}
	waiting := map[string]bool{}
	type fresh struct {
		id string
		it overview.AttentionItem
	}
	var news []fresh
	for _, it := range a.Items {
		ids := []string{it.ID()}
		if it.Escalated {
			ids = append(ids, it.ID()+":escalated")
		}
		for _, id := range ids {
			waiting[id] = true
			if !n.sent[id] {
				news = append(news, fresh{id, it})
			}
		}
	}
	if len(news) > 0 {
		ids := make([]string, len(news))
		for i, f := range news {
			ids[i] = f.id
		}
		told := n.delivered(ctx, ids)
		for _, f := range news {
			n.sent[f.id] = true
			var to []string
			for _, c := range n.channels {
				if !told[c][f.id] {
					to = append(to, c)
				}
			}
			if len(to) > 0 {
				n.enqueue(delivery{Payload: n.payload(f.id, f.it, a.EscalateAfter), channels: to})
			}
		}
	}
	for id := range n.sent {
		if !waiting[id] {
			delete(n.sent, id) // accepted or gone: forget it
		}
	}
	return a.NextEscalation, nil
}

func (n *Notifier) enqueue(d delivery) {
	select {
	case n.queue <- d:
	default:
		fmt.Fprintf(n.o.Log, "bb notify: queue full (%d): dropped %s\n", n.o.Queue, d.ID)
	}
}

// delivered reads, per channel, which of ids the board records as
// delivered. A board that cannot answer (a credential without the right)
// is said once; every item is then sent.
func (n *Notifier) delivered(ctx context.Context, ids []string) map[string]map[string]bool {
	out := map[string]map[string]bool{}
	for _, c := range n.channels {
		got, err := n.api.Notified(ctx, c, ids)
		if err != nil {
			n.cannotRecord(ctx, err)
			continue
		}
		out[c] = map[string]bool{}
		for _, id := range got {
			out[c][id] = true
		}
	}
	return out
}

// record marks id delivered to channel c. A delivery that was made is
// recorded even when the notifier is stopping (ctx ended): otherwise a
// stop right after a POST would send it again after the restart.
func (n *Notifier) record(ctx context.Context, c, id string) {
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if err := n.api.MarkNotified(rctx, c, []string{id}); err != nil {
		n.cannotRecord(ctx, err)
	}
}

func (n *Notifier) cannotRecord(ctx context.Context, err error) {
	if ctx.Err() != nil {
		return
	}
	n.unrecorded.Do(func() {
		fmt.Fprintf(n.o.Log, "bb notify: cannot record what was delivered (%s); a restart will send again what still waits\n",
			hub.WordsOf(err, hub.Vocabulary{}))
	})
}

func (n *Notifier) payload(id string, it overview.AttentionItem, after int) Payload {
	p := Payload{ID: id, Type: it.Kind, Escalated: strings.HasSuffix(id, ":escalated"), Agent: it.Agent, To: it.To, BeadID: it.BeadID,
		Subject: it.Subject, Asked: it.Asked, Urgency: it.Urgency, Files: it.Files, Task: it.Task,
		// Choices of a person who is neither side of the item (the
		// overseer the notice reaches).
		Choices:        it.Choices(""),
		WaitingMinutes: it.WaitingMinutes, At: it.At, Board: n.api.Root(), Link: n.o.Dashboard}
	if p.Files == nil {
		p.Files = []string{}
	}
	if p.Reassign = it.Reassign; p.Reassign == nil {
		p.Reassign = []overview.Reassignment{}
	}
	p.Text = Text(p, after)
	return p
}

// Text is the one-line summary of a payload.
func Text(p Payload, escalateAfter int) string {
	on := p.To
	if on == "" {
		on = "everyone"
	}
	about := ""
	switch {
	case p.Task != nil:
		about = " on " + p.Task.Handle + " (" + p.Task.Title + ")"
	case p.BeadID != "":
		about = " on " + p.BeadID
	}
	asked := ""
	if p.Asked != "" {
		asked = ". Asks: " + p.Asked
		if p.Type == overview.AttentionHandoff {
			asked = ". Next: " + p.Asked
		}
		if p.Urgency != "" {
			asked += " (urgency " + p.Urgency + ")"
		}
	}
	if len(p.Files) > 0 {
		asked += ". Files: " + strings.Join(p.Files, ", ")
	}
	switch p.Type {
	case overview.AttentionHandoff, overview.AttentionBlocked:
		verb := "hands over to"
		if p.Type == overview.AttentionBlocked {
			verb = "is blocked on"
		}
		s := fmt.Sprintf("%s %s %s%s: %s%s", p.Agent, verb, on, about, p.Subject, asked)
		if p.Escalated {
			s = fmt.Sprintf("ESCALATED: %s (waiting %d minutes, nobody accepted it within %d)", s, p.WaitingMinutes, escalateAfter)
		}
		return s
	case overview.AttentionStuck:
		return fmt.Sprintf("%s is blocked%s: %s%s", p.Agent, about, p.Subject, asked)
	case overview.AttentionCritical:
		return fmt.Sprintf("critical from %s%s: %s", p.Agent, about, p.Subject)
	case overview.AttentionIncursion:
		return fmt.Sprintf("%s edited inside %s's reservation%s: %s%s", p.Agent, on, about, p.Subject, asked)
	case overview.AttentionUnheard:
		s := strings.ToUpper(p.Subject[:1]) + p.Subject[1:]
		if p.Asked != "" {
			s += ". To do: " + p.Asked
		}
		return s
	}
	return p.Agent + ": " + p.Subject
}

// Run checks at once, then whenever the timeline moves and when the next
// escalation falls due, delivering until ctx ends. Items already waiting
// when it starts are delivered unless the board records them delivered to
// that channel: a restart sends only what was never delivered. A stop lets
// the POST in flight finish and records it; only a process killed between
// a delivery and its record sends that one again (receivers can tell by
// ID).
func (n *Notifier) Run(ctx context.Context) error {
	done := make(chan struct{})
	go func() { defer close(done); n.send(ctx) }()
	defer func() { <-done }()
	moved := make(chan struct{}, 1)
	signal := func() {
		select {
		case moved <- struct{}{}:
		default:
		}
	}
	// The follow signals once it is in place, then whenever the timeline
	// moves; the first check waits for that first signal: what is
	// committed before it is read by the check, what comes after moves
	// the follow. Checking before would miss an item committed between
	// the check's read and the follow's start.
	follow := make(chan error, 1)
	go func() {
		started := func(int64) error { signal(); return nil }
		follow <- n.api.Follow(ctx, hub.FollowInput{Started: started}, func(hub.Event) error { signal(); return nil })
	}()
	due := time.NewTimer(time.Hour)
	due.Stop()
	defer due.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case err := <-follow:
			return stopped(ctx, err)
		case <-moved:
		case <-due.C:
		}
		next, err := n.Check(ctx)
		if err != nil && ctx.Err() == nil {
			fmt.Fprintf(n.o.Log, "bb notify: %s\n", hub.WordsOf(err, hub.Vocabulary{}))
		}
		due.Stop()
		if !next.IsZero() {
			due.Reset(max(next.Sub(n.api.Now()), time.Second))
		}
	}
}

// stopped is how Run ends when the follow returns err: quietly when ctx
// ended it, else with err.
func stopped(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return nil
	}
	return err
}

// send delivers the queue to every webhook until ctx ends.
func (n *Notifier) send(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case d := <-n.queue:
			p := d.Payload
			if n.o.Desktop != nil && slices.Contains(d.channels, DesktopChannel) {
				if err := n.o.Desktop(ctx, DesktopTitle(p), p.Text); err != nil {
					if ctx.Err() == nil {
						fmt.Fprintf(n.o.Log, "bb notify: desktop notification of %s failed: %v\n", p.ID, err)
					}
				} else {
					n.record(ctx, DesktopChannel, p.ID)
				}
			}
			body, _ := json.Marshal(p)
			for _, c := range d.channels {
				url, ok := n.hooks[c]
				if !ok {
					continue
				}
				if err := n.post(ctx, url, body); err != nil {
					if ctx.Err() == nil {
						fmt.Fprintf(n.o.Log, "bb notify: dropped %s for %s after %d attempts: %v\n", p.ID, url, n.o.Attempts, err)
						if n.o.Delivered != nil {
							n.o.Delivered(false)
						}
					}
				} else {
					n.record(ctx, c, p.ID)
					if n.o.Delivered != nil {
						n.o.Delivered(true)
					}
				}
			}
		}
	}
}

// post delivers body to url, retrying with a doubling pause.
func (n *Notifier) post(ctx context.Context, url string, body []byte) error {
	pause := n.o.Backoff
	var err error
	for attempt := 1; ; attempt++ {
		if err = n.postOnce(ctx, url, body); err == nil {
			return nil
		}
		if attempt == n.o.Attempts {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(pause):
		}
		pause *= 2
	}
}

// postOnce makes one attempt. A stop (ctx ended) does not cut an attempt
// in flight: the receiver may already have the item, and only an answer
// read here lets it be recorded, so that a restart does not send it
// again. The attempt stays bounded by the client's timeout, or by
// stopWait when the client has none.
func (n *Notifier) postOnce(ctx context.Context, url string, body []byte) error {
	actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), stopWait)
	defer cancel()
	req, err := http.NewRequestWithContext(actx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "bb-notify")
	resp, err := n.o.Client.Do(req)
	if err != nil {
		return err
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
	resp.Body.Close()
	if resp.StatusCode/100 == 3 {
		return fmt.Errorf("HTTP %d, a redirect to %q: webhooks do not follow redirects; set the webhook to the final URL", resp.StatusCode, resp.Header.Get("Location"))
	}
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("HTTP %d", resp.StatusCode)
	}
	return nil
}

// DesktopTitle is the title of an item's desktop notification.
func DesktopTitle(p Payload) string {
	t := "Blackboard: " + p.Type
	if p.Escalated {
		t += " (escalated)"
	}
	return t
}
