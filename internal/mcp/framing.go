package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// MaxMessageBytes bounds one JSON-RPC message (a stdio line, an HTTP
// body): 4 MiB.
const MaxMessageBytes = 4 << 20

// JSON-RPC error codes used by the framing layer (the standard ones).
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
)

// Protocol versions in which JSON-RPC batches are legal: batching was
// removed in 2025-06-18.
var batchVersions = map[string]bool{"2024-11-05": true, "2025-03-26": true}

// lineConn is an sdk.Connection over newline-delimited JSON-RPC (stdio).
// It replaces the SDK's IOTransport framing, which ends the session on one
// malformed line and truncates ids it cannot represent:
//
//   - a line that is not JSON gets a -32700 reply, a message that is not a
//     valid request -32600; either way the session goes on;
//   - request ids are echoed byte for byte (1.5, 12345678901234567890):
//     the SDK sees an internal integer id per request;
//   - batches are accepted in the protocol versions that allow them and
//     answered as one array (notifications inside get no entry; a batch of
//     notifications only gets no reply); otherwise refused with -32600;
//   - a request other than initialize or ping before initialize gets
//     -32600 (the SDK answers code 0);
//   - at the end of input, every request already read is answered before
//     Read reports io.EOF.
//
// Requests are handed to the SDK as soon as they are read; the SDK runs
// calls concurrently, so pipelined calls do not wait for each other.
type lineConn struct {
	in  *bufio.Reader
	out io.Writer

	wmu  sync.Mutex // serializes writes to out
	werr error      // first write error

	msgs chan jsonrpc.Message // decoded messages for the SDK
	done chan struct{}        // closed by Close
	once sync.Once

	mu       sync.Mutex
	nextID   int64
	pending  map[int64]*pendingReq // requests handed to the SDK, by internal id
	idle     *sync.Cond            // signalled when pending shrinks
	version  string                // negotiated protocol version ("" before initialize)
	initReq  bool                  // an initialize request was read
	initDone bool                  // … and answered
	readErr  error                 // a read error other than io.EOF
}

type pendingReq struct {
	rawID  json.RawMessage
	method string
	batch  *batchReply
	slot   int
}

// batchReply collects the replies of one batch.
type batchReply struct {
	replies []json.RawMessage
	left    int
}

func newLineConn(in io.Reader, out io.Writer) *lineConn {
	c := &lineConn{
		in:      bufio.NewReaderSize(in, 64<<10),
		out:     out,
		msgs:    make(chan jsonrpc.Message, 64),
		done:    make(chan struct{}),
		pending: map[int64]*pendingReq{},
	}
	c.idle = sync.NewCond(&c.mu)
	go c.readLoop()
	return c
}

// lineTransport lets sdk.Server.Connect use a lineConn.
type lineTransport struct{ c *lineConn }

func (t lineTransport) Connect(context.Context) (sdk.Connection, error) { return t.c, nil }

func (c *lineConn) SessionID() string { return "" }

func (c *lineConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case m, ok := <-c.msgs:
		if !ok {
			return nil, io.EOF
		}
		return m, nil
	case <-c.done:
		return nil, io.EOF
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (c *lineConn) Close() error {
	c.once.Do(func() { close(c.done) })
	c.mu.Lock()
	c.idle.Broadcast()
	c.mu.Unlock()
	return nil
}

// Err returns the read or write error that ended the session, if any.
func (c *lineConn) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.readErr != nil {
		return c.readErr
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	return c.werr
}

// Pending is the number of requests read and not yet answered.
func (c *lineConn) Pending() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.pending)
}

// readLoop reads lines until the end of input, answers what is malformed
// itself and queues the rest for the SDK; at the end of input it waits
// until every queued request is answered, then reports io.EOF.
func (c *lineConn) readLoop() {
	defer close(c.msgs)
	for {
		line, tooLong, err := c.readLine()
		if tooLong {
			c.writeError(nil, codeInvalidRequest, fmt.Sprintf("message too large: the limit is %d bytes per line", MaxMessageBytes))
		} else if len(line) > 0 {
			c.handleLine(line)
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				c.mu.Lock()
				c.readErr = fmt.Errorf("reading stdin: %w", err)
				c.mu.Unlock()
			}
			break
		}
		select {
		case <-c.done:
			return
		default:
		}
	}
	// End of input: wait for the answers to what was read.
	c.mu.Lock()
	for len(c.pending) > 0 && !c.isClosed() {
		c.idle.Wait()
	}
	c.mu.Unlock()
}

func (c *lineConn) isClosed() bool {
	select {
	case <-c.done:
		return true
	default:
		return false
	}
}

