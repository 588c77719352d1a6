package resume

import (
	"github.com/blackboard-hub/bb/internal/hub/memory"

	"github.com/blackboard-hub/bb/internal/hub"

	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"time"
	"unicode/utf8"
)

// MaxPushInput bounds the JSON document of one push (1 MiB).
const MaxPushInput = 1 << 20

// PushInput is one batch of writes applied in a single transaction: an
// event, memories, task artifacts and a task status change.
type PushInput struct {
	TaskID     string         `json:"task_id,omitempty"`
	Event      *PushEvent     `json:"event,omitempty"`
	Memories   []PushMemory   `json:"memories,omitempty"`
	Artifacts  []PushArtifact `json:"artifacts,omitempty"`
	TaskStatus *PushStatus    `json:"task_status,omitempty"`
	// ArtifactPathsAsGiven records artifact file paths as given, never
	// opening or resolving them: the vybe contract (the original stores
	// any file_path, absolute or outside the project, and scripts written
	// for it push such paths). Without it the paths follow the rules of
	// `bb artifact add` (relative, inside the project). A surface sets it;
	// a push document cannot (ParsePushInput clears it).
	ArtifactPathsAsGiven bool `json:"artifact_paths_as_given,omitempty"`
}

// PushEvent is a free-form timeline entry.
type PushEvent struct {
	Kind     string          `json:"kind"`
	Message  string          `json:"message"`
	Metadata json.RawMessage `json:"metadata,omitempty"`
}

// PushMemory is a memory entry; Value may be a JSON string or any JSON
// value (kept as its JSON text).
type PushMemory struct {
	Key       string          `json:"key"`
	Value     json.RawMessage `json:"value"`
	ValueType string          `json:"value_type,omitempty"`
	Scope     string          `json:"scope"`
	ScopeID   string          `json:"scope_id,omitempty"`
	ExpiresAt string          `json:"expires_at,omitempty"`
}

// PushArtifact attaches a file to the push's task.
type PushArtifact struct {
	FilePath    string `json:"file_path"`
	ContentType string `json:"content_type,omitempty"`
}

// PushStatus changes the task's status; completed and blocked close it.
type PushStatus struct {
	Status        string `json:"status"`
	Summary       string `json:"summary,omitempty"`
	Label         string `json:"label,omitempty"`
	BlockedReason string `json:"blocked_reason,omitempty"`
}

// PushResult is the reply of Push (every part omitted when not requested).
type PushResult struct {
	EventID    int64              `json:"event_id,omitempty"`
	Kind       string             `json:"kind,omitempty"`
	Memories   []PushMemoryResult `json:"memories,omitempty"`
	Artifacts  []PushArtifactRes  `json:"artifacts,omitempty"`
	TaskStatus *PushStatusResult  `json:"task_status,omitempty"`
}

// PushMemoryResult reports one written memory.
type PushMemoryResult struct {
	Key     string `json:"key"`
	EventID int64  `json:"event_id"`
}

// PushArtifactRes reports one attached artifact.
type PushArtifactRes struct {
	ArtifactID string `json:"artifact_id"`
	FilePath   string `json:"file_path"`
	EventID    int64  `json:"event_id"`
}

// PushStatusResult reports the status change.
type PushStatusResult struct {
	TaskID        string `json:"task_id"`
	Status        string `json:"status"`
	StatusEventID int64  `json:"status_event_id"`
	CloseEventID  int64  `json:"close_event_id,omitempty"`
}

