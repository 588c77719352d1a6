package server

import (
	"html/template"
	"net/http"
	"net/url"
	"strings"

	"github.com/blackboard-hub/bb/internal/hub"
)

// loginPath is the dashboard's sign-in page: it takes a token (the
// operator's or a credential from bb token create) and keeps it in an
// HttpOnly, SameSite=Strict cookie; the dashboard then knows who you are
// from it. POST with logout=1 signs out.
const loginPath = "/login"

var loginPage = template.Must(template.New("login").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Sign in · Blackboard</title>
<style>body{font:16px system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem}input{width:100%;padding:.4rem;margin:.4rem 0}.error{color:#b00}</style></head>
<body><main>
<h1>Sign in to Blackboard</h1>
<p class="muted">Paste the token you were given: the server's token (the operator's) or a credential from <code>bb token create</code>. It is kept in a cookie this browser sends only to this page's origin.</p>
{{if .}}<p class="error" role="alert" id="login-error">{{.}}</p>{{end}}
<form method="post" action="/login">
<label for="token">Token</label>
<input id="token" name="token" type="password" autocomplete="off" required>
<button class="btn" type="submit">Sign in</button>
</form></main></body></html>
`))

// renderLogin writes the sign-in page (msg: why the last try failed).
func renderLogin(w http.ResponseWriter, status int, msg string) {
	pageHeaders(w.Header())
	w.WriteHeader(status)
	_ = loginPage.Execute(w, msg)
}

// switchPage asks before a sign-in link (?token=) changes who this browser
// is: when it would replace the credential the browser is signed in with,
// or sign it in as an agent (a link another agent may have mailed). Only
// a click on this server's own page (a same-origin POST /login) signs in.
var switchPage = template.Must(template.New("switch").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Sign in? · Blackboard</title>
<style>body{font:16px system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem}.btn{padding:.4rem .8rem}</style></head>
<body><main>
<h1>Sign in with this link?</h1>
<p id="switch-new">This link signs this browser in as <strong>{{.New}}</strong>.</p>
{{if .Current}}<p id="switch-current">You are signed in as <strong>{{.Current}}</strong>; signing in with the link replaces it.</p>{{end}}
<p>Sign in only with a link you asked for: an agent can mail a link that makes this browser act as that agent.</p>
<form method="post" action="/login">
<input type="hidden" name="token" value="{{.Token}}">
<input type="hidden" name="next" value="{{.Next}}">
<button class="btn" id="switch-yes" type="submit">Sign in as {{.Who}}</button>
</form>
<p><a id="switch-no" href="{{.Next}}">{{if .Current}}Stay signed in as {{.CurrentWho}}{{else}}Do not sign in{{end}}</a></p>
</main></body></html>
`))

// principalWords names a credential for a person: "mallory (an agent's
// credential, mallory-cred)"; the operator's token names no agent.
func principalWords(p hub.Principal) string {
	if p.Agent == "" {
		return "the operator (the server's token)"
	}
	return p.Agent + " (" + string(p.Role) + " credential " + p.Credential + ")"
}

func principalWho(p hub.Principal) string {
	if p.Agent == "" {
		return "the operator"
	}
	return p.Agent
}

// renderSwitch asks before the link's credential (p, secret tok) replaces
// the browser's (cur, nil when none) and then goes to next.
func renderSwitch(w http.ResponseWriter, p hub.Principal, cur *hub.Principal, tok, next string) {
	d := struct{ New, Who, Current, CurrentWho, Token, Next string }{New: principalWords(p), Who: principalWho(p), Token: tok, Next: next}
	if cur != nil {
		d.Current, d.CurrentWho = principalWords(*cur), principalWho(*cur)
	}
	pageHeaders(w.Header())
	w.WriteHeader(http.StatusOK)
	_ = switchPage.Execute(w, d)
}

// localTarget is where a sign-in goes on to: u's path and query (the
// token taken out) on this server, never another: a path that begins with
// "//" or "/\" is a URL of another host to a browser, so every leading
// slash and backslash becomes one slash.
func localTarget(u *url.URL) string {
	p := "/" + strings.TrimLeft(u.EscapedPath(), "/\\")
	q := u.Query()
	q.Del("token")
	if enc := q.Encode(); enc != "" {
		p += "?" + enc
	}
	return p
}

// nextTarget is localTarget of a form's next field ("/" when absent or
// unreadable).
func nextTarget(next string) string {
	u, err := url.Parse(next)
	if err != nil || next == "" {
		return "/"
	}
	return localTarget(&url.URL{Path: u.Path, RawPath: u.RawPath, RawQuery: u.RawQuery})
}

func (s *Server) login(w http.ResponseWriter, r *http.Request) {
	render := func(status int, msg string) { renderLogin(w, status, msg) }
	if r.Method != http.MethodPost {
		render(http.StatusOK, "")
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
	if err := r.ParseForm(); err != nil {
		render(http.StatusBadRequest, "cannot read the form")
		return
	}
	if r.PostForm.Get("logout") != "" {
		http.SetCookie(w, &http.Cookie{Name: tokenCookie, Value: "", Path: "/", MaxAge: -1, HttpOnly: true, SameSite: http.SameSiteStrictMode})
		http.Redirect(w, r, loginPath, http.StatusSeeOther)
		return
	}
	tok := strings.TrimSpace(r.PostForm.Get("token"))
	if _, err := s.principal(r.Context(), tok); err != nil {
		render(http.StatusUnauthorized, hub.MessageOf(err))
		return
	}
	setTokenCookie(w, r, tok)
	http.Redirect(w, r, nextTarget(r.PostForm.Get("next")), http.StatusSeeOther)
}

// linkSignIn is a GET with ?token=: a valid credential signs the browser
// in and goes on to the same page on this server, without the token,
// unless it would replace the credential the browser holds or sign it in
// as an agent: then it asks first (renderSwitch). It reports whether it
// answered.
func (s *Server) linkSignIn(w http.ResponseWriter, r *http.Request, tok string) bool {
	p, err := s.principal(r.Context(), tok)
	if err != nil {
		return false
	}
	next := localTarget(r.URL)
	var cur *hub.Principal
	if c := requestToken(r); c != "" && c != tok {
		if cp, err := s.principal(r.Context(), c); err == nil {
			cur = &cp
		}
	}
	if cur != nil || p.Role == hub.AccessAgent {
		renderSwitch(w, p, cur, tok, next)
		return true
	}
	setTokenCookie(w, r, tok)
	http.Redirect(w, r, next, http.StatusSeeOther)
	return true
}
