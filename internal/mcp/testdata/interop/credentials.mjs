// Drives bb serve's MCP endpoint from the official TypeScript MCP SDK with
// an agent's credential (issue 28): the session is the credential's agent,
// it cannot take another id, an operation of a higher role is refused, and
// once the credential is revoked the session is cut off. Prints one JSON
// report {"failures": [...]}; exit status 1 when anything failed.
//
//   node credentials.mjs <mcp url> <agent token> <operator token> <agent id>
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [url, token, operator, me] = process.argv.slice(2);
const failures = [];
const fail = (what, detail) => failures.push(`${what}: ${typeof detail === "string" ? detail : JSON.stringify(detail)}`);
const text = (r) => (r.content ?? []).map((c) => c.text ?? "").join("\n");

async function connect(headers) {
  const client = new Client({ name: "bb-credentials", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } });
  await client.connect(transport);
  return client;
}

const client = await connect({ Authorization: `Bearer ${token}` });
const instr = client.getInstructions() ?? "";
if (!instr.includes(`Your agent id is ${me}`)) fail("instructions", instr);

// As itself: works, without bb_identify.
const st = await client.callTool({ name: "bb_set_status", arguments: { current_task: "honest work" } });
if (st.isError || !text(st).includes(me)) fail("bb_set_status as itself", text(st));

// Another id: refused, naming the credential's agent.
const id = await client.callTool({ name: "bb_identify", arguments: { agent: "alice" } });
if (!id.isError || !text(id).includes("FORBIDDEN") || !text(id).includes(me)) fail("bb_identify alice", text(id));

// The global memory needs the operator.
const mem = await client.callTool({ name: "bb_memory_set", arguments: { key: "motto", value: "pwned" } });
if (!mem.isError || !text(mem).includes("operator")) fail("bb_memory_set global", text(mem));

// A session started naming another agent is refused.
try {
  await connect({ Authorization: `Bearer ${token}`, "X-BB-Agent": "alice" });
  fail("X-BB-Agent alice", "session started");
} catch (e) {
  if (!String(e).includes("403") && !String(e).includes("FORBIDDEN")) fail("X-BB-Agent alice", String(e));
}

// Revoked (by the operator, over HTTP): the session is cut off at once.
const base = new URL(url);
const rev = await fetch(new URL("/api/v1/command", base), {
  method: "POST",
  headers: { Authorization: `Bearer ${operator}`, "Content-Type": "application/json" },
  body: JSON.stringify({ args: ["token", "revoke", me] }),
});
if (rev.status !== 200) fail("revoke", `${rev.status} ${await rev.text()}`);
try {
  const r = await client.callTool({ name: "bb_get_status", arguments: {} });
  fail("call after revoke", text(r));
} catch (e) {
  if (!String(e).includes("UNAUTHORIZED")) fail("call after revoke", String(e));
}

console.log(JSON.stringify({ mode: "credentials", failures }));
process.exit(failures.length ? 1 : 0);