// ParsePushInput decodes and validates a push document. Unknown keys are
// ignored; nothing is checked against the store.
func ParsePushInput(b []byte) (PushInput, error) {
	var in PushInput
	if len(bytes.TrimSpace(b)) == 0 {
		return in, hub.FieldErr(hub.CodeInvalidInput, "json", "JSON input required via {field} flag or stdin pipe")
	}
	if len(b) > MaxPushInput {
		return in, hub.FieldErr(hub.CodeInvalidInput, "json", "invalid JSON input: document is %d bytes (max %d)", len(b), MaxPushInput)
	}
	if !utf8.Valid(b) {
		// The decoder would turn bad bytes into U+FFFD and store that.
		return in, hub.FieldErr(hub.CodeInvalidInput, "json", "invalid JSON input: not valid UTF-8 text")
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&in); err != nil {
		return PushInput{}, hub.FieldErr(hub.CodeInvalidInput, "json", "invalid JSON input: %s", jsonErrText(err, b))
	}
	if dec.More() {
		return PushInput{}, hub.FieldErr(hub.CodeInvalidInput, "json", "invalid JSON input: unexpected data after the JSON object")
	}
	in.ArtifactPathsAsGiven = false
	if in.Event == nil && len(in.Memories) == 0 && len(in.Artifacts) == 0 && in.TaskStatus == nil {
		return in, hub.FieldErr(hub.CodeInvalidInput, "json", "push requires at least one operation (event, memories, artifacts, or task_status)")
	}
	if len(in.Artifacts) > 0 && in.TaskID == "" {
		return in, hub.FieldErr(hub.CodeInvalidInput, "task_id", "task_id is required when artifacts are provided")
	}
	if in.TaskStatus != nil {
		if in.TaskID == "" {
			return in, hub.FieldErr(hub.CodeInvalidInput, "task_id", "task_id is required when task_status is provided")
		}
		if err := hub.ValidateTaskStatus(in.TaskStatus.Status); err != nil {
			return in, hub.FieldErr(hub.CodeInvalidInput, "task_status", "invalid task_status: %s", err.Error())
		}
	}
	if e := in.Event; e != nil {
		if err := validatePushEvent(e); err != nil {
			return in, hub.FieldErr(hub.CodeInvalidInput, "event", "failed to insert event: %s", err.Error())
		}
	}
	for _, a := range in.Artifacts {
		if a.FilePath == "" {
			return in, hub.FieldErr(hub.CodeInvalidInput, "artifacts", "artifact file_path is required")
		}
		if err := hub.CheckLen("file_path", a.FilePath, hub.MaxArtifactPathLen); err != nil {
			return in, err
		}
	}
	return in, nil
}

// jsonErrText words a JSON decoding error of doc for a person or a model:
// which field has the wrong kind of value, or where the syntax breaks (line,
// column and the text there); never the decoder's own text (Go type and
// struct names, "invalid character 'o' in literal null").
func jsonErrText(err error, doc []byte) string {
	var te *json.UnmarshalTypeError
	var se *json.SyntaxError
	switch {
	case errors.As(err, &te):
		what, given := jsonKind(te.Type.Kind()), te.Value
		switch given {
		case "":
			given = "value"
		case "bool":
			given = "boolean"
		}
		article := "a"
		if strings.ContainsAny(given[:1], "aeiou") {
			article = "an"
		}
		if te.Field != "" {
			return fmt.Sprintf("field %s must be %s, not %s %s", te.Field, what, article, given)
		}
		return fmt.Sprintf("the document must be %s, not %s %s", what, article, given)
	case errors.As(err, &se):
		at := syntaxPlace(doc, se.Offset)
		if strings.Contains(se.Error(), "max depth") {
			return "the document nests arrays and objects too deeply, " + at
		}
		if se.Offset >= int64(len(bytes.TrimRight(doc, " \t\r\n"))) {
			return "the document ends too early"
		}
		return "this is not valid JSON " + at
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return "the document ends too early"
	}
	return "not a JSON object of the push format"
}

// syntaxPlace says where byte offset off (1-based, as the decoder counts:
// the byte it stopped at) lies in doc: line, column and the text there.
func syntaxPlace(doc []byte, off int64) string {
	i := int(min(max(off-1, 0), int64(len(doc))))
	line := 1 + bytes.Count(doc[:i], []byte("\n"))
	col := 1 + utf8.RuneCount(doc[bytes.LastIndexByte(doc[:i], '\n')+1:i])
	near := doc[i:]
	if len(near) > 20 {
		near = near[:20]
		for len(near) > 0 && !utf8.Valid(near) {
			near = near[:len(near)-1]
		}
	}
	return fmt.Sprintf("at line %d, column %d (near %q)", line, col, string(near))
}

// jsonKind names the JSON value a Go kind decodes from.
func jsonKind(k reflect.Kind) string {
	switch k {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer in range"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Map, reflect.Struct, reflect.Pointer:
		return "an object"
	}
	return "another kind of value"
}

func validatePushEvent(e *PushEvent) error {
	switch {
	case e.Kind == "":
		return fmt.Errorf("event kind is required")
	case len(e.Kind) > hub.MaxEventKindLen:
		return fmt.Errorf("event kind exceeds max length (%d)", hub.MaxEventKindLen)
	case e.Message == "":
		return fmt.Errorf("event message is required")
	case len(e.Message) > hub.MaxEventMessageLen:
		return fmt.Errorf("event message exceeds max length (%d)", hub.MaxEventMessageLen)
	case len(e.Metadata) > hub.MaxEventMetaLen:
		return fmt.Errorf("event metadata exceeds max length (%d)", hub.MaxEventMetaLen)
	}
	return nil
}

