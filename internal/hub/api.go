package hub

import (
	"context"
	"time"
)

// The core's door is made of small role interfaces, one per domain; a
// surface asks for the roles it uses. internal/app composes them, with the
// hook application's and Agent Mail's roles, into app.API, which is
// implemented by app.Service (the local board, built by internal/boot) and
// by the remote client of internal/server/remote (a bb serve reached
// through BB_SERVER), so every command runs unchanged against either.
//
// A method is callable over HTTP (POST /api/v1/rpc/<Method>) when its first
// parameter is a context.Context, no parameter is a func or a channel, and
// its last result is an error; the others (Root, Now, DisplayScope,
// PostMany, Follow) are written by hand in the remote client.
//
// A surface that needs new core behaviour: add the method to Service (in
// the file of its domain), add its signature to the role it belongs to and
// run `go generate ./internal/server/remote` (a test fails while the
// generated client is stale). Its arguments and results must survive a JSON
// round trip (exported fields).

// Identity is who is on the board: agents, their registration, status and liveness, and the
// check-in every identified call makes.
type Identity interface {
	// AgentID applies the addressing rule (addressing.go): an id the board
	// knows is used as stored, any other must follow the surface grammar g.
	AgentID(ctx context.Context, g Grammar, id string) (string, error)
	RegisterAgent(ctx context.Context, in RegisterInput) (AgentInfo, bool, error)
	Heartbeat(ctx context.Context, id string) (AgentInfo, error)
	ShowAgent(ctx context.Context, id string) (AgentInfo, error)
	ListAgentInfos(ctx context.Context, q AgentQuery) ([]AgentInfo, error)
	CheckIn(ctx context.Context, agent string) (Notices, error)
	// ReadCheckIn is CheckIn for a read: the notices without the writes,
	// and whether a write is owed (CheckInAgents).
	ReadCheckIn(ctx context.Context, agent string) (Notices, bool, error)
	// CheckInAgents makes many agents' check-ins in one write.
	CheckInAgents(ctx context.Context, agents []string) error
	InboxCounts(ctx context.Context, agent string) (Notices, error)
	SetStatus(ctx context.Context, agent string, u StatusUpdate) (Agent, error)
	ClearStatus(ctx context.Context, agent string) (Agent, error)
	AgentStatus(ctx context.Context, id string) (AgentView, error)
	Board(ctx context.Context) ([]AgentView, error)
	// ReportWhere records the work tree, branch and host an agent works in.
	ReportWhere(ctx context.Context, agent string, w Where) error
}

// Messages is the board's broadcast traffic, its artifacts and refs, and the search over
// everything.
type Messages interface {
	Post(ctx context.Context, in PostInput) (Message, error)
	// PostMany stores many posts in one transaction (group commit); each
	// op succeeds or fails on its own.
	PostMany(ctx context.Context, ops []PostOp) []PostResult
	Log(ctx context.Context, q LogQuery) ([]Message, error)
	Thread(ctx context.Context, seq int64) ([]Message, error)
}

// Mail is the direct mail between agents: send, inbox, read, ack, and the coordination
// status of a work item.
type Mail interface {
	SendMail(ctx context.Context, in SendInput) (MailItem, error)
	// ReplyMail answers one message: recipient, thread, work item and
	// category come from it, and the reply is linked to it.
	ReplyMail(ctx context.Context, in ReplyInput) (MailItem, error)
	Inbox(ctx context.Context, q InboxQuery) ([]MailItem, error)
	ReadMail(ctx context.Context, agent, id string) (MailItem, error)
	ReadMailMany(ctx context.Context, agent string, ids []string) ([]MailItem, error)
	AckMail(ctx context.Context, agent, id string) (MailItem, error)
}

// Reservations are the claims on files: reserve, release and the scope
// check (a person stepping in is internal/hub/oversight).
type Reservations interface {
	Reserve(ctx context.Context, in ReserveInput) (ReserveResult, error)
	Release(ctx context.Context, agent, wd, raw string) (Reservation, error)
	CheckScope(ctx context.Context, agent, wd, raw string) (ScopeCheck, error)
	DisplayScope(r Reservation) string
	// ActiveOverlaps is every active reservation with the decision for its
	// holder on its scope (who else overlaps it).
	ActiveOverlaps(ctx context.Context) ([]ReservationOverlaps, error)
}

