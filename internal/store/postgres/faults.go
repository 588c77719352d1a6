package postgres

import (
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"syscall"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/blackboard-hub/bb/internal/hub"
)

// Unreachable reports whether err means the server cannot be reached or
// dropped the connection: nothing to do with the request, and gone once the
// server is back (a restart, a failover, a network cut). Refused logins
// and missing databases are not outages: they stay as they are.
func Unreachable(err error) bool {
	if err == nil {
		return false
	}
	var ce *pgconn.ConnectError
	if errors.As(err, &ce) {
		// A server that answers but refuses (authentication, no such
		// database) is a configuration error, not an outage.
		var pe *pgconn.PgError
		if errors.As(err, &pe) {
			return unreachableState(pe.Code)
		}
		return true
	}
	if s := SQLState(err); s != "" {
		return unreachableState(s)
	}
	var ne net.Error
	switch {
	case errors.As(err, &ne),
		errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF),
		errors.Is(err, driver.ErrBadConn), errors.Is(err, pgconn.ErrConnClosed),
		errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE):
		return true
	}
	// pgx reports a connection lost in the middle of a call as text
	// ("conn closed", "failed to deallocate cached statement…: conn closed").
	return strings.Contains(err.Error(), "conn closed")
}

// unreachableState: connection exceptions (class 08), and a server
// shutting down, crashed, or starting up (57P01–57P03).
func unreachableState(code string) bool {
	return strings.HasPrefix(code, "08") || code == "57P01" || code == "57P02" || code == "57P03"
}

// explain is the dialect's Explain: an unreachable server is
// DATABASE_UNAVAILABLE (503 with Retry-After over HTTP), naming the cause
// without the driver's wrapping; other failures stay internal errors.
func explain(loc string) func(error) error {
	return func(err error) error {
		if !Unreachable(err) {
			return nil
		}
		return hub.Unavailable(fmt.Sprintf("cannot reach PostgreSQL at %s (%s): retry once it is back", loc, shortErr(err)), err)
	}
}