// pushMemoryInput turns a pushed memory into a validated MemoryInput.
func pushMemoryInput(m PushMemory) (memory.Input, error) {
	in := memory.Input{Key: m.Key, ValueType: m.ValueType, Scope: m.Scope, ScopeID: m.ScopeID}
	raw := bytes.TrimSpace(m.Value)
	if len(raw) > 0 && raw[0] == '"' {
		if err := json.Unmarshal(raw, &in.Value); err != nil {
			return in, fmt.Errorf("invalid value: %s", jsonErrText(err, raw))
		}
	} else if len(raw) > 0 && string(raw) != "null" {
		in.Value = string(raw)
	}
	if m.ExpiresAt != "" {
		t, err := time.Parse(time.RFC3339Nano, m.ExpiresAt)
		if err != nil {
			return in, fmt.Errorf("invalid expires_at %q: expected an RFC 3339 time", m.ExpiresAt)
		}
		in.ExpiresAt = &t
	}
	if err := memory.ValidateInput(&in); err != nil {
		return in, err
	}
	return in, nil
}

// Push applies an event, memories, artifacts and a status change (in that
// order) in one transaction: all of it happens or none.
func (s *Service) Push(ctx context.Context, agent string, in PushInput) (PushResult, error) {
	if err := hub.ValidateStoredAgentID(agent); err != nil {
		return PushResult{}, err
	}
	mems, err := pushMemoryInputs(in.Memories)
	if err != nil {
		return PushResult{}, err
	}
	if err := s.checkArtifactPaths(in); err != nil {
		return PushResult{}, err
	}
	return hub.WriteAs(ctx, s.kernel, []any{agent, in}, func(tx Tx) (PushResult, error) { return s.pushTx(ctx, tx, agent, in, mems) })
}

// pushMemoryInputs validates the pushed memories.
func pushMemoryInputs(ms []PushMemory) ([]memory.Input, error) {
	mems := make([]memory.Input, len(ms))
	for i, m := range ms {
		mi, err := pushMemoryInput(m)
		if err != nil {
			return nil, hub.FieldErr(hub.CodeInvalidInput, "memories", "failed to upsert memory %q: %s", m.Key, err.Error())
		}
		mems[i] = mi
	}
	return mems, nil
}

// checkArtifactPaths applies the rules of `bb artifact add` to the task
// artifact paths: relative, no "..", and inside the project once symlinks
// are followed; unless the surface's contract records them as given
// (vybe).
func (s *Service) checkArtifactPaths(in PushInput) error {
	if in.ArtifactPathsAsGiven {
		return nil
	}
	for _, a := range in.Artifacts {
		if _, err := hub.CleanArtifactPath(s.kernel.ProjectRoot, a.FilePath); err != nil {
			return err
		}
	}
	return nil
}

// pushTx applies a checked push in the caller's transaction, in order:
// the event, the memories, the artifacts, the status change.
func (s *Service) pushTx(ctx context.Context, tx Tx, agent string, in PushInput, mems []memory.Input) (PushResult, error) {
	now := s.kernel.Now()
	a, err := s.kernel.ActingAgentTx(ctx, tx, agent, now)
	if err != nil {
		return PushResult{}, err
	}
	task, err := pushTask(ctx, tx, in)
	if err != nil {
		return PushResult{}, err
	}
	if task != nil {
		in.TaskID = task.ID
	}
	var out PushResult
	if e := in.Event; e != nil {
		if out.EventID, err = s.pushEventTx(ctx, tx, a, e, in.TaskID, task); err != nil {
			return PushResult{}, err
		}
		out.Kind = e.Kind
	}
	if out.Memories, err = s.pushMemoriesTx(ctx, tx, a, mems, now); err != nil {
		return PushResult{}, err
	}
	if out.Artifacts, err = s.pushArtifactsTx(ctx, tx, a, agent, task, in.Artifacts, now); err != nil {
		return PushResult{}, err
	}
	if st := in.TaskStatus; st != nil {
		if out.TaskStatus, err = s.pushStatusTx(ctx, tx, a, task, in.TaskID, st, now); err != nil {
			return PushResult{}, err
		}
	}
	return out, nil
}

