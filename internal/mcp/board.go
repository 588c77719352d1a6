package mcp

import (
	"github.com/blackboard-hub/bb/internal/hub/artifacts"

	"context"
	"strconv"

	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/view"
)

// The nine tools of seed 003 §7.2 (the board).

type identifyIn struct {
	Agent string `json:"agent" jsonschema:"e.g. claude-1"`
}

type identifyOut struct {
	AgentID string `json:"agent_id"`
	// Source is where the identity comes from: flag, env, header or identify.
	Source string `json:"source"`
}

type setStatusIn struct {
	CurrentTask *string `json:"current_task,omitempty" jsonschema:"your task"`
	Progress    *int    `json:"progress,omitempty" jsonschema:"percent"`
	Status      *string `json:"status,omitempty" jsonschema:"your state"`
	Blockers    *string `json:"blockers,omitempty" jsonschema:"what blocks you"`
}

type getStatusIn struct {
	Agent  string `json:"agent,omitempty" jsonschema:"one agent"`
	Limit  int    `json:"limit,omitempty" jsonschema:"default 50"`
	Cursor string `json:"cursor,omitempty" jsonschema:"next_cursor"`
}

type agentsOut struct {
	Agents     []AgentOut `json:"agents"`
	NextCursor string     `json:"next_cursor,omitempty"`
}

type postIn struct {
	Content  string   `json:"content" jsonschema:"the post"`
	Tags     []string `json:"tags,omitempty" jsonschema:"topics"`
	Priority string   `json:"priority,omitempty" jsonschema:"default normal"`
	ReplyTo  int64    `json:"reply_to,omitempty" jsonschema:"post id answered"`
	Refs     []string `json:"refs,omitempty" jsonschema:"e.g. gh:issue:42"`
}

type readMessagesIn struct {
	Since     string   `json:"since,omitempty" jsonschema:"e.g. 10m, 2d"`
	Tags      []string `json:"tags,omitempty" jsonschema:"any of these"`
	Agent     string   `json:"agent,omitempty" jsonschema:"author"`
	Priority  string   `json:"priority,omitempty" jsonschema:"at least this"`
	Ref       string   `json:"ref,omitempty" jsonschema:"e.g. gh:issue:42"`
	RepliesTo int64    `json:"replies_to,omitempty" jsonschema:"a post + replies"`
	Limit     int      `json:"limit,omitempty" jsonschema:"default 20"`
	Cursor    string   `json:"cursor,omitempty" jsonschema:"next_cursor"`
}

type messagesOut struct {
	Messages   []MessageOut `json:"messages"`
	NextCursor string       `json:"next_cursor,omitempty"`
}

type registerArtifactIn struct {
	Path        string   `json:"path" jsonschema:"path from project root"`
	Description string   `json:"description" jsonschema:"what it is"`
	Version     *string  `json:"version,omitempty" jsonschema:"label"`
	Refs        []string `json:"refs,omitempty" jsonschema:"e.g. gh:issue:42"`
}

type registerArtifactOut struct {
	ArtifactOut
	// Created is false when the path was registered before (upsert).
	Created bool `json:"created"`
}

type listArtifactsIn struct {
	Path   string `json:"path,omitempty" jsonschema:"only this"`
	Agent  string `json:"agent,omitempty" jsonschema:"author"`
	Ref    string `json:"ref,omitempty" jsonschema:"e.g. gh:issue:42"`
	Limit  int    `json:"limit,omitempty" jsonschema:"default 50"`
	Cursor string `json:"cursor,omitempty" jsonschema:"next_cursor"`
}

type artifactsOut struct {
	Artifacts  []ArtifactOut `json:"artifacts"`
	NextCursor string        `json:"next_cursor,omitempty"`
}

type findRefsIn struct {
	Ref    string `json:"ref" jsonschema:"e.g. gh:issue:42"`
	Cursor string `json:"cursor,omitempty" jsonschema:"next_cursor"`
}

type refsOut struct {
	Messages   []MessageOut  `json:"messages"`
	Artifacts  []ArtifactOut `json:"artifacts"`
	NextCursor string        `json:"next_cursor,omitempty"`
}

type emptyIn struct{}

// summaryOut lists each agent once (its status says whether it is
// blocked; liveness whether it is active).
type summaryOut struct {
	Agents               []AgentOut    `json:"agents"`
	RecentMessages       []MessageOut  `json:"recent_messages"`
	HighPriorityMessages []MessageOut  `json:"high_priority_messages"`
	RecentArtifacts      []ArtifactOut `json:"recent_artifacts"`
	LastEventSeq         int64         `json:"last_event_seq"`
	// Inbox is the caller's unread inbox (omitted when not identified).
	Inbox *view.Inbox `json:"inbox,omitempty"`
}

// addBoardTools registers the board's tools, in the order clients list
// them: who is working, the board's posts, files and refs, the summary.
func (s *Server) addBoardTools() {
	s.addIdentityTools()
	s.addPostTools()
	s.addArtifactTools()
	s.addSummaryTool()
}

