package hub

import (
	"context"
	"time"
)

// API is the one door into the core: every surface (bb, agent-mail, vybe,
// MCP, the HTTP server and its dashboard) calls the core through it and
// through nothing else; no surface sees the Store, a Tx or the project
// root's internals (a test in internal/boot enforces it). It is
// implemented by *Service (the local board, built by internal/boot) and by
// the remote client of internal/server/remote (a bb serve reached through
// BB_SERVER), so every command runs unchanged against either.
//
// A method is callable over HTTP (POST /api/v1/rpc/<Method>) when its first
// parameter is a context.Context, no parameter is a func or a channel, and
// its last result is an error; the others (Root, Now,
// DisplayScope, PostMany, Follow) are written by hand in the remote client.
//
// A surface that needs new core behaviour: add the method to Service (in
// the file of its domain), add its signature here and run
// `go generate ./internal/server/remote` (a test fails while the generated
// client is stale). Its arguments and results must survive a JSON round
// trip (exported fields).
type API interface {
	// Root is the project directory the board belongs to.
	Root() string
	// Now is the service's clock (BB_NOW in tests).
	Now() time.Time
	AckAgentMail(ctx context.Context, agent, id string) (MailAckResult, error)
	AckMail(ctx context.Context, agent, id string) (MailItem, error)
	AddArtifact(ctx context.Context, in ArtifactInput) (Artifact, bool, error)
	AddTaskDep(ctx context.Context, agent, id, dep string) (DepResult, error)
	AgentMailStatus(ctx context.Context, agent, project string) ([]MailCounts, error)
	// AgentID applies the addressing rule (addressing.go): an id the board
	// knows is used as stored, any other must follow the surface grammar g.
	AgentID(ctx context.Context, g Grammar, id string) (string, error)
	AgentStatus(ctx context.Context, id string) (AgentView, error)
	ArtifactByPath(ctx context.Context, p string) (Artifact, error)
	Artifacts(ctx context.Context, q ArtifactQuery) ([]Artifact, error)
	BeginTask(ctx context.Context, agent, id string) (TaskResult, error)
	Board(ctx context.Context) ([]AgentView, error)
	CheckIn(ctx context.Context, agent string) (Notices, error)
	CheckEdit(ctx context.Context, in EditInput) (EditDecision, error)
	CheckPaths(ctx context.Context, in PathCheckInput) (PathCheckResult, error)
	CheckScope(ctx context.Context, agent, wd, raw string) (ScopeCheck, error)
	ClaimTask(ctx context.Context, in ClaimInput) (TaskResult, error)
	Config(ctx context.Context) ([]ConfigEntry, error)
	Clear(ctx context.Context, in ClearInput) (ClearPlan, error)
	CleanAgentMail(ctx context.Context, dryRun bool) (MailCleanupResult, error)
	ClearStatus(ctx context.Context, agent string) (Agent, error)
	CompleteTask(ctx context.Context, agent string, in CloseInput) (TaskResult, error)
	Conversation(ctx context.Context, key, viewer string) ([]TimelineItem, error)
	CoordinationStatus(ctx context.Context, bead, agent string) (CoordStatus, error)
	CreateTask(ctx context.Context, agent string, in TaskInput) (TaskResult, error)
	DeliverNew(ctx context.Context, agent string) (Delivery, error)
	DeliverToSession(ctx context.Context, in SessionInput) (SessionDelivery, error)
	DeliveredTo(ctx context.Context, agent string, messageIDs []string) ([]DeliveryReceipt, error)
	DeleteMemory(ctx context.Context, agent, scope, scopeID, key string) (MemoryWriteResult, error)
	DeleteTask(ctx context.Context, agent, id string) (DeleteResult, error)
	DisplayScope(r Reservation) string
	Events(ctx context.Context, q EventQuery) (EventPage, error)
	Export(ctx context.Context) (Export, error)
	// Follow streams timeline events to emit until ctx ends (see
	// Service.Follow); the remote client polls.
	Follow(ctx context.Context, in FollowInput, emit func(Event) error) error
	FindRefs(ctx context.Context, ref Ref) (RefMatches, error)
	GCMemory(ctx context.Context, agent string, limit int) (GCResult, error)
	GetHookSettings(ctx context.Context) (HookSettings, error)
	GetMemory(ctx context.Context, scope, scopeID, key string) (Memory, error)
	GetTask(ctx context.Context, id string) (Task, error)
	GetTaskDetail(ctx context.Context, id string) (TaskDetail, error)
	Heartbeat(ctx context.Context, id string) (AgentInfo, error)
	Inbox(ctx context.Context, q InboxQuery) ([]MailItem, error)
	InboxCounts(ctx context.Context, agent string) (Notices, error)
	// Info describes the board: its project directory and storage backend.
	Info(ctx context.Context) (Info, error)
	InitSession(ctx context.Context, in InitInput) (InitResult, error)
	LatestEventSeq(ctx context.Context) (int64, error)
	ListAgentInfos(ctx context.Context, q AgentQuery) ([]AgentInfo, error)
	ListAllMemory(ctx context.Context) ([]Memory, error)
	ListMemory(ctx context.Context, scope, scopeID string) ([]Memory, error)
	ListTaskArtifacts(ctx context.Context, taskID string, limit int) ([]ArtifactView, error)
	ListTaskEvents(ctx context.Context, q EventsQuery) ([]EventView, error)
	ListTasks(ctx context.Context, f TaskFilter) ([]Task, error)
	Log(ctx context.Context, q LogQuery) ([]Message, error)
	LoopRunStats(ctx context.Context, last int, projectID string) (LoopStats, error)
	PeekResume(ctx context.Context, agent, projectDir string) (PeekResult, error)
	PeekOwnResume(ctx context.Context, agent, projectDir string) (PeekResult, error)
	PlanClear(ctx context.Context, in ClearInput) (ClearPlan, error)
	Post(ctx context.Context, in PostInput) (Message, error)
	// PostMany stores many posts in one transaction (group commit); each
	// op succeeds or fails on its own.
	PostMany(ctx context.Context, ops []PostOp) []PostResult
	Push(ctx context.Context, agent string, in PushInput) (PushResult, error)
	ReadAgentMail(ctx context.Context, in MailReadInput) ([]MailRow, error)
	ReadMail(ctx context.Context, agent, id string) (MailItem, error)
	RegisterAgent(ctx context.Context, in RegisterInput) (AgentInfo, bool, error)
	Release(ctx context.Context, agent, wd, raw string) (Reservation, error)
	RemoveTaskDep(ctx context.Context, agent, id, dep string) (DepResult, error)
	ResolveSession(ctx context.Context, in SessionInput) (SessionResult, error)
	Reserve(ctx context.Context, in ReserveInput) (ReserveResult, error)
	Resume(ctx context.Context, in ResumeInput) (ResumeResult, error)
	SendAgentMail(ctx context.Context, in MailSendInput) (MailRow, error)
	SendMail(ctx context.Context, in SendInput) (MailItem, error)
	Search(ctx context.Context, q SearchQuery) (SearchResult, error)
	Sessions(ctx context.Context, viewer string) (Sessions, error)
	SessionBrief(ctx context.Context, agent string) (Delivery, error)
	SessionByClientPID(ctx context.Context, client string, pid int64) (HookSession, error)
	SetConfig(ctx context.Context, agent, key, value string) (ConfigEntry, error)
	SetMemory(ctx context.Context, agent string, in MemoryInput) (MemoryWriteResult, error)
	SetStatus(ctx context.Context, agent string, u StatusUpdate) (Agent, error)
	SetTaskPriority(ctx context.Context, agent, id string, priority int) (TaskResult, error)
	SetTaskStatus(ctx context.Context, agent, id, status string) (TaskResult, error)
	ShowAgent(ctx context.Context, id string) (AgentInfo, error)
	StepIn(ctx context.Context, in StepInInput) (StepInResult, error)
	StopReminder(ctx context.Context, in StopInput) (Reminder, error)
	Summary(ctx context.Context) (Summary, error)
	TaskStoreStatus(ctx context.Context, agent string) (TaskStatus, error)
	Thread(ctx context.Context, seq int64) ([]Message, error)
}

var _ API = (*Service)(nil)

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
	return Info{ProjectDir: s.ProjectRoot, Backend: s.Store.Backend(), LastEventSeq: seq}, nil
}