// readLine returns the next line without its line end (CR LF or LF) and
// without a leading UTF-8 byte order mark. A line longer than
// MaxMessageBytes is skipped and reported as tooLong.
func (c *lineConn) readLine() (line []byte, tooLong bool, err error) {
	var buf []byte
	for {
		frag, e := c.in.ReadSlice('\n')
		if !tooLong {
			if len(buf)+len(frag) > MaxMessageBytes+2 {
				tooLong, buf = true, nil
			} else {
				buf = append(buf, frag...)
			}
		}
		if e == bufio.ErrBufferFull {
			continue
		}
		err = e
		break
	}
	if tooLong {
		return nil, true, err
	}
	buf = bytes.TrimPrefix(buf, []byte("\xef\xbb\xbf"))
	return bytes.TrimSpace(buf), false, err
}

// handleLine processes one line: a message or a batch.
func (c *lineConn) handleLine(line []byte) {
	if !json.Valid(line) {
		c.writeError(nil, codeParseError, "parse error: the line is not valid JSON")
		return
	}
	if line[0] != '[' {
		if reply := c.handleMessage(line, nil); reply != nil {
			c.writeLine(reply)
		}
		return
	}
	var items []json.RawMessage
	_ = json.Unmarshal(line, &items) // valid JSON array
	// A batch read while initialize is in progress (a pipelining client)
	// waits for it: the negotiated version decides.
	c.mu.Lock()
	for c.initReq && !c.initDone && !c.isClosed() {
		c.idle.Wait()
	}
	version := c.version
	c.mu.Unlock()
	switch {
	case len(items) == 0:
		c.writeError(nil, codeInvalidRequest, "invalid request: empty batch")
		return
	case !batchVersions[version]:
		msg := "invalid request: JSON-RPC batches are not supported before initialize"
		if version != "" {
			msg = "invalid request: JSON-RPC batches are not supported in protocol version " + version + " (only in 2024-11-05 and 2025-03-26)"
		}
		c.writeError(nil, codeInvalidRequest, msg)
		return
	}
	// The batch is held open (left = 1) until every item is handled, so
	// that a fast reply cannot complete it early.
	b := &batchReply{left: 1}
	for _, it := range items {
		if reply := c.handleMessage(it, b); reply != nil {
			c.mu.Lock()
			b.replies = append(b.replies, reply)
			c.mu.Unlock()
		}
	}
	c.finishSlot(b, -1, nil)
}

// finishSlot records a reply in its batch slot (slot -1: only releases the
// hold of handleLine) and writes the batch when it is complete.
func (c *lineConn) finishSlot(b *batchReply, slot int, reply []byte) {
	c.mu.Lock()
	if slot >= 0 {
		b.replies[slot] = reply
	}
	b.left--
	done := b.left == 0
	c.mu.Unlock()
	if !done {
		return
	}
	var parts [][]byte
	for _, r := range b.replies {
		if r != nil {
			parts = append(parts, r)
		}
	}
	if len(parts) == 0 {
		return // only notifications: no reply at all
	}
	_ = c.writeLine(append(append([]byte{'['}, bytes.Join(parts, []byte{','})...), ']'))
}

