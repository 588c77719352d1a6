package bb

import (
	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/view"
)

// JSON shapes of Blackboard commands (seed 003 field names) live in
// internal/view, shared with the HTTP API so both print the same objects.

type agentJSON = view.Agent

func agentView(a hub.Agent) agentJSON               { return view.AgentOf(a) }
func agentLiveView(a hub.AgentView) agentJSON       { return view.AgentLive(a) }
func agentLiveViews(as []hub.AgentView) []agentJSON { return view.AgentsLive(as) }

type messageJSON = view.Message

func messageView(m hub.Message) messageJSON       { return view.MessageOf(m) }
func messageViews(ms []hub.Message) []messageJSON { return view.Messages(ms) }

type artifactJSON = view.Artifact

func artifactView(a hub.Artifact) artifactJSON       { return view.ArtifactOf(a) }
func artifactViews(as []hub.Artifact) []artifactJSON { return view.Artifacts(as) }

type eventJSON = view.Event

func eventView(e hub.Event) eventJSON             { return view.EventOf(e) }
func eventViews(es []hub.Event) []eventJSON       { return view.Events(es) }
func storedEventViews(es []hub.Event) []eventJSON { return view.StoredEvents(es) }
