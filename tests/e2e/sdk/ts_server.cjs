// A small MCP server on the TypeScript SDK (npm `@modelcontextprotocol/sdk`), for the
// e2e's SDK interop.
//
//   NODE_PATH=<cache>/sdk-node-.../node_modules node ts_server.cjs stdio
//   NODE_PATH=... node ts_server.cjs http PORT     (Streamable HTTP on 127.0.0.1:PORT/mcp)
//
// Three tools, nothing else of its own. HTTP is stateful (one session per initialize),
// the SDK's own example shape.
const { McpServer } = require("@modelcontextprotocol/sdk/server/mcp.js");
const { StdioServerTransport } = require("@modelcontextprotocol/sdk/server/stdio.js");
const { StreamableHTTPServerTransport } = require("@modelcontextprotocol/sdk/server/streamableHttp.js");
const { isInitializeRequest } = require("@modelcontextprotocol/sdk/types.js");
const { randomUUID } = require("node:crypto");
const http = require("node:http");
const { z } = require("zod");

function build() {
  const server = new McpServer({ name: "mcplogs-e2e-ts", version: "1.0.0" });
  const text = (t) => ({ content: [{ type: "text", text: t }] });
  server.registerTool("search_docs", { description: "Search the documentation.", inputSchema: { query: z.string() } },
    async ({ query }) => text(`no results for ${query}`));
  server.registerTool("get_page", { description: "Fetch one page.", inputSchema: { page_id: z.string() } },
    async ({ page_id }) => text(`page ${page_id}`));
  server.registerTool("list_pages", { description: "List pages." }, async () => text("intro, usage"));
  return server;
}

async function main() {
  const mode = process.argv[2] || "stdio";
  if (mode === "stdio") {
    await build().connect(new StdioServerTransport());
    return;
  }
  const port = Number(process.argv[3]);
  const sessions = new Map();
  const srv = http.createServer(async (req, res) => {
    if (!req.url.startsWith("/mcp")) {
      res.writeHead(404).end();
      return;
    }
    let body;
    if (req.method === "POST") {
      const chunks = [];
      for await (const c of req) chunks.push(c);
      try {
        body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      } catch {
        res.writeHead(400).end();
        return;
      }
    }
    // the SDK's own stateful example: a session per initialize, 400 for anything else
    // that comes without a known session
    const sid = req.headers["mcp-session-id"];
    let transport;
    if (sid && sessions.has(sid)) {
      transport = sessions.get(sid);
    } else if (!sid && req.method === "POST" && isInitializeRequest(body)) {
      transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => sessions.set(id, transport),
      });
      transport.onclose = () => transport.sessionId && sessions.delete(transport.sessionId);
      await build().connect(transport);
    } else {
      res.writeHead(400, { "content-type": "application/json" }).end(JSON.stringify({
        jsonrpc: "2.0", error: { code: -32000, message: "Bad Request: No valid session ID provided" }, id: null,
      }));
      return;
    }
    await transport.handleRequest(req, res, body);
  });
  srv.listen(port, "127.0.0.1", () => console.error(`mcplogs-e2e-ts listening on http://127.0.0.1:${port}/mcp`));
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