// addIdentityTools: bb_identify, bb_set_status, bb_get_status.
func (s *Server) addIdentityTools() {
	addTool(s, tool{name: "bb_identify", core: true, idempotent: true,
		desc: "Give the id you were told; never invent one."},
		func(ctx context.Context, c *call, in identifyIn) (identifyOut, error) {
			src, err := s.identify(ctx, c.session, in.Agent)
			if err != nil {
				return identifyOut{}, err
			}
			id, _ := s.identity(c.session)
			if own := hub.Acting(ctx); own != "" {
				id = own
			} else if src == "hook" {
				id = in.Agent
			}
			return identifyOut{AgentID: id, Source: src}, nil
		})

	addTool(s, tool{name: "bb_set_status", needsID: true, core: true, idempotent: true,
		desc: "Tell others what you do (stuck: blocked + blockers)."},
		func(ctx context.Context, c *call, in setStatusIn) (AgentOut, error) {
			a, err := c.svc.SetStatus(ctx, c.agent, hub.StatusUpdate{Task: in.CurrentTask, Progress: in.Progress, Status: in.Status, Blockers: in.Blockers})
			return agentOut(a), err
		})

	addTool(s, tool{name: "bb_get_status", readOnly: true,
		desc: "Agents: task, progress, status, liveness."},
		func(ctx context.Context, c *call, in getStatusIn) (agentsOut, error) {
			if in.Agent != "" {
				a, err := c.svc.AgentStatus(ctx, in.Agent)
				if err != nil {
					return agentsOut{}, err
				}
				return agentsOut{Agents: agentLiveOuts([]hub.AgentView{a})}, nil
			}
			off, err := offsetOf(in.Cursor)
			if err != nil {
				return agentsOut{}, err
			}
			as, err := c.svc.Board(ctx)
			if err != nil {
				return agentsOut{}, err
			}
			page, next := pageOf(agentLiveOuts(as), off, limitOr(in.Limit, defaultListLimit))
			return agentsOut{Agents: page, NextCursor: next}, nil
		})
}

// addPostTools: bb_post_message, bb_read_messages.
func (s *Server) addPostTools() {
	addTool(s, tool{name: "bb_post_message", needsID: true, core: true,
		desc: "Post to the board (to one agent: bb_send_mail)."},
		func(ctx context.Context, c *call, in postIn) (MessageOut, error) {
			refs, err := hub.ParseRefs(in.Refs)
			if err != nil {
				return MessageOut{}, err
			}
			// The post and the caller's check-in in one transaction.
			r := c.svc.PostMany(ctx, []hub.PostOp{{In: hub.PostInput{From: c.agent, Content: in.Content, Tags: in.Tags,
				Priority: in.Priority, ReplyTo: in.ReplyTo, Refs: refs}, CheckIn: true}})[0]
			if r.Err != nil {
				return MessageOut{}, r.Err
			}
			c.checkedIn, c.notices = true, r.Notices
			return messageOut(r.Message), nil
		})

	addTool(s, tool{name: "bb_read_messages", core: true, idempotent: true,
		desc: "Board posts, newest first; unfiltered marks read."},
		func(ctx context.Context, c *call, in readMessagesIn) (messagesOut, error) {
			if in.RepliesTo != 0 {
				ms, err := c.svc.Thread(ctx, in.RepliesTo)
				return messagesOut{Messages: messageOuts(ms)}, err
			}
			before, err := seqOf(in.Cursor)
			if err != nil {
				return messagesOut{}, err
			}
			q := hub.LogQuery{Tags: in.Tags, From: in.Agent, MinPriority: in.Priority, Limit: in.Limit, Before: before, Reader: c.agent}
			if in.Since != "" {
				if q.Since, err = hub.ParseDuration(in.Since); err != nil {
					return messagesOut{}, err
				}
			}
			if q.Ref, err = view.OptionalRef(in.Ref); err != nil {
				return messagesOut{}, err
			}
			// The core cuts the page at the byte budget, so that the read
			// marks only what the reply shows.
			q.MaxBytes = pageBudget
			ms, err := c.svc.Log(ctx, q)
			if err != nil {
				return messagesOut{}, err
			}
			out := messagesOut{Messages: messageOuts(ms)}
			if len(ms) > 0 && (len(ms) == hub.ClampLimit(in.Limit, hub.DefaultLogLimit, hub.MaxLogLimit) || pageFull(ms, pageBudget)) {
				out.NextCursor = strconv.FormatInt(ms[len(ms)-1].Seq, 10)
			}
			return out, nil
		})
}

