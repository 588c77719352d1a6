package mcp

import (
	"bytes"
	"context"
	"errors"
	"io"
	"sync/atomic"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// inflight counts requests being handled, so that the end of input can
// wait for the answers to the requests read before it.
type inflight struct {
	n       atomic.Int64 // being handled
	started atomic.Int64 // ever started
	last    atomic.Int64 // unix nanos of the last read, start or end
}

func (f *inflight) touch() { f.last.Store(time.Now().UnixNano()) }

func (f *inflight) middleware(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		f.n.Add(1)
		f.started.Add(1)
		f.touch()
		defer func() {
			f.touch()
			f.n.Add(-1)
		}()
		return next(ctx, method, req)
	}
}

// drainReader delays the end of input until the requests read before it
// have been answered (bounded by limit), so that `printf … | bb mcp` gets
// every answer and a client that closes stdin right after its last call
// still gets that call's reply.
type drainReader struct {
	r     io.Reader
	f     *inflight
	lines *int64
	limit time.Duration
}

func (d drainReader) Read(p []byte) (int, error) {
	n, err := d.r.Read(p)
	if n > 0 {
		*d.lines += int64(bytes.Count(p[:n], []byte{'\n'}))
		if p[n-1] != '\n' {
			*d.lines++ // a last line without newline (over-counts a split line: the quiet rule below covers it)
		}
		d.f.touch()
	}
	if errors.Is(err, io.EOF) && n == 0 {
		deadline := time.Now().Add(d.limit)
		for time.Now().Before(deadline) {
			since := time.Since(time.Unix(0, d.f.last.Load()))
			// Every line read reached a handler (or nothing happened for a
			// while: blank or malformed lines never do), none is running,
			// and the last answer had a moment to be written.
			if d.f.n.Load() == 0 && since >= 10*time.Millisecond && (d.f.started.Load() >= *d.lines || since >= 200*time.Millisecond) {
				break
			}
			time.Sleep(2 * time.Millisecond)
		}
	}
	return n, err
}

func (d drainReader) Close() error { return nil }

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// ServeIO runs one MCP session on in/out (newline-delimited JSON-RPC, as
// on stdio) until the input ends or ctx is cancelled (SIGINT/SIGTERM).
// Either way the server stops accepting requests and waits up to drain for
// the calls in progress, whose transactions always run to completion. A
// normal end returns nil.
func (s *Server) ServeIO(ctx context.Context, in io.Reader, out io.Writer, drain time.Duration) error {
	t := &sdk.IOTransport{Reader: drainReader{r: in, f: &s.inflight, lines: new(int64), limit: drain}, Writer: nopWriteCloser{out}}
	ss, err := s.sdk.Connect(context.WithoutCancel(ctx), t, nil)
	if err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() { done <- ss.Wait() }()
	select {
	case err := <-done:
		if err == nil || errors.Is(err, io.EOF) || errors.Is(err, io.ErrClosedPipe) {
			return nil
		}
		return err
	case <-ctx.Done():
		closed := make(chan struct{})
		go func() { _ = ss.Close(); close(closed) }()
		select {
		case <-closed:
		case <-time.After(drain):
		}
		return nil
	}
}
