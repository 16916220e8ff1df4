//! Trial: rmcp 3.11 as the probe's client. Connect (auto lifecycle) to a stdio server
//! given on the command line, list tools, print what the typed API returns.
use rmcp::model::ProtocolVersion;
use rmcp::service::{ClientLifecycleMode, ClientServiceExt};
use rmcp::transport::TokioChildProcess;

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut cmd = tokio::process::Command::new(&args[0]);
    cmd.args(&args[1..]);
    let t = TokioChildProcess::new(cmd).expect("spawn");
    let mode = ClientLifecycleMode::Auto {
        preferred_versions: vec![ProtocolVersion::V_2026_07_28],
        legacy_version: None,
    };
    match ().serve_with_lifecycle(t, mode).await {
        Err(e) => println!("connect error: {e}"),
        Ok(client) => {
            println!("peer: {:?}", client.peer_info().map(|i| i.server_info.clone()));
            match client.list_all_tools().await {
                Ok(tools) => println!("tools: {}", tools.iter().map(|t| t.name.to_string()).collect::<Vec<_>>().join(",")),
                Err(e) => println!("tools/list error: {e}"),
            }
        }
    }
}
