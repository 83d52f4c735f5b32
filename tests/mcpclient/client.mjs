// The official TypeScript MCP client against braid serve's seed profiles.
//
//   node client.mjs BRAID_BINARY
//
// It writes a small vault, indexes it with the binary (twice, the second
// time after editing a note, so a chunk has a lineage), then for each of
// the profiles ks and yams spawns `braid serve --tools PROFILE` over stdio,
// checks that tools/list is exactly the seed's list in
// mcpserver/testdata/seed_tools.json (less what it says braid leaves out),
// and calls each of the profile's new tools, asserting on the replies.
// Exit status 0 when every check passed; each failure is printed.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

import { check, failures } from "./check.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const bin = resolve(process.argv[2] ?? join(here, "../../bin/braid"));
const seeds = JSON.parse(readFileSync(join(here, "../../mcpserver/testdata/seed_tools.json"), "utf8"));

const work = mkdtempSync(join(tmpdir(), "braid-mcpclient-"));
const vault = join(work, "vault");
const idx = join(work, "index");
const write = (rel, text) => {
  mkdirSync(dirname(join(vault, rel)), { recursive: true });
  writeFileSync(join(vault, rel), text);
};
const braid = (...args) => execFileSync(bin, ["--index", idx, "--model", "none", ...args], { stdio: ["ignore", "pipe", "pipe"] });

write("top.md", "# Top\n\nThe top note about rivers.\n");
write("a/one.md", "# One\n\nNote one about rivers and alpha.\n");
write("a/b/two.md", "# Two\n\nNote two about rivers and beta.\n");
const section = (lines) => lines.map((l) => `line ${l} about gamma`).join("\n");
write("c/long.md", `# Long\n\n## Part\n\n${section(["a1", "a2", "a3", "a4"])}\n`);
braid("index", "--chunk-tokens", "40", vault);
// The edit splits the section in two: its chunk gets a lineage.
write("c/long.md", `# Long\n\n## Part\n\n${section(["a1", "a2"])}\n\n## Rest\n\n${section(["a3", "a4"])}\n`);
braid("index", "--chunk-tokens", "40", vault);

// A second vault for view_chunk_image: a note embedding a PNG, which
// braid indexes as a document of its own by the text around the embed.
const png = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==", "base64");
const vault2 = join(work, "vault2");
const idx2 = join(work, "index2");
mkdirSync(vault2, { recursive: true });
writeFileSync(join(vault2, "design.md"), "# Design\n\nThe overview of the system.\n\n![the architecture diagram](diagram.png)\n");
writeFileSync(join(vault2, "diagram.png"), png);
execFileSync(bin, ["--index", idx2, "--model", "none", "index", vault2], { stdio: ["ignore", "pipe", "pipe"] });


// session opens an MCP session with braid serve --tools profile.
async function session(profile, index = idx) {
  const transport = new StdioClientTransport({
    command: bin,
    // --allow-writes: the seed lists restore, which braid offers only with it.
    args: ["--index", index, "--model", "none", "serve", "--allow-writes", "--tools", profile],
    stderr: "pipe",
  });
  const client = new Client({ name: "braid-mcpclient-test", version: "1" });
  await client.connect(transport);
  return client;
}

