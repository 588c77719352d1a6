package server

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/blackboard-hub/bb/internal/hub"
)

// A database that cannot be reached, or is busy, is 503 with Retry-After
// and its own code; other failures carry no Retry-After.
func TestUnavailableAnswers503WithRetryAfter(t *testing.T) {
	for _, c := range []struct {
		err        error
		status     int
		retryAfter string
		code       string
	}{
		{hub.Unavailable("cannot reach PostgreSQL at postgres://x (connection refused): retry once it is back", errors.New("dial")), 503, "2", "DATABASE_UNAVAILABLE"},
		{hub.Busy(errors.New("locked")), 503, "1", "DATABASE_BUSY"},
		{hub.Internal("database operation", errors.New("boom")), 500, "", "INTERNAL_ERROR"},
		{hub.Errorf(hub.CodeInvalidInput, "bad"), 400, "", "INVALID_INPUT"},
	} {
		w := httptest.NewRecorder()
		writeError(w, "post", c.err, 0)
		if w.Code != c.status || w.Header().Get("Retry-After") != c.retryAfter {
			t.Errorf("%v: status %d, Retry-After %q; want %d, %q", c.err, w.Code, w.Header().Get("Retry-After"), c.status, c.retryAfter)
		}
		var env struct {
			Error struct {
				Code string `json:"code"`
			} `json:"error"`
		}
		if err := json.Unmarshal(w.Body.Bytes(), &env); err != nil || env.Error.Code != c.code {
			t.Errorf("%v: body %s", c.err, w.Body.String())
		}
	}
	if StatusOf(hub.CodeDatabaseUnavailable) != http.StatusServiceUnavailable {
		t.Error("DATABASE_UNAVAILABLE is not 503")
	}
}
