package hooks

import "github.com/blackboard-hub/bb/internal/hub"

// The actions the hook application names in its texts (hub.Text: the
// session brief, mail, edit denials, the stop reminder): the next step in
// domain terms, which each surface words in its own syntax (bb hook: the
// bb command line). Args name domain values.
const (
	// ActActAs: act on the board as Args["agent"].
	ActActAs = "act_as"
	// ActCompleteTask: Args["agent"] completes the task Args["task"].
	ActCompleteTask = "complete_task"
	// ActAck: Args["agent"] acknowledges the message Args["message"].
	ActAck = "ack"
	// ActReply: Args["agent"] replies to the message Args["message"] (its
	// short id).
	ActReply = "reply"
	// ActAskRelease: Args["from"] asks Args["to"] for the reservation of
	// Args["scope"] on the bead Args["bead"], to edit Args["path"].
	ActAskRelease = hub.ActAskRelease
	// ActCoordinate: Args["from"] tells Args["to"] that it is about to edit
	// Args["path"], changed on the branch Args["branch"].
	ActCoordinate = "coordinate"
	// ActRelease: Args["agent"] releases its reservation of Args["scope"].
	ActRelease = "release"
	// ActNameAgent: say which agent the hook acts for.
	ActNameAgent = "name_agent"
)
