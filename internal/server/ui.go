package server

import (
	"github.com/blackboard-hub/bb/internal/hub/leases"

	"github.com/blackboard-hub/bb/internal/hub/search"

	"bytes"
	"embed"
	"errors"
	"fmt"
	"hash/fnv"
	"html/template"
	"io/fs"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/hub/hooks"
	"github.com/blackboard-hub/bb/internal/hub/overview"
)

//go:embed assets
var assetFS embed.FS

// humanCookie remembers the name a person acts under on the dashboard.
const humanCookie = "bb_human"

// defaultHuman is the dashboard identity until the person picks a name.
const defaultHuman = "human"

// ui is the Sessions dashboard: server-rendered pages and fragments that
// htmx swaps when the event stream says something changed.
type ui struct {
	s     *Server
	tmpl  *template.Template
	files http.Handler
}

func newUI(s *Server) (*ui, error) {
	t, err := template.New("").Funcs(template.FuncMap{
		"ago":       func(t time.Time) string { return ago(s.svc.Now(), t) },
		"iso":       func(t time.Time) string { return t.UTC().Format(time.RFC3339) },
		"query":     url.QueryEscape,
		"initial":   initial,
		"lower":     strings.ToLower,
		"has":       strings.Contains,
		"hue":       hue,
		"deref":     func(p *string) string { return deref(p) },
		"marked":    marked,
		"words":     statusWord,
		"base":      baseName,
		"isTo":      func(m *hub.Message, who string) bool { return m.To == who },
		"need":      needWords,
		"canAccept": canAccept,
		"choices":   choices,
		"asked":     askedWords,
		"short":     hub.ShortID,
		"handles":   hub.HandleText,
		"eventName": hub.EventName,
		"list":      func(s ...string) []string { return s },
		"attnLabel": attentionLabel,
		"attnHref":  attentionHref,
		"delivery": func(d map[string]hooks.DeliveryReceipt, id string) *hooks.DeliveryReceipt {
			if r, ok := d[id]; ok {
				return &r
			}
			return nil
		},
		"heard": func(to string, r *hooks.DeliveryReceipt) string { return capitalize(hooks.DeliveredWords(to, r.Via)) },
		"clock": func(t time.Time) string { return clock(s.svc.Now(), t) },
	}).ParseFS(assetFS, "assets/templates/*.html")
	if err != nil {
		return nil, fmt.Errorf("dashboard templates: %w", err)
	}
	static, err := fs.Sub(assetFS, "assets/static")
	if err != nil {
		return nil, err
	}
	return &ui{s: s, tmpl: t, files: http.StripPrefix("/static/", http.FileServerFS(static))}, nil
}

func (u *ui) routes(m router) {
	m.HandleFunc("GET /{$}", u.page)
	m.HandleFunc(loginPath, u.s.login)
	m.Handle("GET /static/", u.static())
	m.HandleFunc("GET /ui/agents", u.fragment("agents", u.agentsData))
	m.HandleFunc("GET /ui/feed", u.fragment("feed", u.feedData))
	m.HandleFunc("GET /ui/conversation", u.fragment("conversation", func(r *http.Request, d *pageData) error {
		if err := u.feedData(r, d); err != nil {
			return err
		}
		return u.conversationData(r, d)
	}))
	m.HandleFunc("GET /ui/timeline", u.fragment("timeline", u.conversationData))
	m.HandleFunc("POST /ui/post", u.post)
	m.HandleFunc("POST /ui/read/{id}", u.receipt(false))
	m.HandleFunc("POST /ui/ack/{id}", u.receipt(true))
	m.HandleFunc("POST /ui/identity", u.identity)
	m.HandleFunc("GET /ui/counts", u.fragment("counts", u.feedData))
	m.HandleFunc("POST /ui/send", u.send)
	m.HandleFunc("POST /ui/answer/{id}", u.answer)
	m.HandleFunc("POST /ui/stepin", u.stepIn)
	m.HandleFunc("POST /ui/lease/stepin", u.leaseStepIn)
	m.HandleFunc("GET /ui/needs", u.fragment("needs", u.needsData))
	m.HandleFunc("POST /ui/needs/ack/{id}", u.needsAccept)
	m.HandleFunc("POST /ui/needs/answer", u.needsAnswer)
	m.HandleFunc("POST /ui/needs/nudge", u.needsNudge)
	m.HandleFunc("POST /ui/needs/reassign", u.needsReassign)
}

