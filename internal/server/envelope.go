package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/view"
)

// StatusOf maps a stable error code to its HTTP status: validation 400,
// auth 401, forbidden 403, not found 404, conflicts 409, busy 503,
// internal 500. Codes added later by other features follow their names.
func StatusOf(c hub.Code) int {
	s := string(c)
	switch {
	case c == hub.CodeUnauthorized:
		return http.StatusUnauthorized
	case c == hub.CodeRateLimited:
		return http.StatusTooManyRequests
	case c == hub.CodeInternal || strings.HasPrefix(s, "IO_"):
		return http.StatusInternalServerError
	case c == hub.CodeDatabaseBusy, c == hub.CodeDatabaseUnavailable:
		return http.StatusServiceUnavailable
	case c == hub.CodeNotInitialized:
		return http.StatusServiceUnavailable
	case strings.HasSuffix(s, "NOT_FOUND"), c == hub.CodeUnknownRecipient, c == hub.CodeUnknownSender:
		return http.StatusNotFound
	case c == hub.CodeForbidden || strings.HasSuffix(s, "_FORBIDDEN"):
		return http.StatusForbidden
	case strings.Contains(s, "CONFLICT"), strings.Contains(s, "COLLISION"), strings.HasPrefix(s, "DUPLICATE_"),
		c == hub.CodeReservationStaleFound, c == hub.CodeAdoptionRejected, c == hub.CodeAgentActive, c == hub.CodeSchemaTooNew, c == hub.CodeWrongRepository,
		s == "LEASE_STALE_FOUND", s == "LEASE_PORTS_EXHAUSTED":
		return http.StatusConflict
	default:
		return http.StatusBadRequest
	}
}

func encode(v any) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return []byte(`{"ok":false,"command":"","data":null,"error":{"code":"INTERNAL_ERROR","message":"cannot encode reply"}}` + "\n")
	}
	return buf.Bytes()
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(encode(v))
}

func writeOK(w http.ResponseWriter, command string, data any, n *hub.Notices) {
	writeJSON(w, http.StatusOK, view.Envelope{OK: true, Command: command, Data: data, Notices: n})
}

// writeError replies with the envelope of err; status 0 derives it from
// the code. Internal causes are never shown.
func writeError(w http.ResponseWriter, command string, err error, status int) {
	var he *hub.Error
	if !errors.As(err, &he) {
		he = &hub.Error{Code: hub.CodeInternal, Message: "internal error"}
	}
	if status == 0 {
		status = StatusOf(he.Code)
	}
	if s := retryAfter(he.Code); s != "" {
		w.Header().Set("Retry-After", s)
	}
	if rec, ok := w.(*recorder); ok {
		rec.code = he.Code
	}
	writeJSON(w, status, view.Envelope{OK: false, Command: command, Error: &view.ErrorBody{Code: string(he.Code), Message: he.Render(jsonName), Field: fieldName(he.Field)}})
}

// retryAfter is the Retry-After of a reply with code c: the seconds after
// which the same request may succeed ("" for failures a retry cannot fix).
// A busy database frees up within moments; an unreachable one (a
// PostgreSQL restart, a board file moved away) takes longer.
func retryAfter(c hub.Code) string {
	switch c {
	case hub.CodeDatabaseBusy:
		return "1"
	case hub.CodeDatabaseUnavailable:
		return "2"
	}
	return ""
}

func fieldName(f string) string {
	if f == "" {
		return ""
	}
	return jsonName(f)
}

// jsonName names the field of a core error as the API names it: the JSON
// field of the request body or query (the domain's snake_case names), or
// the header that carries it.
func jsonName(field string) string {
	switch field {
	case "request_id":
		return RequestIDHeader
	case "since_seq":
		return "after"
	}
	return field
}

// decodeBody reads a JSON request body into v: at most MaxBodyBytes,
// application/json, unknown fields refused, exactly one value.
func decodeBody(w http.ResponseWriter, r *http.Request, v any) error {
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		return hub.Errorf(hub.CodeInvalidInput, "request body must be JSON (Content-Type: application/json)")
	}
	r.Body = http.MaxBytesReader(w, r.Body, MaxBodyBytes)
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return bodyErr(err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return hub.Errorf(hub.CodeInvalidInput, "request body must hold exactly one JSON object")
	}
	return nil
}

func bodyErr(err error) error {
	var mbe *http.MaxBytesError
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &mbe):
		return &hub.Error{Code: hub.CodeInvalidInput, Message: fmt.Sprintf("request body too large (max %d bytes)", mbe.Limit), Err: mbe}
	case errors.Is(err, io.EOF):
		return hub.Errorf(hub.CodeInvalidInput, "request body is empty: expected a JSON object")
	case errors.As(err, &se):
		return hub.Errorf(hub.CodeInvalidInput, "request body is not valid JSON (at byte %d)", se.Offset)
	case errors.As(err, &te):
		return hub.FieldErr(hub.CodeInvalidInput, te.Field, "field %q must be %s", te.Field, te.Type.String())
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		f := strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`)
		return hub.FieldErr(hub.CodeInvalidInput, f, "unknown field %q", f)
	default:
		return hub.Errorf(hub.CodeInvalidInput, "cannot read request body: %s", err.Error())
	}
}

func statusFor(err error) int {
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return http.StatusRequestEntityTooLarge
	}
	return 0
}