// wireIn is a message as read, before validation.
type wireIn struct {
	JSONRPC *string         `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  *string         `json:"method"`
	Params  json.RawMessage `json:"params"`
	Result  json.RawMessage `json:"result"`
	Error   json.RawMessage `json:"error"`
}

// inMsg is a valid message as read: a request (id set), a notification,
// or a response to a request of the server (isReply).
type inMsg struct {
	id      json.RawMessage // exactly as sent; nil for a notification
	method  string
	params  json.RawMessage
	isReply bool
}

// inspect validates one JSON-RPC message (transport-independent). It
// returns the message, or the error reply to send instead (-32600, with
// the message's id when it has a valid one).
func inspect(raw []byte) (inMsg, []byte) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		return inMsg{}, errorReply(nil, codeInvalidRequest, "invalid request: a message must be a JSON object")
	}
	var w wireIn
	if err := json.Unmarshal(raw, &w); err != nil {
		return inMsg{}, errorReply(nil, codeInvalidRequest, "invalid request: "+oneLine(err.Error()))
	}
	id, idOK := validID(w.ID)
	if !idOK {
		return inMsg{}, errorReply(nil, codeInvalidRequest, "invalid request: id must be a string or a number")
	}
	if w.JSONRPC == nil || *w.JSONRPC != "2.0" {
		return inMsg{}, errorReply(id, codeInvalidRequest, `invalid request: "jsonrpc" must be "2.0"`)
	}
	if w.Method == nil {
		if id != nil && (w.Result != nil || w.Error != nil) {
			return inMsg{id: id, isReply: true}, nil
		}
		return inMsg{}, errorReply(id, codeInvalidRequest, `invalid request: "method" is missing`)
	}
	if len(w.Params) > 0 && w.Params[0] != '{' && w.Params[0] != '[' && string(w.Params) != "null" {
		return inMsg{}, errorReply(id, codeInvalidRequest, `invalid request: "params" must be an object`)
	}
	params := w.Params
	if string(params) == "null" {
		params = nil
	}
	return inMsg{id: id, method: *w.Method, params: params}, nil
}

// handleMessage validates one message and queues it for the SDK. It returns
// the error reply to send at once, or nil (queued, or a notification).
func (c *lineConn) handleMessage(raw []byte, b *batchReply) []byte {
	m, reply := inspect(raw)
	if reply != nil {
		return reply
	}
	if m.isReply {
		// A response to a request of the server: the SDK matches it.
		if msg, err := jsonrpc.DecodeMessage(bytes.TrimSpace(raw)); err == nil {
			c.queue(msg)
		}
		return nil // never a reply to a reply
	}
	id, method, params := m.id, m.method, m.params
	if id == nil { // a notification
		c.queue(&jsonrpc.Request{Method: method, Params: params})
		return nil
	}
	c.mu.Lock()
	switch {
	case method == "initialize":
		c.initReq = true
	case !c.initReq && method != "ping" && !sessionless(params):
		c.mu.Unlock()
		return errorReply(id, codeInvalidRequest, fmt.Sprintf("invalid request: %q before initialize: send initialize first", method))
	}
	c.nextID++
	n := c.nextID
	p := &pendingReq{rawID: id, method: method, batch: b}
	if b != nil {
		p.slot = len(b.replies)
		b.replies = append(b.replies, nil)
		b.left++
	}
	c.pending[n] = p
	c.mu.Unlock()
	internal, _ := jsonrpc.MakeID(float64(n))
	c.queue(&jsonrpc.Request{ID: internal, Method: method, Params: params})
	return nil
}

// sessionless reports whether params carry a per-request protocol version
// (the sessionless protocol, which needs no initialize).
func sessionless(params json.RawMessage) bool {
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	if json.Unmarshal(params, &p) != nil {
		return false
	}
	_, ok := p.Meta["io.modelcontextprotocol/protocolVersion"]
	return ok
}

// validID returns the id as sent (nil when absent or null) and whether it
// is a legal id: a string or a number.
func validID(raw json.RawMessage) (json.RawMessage, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, true
	}
	switch raw[0] {
	case '"':
		return raw, true
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return raw, true
	}
	return nil, false
}

func (c *lineConn) queue(m jsonrpc.Message) {
	select {
	case c.msgs <- m:
	case <-c.done:
	}
}

// Write sends a message of the SDK: a reply gets its request's id back
// (and joins its batch); anything else goes out as is.
func (c *lineConn) Write(_ context.Context, m jsonrpc.Message) error {
	b, err := jsonrpc.EncodeMessage(m)
	if err != nil {
		return err
	}
	resp, ok := m.(*jsonrpc.Response)
	if !ok {
		return c.writeLine(b)
	}
	n, isInt := resp.ID.Raw().(int64)
	c.mu.Lock()
	p := c.pending[n]
	if !isInt || p == nil {
		c.mu.Unlock()
		return c.writeLine(b)
	}
	delete(c.pending, n)
	if p.method == "initialize" {
		c.initDone = true
	}
	if p.method == "initialize" && resp.Error == nil {
		var r struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		if json.Unmarshal(resp.Result, &r) == nil {
			c.version = r.ProtocolVersion
		}
	}
	c.mu.Unlock()
	out, err := withID(b, p.rawID)
	if err != nil {
		return err
	}
	if p.batch != nil {
		c.finishSlot(p.batch, p.slot, out)
	} else {
		err = c.writeLine(out)
	}
	c.mu.Lock()
	c.idle.Broadcast()
	c.mu.Unlock()
	return err
}

// withID re-encodes an encoded reply with the id as the client sent it.
func withID(encoded []byte, id json.RawMessage) ([]byte, error) {
	var w struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Result  json.RawMessage `json:"result,omitempty"`
		Error   json.RawMessage `json:"error,omitempty"`
	}
	if err := json.Unmarshal(encoded, &w); err != nil {
		return nil, err
	}
	w.ID = id
	return json.Marshal(w)
}

func errorReply(id json.RawMessage, code int, msg string) []byte {
	if id == nil {
		id = json.RawMessage("null")
	}
	b, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   jsonrpc.Error   `json:"error"`
	}{"2.0", id, jsonrpc.Error{Code: int64(code), Message: msg}})
	return b
}

func (c *lineConn) writeError(id json.RawMessage, code int, msg string) {
	_ = c.writeLine(errorReply(id, code, msg))
}

func (c *lineConn) writeLine(b []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if c.werr != nil {
		return c.werr
	}
	buf := make([]byte, 0, len(b)+1)
	buf = append(append(buf, b...), '\n')
	if _, err := c.out.Write(buf); err != nil {
		c.werr = fmt.Errorf("writing stdout: %w", err)
		return c.werr
	}
	return nil
}
