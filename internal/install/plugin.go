package install

import (
	"encoding/json"
	"regexp"
	"strings"

	"github.com/blackboard-hub/bb/internal/hookio"
	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/shellquote"
)

// OpenCode has no command hooks: it extends its agent with JavaScript or
// TypeScript plugins, files in .opencode/plugins/ (project) or
// ~/.config/opencode/plugins/ (global) that it loads at startup. A plugin
// exports async functions returning hooks: "chat.message" (input.sessionID;
// output.message, output.parts — parts added there reach the model with
// the prompt), "tool.execute.before" (input.tool, input.sessionID;
// output.args — throwing refuses the call, and the error is the tool's
// result the model reads), "tool.execute.after" (output.output, the text
// the model reads), and "event" for bus events such as session.created and
// session.idle (a session's turn is over). A plugin also receives client,
// the SDK client of OpenCode's own server:
// client.session.promptAsync({path: {id}, body: {parts}}) adds a prompt to
// a session and starts its next turn without waiting for it.
// https://opencode.ai/docs/plugins, https://opencode.ai/docs/sdk (checked
// against opencode-ai 1.18.33 and its @opencode-ai/plugin 1.18.33,
// dist/index.d.ts Hooks and PluginInput, and @opencode-ai/sdk 1.18.33,
// dist/gen/sdk.gen.d.ts Session.promptAsync, dist/gen/types.gen.d.ts
// EventSessionIdle).
//
// bb writes one plugin file, whole: it runs `bb hook opencode <event>` for
// those hooks with Claude Code's payload shape on stdin and reads Claude
// Code's reply shape (hookSpecificOutput; at session.idle, a Stop hook's
// {"decision": "block", "reason"}) back. OpenCode has no hook that keeps a
// turn going, so the end-of-turn reminder is sent as the session's next
// prompt; the idle that ends that turn runs bb hook with
// stop_hook_active, as Claude Code does, and the board never gives the
// same reminder twice in a session, so it comes once. At a session.idle that
// starts no reminder, the plugin runs `bb hook opencode wake` for the
// session (one per session: the session's next prompt, or a newer waiter,
// kills the older one) and sends what it prints ({"text": …}, the items,
// recorded delivered by the wake) as the session's next prompt with
// client.session.promptAsync: mail wakes an idle session (TestOpenCodeWake,
// opencode-ai 1.18.33). bb recognises its file by
// the first line and never overwrites or deletes a file that lacks it.

// pluginMarker is the first line of the plugin file bb writes.
const pluginMarker = "// Blackboard (bb) plugin for OpenCode: written by `bb install opencode`, removed by `bb uninstall opencode`."

// isOurPlugin reports whether a file's content is a plugin bb wrote.
func isOurPlugin(content string) bool { return strings.HasPrefix(content, pluginMarker) }

// pluginEvents are the plugin hooks that run bb hook, by kind.
func pluginEvents(client string) map[hookio.Kind]hookio.EventSpec {
	out := map[hookio.Kind]hookio.EventSpec{}
	for _, e := range hookio.Events(client) {
		out[e.Kind] = e
	}
	return out
}

// renderPlugin is the plugin file for client, running this install's bb.
func (ie *Env) renderPlugin(client string) string {
	hook := []string{ie.exe, "hook", client}
	// The plugin file is committed: no directory is pinned (bb hook finds
	// the board from OpenCode's working directory).
	pin := []string{}
	if ie.opts.Agent != "" {
		pin = append(pin, "--agent", ie.opts.Agent)
	}
	js := func(v any) string {
		b, _ := marshalNoEscape(v)
		return string(b)
	}
	ev := pluginEvents(client)
	r := strings.NewReplacer(
		"@MARKER@", pluginMarker,
		"@HOOK@", js(hook),
		"@PIN@", js(pin),
		"@EDIT@", js("^("+ev[hookio.KindPreTool].Matcher+")$"),
		"@START@", js(ev[hookio.KindStart].Name),
		"@PROMPT@", js(ev[hookio.KindPrompt].Name),
		"@PRE@", js(ev[hookio.KindPreTool].Name),
		"@POST@", js(ev[hookio.KindPostTool].Name),
		"@STOP@", js(ev[hookio.KindStop].Name),
		"@WAKE@", js("wake"),
	)
	return r.Replace(pluginSource)
}

