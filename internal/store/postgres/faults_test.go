package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/blackboard-hub/bb/internal/store/postgres"
)

// An outage (nothing listening, a server shutting down or starting up, a
// dropped connection) is told apart from a server that answers and refuses.
func TestUnreachable(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, dialErr := pgconn.Connect(ctx, "postgres://bb@127.0.0.1:1/x?sslmode=disable&connect_timeout=2")
	if dialErr == nil {
		t.Fatal("connected to port 1")
	}
	for _, c := range []struct {
		err  error
		want bool
	}{
		{dialErr, true},
		{&pgconn.PgError{Code: "57P01", Message: "terminating connection due to administrator command"}, true},
		{&pgconn.PgError{Code: "57P03", Message: "the database system is starting up"}, true},
		{&pgconn.PgError{Code: "08006", Message: "connection failure"}, true},
		{fmt.Errorf("commit: %w", io.ErrUnexpectedEOF), true},
		{fmt.Errorf("query: %w", pgconn.ErrConnClosed), true},
		{&pgconn.PgError{Code: "28P01", Message: "password authentication failed"}, false},
		{&pgconn.PgError{Code: "3D000", Message: "database does not exist"}, false},
		{&pgconn.PgError{Code: "23505", Message: "duplicate key"}, false},
		{context.Canceled, false},
		{errors.New("something else"), false},
	} {
		if got := postgres.Unreachable(c.err); got != c.want {
			t.Errorf("Unreachable(%v) = %v, want %v", c.err, got, c.want)
		}
	}
}