// call calls a tool that must succeed and returns its JSON answer (or
// its text, for a tool that answers text).
async function call(client, name, args = {}) {
  const res = await client.callTool({ name, arguments: args });
  const text = res.content.filter((c) => c.type === "text").map((c) => c.text).join("");
  assert.ok(!res.isError, `${name} ${JSON.stringify(args)} failed: ${text}`);
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

async function checkTools(client, profile) {
  const want = [...seeds[profile].tools].sort();
  const { tools } = await client.listTools();
  const got = tools.map((t) => t.name).sort();
  assert.deepEqual(got, want, `tools/list of --tools ${profile}`);
  for (const left of Object.keys(seeds[profile].left_out ?? {})) {
    assert.ok(!got.includes(left), `${left} is listed although seed_tools.json says braid leaves it out`);
  }
}

try {
  const ks = await session("ks");
  await check("ks: tools/list equals the seed's list", () => checkTools(ks, "ks"));
  await check("ks: list_contents walks the folders by id", async () => {
    const root = await call(ks, "list_contents");
    assert.equal(root.items.length, 1);
    assert.equal(root.items[0].part_type, "FOLDER");
    assert.equal(root.items[0].docs, 4);
    const top = await call(ks, "list_contents", { folder_id: root.items[0].path_part_id });
    assert.deepEqual(top.items.map((p) => `${p.part_type} ${p.name}`), ["FOLDER a", "FOLDER c", "DOCUMENT top.md"]);
    const a = await call(ks, "list_contents", { folder_id: top.items[0].path_part_id });
    assert.deepEqual(a.items.map((p) => p.name), ["b", "one.md"]);
    const byPath = await call(ks, "list_contents", { folder_id: "a" });
    assert.equal(byPath.folder.path_part_id, top.items[0].path_part_id, "a folder's path and its id name the same folder");
  });
  await check("ks: get_organization_info names the index", async () => {
    const org = await call(ks, "get_organization_info");
    assert.match(org.tenant_id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.equal(org.id, org.tenant_id);
    assert.equal(org.name, "index");
    assert.equal(org.documents, 4);
    assert.equal(org.sources, 1);
    assert.ok(org.default_language && org.timezone, "language and time zone are set");
  });
  await check("ks: trace_chunk_lineage follows the split", async () => {
    const hits = await call(ks, "search_keyword", { query: "a3", top_k: 1 });
    const id = hits.results[0].chunk_id;
    const l = await call(ks, "trace_chunk_lineage", { chunk_id: id });
    assert.equal(l.chunk_id, id);
    assert.equal(l.current, true);
    assert.equal(l.versions.length, 2);
    assert.ok(l.edges.some((e) => e.child_chunk_id === id && e.relation === "split"), JSON.stringify(l.edges));
    assert.match(l.summary, /lineage edges/);
  });
  await ks.close();

  const ks2 = await session("ks", idx2);
  await check("ks: view_chunk_image returns an embedded image as image content", async () => {
    const hits = await call(ks2, "search_keyword", { query: "architecture diagram", top_k: 5 });
    const img = hits.results.find((h) => h.path === "diagram.png");
    assert.ok(img, `no hit on diagram.png: ${JSON.stringify(hits.results.map((h) => h.path))}`);
    const res = await ks2.callTool({ name: "view_chunk_image", arguments: { chunk_id: img.chunk_id } });
    assert.ok(!res.isError, JSON.stringify(res.content));
    const image = res.content.find((c) => c.type === "image");
    assert.ok(image, `no image content: ${JSON.stringify(res.content.map((c) => c.type))}`);
    assert.equal(image.mimeType, "image/png");
    assert.equal(image.data, png.toString("base64"));
    const text = hits.results.find((h) => h.path === "design.md");
    assert.ok(text, "the note embedding the image is a hit too");
    const refused = await ks2.callTool({ name: "view_chunk_image", arguments: { chunk_id: text.chunk_id } });
    const said = refused.content.filter((c) => c.type === "text").map((c) => c.text).join("");
    assert.ok(refused.isError && /read/.test(said) && /cite/.test(said), `a text chunk: ${said}`);
  });
  await ks2.close();

  const yams = await session("yams");
  await check("yams: tools/list equals the seed's list", () => checkTools(yams, "yams"));
  await check("yams: a session scopes search, grep and list", async () => {
    const st = await call(yams, "session_start", { name: "ts", description: "the a notes" });
    assert.equal(st.name, "ts");
    assert.equal(st.created, true);
    assert.equal(st.current, true);
    const pin = await call(yams, "session_pin", { path: "a" });
    assert.equal(pin.updated, 2);
    const list = await call(yams, "list");
    assert.equal(list.session, "ts");
    assert.deepEqual(list.documents.map((d) => d.path).sort(), ["a/b/two.md", "a/one.md"]);
    const found = await call(yams, "search", { query: "rivers" });
    assert.equal(found.session, "ts");
    assert.deepEqual(found.results.map((r) => r.path).sort(), ["a/b/two.md", "a/one.md"]);
    const all = await call(yams, "search", { query: "rivers", use_session: false });
    assert.equal(all.results.length, 3);
    const grep = await call(yams, "grep", { pattern: "rivers", files_with_matches: true });
    assert.equal(grep.trim().split("\n").length, 2, grep);
  });
  await check("yams: watch turns watching on and off", async () => {
    const on = await call(yams, "watch", { session: "ts" });
    assert.equal(on.enabled, true);
    assert.deepEqual(on.watching, [vault]);
    const off = await call(yams, "watch", { session: "ts", enable: false });
    assert.equal(off.enabled, false);
  });
  await check("yams: session_unpin and session_stop", async () => {
    const un = await call(yams, "session_unpin", { path: "a" });
    assert.deepEqual(un.pins, []);
    const stop = await call(yams, "session_stop");
    assert.equal(stop.name, "ts");
    assert.equal(stop.active, false);
    const list = await call(yams, "list");
    assert.equal(list.total, 4);
  });
  await yams.close();
} finally {
  rmSync(work, { recursive: true, force: true });
}

if (failures.length > 0) {
  console.log(`${failures.length} checks failed: ${failures.join("; ")}`);
  process.exit(1);
}
console.log("every check passed");
