package server

import (
	"html/template"
	"net/http"
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
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_ = loginPage.Execute(w, msg)
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
	http.Redirect(w, r, "/", http.StatusSeeOther)
}
