"""A small MCP server on the Python SDK (PyPI `mcp`), for the e2e's SDK interop.

    python py_server.py stdio
    python py_server.py http PORT        (Streamable HTTP on 127.0.0.1:PORT/mcp)

Works on `mcp` 2.x (`MCPServer`) and 1.x (`FastMCP`): three tools, nothing else of its
own. Run with the interpreter of a venv made by tests/e2e/sdk/install.sh.
"""
import sys

try:
    from mcp.server.mcpserver import MCPServer as Server  # mcp 2.x
except ImportError:
    from mcp.server.fastmcp import FastMCP as Server  # mcp 1.x

app = Server("mcplogs-e2e-py")


@app.tool()
def search_docs(query: str) -> str:
    """Search the documentation."""
    return f"no results for {query}"


@app.tool()
def get_page(page_id: str) -> str:
    """Fetch one page."""
    return f"page {page_id}"


@app.tool()
def list_pages() -> list[str]:
    """List pages."""
    return ["intro", "usage"]


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "http":
        port = int(sys.argv[2])
        try:
            app.run("streamable-http", host="127.0.0.1", port=port, streamable_http_path="/mcp")
        except TypeError:  # mcp 1.x: host and port are settings
            app.settings.host = "127.0.0.1"
            app.settings.port = port
            app.settings.streamable_http_path = "/mcp"
            app.run("streamable-http")
    else:
        app.run("stdio")