// pushTask finds the task a push names (nil when it names none). Nothing
// may be recorded against a task that does not exist; with artifacts,
// their own error applies (pushArtifactsTx).
func pushTask(ctx context.Context, tx Tx, in PushInput) (*hub.Task, error) {
	if in.TaskID == "" {
		return nil, nil
	}
	task, err := hub.FindTask(ctx, tx, "task_id", in.TaskID)
	if err != nil {
		return nil, err
	}
	if task == nil && len(in.Artifacts) == 0 {
		return nil, hub.TaskNotFound(in.TaskID)
	}
	return task, nil
}

// pushEventTx records the pushed event on the timeline (metadata "null"
// or blank is none).
func (s *Service) pushEventTx(ctx context.Context, tx Tx, a *hub.Agent, e *PushEvent, taskID string, task *hub.Task) (int64, error) {
	projectID := ""
	if task != nil {
		projectID = task.ProjectID
	}
	var meta any
	if m := bytes.TrimSpace(e.Metadata); len(m) > 0 && string(m) != "null" {
		meta = e.Metadata
	}
	return s.kernel.TaskEventTx(ctx, tx, a, e.Kind, taskID, projectID, e.Message, meta)
}

// pushMemoriesTx writes the pushed memories.
func (s *Service) pushMemoriesTx(ctx context.Context, tx Tx, a *hub.Agent, mems []memory.Input, now time.Time) ([]PushMemoryResult, error) {
	var out []PushMemoryResult
	for _, m := range mems {
		r, err := s.mem.UpsertTx(ctx, tx, a, m, now)
		if err != nil {
			return nil, err
		}
		out = append(out, PushMemoryResult{Key: r.Key, EventID: r.EventID})
	}
	return out, nil
}

// pushArtifactsTx attaches the pushed files to the task, each with its
// artifact event, as produced by agent.
func (s *Service) pushArtifactsTx(ctx context.Context, tx Tx, a *hub.Agent, agent string, task *hub.Task, arts []PushArtifact, now time.Time) ([]PushArtifactRes, error) {
	var out []PushArtifactRes
	for _, p := range arts {
		if task == nil {
			return nil, &hub.Error{Code: hub.CodeNotFound, Field: "task_id",
				Message: fmt.Sprintf("failed to add artifact %q: failed to insert artifact: constraint failed: FOREIGN KEY constraint failed (787)", p.FilePath)}
		}
		ev, err := s.kernel.TaskEventTx(ctx, tx, a, hub.KindArtifactAdded, task.ID, task.ProjectID, "Artifact added: "+p.FilePath,
			map[string]string{"file_path": p.FilePath})
		if err != nil {
			return nil, err
		}
		art := &hub.Artifact{UID: hub.NewEntityID("artifact", now), Path: p.FilePath, ProducedBy: agent, TaskID: task.ID,
			EventID: ev, ContentType: p.ContentType, CreatedAt: now, UpdatedAt: now}
		if err := tx.InsertTaskArtifact(ctx, art); err != nil {
			return nil, err
		}
		out = append(out, PushArtifactRes{ArtifactID: art.UID, FilePath: art.Path, EventID: ev})
	}
	return out, nil
}

// pushStatusTx changes the task's status: completed and blocked close it
// (with a default summary), any other status is set.
func (s *Service) pushStatusTx(ctx context.Context, tx Tx, a *hub.Agent, task *hub.Task, taskID string, st *PushStatus, now time.Time) (*PushStatusResult, error) {
	if task == nil {
		return nil, hub.TaskNotFound(taskID)
	}
	if err := s.kernel.AuthorizeTaskTx(ctx, tx, a, task, hub.StatusVerb(st.Status)); err != nil {
		return nil, err
	}
	res := &PushStatusResult{TaskID: task.ID, Status: st.Status}
	if st.Status != hub.TaskCompleted && st.Status != hub.TaskBlocked {
		id, err := s.kernel.SetTaskStatusTx(ctx, tx, a, task, st.Status, "", now)
		res.StatusEventID = id
		return res, err
	}
	summary := st.Summary
	if summary == "" {
		summary = "Task " + st.Status + " via push"
	}
	rep, err := s.kernel.CloseTaskTx(ctx, tx, a, task, st.Status, hub.CloseInput{ID: task.ID, Summary: summary, Label: st.Label, BlockedReason: st.BlockedReason}, now)
	if err != nil {
		return nil, err
	}
	res.StatusEventID, res.CloseEventID = rep.StatusEventID, rep.CloseEventID
	return res, nil
}