func (u *ui) static() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "public, max-age=300")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		u.files.ServeHTTP(w, r)
	})
}

// viewer is the human identity of this browser: the agent of its
// credential when it signed in with one, else the name it picked.
func (u *ui) viewer(r *http.Request) string {
	if own := hub.Acting(r.Context()); own != "" {
		return own
	}
	if c, err := r.Cookie(humanCookie); err == nil && hub.ValidateBoardAgentID(c.Value) == nil {
		return c.Value
	}
	return defaultHuman
}

// pageData is everything the templates read.
type pageData struct {
	Viewer string
	// Fixed is set when the credential names the viewer (Credential,
	// Role); Local when nobody signed in on a token-less server.
	Fixed            bool
	Local            bool
	Credential, Role string
	Session          string
	Sessions         overview.Sessions
	Title            string
	Items            []overview.TimelineItem
	Error            string
	Root             string
	Backend          string
	Reserv           []reservationRow
	// Leases held or waited for (the Leases panel), and each agent's
	// as its card names them.
	Leases      []leases.Status
	AgentLeases map[string][]string
	// Query is the search box's text; Results its answer (the search view).
	Query   string
	Results *search.Result
	// Attention is what needs a person in the conversation: the core's
	// list (overview.Attention) for its work item or agent (ui_needs.go).
	Attention []overview.AttentionItem
	// Delivered holds, by message id, when and how a direct message
	// reached its recipient's context (a hook of a turn, a wake, a wait).
	Delivered map[string]hooks.DeliveryReceipt
	// Needs is what needs a person board-wide (ui_needs.go); NeedsDue the
	// seconds until its next escalation (0: none coming).
	Needs    *overview.Attention
	NeedsDue int
	// Hide hides stale and offline agents; Tab is the phone tab shown.
	Hide bool
	Tab  string
	// MaxText is the board's limit on a message's text, the composer's;
	// MaxSubject on a mail's subject.
	MaxText, MaxSubject int
}

// reservationRow is one active reservation shown on the dashboard.
type reservationRow struct {
	Agent  string
	Scope  string
	BeadID string
	// Handle is the work item as shown: a task's handle, else its id.
	Handle   string
	Expires  time.Time
	Expired  bool
	Presence hub.Presence
	// Overlaps names other agents whose active reservations overlap.
	Overlaps []string
	// StepIn is true past the takeover threshold: the person may release
	// the reservation or hand it to another agent.
	StepIn bool
}

func (u *ui) base(r *http.Request) *pageData {
	q := r.URL.Query()
	tab := q.Get("tab")
	if tab != "agents" && tab != "work" {
		tab = "convo"
	}
	d := &pageData{Viewer: u.viewer(r), Session: q.Get("session"), Query: strings.TrimSpace(q.Get("q")),
		Hide: q.Get("hide") == "stale", Tab: tab,
		Root: u.s.svc.Root(), Backend: u.s.backend, MaxText: hub.MaxMessageLen, MaxSubject: hub.MaxSubjectLen}
	if p, ok := hub.PrincipalFrom(r.Context()); ok {
		d.Fixed, d.Credential, d.Role = hub.Acting(r.Context()) != "", p.Credential, string(p.Role)
	} else {
		d.Local = true
	}
	return d
}

