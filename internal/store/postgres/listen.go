package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
)

// Listen calls wake every time a write transaction commits on the database
// at rawURL, from any process (each one NOTIFYs NotifyChannel on commit),
// until ctx ends; then it returns ctx's error. A lost connection is
// re-established with a growing pause (up to 5 s), and wake is called after
// every (re)connection, since commits made while disconnected sent no
// signal. onErr, when not nil, hears about each connection failure.
func Listen(ctx context.Context, rawURL string, wake func(), onErr func(error)) error {
	return ListenLive(ctx, rawURL, wake, nil, onErr)
}

// ListenLive is Listen that also calls live (when not nil) with true once
// listening and with false when the connection is lost: while it is, the
// caller must find commits some other way (a poll).
func ListenLive(ctx context.Context, rawURL string, wake func(), live func(bool), onErr func(error)) error {
	if live == nil {
		live = func(bool) {}
	}
	cfg, err := pgx.ParseConfig(rawURL)
	if err != nil {
		return err
	}
	pause := 100 * time.Millisecond
	for {
		err := listenOnce(ctx, cfg, wake, live)
		live(false)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if onErr != nil && err != nil {
			onErr(err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(pause):
		}
		if pause *= 2; pause > 5*time.Second {
			pause = 5 * time.Second
		}
	}
}

func listenOnce(ctx context.Context, cfg *pgx.ConnConfig, wake func(), live func(bool)) error {
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(ctx, "LISTEN "+NotifyChannel); err != nil {
		return err
	}
	live(true)
	wake()
	for {
		if _, err := conn.WaitForNotification(ctx); err != nil {
			return err
		}
		wake()
	}
}
