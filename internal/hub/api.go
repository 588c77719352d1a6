package hub

import (
	"context"
	"time"
)

// API is the method set of Service that the bb command line uses. It is
// implemented by *Service (the local board) and by the remote client of
// internal/server/remote (a bb serve reached through BB_SERVER), so every
// bb command runs unchanged against either: the same Go interface serves
// local and remote calls.
//
// Every method whose first parameter is a context.Context is callable over
// HTTP (POST /api/v1/rpc/<Method>); Root, Now and DisplayScope are answered
// by the client itself.
//
// A bb command that needs another Service method: add its signature here
// and run `go generate ./internal/server/remote` (a test fails while the
// generated client is stale). Its arguments and results must survive a
// JSON round trip (exported fields). Commands that must work on the local
// board only (they serve it or read its files) use app.localService.
type API interface {
	// Root is the project directory the board belongs to.
	Root() string
	// Now is the service's clock (BB_NOW in tests).
	Now() time.Time
	AckMail(ctx context.Context, agent, id string) (MailItem, error)
	AddArtifact(ctx context.Context, in ArtifactInput) (Artifact, bool, error)
	AddTaskDep(ctx context.Context, agent, id, dep string) (DepResult, error)
	AgentStatus(ctx context.Context, id string) (AgentView, error)
	ArtifactByPath(ctx context.Context, p string) (Artifact, error)
	Artifacts(ctx context.Context, q ArtifactQuery) ([]Artifact, error)
	BeginTask(ctx context.Context, agent, id string) (TaskResult, error)
	Board(ctx context.Context) ([]AgentView, error)
	CheckIn(ctx context.Context, agent string) (Notices, error)
	CheckScope(ctx context.Context, agent, wd, raw string) (ScopeCheck, error)
	Clear(ctx context.Context, in ClearInput) (ClearPlan, error)
	ClearStatus(ctx context.Context, agent string) (Agent, error)
	CompleteTask(ctx context.Context, agent string, in CloseInput) (TaskResult, error)
	CoordinationStatus(ctx context.Context, bead, agent string) (CoordStatus, error)
	CreateTask(ctx context.Context, agent string, in TaskInput) (TaskResult, error)
	DeleteMemory(ctx context.Context, agent, scope, scopeID, key string) (MemoryWriteResult, error)
	DeleteTask(ctx context.Context, agent, id string) (DeleteResult, error)
	DisplayScope(r Reservation) string
	Events(ctx context.Context, f EventFilter) ([]Event, error)
	Export(ctx context.Context) (Export, error)
	FindRefs(ctx context.Context, ref Ref) (RefMatches, error)
	GCMemory(ctx context.Context, agent string, limit int) (GCResult, error)
	GetMemory(ctx context.Context, scope, scopeID, key string) (Memory, error)
	GetTask(ctx context.Context, id string) (Task, error)
	GetTaskDetail(ctx context.Context, id string) (TaskDetail, error)
	Heartbeat(ctx context.Context, id string) (AgentInfo, error)
	Inbox(ctx context.Context, q InboxQuery) ([]MailItem, error)
	InitSession(ctx context.Context, in InitInput) (InitResult, error)
	LatestEventSeq(ctx context.Context) (int64, error)
	ListAgentInfos(ctx context.Context, q AgentQuery) ([]AgentInfo, error)
	ListMemory(ctx context.Context, scope, scopeID string) ([]Memory, error)
	ListTasks(ctx context.Context, f TaskFilter) ([]Task, error)
	Log(ctx context.Context, q LogQuery) ([]Message, error)
	PeekResume(ctx context.Context, agent, projectDir string) (PeekResult, error)
	PlanClear(ctx context.Context, in ClearInput) (ClearPlan, error)
	Post(ctx context.Context, in PostInput) (Message, error)
	Push(ctx context.Context, agent string, in PushInput) (PushResult, error)
	ReadMail(ctx context.Context, agent, id string) (MailItem, error)
	RegisterAgent(ctx context.Context, in RegisterInput) (AgentInfo, bool, error)
	Release(ctx context.Context, agent, wd, raw string) (Reservation, error)
	RemoveTaskDep(ctx context.Context, agent, id, dep string) (DepResult, error)
	Reserve(ctx context.Context, in ReserveInput) (ReserveResult, error)
	Resume(ctx context.Context, in ResumeInput) (ResumeResult, error)
	SendMail(ctx context.Context, in SendInput) (MailItem, error)
	SetMemory(ctx context.Context, agent string, in MemoryInput) (MemoryWriteResult, error)
	SetStatus(ctx context.Context, agent string, u StatusUpdate) (Agent, error)
	SetTaskPriority(ctx context.Context, agent, id string, priority int) (TaskResult, error)
	SetTaskStatus(ctx context.Context, agent, id, status string) (TaskResult, error)
	ShowAgent(ctx context.Context, id string) (AgentInfo, error)
	Summary(ctx context.Context) (Summary, error)
	Thread(ctx context.Context, seq int64) ([]Message, error)
}

var _ API = (*Service)(nil)

// Root is the project directory (ProjectRoot).
func (s *Service) Root() string { return s.ProjectRoot }