func (u *ui) agentsData(r *http.Request, d *pageData) error {
	ss, err := u.s.svc.Sessions(r.Context(), d.Viewer)
	if err != nil {
		return err
	}
	d.Sessions = ss
	if d.Reserv, err = u.s.reservations(r.Context(), ss.Agents); err != nil {
		return err
	}
	if d.Leases, err = u.s.svc.ListLeases(r.Context(), leases.ListFilter{}); err != nil {
		return err
	}
	d.AgentLeases = map[string][]string{}
	for _, st := range d.Leases {
		for _, h := range st.Holders {
			name := h.Name
			if h.Value != "" {
				name += " = " + h.Value
			}
			d.AgentLeases[h.Agent] = append(d.AgentLeases[h.Agent], name)
		}
	}
	return nil
}

func (u *ui) feedData(r *http.Request, d *pageData) error {
	ss, err := u.s.svc.Sessions(r.Context(), d.Viewer)
	d.Sessions = ss
	return err
}

func (u *ui) conversationData(r *http.Request, d *pageData) error {
	items, err := u.s.svc.Conversation(r.Context(), d.Session, d.Viewer)
	if err != nil {
		return err
	}
	// Newest first: what just happened is on top, where the reader starts.
	slices.Reverse(items)
	d.Items = items
	if d.Attention, err = u.sessionAttention(r, d.Session); err != nil {
		return err
	}
	if d.Delivered, err = u.delivered(r, items, d.Viewer); err != nil {
		return err
	}
	d.Title = sessionTitle(d.Session)
	// A work item reads by its title (the task's or its latest subject).
	for _, g := range d.Sessions.Feed {
		for _, c := range g.Cards {
			if c.Key == d.Session && c.Title != "" {
				d.Title = c.Title
			}
		}
	}
	return nil
}

func sessionTitle(key string) string {
	kind, id, _ := strings.Cut(key, ":")
	switch kind {
	case "bead":
		return id
	case "agent":
		return id + "’s session"
	}
	return "Everything"
}

func (u *ui) page(w http.ResponseWriter, r *http.Request) {
	d := u.base(r)
	var err error
	if err = u.agentsData(r, d); err == nil {
		err = u.conversationData(r, d)
	}
	if err == nil {
		err = u.needsData(r, d)
	}
	if err == nil && d.Query != "" {
		err = u.searchData(r, d)
	}
	if err != nil {
		d.Error = hub.MessageOf(err)
		d.Session, d.Results = "", nil
		_ = u.conversationData(r, d)
	}
	u.render(w, "page", d)
}

func (u *ui) fragment(name string, load func(*http.Request, *pageData) error) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		d := u.base(r)
		if err := load(r, d); err != nil {
			u.fail(w, err)
			return
		}
		u.render(w, name, d)
	}
}

func (u *ui) render(w http.ResponseWriter, name string, d *pageData) {
	var buf bytes.Buffer
	if err := u.tmpl.ExecuteTemplate(&buf, name, d); err != nil {
		u.s.log.Error("render dashboard", "template", name, "err", err)
		http.Error(w, "cannot render the page", http.StatusInternalServerError)
		return
	}
	pageHeaders(w.Header())
	_, _ = w.Write(buf.Bytes())
}

// pageHeaders are the headers of every HTML page the server answers (the
// dashboard's and the sign-in pages): never cached, never framed, no
// referrer (a sign-in link carries a credential), scripts and styles of
// this origin only.
func pageHeaders(h http.Header) {
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Content-Security-Policy", "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; form-action 'self'")
}

// fail answers an htmx request with an error line it shows in place.
func (u *ui) fail(w http.ResponseWriter, err error) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("HX-Retarget", "#flash")
	w.Header().Set("HX-Reswap", "innerHTML")
	if ra := retryAfter(hub.CodeOf(err)); ra != "" {
		w.Header().Set("Retry-After", ra)
	}
	w.WriteHeader(StatusOf(hub.CodeOf(err)))
	_ = u.tmpl.ExecuteTemplate(w, "flash", hub.MessageOf(err))
}