// addArtifactTools: bb_register_artifact, bb_list_artifacts, bb_find_refs.
func (s *Server) addArtifactTools() {
	addTool(s, tool{name: "bb_register_artifact", needsID: true, destructive: true, idempotent: true,
		desc: "Record a file you made (same path: update)."},
		func(ctx context.Context, c *call, in registerArtifactIn) (registerArtifactOut, error) {
			refs, err := hub.ParseRefs(in.Refs)
			if err != nil {
				return registerArtifactOut{}, err
			}
			a, created, err := c.svc.AddArtifact(ctx, artifacts.Input{Agent: c.agent, Path: in.Path, Description: in.Description, Version: in.Version, Refs: refs})
			return registerArtifactOut{ArtifactOut: artifactOut(a), Created: created}, err
		})

	addTool(s, tool{name: "bb_list_artifacts", readOnly: true,
		desc: "Registered files, newest first."},
		func(ctx context.Context, c *call, in listArtifactsIn) (artifactsOut, error) {
			if in.Path != "" {
				a, err := c.svc.ArtifactByPath(ctx, in.Path)
				if err != nil {
					return artifactsOut{}, err
				}
				return artifactsOut{Artifacts: artifactOuts([]hub.Artifact{a})}, nil
			}
			off, err := offsetOf(in.Cursor)
			if err != nil {
				return artifactsOut{}, err
			}
			ref, err := view.OptionalRef(in.Ref)
			if err != nil {
				return artifactsOut{}, err
			}
			limit := limitOr(in.Limit, hub.DefaultArtifactsLimit)
			as, err := c.svc.Artifacts(ctx, artifacts.Query{By: in.Agent, Ref: ref, Limit: min(off+limit+1, hub.MaxArtifactsLimit)})
			if err != nil {
				return artifactsOut{}, err
			}
			page, next := pageOf(artifactOuts(as), off, limit)
			return artifactsOut{Artifacts: page, NextCursor: next}, nil
		})

	addTool(s, tool{name: "bb_find_refs", readOnly: true,
		desc: "Posts and files linked to a ref."},
		func(ctx context.Context, c *call, in findRefsIn) (refsOut, error) {
			r, err := hub.ParseRef(in.Ref)
			if err != nil {
				return refsOut{}, err
			}
			off, err := offsetOf(in.Cursor)
			if err != nil {
				return refsOut{}, err
			}
			m, err := c.svc.FindRefs(ctx, r)
			if err != nil {
				return refsOut{}, err
			}
			// One page over the posts, then the artifacts.
			all := make([]any, 0, len(m.Messages)+len(m.Artifacts))
			for _, x := range messageOuts(m.Messages) {
				all = append(all, x)
			}
			for _, x := range artifactOuts(m.Artifacts) {
				all = append(all, x)
			}
			page, next := pageOf(all, off, maxListLimit)
			out := refsOut{Messages: []MessageOut{}, Artifacts: []ArtifactOut{}, NextCursor: next}
			for _, x := range page {
				switch v := x.(type) {
				case MessageOut:
					out.Messages = append(out.Messages, v)
				case ArtifactOut:
					out.Artifacts = append(out.Artifacts, v)
				}
			}
			return out, nil
		})
}

// addSummaryTool: bb_summary.
func (s *Server) addSummaryTool() {
	addTool(s, tool{name: "bb_summary", readOnly: true, core: true,
		desc: "Start here: agents, urgent posts, files."},
		func(ctx context.Context, c *call, _ emptyIn) (summaryOut, error) {
			sum, err := c.svc.Summary(ctx)
			if err != nil {
				return summaryOut{}, err
			}
			out := summaryOut{
				Agents: agentLiveOuts(sum.Agents), RecentMessages: messageOuts(sum.RecentMessages),
				HighPriorityMessages: messageOuts(sum.HighPriorityMessages), RecentArtifacts: artifactOuts(sum.RecentArtifacts),
				LastEventSeq: sum.LastEventSeq,
			}
			// Keep the overview small: long lists are cut (the list tools
			// page through everything).
			out.Agents = out.Agents[:fit(out.Agents, pageBudget/3)]
			out.RecentMessages = out.RecentMessages[:fit(out.RecentMessages, pageBudget/3)]
			out.HighPriorityMessages = out.HighPriorityMessages[:fit(out.HighPriorityMessages, pageBudget/6)]
			out.RecentArtifacts = out.RecentArtifacts[:fit(out.RecentArtifacts, pageBudget/6)]
			if c.agent != "" {
				n, err := c.svc.InboxCounts(ctx, c.agent)
				if err != nil {
					return summaryOut{}, err
				}
				out.Inbox = view.InboxOf(c.agent, n)
			}
			return out, nil
		})
}

// limitOr is limit, or def when none was given.
func limitOr(limit, def int) int {
	if limit <= 0 {
		return def
	}
	return limit
}

// pageFull reports whether adding a message to ms could have passed the
// byte budget (the core may have cut the page there).
func pageFull(ms []hub.Message, budget int) bool {
	used := 0
	for _, m := range ms {
		used += len(m.Subject) + len(m.Body) + 256
	}
	return used > budget/2
}
