package server

import "github.com/blackboard-hub/bb/internal/hub"

// The RPC surface is an explicit list. Every method of app.API that the
// remote client's generator can call (remotable) has exactly one entry:
// served, with the least role a credential needs to call it at all, or
// not served, with the reason. TestRPCAllowListCoversEveryMethod fails
// when a new remotable method has neither, so no method becomes callable
// over HTTP by accident (one that read the server's files once did).
//
// The least role here is the door's early refusal, before the body is
// read; it mirrors the role check of the method's REST twin and of the
// core (hub.Allow in the method), which stays the rule: "agent" means any
// credential, and the core still refuses acting as another agent.

// rpcRule is one method's entry.
type rpcRule struct {
	// Need is the least role ("" when the method is not served).
	Need hub.Access
	// NotServed says why a remotable method is not callable over RPC.
	NotServed string
}

func served(need hub.Access) rpcRule { return rpcRule{Need: need} }

func notServed(why string) rpcRule { return rpcRule{NotServed: why} }

// rpcRules returns the list, by method name.
func rpcRules() map[string]rpcRule {
	agent, overseer, operator := served(hub.AccessAgent), served(hub.AccessOverseer), served(hub.AccessOperator)
	return map[string]rpcRule{
		// Identity and presence.
		"AgentID":            agent,
		"RegisterAgent":      agent,
		"ShowAgent":          agent,
		"ListAgentInfos":     agent,
		"WhoAmI":             agent,
		"CheckIn":            agent,
		"ReadCheckIn":        agent,
		"CheckInAgents":      agent,
		"Heartbeat":          agent,
		"SetStatus":          agent,
		"ClearStatus":        agent,
		"ReportWhere":        agent,
		"AgentStatus":        agent,
		"CoordinationStatus": agent,
		"Info":               agent,
		// The board: posts, the log, threads, refs.
		"Post":     agent,
		"Log":      agent,
		"Thread":   agent,
		"FindRefs": agent,
		"Board":    agent,
		"Summary":  agent,
		"Search":   agent,
		// Mail.
		"SendMail":        agent,
		"ReplyMail":       agent,
		"Inbox":           agent,
		"InboxCounts":     agent,
		"ReadMail":        agent,
		"ReadMailMany":    agent,
		"AckMail":         agent,
		"DeliveredTo":     agent,
		"SendAgentMail":   agent,
		"ReadAgentMail":   agent,
		"AckAgentMail":    agent,
		"AgentMailStatus": agent,
		"CleanAgentMail":  operator,
		// Reservations and the edit check.
		"Reserve":        agent,
		"Release":        agent,
		"CheckScope":     agent,
		"CheckPaths":     agent,
		"CheckEdit":      agent,
		"ActiveOverlaps": agent,
		"StepIn":         overseer,
		"ReassignItem":   overseer,
		// Leases (a person's step-in inside ReleaseLease is refused by the
		// core to any credential below overseer).
		"AcquireLease":         agent,
		"ReleaseLease":         agent,
		"RenewLease":           agent,
		"CheckLease":           agent,
		"LeaseStatus":          agent,
		"ListLeases":           agent,
		"AcquireSessionLeases": agent,
		"ReleaseAgentLeases":   agent,
		"ReleaseSessionLeases": agent,
		// A person's answer and nudge (the core refuses a step-in by an
		// agent's credential).
		"Answer": agent,
		"Nudge":  agent,
		// The person's first act registers them, as the dashboard does.
		"EnsurePerson": agent,
		// Tasks.
		"CreateTask":        agent,
		"GetTask":           agent,
		"GetTaskDetail":     agent,
		"ListTasks":         agent,
		"ListTaskEvents":    agent,
		"ListTaskArtifacts": agent,
		"ClaimTask":         agent,
		"BeginTask":         agent,
		"CompleteTask":      agent,
		"SetTaskStatus":     agent,
		"SetTaskPriority":   agent,
		"DeleteTask":        agent,
		"AddTaskDep":        agent,
		"RemoveTaskDep":     agent,
		"TaskStoreStatus":   agent,
		// An agent's work loop: push, resume, memory, artifacts.
		"Push":           agent,
		"Resume":         agent,
		"PeekResume":     agent,
		"PeekOwnResume":  agent,
		"LoopRunStats":   agent,
		"SetMemory":      agent,
		"GetMemory":      agent,
		"ListMemory":     agent,
		"ListAllMemory":  agent,
		"DeleteMemory":   agent,
		"GCMemory":       operator,
		"AddArtifact":    agent,
		"Artifacts":      agent,
		"ArtifactByPath": agent,
		// The timeline.
		"Events":         agent,
		"LatestEventSeq": agent,
		// The hook application: sessions and delivery.
		"InitSession":      agent,
		"ResolveSession":   agent,
		"SessionOf":        agent,
		"SessionBrief":     agent,
		"Sessions":         agent,
		"DeliverNew":       agent,
		"DeliverToSession": agent,
		"StopReminder":     agent,
		"GetHookSettings":  agent,
		"SessionByClientPID": notServed("a process id names a process of the caller's machine, not the server's: " +
			"through bb serve a session is found by its client's session id (ResolveSession)"),
		// What a person watches.
		"Attention":    agent,
		"Conversation": agent,
		"Notified":     overseer,
		"MarkNotified": overseer,
		// The operator's.
		"Config":           agent,
		"SetConfig":        operator,
		"PlanClear":        operator,
		"Clear":            operator,
		"Export":           operator,
		"ResetRepository":  operator,
		"CreateCredential": operator,
		"ListCredentials":  operator,
		"RevokeCredential": operator,
		"Authenticate": notServed("the server authenticates the credential of every request itself; " +
			"a caller asks who it is with WhoAmI"),
		"ClaimRepository": notServed("a client names its repository in the " + "X-BB-Repository header of every call, " +
			"which the server checks before the call runs"),
	}
}