// pluginSource is the plugin's text; @NAME@ are filled in by renderPlugin.
const pluginSource = `@MARKER@
// It gives each OpenCode session its own identity on the project's board,
// brings new mail into the model's context with each prompt and after tool
// calls, and refuses an edit of a file another agent has reserved, by
// running bb hook at OpenCode's plugin hooks (https://opencode.ai/docs/plugins).
// bb install rewrites this file; bb uninstall deletes it.
import { spawn } from "node:child_process"

const hook = @HOOK@
const pin = @PIN@
const editTools = new RegExp(@EDIT@)

// run runs one bb hook event with its JSON payload on stdin and returns
// the reply (null when bb is missing, fails or says nothing: the session
// goes on without the board, as with any client hook that fails).
function run(event, payload) {
  return new Promise((resolve) => {
    let out = ""
    let child
    try {
      child = spawn(hook[0], [...hook.slice(1), event, ...pin], { stdio: ["pipe", "pipe", "ignore"] })
    } catch {
      resolve(null)
      return
    }
    child.stdout.on("data", (chunk) => (out += chunk))
    child.on("error", () => resolve(null))
    child.on("close", () => {
      try {
        resolve(out.trim() ? JSON.parse(out) : null)
      } catch {
        resolve(null)
      }
    })
    child.stdin.on("error", () => {})
    child.stdin.end(JSON.stringify(payload))
  })
}

const context = (reply) => reply?.hookSpecificOutput?.additionalContext || ""

// A one-shot "opencode run" (no --attach, not interactive) exits as soon as
// its session goes idle, before a plugin's event hook (which OpenCode does
// not wait for) could add a prompt: there the reminder would be spent and
// never read, so it is not asked for. OpenCode's TUI, "opencode serve" and
// the server an "opencode run --attach" talks to stay up and run it.
const args = process.argv.slice(2)
const oneShot = args.includes("run") && !args.some((a) => /^--attach(=|$)/.test(a) || a === "-i" || a === "--interactive")

export const Blackboard = async ({ directory, client }) => {
  const created = new Set() // sessions created in this process
  const children = new Set() // subagent sessions (a task's), which get no reminder
  const started = new Set() // sessions given their brief in this process
  const reminded = new Set() // sessions whose current turn is bb's reminder
  // Sessions whose turn ended in an error or was interrupted (OpenCode
  // publishes session.error before session.idle): no reminder, as Claude
  // Code runs no Stop hook when the user interrupts.
  const failed = new Set()
  const asked = new Map() // session -> the agent and model of its last prompt
  const payload = (sessionID, event, more) => ({ session_id: sessionID, cwd: directory, hook_event_name: event, ...more })
  // stop runs at the end of a session's turn: bb's reminder, when there is
  // one, becomes the session's next prompt. It says whether it started
  // that turn.
  const stop = async (sessionID) => {
    const active = reminded.delete(sessionID)
    if (failed.delete(sessionID) || oneShot || children.has(sessionID) || !client?.session?.promptAsync) return false
    const reply = await run(@STOP@, payload(sessionID, @STOP@, { stop_hook_active: active }))
    if (reply?.decision !== "block" || !reply.reason) return false
    reminded.add(sessionID)
    try {
      const res = await client.session.promptAsync({
        path: { id: sessionID },
        body: { ...asked.get(sessionID), parts: [{ type: "text", text: reply.reason }] },
      })
      if (!res?.error) return true
      reminded.delete(sessionID)
    } catch {
      reminded.delete(sessionID)
    }
    return false
  }
  // The idle session's waiter: at session.idle, "bb hook opencode wake"
  // waits on the board until something arrives for the session's agent,
  // then prints {"text": …} (the items, recorded delivered by the wake, so
  // the prompt hook of the turn it starts does not repeat them) and ends;
  // the text becomes the session's next prompt. One waiter per session: a
  // new turn or a newer waiter ends the older one (and the board ends a
  // waiter a newer one of its session supersedes). The waiter ends itself
  // when this OpenCode process is gone.
  const waiters = new Map() // session -> its waiter process
  const unwait = (sessionID) => {
    const child = waiters.get(sessionID)
    if (!child) return
    waiters.delete(sessionID)
    try {
      child.kill()
    } catch {}
  }
  const wait = (sessionID) => {
    unwait(sessionID)
    if (oneShot || children.has(sessionID) || !client?.session?.promptAsync) return
    let child
    try {
      // BB_WAKE_CLIENT_PID names this OpenCode process: a waiter started
      // as OpenCode ends (its parent already gone) sees it is not its
      // parent's child and ends at once instead of outliving OpenCode.
      child = spawn(hook[0], [...hook.slice(1), @WAKE@, ...pin], {
        stdio: ["pipe", "pipe", "ignore"],
        env: { ...process.env, BB_WAKE_CLIENT_PID: String(process.pid) },
      })
    } catch {
      return
    }
    waiters.set(sessionID, child)
    let out = ""
    child.stdout.on("data", (chunk) => (out += chunk))
    child.on("error", () => {
      if (waiters.get(sessionID) === child) waiters.delete(sessionID)
    })
    child.on("close", async () => {
      if (waiters.get(sessionID) === child) waiters.delete(sessionID)
      // What a waiter printed is recorded delivered: it is sent even when
      // a turn started meanwhile (OpenCode queues it after that turn).
      let text = ""
      try {
        text = out.trim() ? JSON.parse(out).text || "" : ""
      } catch {}
      if (!text) return
      try {
        await client.session.promptAsync({
          path: { id: sessionID },
          body: { ...asked.get(sessionID), parts: [{ type: "text", text }] },
        })
      } catch {}
    })
    child.stdin.on("error", () => {})
    child.stdin.end(JSON.stringify(payload(sessionID, @WAKE@)))
  }
  return {
    event: async ({ event }) => {
      const info = event?.properties?.info
      if (event?.type === "session.created" && info?.id) {
        created.add(info.id)
        if (info.parentID) children.add(info.id)
      }
      if (event?.type === "session.error" && event.properties?.sessionID) failed.add(event.properties.sessionID)
      if (event?.type === "session.idle" && event.properties?.sessionID) {
        const id = event.properties.sessionID
        if (!(await stop(id))) wait(id)
      }
    },
    "chat.message": async (input, output) => {
      unwait(input.sessionID) // a turn starts: the session is not idle
      if (input.agent || input.model) asked.set(input.sessionID, { agent: input.agent, model: input.model })
      const texts = []
      if (!started.has(input.sessionID)) {
        started.add(input.sessionID)
        const source = created.has(input.sessionID) ? "startup" : "resume"
        texts.push(context(await run(@START@, payload(input.sessionID, @START@, { source }))))
      }
      texts.push(context(await run(@PROMPT@, payload(input.sessionID, @PROMPT@))))
      const text = texts.filter(Boolean).join("\n")
      if (!text) return
      // A part needs an id; OpenCode orders a message's parts by id, and
      // the prompt's own part id with a suffix sorts right after it.
      const after = output.parts.map((p) => p.id).filter(Boolean).sort().pop() || "prt_" + Date.now().toString(16)
      output.parts.push({ id: after + "bb", type: "text", text, synthetic: true, messageID: output.message.id, sessionID: input.sessionID })
    },
    "tool.execute.before": async (input, output) => {
      if (!editTools.test(input.tool)) return
      const reply = await run(@PRE@, payload(input.sessionID, @PRE@, { tool_name: input.tool, tool_input: output.args }))
      const decision = reply?.hookSpecificOutput
      if (decision?.permissionDecision === "deny") throw new Error(decision.permissionDecisionReason || "refused by Blackboard")
    },
    "tool.execute.after": async (input, output) => {
      const text = context(await run(@POST@, payload(input.sessionID, @POST@, { tool_name: input.tool })))
      if (text && typeof output.output === "string") output.output += "\n\n" + text
    },
  }
}
`

