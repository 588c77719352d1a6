package mcp

import (
	"context"

	"github.com/blackboard-hub/bb/internal/hub"
)

// The nine tools of seed 003 §7.2 (the board).

type identifyIn struct {
	AgentID string `json:"agent_id" jsonschema:"your agent id, e.g. claude-1 (max 64 bytes, no spaces)"`
}

type identifyOut struct {
	AgentID string `json:"agent_id"`
	// Source is where the identity comes from: flag, env or identify.
	Source string `json:"source"`
}

type setStatusIn struct {
	CurrentTask *string `json:"current_task,omitempty" jsonschema:"what you are working on (max 256 bytes)"`
	Progress    *int    `json:"progress,omitempty" jsonschema:"0-100"`
	Status      *string `json:"status,omitempty" jsonschema:"idle|planning|coding|testing|reviewing|blocked|offline"`
	Blockers    *string `json:"blockers,omitempty" jsonschema:"what blocks you (with status blocked)"`
}

type getStatusIn struct {
	AgentID string `json:"agent_id,omitempty" jsonschema:"one agent; omit for all"`
}

type agentsOut struct {
	Agents []AgentOut `json:"agents"`
}

type postIn struct {
	Content  string   `json:"content" jsonschema:"the message (max 64 KiB)"`
	Tags     []string `json:"tags,omitempty" jsonschema:"topic tags (max 10)"`
	Priority string   `json:"priority,omitempty" jsonschema:"low|normal|high|critical (default normal)"`
	ReplyTo  int64    `json:"reply_to,omitempty" jsonschema:"id of the message this answers"`
	Refs     []string `json:"refs,omitempty" jsonschema:"links where:what:ref, e.g. gh:issue:42"`
}

type readMessagesIn struct {
	Since     string   `json:"since,omitempty" jsonschema:"only newer than this: 10m, 1h, 2d"`
	Tags      []string `json:"tags,omitempty" jsonschema:"any of these tags"`
	FromAgent string   `json:"from_agent,omitempty"`
	Priority  string   `json:"priority,omitempty" jsonschema:"minimum priority"`
	Ref       string   `json:"ref,omitempty" jsonschema:"where:what:ref"`
	Thread    int64    `json:"thread,omitempty" jsonschema:"message id: that message and its replies"`
	Limit     int      `json:"limit,omitempty" jsonschema:"default 20, max 100"`
}

type messagesOut struct {
	Messages []MessageOut `json:"messages"`
}

type registerArtifactIn struct {
	Path        string   `json:"path" jsonschema:"file path relative to the project root"`
	Description string   `json:"description" jsonschema:"what it is (max 1024 bytes)"`
	Version     *string  `json:"version,omitempty"`
	Refs        []string `json:"refs,omitempty" jsonschema:"where:what:ref links"`
}

type registerArtifactOut struct {
	ArtifactOut
	// Created is false when the path was registered before (upsert).
	Created bool `json:"created"`
}

type listArtifactsIn struct {
	Path  string `json:"path,omitempty" jsonschema:"only this path"`
	By    string `json:"by,omitempty" jsonschema:"only produced by this agent"`
	Ref   string `json:"ref,omitempty" jsonschema:"where:what:ref"`
	Limit int    `json:"limit,omitempty" jsonschema:"default 50, max 100"`
}

type artifactsOut struct {
	Artifacts []ArtifactOut `json:"artifacts"`
}

type findRefsIn struct {
	Ref string `json:"ref" jsonschema:"where:what:ref, e.g. gh:issue:42"`
}

type refsOut struct {
	Messages  []MessageOut  `json:"messages"`
	Artifacts []ArtifactOut `json:"artifacts"`
}

type emptyIn struct{}

type summaryOut struct {
	ActiveAgents         []AgentOut    `json:"active_agents"`
	BlockedAgents        []AgentOut    `json:"blocked_agents"`
	Agents               []AgentOut    `json:"agents"`
	RecentMessages       []MessageOut  `json:"recent_messages"`
	HighPriorityMessages []MessageOut  `json:"high_priority_messages"`
	RecentArtifacts      []ArtifactOut `json:"recent_artifacts"`
	LastEventSeq         int64         `json:"last_event_seq"`
}

func parseOptRef(s string) (*hub.Ref, error) {
	if s == "" {
		return nil, nil
	}
	r, err := hub.ParseRef(s)
	if err != nil {
		return nil, err
	}
	return &r, nil
}

