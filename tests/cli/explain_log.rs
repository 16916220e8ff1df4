//! `mcplogs explain` of a server's log file, named or piped: scan's verdict and cause
//! for that log, never its lines read as one pasted message (adversarial finding 4).

use std::path::{Path, PathBuf};

use crate::common::{mcplogs, run_json, run_with_stdin, samples};

fn log_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).expect("readable") {
        let p = e.expect("entry").path();
        if p.is_dir() {
            log_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "jsonl")
            && p.parent()
                .and_then(|d| d.file_name())
                .is_some_and(|n| n.to_string_lossy().starts_with("mcp-logs-"))
        {
            out.push(p);
        }
    }
}

fn verdicts(doc: &serde_json::Value) -> Vec<(String, String)> {
    doc["servers"]
        .as_array()
        .expect("servers")
        .iter()
        .map(|s| (s["verdict"].to_string(), s["cause"].to_string()))
        .collect()
}

#[test]
fn explain_of_each_sample_log_file_gives_scans_verdict_and_cause() {
    let home = tempfile::tempdir().expect("tempdir");
    let mut files = Vec::new();
    for tree in ["linux-home", "macos-home"] {
        log_files(&samples().join(tree), &mut files);
    }
    files.sort();
    assert!(files.len() >= 20, "{files:?}");
    let mut failing = 0;
    for f in &files {
        let (scan_run, scanned) = run_json(
            mcplogs(home.path())
                .args(["scan", "--json", "--no-cache"])
                .arg(f),
        );
        let want = verdicts(&scanned);
        assert_eq!(want.len(), 1, "{f:?}: {scanned}");
        if want[0].0 != "\"healthy\"" {
            failing += 1;
        }
        let (named, doc) = run_json(mcplogs(home.path()).args(["explain", "--json"]).arg(f));
        assert_eq!(verdicts(&doc), want, "explain {f:?}: {}", named.stdout);
        assert_eq!(
            doc["servers"][0]["name"], scanned["servers"][0]["name"],
            "{f:?}"
        );
        let mut cmd = mcplogs(home.path());
        cmd.args(["explain", "--json"]);
        let piped = run_with_stdin(&mut cmd, &std::fs::read(f).expect("readable"));
        let doc: serde_json::Value = serde_json::from_str(&piped.stdout)
            .unwrap_or_else(|e| panic!("{f:?} piped: {e}: {}{}", piped.stdout, piped.stderr));
        assert_eq!(verdicts(&doc), want, "explain < {f:?}");
        // no path of the private copy it was read from: `-`, stdin
        assert_eq!(doc["servers"][0]["logs"], "-", "{f:?}");
        // exit code as scan's: 1 for a failing verdict
        assert_eq!(named.code, scan_run.code, "{f:?}: {}", named.stderr);
    }
    assert!(failing >= 5, "the samples hold failing logs: {failing}");
}