// Tasks are the work items: their life cycle and dependencies (an agent's
// work loop over them, vybe's model, is internal/hub/resume).
type Tasks interface {
	CreateTask(ctx context.Context, agent string, in TaskInput) (TaskResult, error)
	GetTask(ctx context.Context, id string) (Task, error)
	GetTaskDetail(ctx context.Context, id string) (TaskDetail, error)
	ListTasks(ctx context.Context, f TaskFilter) ([]Task, error)
	BeginTask(ctx context.Context, agent, id string) (TaskResult, error)
	ClaimTask(ctx context.Context, in ClaimInput) (TaskResult, error)
	CompleteTask(ctx context.Context, agent string, in CloseInput) (TaskResult, error)
	SetTaskStatus(ctx context.Context, agent, id, status string) (TaskResult, error)
	SetTaskPriority(ctx context.Context, agent, id string, priority int) (TaskResult, error)
	AddTaskDep(ctx context.Context, agent, id, dep string) (DepResult, error)
	RemoveTaskDep(ctx context.Context, agent, id, dep string) (DepResult, error)
	DeleteTask(ctx context.Context, agent, id string) (DeleteResult, error)
}

// Timeline is the one append-only history of the board.
type Timeline interface {
	Events(ctx context.Context, q EventQuery) (EventPage, error)
	// Follow streams timeline events to emit until ctx ends (see
	// Service.Follow); the remote client polls.
	Follow(ctx context.Context, in FollowInput, emit func(Event) error) error
	LatestEventSeq(ctx context.Context) (int64, error)
}

// Admin is the board as a whole: where it is, its clock, settings, export and clearing.
type Admin interface {
	// Root is the project directory the board belongs to.
	Root() string
	// Now is the service's clock (BB_NOW in tests).
	Now() time.Time
	// Info describes the board: its project directory and storage backend.
	Info(ctx context.Context) (Info, error)
	Config(ctx context.Context) ([]ConfigEntry, error)
	SetConfig(ctx context.Context, agent, key, value string) (ConfigEntry, error)
	// ClaimRepository checks a checkout's repository fingerprint against
	// the one the board serves (the first it heard): WRONG_REPOSITORY when
	// they differ.
	ClaimRepository(ctx context.Context, id string) (string, error)
	// ResetRepository forgets the repository the board serves (the
	// operator's: bb repository reset).
	ResetRepository(ctx context.Context) (RepositoryReset, error)
}

var (
	_ Identity     = (*Service)(nil)
	_ Messages     = (*Service)(nil)
	_ Mail         = (*Service)(nil)
	_ Reservations = (*Service)(nil)
	_ Tasks        = (*Service)(nil)
	_ Timeline     = (*Service)(nil)
	_ Admin        = (*Service)(nil)
)

// Root is the project directory (ProjectRoot).
func (s *Service) Root() string { return s.ProjectRoot }

// Info describes a board: what bb serve answers on GET /api/v1/info.
// Fields are in JSON key order.
type Info struct {
	// Backend names the storage ("sqlite", "postgres").
	Backend string `json:"backend"`
	// LastEventSeq is the newest timeline sequence number.
	LastEventSeq int64 `json:"last_event_seq"`
	// ProjectDir is the directory the board belongs to ("" for the
	// drop-ins that have no project).
	ProjectDir string `json:"project_dir"`
}

// Info describes the board.
func (s *Service) Info(ctx context.Context) (Info, error) {
	seq, err := s.LatestEventSeq(ctx)
	if err != nil {
		return Info{}, err
	}
	return Info{ProjectDir: s.ProjectRoot, Backend: s.store.Backend(), LastEventSeq: seq}, nil
}

// SchemaChecker is a store that can tell whether its database answers
// with the schema this binary expects (bb serve's /readyz).
type SchemaChecker interface {
	CheckSchema(ctx context.Context) error
}

// Ready reports whether the board can serve: the database answers and its
// schema is the one this binary migrated it to. Nil when ready; otherwise
// the reason (DATABASE_UNAVAILABLE, SCHEMA_TOO_NEW...).
func (s *Service) Ready(ctx context.Context) error {
	if c, ok := s.store.(SchemaChecker); ok {
		return c.CheckSchema(ctx)
	}
	_, err := s.LatestEventSeq(ctx)
	return err
}