func (s *Server) addBoardTools() {
	addTool(s, tool{name: "bb_identify", core: true,
		desc: "Set who you are (your agent id) for this session; call it first if your identity is not configured."},
		func(ctx context.Context, c *call, in identifyIn) (identifyOut, error) {
			src, err := s.identify(c.session, in.AgentID)
			if err != nil {
				return identifyOut{}, err
			}
			id, _ := s.identity(c.session)
			return identifyOut{AgentID: id, Source: src}, nil
		})

	addTool(s, tool{name: "bb_set_status", needsID: true, core: true,
		desc: "Tell the others what you are doing: task, progress, status (blocked + blockers when stuck). Update on every change of task."},
		func(ctx context.Context, c *call, in setStatusIn) (AgentOut, error) {
			a, err := c.svc.SetStatus(ctx, c.agent, hub.StatusUpdate{Task: in.CurrentTask, Progress: in.Progress, Status: in.Status, Blockers: in.Blockers})
			return agentOut(a), err
		})

	addTool(s, tool{name: "bb_get_status", readOnly: true, core: true,
		desc: "See every agent (or one) with task, progress, status and liveness, before starting or splitting work."},
		func(ctx context.Context, c *call, in getStatusIn) (agentsOut, error) {
			if in.AgentID != "" {
				a, err := c.svc.AgentStatus(ctx, in.AgentID)
				if err != nil {
					return agentsOut{}, err
				}
				return agentsOut{Agents: agentLiveOuts([]hub.AgentView{a})}, nil
			}
			as, err := c.svc.Board(ctx)
			return agentsOut{Agents: agentLiveOuts(as)}, err
		})

	addTool(s, tool{name: "bb_post_message", needsID: true, core: true,
		desc: "Broadcast a message to every agent: decisions, findings, handoffs, questions. Use reply_to to answer one."},
		func(ctx context.Context, c *call, in postIn) (MessageOut, error) {
			refs, err := hub.ParseRefs(in.Refs)
			if err != nil {
				return MessageOut{}, err
			}
			m, err := c.svc.Post(ctx, hub.PostInput{From: c.agent, Content: in.Content, Tags: in.Tags, Priority: in.Priority, ReplyTo: in.ReplyTo, Refs: refs})
			return messageOut(m), err
		})

	addTool(s, tool{name: "bb_read_messages", readOnly: true, core: true,
		desc: "Read board messages, newest first, with filters (since, tags, sender, priority, ref) or one thread. Check it when told of unread messages."},
		func(ctx context.Context, c *call, in readMessagesIn) (messagesOut, error) {
			if in.Thread != 0 {
				if in.Thread < 0 {
					return messagesOut{}, hub.FieldErr(hub.CodeInvalidInput, "thread", "thread must be a message id, got %d", in.Thread)
				}
				ms, err := c.svc.Thread(ctx, in.Thread)
				return messagesOut{Messages: messageOuts(ms)}, err
			}
			if in.Limit < 0 {
				return messagesOut{}, hub.FieldErr(hub.CodeInvalidInput, "limit", "limit must be a positive integer (max %d), got %d", hub.MaxLogLimit, in.Limit)
			}
			q := hub.LogQuery{Tags: in.Tags, From: in.FromAgent, MinPriority: in.Priority, Limit: in.Limit, Reader: c.agent}
			var err error
			if in.Since != "" {
				if q.Since, err = hub.ParseDuration(in.Since); err != nil {
					return messagesOut{}, err
				}
			}
			if q.Ref, err = parseOptRef(in.Ref); err != nil {
				return messagesOut{}, err
			}
			ms, err := c.svc.Log(ctx, q)
			return messagesOut{Messages: messageOuts(ms)}, err
		})

	addTool(s, tool{name: "bb_register_artifact", needsID: true,
		desc: "Record a file you produced (spec, report, build output) so others can find it; registering a path again updates it."},
		func(ctx context.Context, c *call, in registerArtifactIn) (registerArtifactOut, error) {
			refs, err := hub.ParseRefs(in.Refs)
			if err != nil {
				return registerArtifactOut{}, err
			}
			a, created, err := c.svc.AddArtifact(ctx, hub.ArtifactInput{Agent: c.agent, Path: in.Path, Description: in.Description, Version: in.Version, Refs: refs})
			return registerArtifactOut{ArtifactOut: artifactOut(a), Created: created}, err
		})

	addTool(s, tool{name: "bb_list_artifacts", readOnly: true,
		desc: "List registered artifacts (newest first), by producer, ref or path, to find what others produced."},
		func(ctx context.Context, c *call, in listArtifactsIn) (artifactsOut, error) {
			if in.Path != "" {
				a, err := c.svc.ArtifactByPath(ctx, in.Path)
				if err != nil {
					return artifactsOut{}, err
				}
				return artifactsOut{Artifacts: artifactOuts([]hub.Artifact{a})}, nil
			}
			if in.Limit < 0 {
				return artifactsOut{}, hub.FieldErr(hub.CodeInvalidInput, "limit", "limit must be a positive integer (max %d), got %d", hub.MaxArtifactsLimit, in.Limit)
			}
			ref, err := parseOptRef(in.Ref)
			if err != nil {
				return artifactsOut{}, err
			}
			as, err := c.svc.Artifacts(ctx, hub.ArtifactQuery{By: in.By, Ref: ref, Limit: in.Limit})
			return artifactsOut{Artifacts: artifactOuts(as)}, err
		})

	addTool(s, tool{name: "bb_find_refs", readOnly: true,
		desc: "Find every message and artifact linked to an issue, PR or other where:what:ref, before working on it."},
		func(ctx context.Context, c *call, in findRefsIn) (refsOut, error) {
			r, err := hub.ParseRef(in.Ref)
			if err != nil {
				return refsOut{}, err
			}
			m, err := c.svc.FindRefs(ctx, r)
			return refsOut{Messages: messageOuts(m.Messages), Artifacts: artifactOuts(m.Artifacts)}, err
		})

	addTool(s, tool{name: "bb_summary", readOnly: true, core: true,
		desc: "One-glance overview: active and blocked agents, recent and urgent messages, new artifacts. Call it when you start."},
		func(ctx context.Context, c *call, _ emptyIn) (summaryOut, error) {
			sum, err := c.svc.Summary(ctx)
			if err != nil {
				return summaryOut{}, err
			}
			return summaryOut{
				ActiveAgents: agentLiveOuts(sum.ActiveAgents), BlockedAgents: agentLiveOuts(sum.BlockedAgents),
				Agents: agentLiveOuts(sum.Agents), RecentMessages: messageOuts(sum.RecentMessages),
				HighPriorityMessages: messageOuts(sum.HighPriorityMessages), RecentArtifacts: artifactOuts(sum.RecentArtifacts),
				LastEventSeq: sum.LastEventSeq,
			}, nil
		})
}
