package mcp

import (
	"context"
	"fmt"
	"io"
	"time"
)

// ServeIO runs one MCP session on in/out (newline-delimited JSON-RPC, as
// on stdio) until the input ends or ctx is cancelled (SIGINT/SIGTERM).
//
// At the end of input every request already read is answered, then ServeIO
// returns nil. When ctx is cancelled the server stops reading, lets the
// calls in progress finish for up to drain (their transactions always run
// to completion) and returns nil, or an error naming the calls left
// unanswered. A read or write error (a closed stdout) is returned too, so
// that the process exits non-zero on an abnormal end.
func (s *Server) ServeIO(ctx context.Context, in io.Reader, out io.Writer, drain time.Duration) error {
	c := newLineConn(in, out)
	ss, err := s.sdk.Connect(context.WithoutCancel(ctx), lineTransport{c}, nil)
	if err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() { done <- ss.Wait() }()
	select {
	case <-done:
		return c.Err()
	case <-ctx.Done():
		deadline := time.Now().Add(drain)
		for c.Pending() > 0 && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond)
		}
		left := c.Pending()
		_ = c.Close()
		_ = ss.Close()
		if err := c.Err(); err != nil {
			return err
		}
		if left > 0 {
			return fmt.Errorf("stopped with %d request(s) unanswered after waiting %s", left, drain)
		}
		return nil
	}
}
