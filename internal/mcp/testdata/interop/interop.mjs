// Drives Blackboard's MCP server from the official TypeScript MCP SDK, as
// a real client would: list the tools, check every schema with Ajv, call
// every tool with valid arguments (the SDK's client validates each
// structured result against the tool's output schema and throws when it
// does not match), then with invalid ones (a tool error naming the
// parameter is expected). Prints one JSON report; exit status 1 when
// anything failed.
//
//   node interop.mjs stdio <path to bb> <project dir>
//   node interop.mjs http <mcp url>
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import Ajv from "ajv";

const [mode, a1, a2] = process.argv.slice(2);
const failures = [];
const fail = (what, detail) => failures.push(`${what}: ${typeof detail === "string" ? detail : JSON.stringify(detail)}`);

async function connect(agent) {
  const client = new Client({ name: "bb-interop", version: "1.0.0" });
  let transport;
  if (mode === "stdio") {
    transport = new StdioClientTransport({ command: a1, args: ["mcp", "--agent", agent], cwd: a2, stderr: "inherit" });
  } else {
    transport = new StreamableHTTPClientTransport(new URL(a1), { requestInit: { headers: { "X-BB-Agent": agent } } });
  }
  await client.connect(transport);
  return client;
}

const me = "interop-1";
const client = await connect(me);
const peer = await connect("peer-1");

// 1. tools/list and the schemas.
const { tools } = await client.listTools();
const ajv = new Ajv({ strict: true, allErrors: true });
for (const t of tools) {
  for (const [kind, schema] of [["input", t.inputSchema], ["output", t.outputSchema]]) {
    try {
      ajv.compile(schema);
    } catch (e) {
      fail(`${t.name} ${kind} schema`, e.message);
    }
  }
  for (const [name, p] of Object.entries(t.inputSchema.properties ?? {})) {
    if (typeof p.type !== "string") fail(`${t.name}.${name}`, `type must be one JSON type, got ${JSON.stringify(p.type)}`);
    if (!p.description) fail(`${t.name}.${name}`, "no description");
  }
  if (!t.annotations || t.annotations.openWorldHint !== false) fail(`${t.name} annotations`, t.annotations ?? "none");
}

// 2. Every tool with valid arguments. callTool checks the structured
// result against the output schema.
const called = new Set();
async function call(c, name, args, { expectError } = {}) {
  called.add(name);
  let r;
  try {
    r = await c.callTool({ name, arguments: args });
  } catch (e) {
    fail(`${name}(${JSON.stringify(args)})`, `client error: ${e.message}`);
    return undefined;
  }
  if (!expectError && r.isError) fail(`${name}(${JSON.stringify(args)})`, r.content?.[0]?.text ?? r);
  if (expectError) {
    const err = r.structuredContent?.error;
    if (!r.isError || err?.code !== expectError.code || (expectError.field && err?.field !== expectError.field)) {
      fail(`${name}(${JSON.stringify(args)}) must fail with ${JSON.stringify(expectError)}`, r.structuredContent ?? r);
    }
  }
  if (!Array.isArray(r.content) || r.content[0]?.type !== "text") fail(`${name} content`, r.content);
  return r.structuredContent;
}

