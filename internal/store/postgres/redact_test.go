package postgres

import (
	"net/url"
	"testing"
)

// Redact replaces the password, in the user info or in the query, with
// xxxxx and changes nothing else.
func FuzzRedact(f *testing.F) {
	f.Add("bb", "s3cret", "db.internal:5432", "blackboard")
	f.Add("u", "p@ss:w/rd?", "127.0.0.1", "x")
	f.Add("", "", "host", "")
	f.Fuzz(func(t *testing.T, user, pass, host, db string) {
		if pass == "" {
			t.Skip()
		}
		u := &url.URL{Scheme: "postgres", User: url.UserPassword(user, pass), Host: host, Path: "/" + db}
		if _, err := url.Parse(u.String()); err != nil {
			t.Skip() // not a URL pgx would accept either
		}
		want := &url.URL{Scheme: "postgres", User: url.UserPassword(user, "xxxxx"), Host: host, Path: "/" + db}
		if got := Redact(u.String()); got != want.String() {
			t.Fatalf("Redact(%q) = %q, want %q", u.String(), got, want.String())
		}
		q := &url.URL{Scheme: "postgres", Host: host, Path: "/" + db, RawQuery: url.Values{"password": {pass}, "sslmode": {"disable"}}.Encode()}
		wantQ := &url.URL{Scheme: "postgres", Host: host, Path: "/" + db, RawQuery: url.Values{"password": {"xxxxx"}, "sslmode": {"disable"}}.Encode()}
		if got := Redact(q.String()); got != wantQ.String() {
			t.Fatalf("Redact(%q) = %q, want %q", q.String(), got, wantQ.String())
		}
	})
}

func TestIsURL(t *testing.T) {
	for s, want := range map[string]bool{
		"postgres://h/db": true, "postgresql://u@h/db": true, "mysql://h/db": false,
		"host=x dbname=y": false, ".bb/blackboard.db": false, "": false,
	} {
		if IsURL(s) != want {
			t.Errorf("IsURL(%q) = %v", s, !want)
		}
	}
}
