//! Three tools over stdio on `rmcp`, the official Rust MCP SDK.
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{ServerCapabilities, ServerConfig};
use rmcp::{ServerHandler, ServiceExt, tool, tool_handler, tool_router};
use schemars::JsonSchema;
use serde::Deserialize;

#[derive(Deserialize, JsonSchema)]
struct Query {
    query: String,
}

#[derive(Deserialize, JsonSchema)]
struct Page {
    page_id: String,
}

#[derive(Clone)]
struct Docs {
    tool_router: ToolRouter<Self>,
}

#[tool_router]
impl Docs {
    #[tool(description = "Search the documentation.")]
    async fn search_docs(&self, Parameters(q): Parameters<Query>) -> String {
        format!("no results for {}", q.query)
    }

    #[tool(description = "Fetch one page.")]
    async fn get_page(&self, Parameters(p): Parameters<Page>) -> String {
        format!("page {}", p.page_id)
    }

    #[tool(description = "List pages.")]
    async fn list_pages(&self) -> String {
        "intro, usage".into()
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Docs {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let docs = Docs {
        tool_router: Docs::tool_router(),
    };
    let service = docs.serve(rmcp::transport::stdio()).await?;
    service.waiting().await?;
    Ok(())
}