var pluginConsts = regexp.MustCompile(`(?m)^const (hook|pin) = (\[.*\])$`)

// pluginCommands reads back the bb hook command a plugin bb wrote runs for
// each event, as a shell command line (what doctor checks); nil when the
// file is not bb's.
func pluginCommands(content, client string) map[string]string {
	if !isOurPlugin(content) {
		return nil
	}
	var hook, pin []string
	for _, m := range pluginConsts.FindAllStringSubmatch(content, -1) {
		var v []string
		if json.Unmarshal([]byte(m[2]), &v) != nil {
			return nil
		}
		if m[1] == "hook" {
			hook = v
		} else {
			pin = v
		}
	}
	if len(hook) < 3 || hook[1] != "hook" || hook[2] != client {
		return nil
	}
	out := map[string]string{}
	for _, e := range hookio.Events(client) {
		words := append(append(append([]string{}, hook...), e.Name), pin...)
		for i, w := range words {
			words[i] = shellquote.Quote(w)
		}
		out[e.Name] = strings.Join(words, " ")
	}
	return out
}

// setPlugin makes f bb's plugin file; a file there that bb did not write
// is refused.
func (ie *Env) setPlugin(f *FileChange, client string) error {
	if f.existed && strings.TrimSpace(f.cur) != "" && !isOurPlugin(f.cur) && !f.delete {
		return hub.Errorf(hub.CodeInvalidInput, "%s exists and was not written by bb (its first line is not bb's): move it, then retry; nothing was written", f.Path)
	}
	if !f.existed {
		f.rec.Created = true
	}
	f.delete = false
	f.cur = ie.renderPlugin(client)
	return nil
}