await call(client, "bb_identify", { agent: me });
await call(peer, "bb_identify", { agent: "peer-1" });
await call(client, "bb_set_status", { status: "coding", progress: 40, current_task: "interop" });
await call(client, "bb_get_status", {});
await call(client, "bb_post_message", { content: "hello from TypeScript", tags: ["interop"], priority: "high", refs: ["gh:issue:42"] });
await call(client, "bb_read_messages", { limit: 5 });
await call(client, "bb_summary", {});
const mail = await call(peer, "bb_send_mail", { agent: me, bead: "bd-1", category: "HANDOFF", subject: "yours", body: "take it" });
const inbox = await call(client, "bb_inbox", { mark_read: true, limit: 10 });
if (!inbox?.messages?.some((m) => m.message_id === mail?.message_id && m.state === "read")) fail("bb_inbox", "the handoff is not listed as read");
await call(client, "bb_ack", { message_id: mail?.message_id ?? "" });
await call(client, "bb_reserve", { scope: "src/a.go", bead: "bd-1", ttl_minutes: 30 });
await call(peer, "bb_check_scope", { scope: "src/a.go" });
await call(client, "bb_release", { scope: "src/a.go" });
await call(client, "bb_register_artifact", { path: "notes.md", description: "interop notes", refs: ["gh:issue:42"] });
await call(client, "bb_list_artifacts", { limit: 5 });
await call(client, "bb_find_refs", { ref: "gh:issue:42" });
const task = await call(client, "bb_task_create", { title: "interop task", priority: 2 });
await call(client, "bb_task_list", { limit: 5 });
await call(client, "bb_task_begin", { id: task?.id ?? "" });
await call(client, "bb_task_complete", { id: task?.id ?? "", summary: "done" });
await call(client, "bb_resume", {});
await call(client, "bb_memory_set", { key: "build", value: "go build ./...", expires_in: "2h" });
await call(client, "bb_memory_get", { key: "build" });
await call(client, "bb_events", { limit: 10 });
const lease = await call(client, "bb_lease_acquire", { name: "deploy:staging", ttl_minutes: 30 });
if (!(lease?.lease?.fence >= 1)) fail("bb_lease_acquire", `no fencing number: ${JSON.stringify(lease)}`);
const leases = await call(peer, "bb_lease_list", {});
if (!leases?.leases?.some((l) => l.name === "deploy:staging")) fail("bb_lease_list", "the lease is not listed");
await call(client, "bb_lease_release", { name: "deploy:staging" });
// bb_wait: mail sent before the wait is returned at once (recorded as
// delivered); an empty wait times out plainly, with progress notifications
// when the call asks for them (_meta.progressToken, which the SDK sets
// when onprogress is given).
const info = await call(peer, "bb_send_mail", { agent: me, bead: "bd-1", category: "INFO", subject: "fyi", body: "the build is green" });
const woke = await call(client, "bb_wait", { timeout_s: 10 });
if (woke?.timed_out || !woke?.delivered?.includes(info?.message_id)) fail("bb_wait", `the mail was not delivered: ${JSON.stringify(woke)}`);
const progress = [];
try {
  const r = await client.callTool({ name: "bb_wait", arguments: { timeout_s: 2 } }, undefined, { onprogress: (p) => progress.push(p) });
  if (!r.structuredContent?.timed_out) fail("bb_wait timeout", r.structuredContent ?? r);
} catch (e) {
  fail("bb_wait timeout", `client error: ${e.message}`);
}
if (progress.length === 0) fail("bb_wait progress", "no progress notification in a 2 s wait");
if (tools.some((t) => t.name === "bb_search")) await call(client, "bb_search", { query: "hello", kind: "message", limit: 5 });
for (const t of tools) if (!called.has(t.name)) fail(t.name, "not called with valid arguments");

// 3. Invalid arguments: a tool error with INVALID_INPUT naming the
// parameter, never a protocol error.
for (const t of tools) {
  await call(client, t.name, { no_such_parameter: 1 }, { expectError: { code: "INVALID_INPUT", field: "no_such_parameter" } });
}
await call(client, "bb_set_status", { progress: "40" }, { expectError: { code: "INVALID_INPUT", field: "progress" } });
await call(client, "bb_read_messages", { limit: 1000 }, { expectError: { code: "INVALID_INPUT", field: "limit" } });
await call(client, "bb_resume", { focus: "nope" }, { expectError: { code: "NOT_FOUND" } });

await client.close();
await peer.close();
console.log(JSON.stringify({ mode, tools: tools.length, calls: called.size, failures }));
process.exit(failures.length ? 1 : 0);
