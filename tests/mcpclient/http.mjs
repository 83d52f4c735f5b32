// The official TypeScript MCP client over Streamable HTTP against a team's
// braid serve --http (issue 46).
//
//   node http.mjs URL USERS_JSON
//
// URL is the server's endpoint (http://127.0.0.1:PORT/mcp). USERS_JSON is
// a file {"sources": [every source], "users": {"alice": {"token": "…",
// "sources": ["alpha"]}, …}}, written by mcpclient_test.go, which indexed
// one folder per source whose notes (alpha-0.md, alpha-1.md, …) all speak
// of rivers and each hold a secret word of their own (alphaword0, …), and
// gave each user a token and, in the server's policy, their sources.
//
// As each user, sending their token as a bearer (the SDK speaks 2025-11-25:
// initialize, then a session id): tools/list offers search and no writing
// tool; a search for rivers finds the user's granted notes alone and names
// no other source's secret word. Then another user presenting the first
// user's session id is refused (404, an unknown session), and a request
// without a token 401. Exit status 0 when every check passed; each failure
// is printed.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

import { check, failures } from "./check.mjs";

const url = new URL(process.argv[2]);
const { sources, users } = JSON.parse(readFileSync(process.argv[3], "utf8"));
const writing = ["add", "index_path", "configure", "restore", "inject_tags"];


// connect opens a session as the holder of token (none: no Authorization
// header), or resumes sessionId without initializing.
async function connect(token, sessionId) {
  const headers = token ? { Authorization: `Bearer ${token}` } : {};
  const transport = new StreamableHTTPClientTransport(url, { requestInit: { headers }, sessionId });
  const client = new Client({ name: "braid-mcpclient-http-test", version: "1" });
  await client.connect(transport);
  return { client, transport };
}

// httpStatus is the HTTP status a failed request was answered with.
async function httpStatus(fn) {
  try {
    await fn();
  } catch (err) {
    if (err instanceof StreamableHTTPError) return err.code;
    const m = /HTTP (\d{3})/.exec(err.message);
    if (m) return Number(m[1]);
    throw err;
  }
  return 200;
}

const sessions = {};
try {
  for (const [user, { token, sources: granted }] of Object.entries(users)) {
    let c;
    await check(`${user}: initialize over Streamable HTTP with a bearer token gives a session`, async () => {
      c = await connect(token);
      assert.ok(c.transport.sessionId, "no Mcp-Session-Id");
      sessions[user] = c.transport.sessionId;
    });
    if (!c) continue;
    await check(`${user}: tools/list offers search and no writing tool`, async () => {
      const { tools } = await c.client.listTools();
      const names = tools.map((t) => t.name);
      assert.ok(names.includes("search"), `tools/list: ${names}`);
      for (const w of writing) assert.ok(!names.includes(w), `tools/list offers ${w}: ${names}`);
    });
    await check(`${user}: search finds the notes of ${granted.join(", ")} alone`, async () => {
      const res = await c.client.callTool({ name: "search", arguments: { query: "rivers", limit: 20 } });
      const text = res.content.filter((x) => x.type === "text").map((x) => x.text).join("");
      assert.ok(!res.isError, `search failed: ${text}`);
      const found = JSON.parse(text);
      const got = [...new Set(found.results.map((r) => r.path.split("-")[0]))].sort();
      assert.deepEqual(got, [...granted].sort(), "the sources of the hits");
      assert.equal(found.total, 2 * granted.length, "the total counts the granted notes alone");
      for (const s of sources) {
        if (!granted.includes(s)) assert.ok(!text.includes(`${s}word`), `the answer gives away ${s}: ${text}`);
      }
    });
    await c.client.close();
  }

  const [first, second] = Object.keys(users);
  await check(`${second} presenting ${first}'s session id is refused 404`, async () => {
    assert.ok(sessions[first], `${first} got no session`);
    const { client } = await connect(users[second].token, sessions[first]);
    assert.equal(await httpStatus(() => client.listTools()), 404);
    await client.close();
  });
  await check("a request without a token is refused 401", async () => {
    assert.equal(await httpStatus(() => connect("")), 401);
  });
} catch (err) {
  failures.push(err.message);
  console.log(`FAIL ${err.stack}`);
}
if (failures.length > 0) {
  console.log(`${failures.length} check(s) failed`);
  process.exit(1);
}
console.log("every check passed");