func (u *ui) form(w http.ResponseWriter, r *http.Request) error {
	r.Body = http.MaxBytesReader(w, r.Body, MaxBodyBytes)
	if err := r.ParseForm(); err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return hub.FieldErr(hub.CodeInvalidInput, "content", "the post is too large: at most %d bytes", mbe.Limit)
		}
		// The form parser's own text is not for people.
		return hub.Errorf(hub.CodeInvalidInput, "cannot read the form: send it as application/x-www-form-urlencoded")
	}
	return nil
}

// post lets the person post on the board. In a bead's conversation the
// post answers the bead's latest message, so it joins that bead.
func (u *ui) post(w http.ResponseWriter, r *http.Request) {
	if err := u.form(w, r); err != nil {
		u.fail(w, err)
		return
	}
	d := u.base(r)
	d.Session = r.PostForm.Get("session")
	in := hub.PostInput{From: d.Viewer, Content: r.PostForm.Get("content"), Priority: r.PostForm.Get("priority")}
	if kind, _, _ := strings.Cut(d.Session, ":"); kind == "bead" {
		items, err := u.s.svc.Conversation(r.Context(), d.Session, d.Viewer)
		if err != nil {
			u.fail(w, err)
			return
		}
		for i := len(items) - 1; i >= 0; i-- {
			if items[i].Message != nil {
				in.ReplyTo = items[i].Message.Seq
				break
			}
		}
	}
	res := u.s.posts.post(r.Context(), hub.PostOp{In: in, CheckIn: true})
	if res.Err != nil {
		u.fail(w, res.Err)
		return
	}
	u.timeline(w, r, d)
}

// receipt marks a message seen (read) or accepted (ack) by the person.
func (u *ui) receipt(ack bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		d := u.base(r)
		var err error
		if ack {
			err = u.s.ack(r.Context(), d.Viewer, r.PathValue("id"))
		} else {
			err = u.s.markRead(r.Context(), d.Viewer, r.PathValue("id"))
		}
		if err != nil {
			u.fail(w, err)
			return
		}
		u.timeline(w, r, d)
	}
}

// identity sets the name the person acts under (a cookie).
func (u *ui) identity(w http.ResponseWriter, r *http.Request) {
	if err := u.form(w, r); err != nil {
		u.fail(w, err)
		return
	}
	name := strings.TrimSpace(r.PostForm.Get("name"))
	if err := hub.ValidateBoardAgentID(name); err != nil {
		u.fail(w, err)
		return
	}
	if err := hub.Allow(r.Context(), hub.Act(name)); err != nil {
		u.fail(w, err)
		return
	}
	http.SetCookie(w, &http.Cookie{Name: humanCookie, Value: name, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode, MaxAge: 365 * 24 * 3600})
	w.Header().Set("HX-Refresh", "true")
	w.WriteHeader(http.StatusNoContent)
}

func ago(now, t time.Time) string { return hub.WhenText(now, t) }

// initial is an agent's avatar text: the first letters of its first two
// words ("amber-otter" → "AO"), else its first two letters ("bob" → "BO").
func initial(s string) string {
	words := strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	var out []rune
	for _, w := range words {
		r, _ := utf8.DecodeRuneInString(w)
		out = append(out, r)
		if len(out) == 2 {
			break
		}
	}
	if len(out) < 2 && len(words) > 0 {
		out = []rune(words[0])
		if len(out) > 2 {
			out = out[:2]
		}
	}
	if len(out) == 0 {
		return "?"
	}
	return strings.ToUpper(string(out))
}

// hue gives each agent a stable avatar colour: a hash of the whole name
// spread over the colour wheel in 24 well-separated steps.
func hue(s string) int {
	h := fnv.New32a()
	_, _ = h.Write([]byte(s))
	return int(h.Sum32()%24) * 15
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}
