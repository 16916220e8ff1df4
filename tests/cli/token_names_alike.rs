//! Server names holding different tokens print alike (`[REDACTED:github-token]`):
//! adversarial findings G3, G4, G8, G9. Each printed name holding a secret carries a tag
//! (`#` and four hex digits of a hash of the real name), which tells them apart in
//! every view and selects exactly one; the untagged printed form selects every server
//! printing so, and a command acting on one server refuses it when that is more than
//! one. No output holds a token.

use std::fs;

use crate::common::{Run, mcplogs, run};
use crate::token_names::{Home, SHOWN, TOKEN};

/// A second token of the same kind: printed exactly as [`TOKEN`] is, tag aside.
const TOKEN2: &str = "ghp_Z1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8";

fn printed(name: &str) -> String {
    mcplogs::scan::select::printed(name)
}

fn no_token(r: &Run, what: &str) {
    for t in [TOKEN, TOKEN2, &TOKEN[4..], &TOKEN2[4..]] {
        assert!(
            !r.stdout.contains(t) && !r.stderr.contains(t),
            "{what} echoes a token: {r:?}"
        );
    }
}

/// `~/work/proj` with `p-ok`, [`TOKEN`] and [`TOKEN2`] in its `.mcp.json`, `p-ok` and
/// the first token approved and logged; the second disabled in the user's settings
/// (`logged2`: approved and logged instead).
fn alike_home(logged2: bool) -> Home {
    let h = Home::new();
    h.mcp_json(&h.proj, &["p-ok", TOKEN, TOKEN2]);
    let mut enabled = vec!["p-ok", TOKEN];
    if logged2 {
        enabled.push(TOKEN2);
    } else {
        h.write(
            &h.home.join(".claude/settings.json"),
            serde_json::json!({"disabledMcpjsonServers": [TOKEN2]}),
        );
    }
    h.write(
        &h.proj.join(".claude/settings.local.json"),
        serde_json::json!({ "enabledMcpjsonServers": enabled }),
    );
    h.write(
        &h.home.join(".claude.json"),
        serde_json::json!({"projects": {h.proj.to_str().unwrap(): {"hasTrustDialogAccepted": true}}}),
    );
    h.log(&h.proj, "p-ok");
    h.log(&h.proj, TOKEN);
    if logged2 {
        h.log(&h.proj, TOKEN2);
    }
    h
}

/// `args` at 80 columns without colour.
fn run80(h: &Home, args: &[&str]) -> Run {
    let mut c = mcplogs(&h.home);
    c.current_dir(&h.elsewhere)
        .env("COLUMNS", "80")
        .env("NO_COLOR", "1")
        .args(args);
    run(&mut c)
}

/// G3: the not-logged server printing like a logged one keeps its own row (table, JSON
/// `configured[]`, advice), each told apart by its tag, at 80 columns too; its tagged
/// form selects it alone.
#[test]
fn servers_printing_alike_each_keep_their_row_told_apart() {
    let h = alike_home(false);
    let (one, two) = (printed(TOKEN), printed(TOKEN2));
    assert!(one.starts_with(SHOWN) && two.starts_with(SHOWN) && one != two);
    let r = run80(&h, &["scan"]);
    assert!(r.code == 0 || r.code == 1, "{r:?}");
    no_token(&r, "scan");
    assert!(r.stdout.lines().all(|l| l.chars().count() <= 80), "{r:?}");
    let row = |name: &str, state: &str| {
        r.stdout
            .lines()
            .any(|l| l.trim_start().starts_with(name) && l.contains(state))
    };
    assert!(
        row(&one, "healthy") && row(&two, "disabled"),
        "{}",
        r.stdout
    );
    // the advice names the disabled one
    let advice = r.stdout.split("What to do").nth(1).unwrap_or_default();
    assert!(
        advice.contains(&two) && !advice.contains(&one),
        "{}",
        r.stdout
    );

    let r = h.run(&["scan", "--json"]);
    no_token(&r, "scan --json");
    let doc: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    let names = |key: &str| -> Vec<String> {
        doc[key]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["name"].as_str().unwrap().to_string())
            .collect()
    };
    assert!(names("servers").contains(&one), "{doc}");
    assert!(names("configured").contains(&two), "{doc}");

    for (given, rows) in [(two.as_str(), 1), (one.as_str(), 1), (SHOWN, 2)] {
        let r = run80(&h, &["scan", "--server", given]);
        no_token(&r, "scan --server");
        // the table's rows (the advice below names them again)
        let table = r.stdout.split("What to do").next().unwrap_or_default();
        let n = table.matches(SHOWN).count();
        assert_eq!(n, rows, "scan --server {given}: {r:?}");
    }
    let r = run80(&h, &["scan", "--server", &two]);
    assert!(
        r.stdout.contains(&two) && r.stdout.contains("disabled"),
        "{r:?}"
    );
}

/// G4: a command acting on one server refuses (exit 2) the untagged printed form that
/// two servers print as, saying so and giving the tagged forms; the tagged form and the
/// real name select one.
#[test]
fn a_printed_form_naming_two_servers_is_a_usage_error_for_one_server_commands() {
    let h = alike_home(true);
    let (one, two) = (printed(TOKEN), printed(TOKEN2));
    let proj = h.proj.to_str().unwrap();
    for args in [
        &["probe", "--project", proj, SHOWN][..],
        &["fix", "--dry-run", SHOWN][..],
    ] {
        let r = h.run(args);
        assert_eq!(r.code, 2, "{args:?}: {r:?}");
        assert!(r.stderr.contains("names 2 servers"), "{args:?}: {r:?}");
        assert!(
            r.stderr.contains(&one) && r.stderr.contains(&two),
            "{args:?}: {r:?}"
        );
        no_token(&r, &format!("{args:?}"));
    }
    for given in [one.as_str(), TOKEN] {
        let r = h.run(&["fix", "--dry-run", given]);
        assert_eq!(r.code, 0, "fix {given}: {r:?}");
        no_token(&r, "fix NAME");
    }
    // scan and du list both, their rows told apart
    let r = run80(&h, &["scan", "--server", SHOWN]);
    assert!(r.stdout.contains(&one) && r.stdout.contains(&two), "{r:?}");
    let r = run80(&h, &["du", "--server", SHOWN]);
    assert_eq!(r.code, 0, "{r:?}");
    assert!(r.stdout.contains(&one) && r.stdout.contains(&two), "{r:?}");
    no_token(&r, "du");
    let r = run80(&h, &["du", "--server", &two]);
    assert!(r.stdout.contains(&two) && !r.stdout.contains(&one), "{r:?}");
}

/// G8: the form `scan` prints for `my.<token>` (whose log folder Claude Code names
/// `my-ghp-…`) selects it in `du --server` too, tagged or not, as the real name does;
/// `du` names it so too (the project's `.mcp.json` names its servers, as in `scan`).
#[test]
fn du_takes_the_form_scan_prints_for_a_name_its_folder_encodes_otherwise() {
    let h = Home::new();
    let name = format!("my.{TOKEN}");
    h.mcp_json(&h.proj, &["p-ok", &name]);
    h.write(
        &h.proj.join(".claude/settings.local.json"),
        serde_json::json!({"enabledMcpjsonServers": ["p-ok", name]}),
    );
    h.write(
        &h.home.join(".claude.json"),
        serde_json::json!({"projects": {h.proj.to_str().unwrap(): {"hasTrustDialogAccepted": true}}}),
    );
    h.log(&h.proj, "p-ok");
    h.log(&h.proj, &name);
    let r = h.run(&["scan", "--json"]);
    let doc: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    let shown = doc["servers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap().to_string())
        .find(|n| n.starts_with("my."))
        .unwrap_or_else(|| panic!("{doc}"));
    assert_eq!(shown, printed(&name));
    let untagged = format!("my.{SHOWN}");
    for given in [name.as_str(), shown.as_str(), untagged.as_str()] {
        let r = h.run(&["du", "--server", given]);
        assert_eq!(r.code, 0, "du --server {given}: {r:?}");
        // named as `scan` names it
        assert!(r.stdout.contains(&shown), "{r:?}");
        assert!(!r.stdout.contains("p-ok"), "{r:?}");
        no_token(&r, "du --server");
        let r = h.run(&["scan", "--server", given]);
        assert_eq!(r.code, 0, "scan --server {given}: {r:?}");
    }
}

/// G9: plain `fix` and `fix NAME` plan for a token-named `.mcp.json` server with no log
/// what they plan once it is logged: taken out of the disabled list, approved; the file
/// gets the real name, no output holds it.
#[test]
fn fix_enables_a_token_named_server_with_no_log_as_a_logged_one() {
    for logged in [false, true] {
        let h = Home::new();
        h.mcp_json(&h.proj, &["p-ok", TOKEN]);
        let local = h.proj.join(".claude/settings.local.json");
        h.write(
            &local,
            serde_json::json!({"enabledMcpjsonServers": ["p-ok"], "disabledMcpjsonServers": [TOKEN]}),
        );
        h.write(
            &h.home.join(".claude.json"),
            serde_json::json!({"projects": {h.proj.to_str().unwrap(): {"hasTrustDialogAccepted": true}}}),
        );
        h.log(&h.proj, "p-ok");
        if logged {
            h.log(&h.proj, TOKEN);
        }
        for args in [
            &["fix", "--dry-run"][..],
            &["fix", "--dry-run", SHOWN][..],
            &["fix", "--dry-run", TOKEN][..],
        ] {
            let r = h.run(args);
            assert_eq!(r.code, 0, "{args:?} (logged {logged}): {r:?}");
            assert!(
                !r.stderr.contains("Only you can fix"),
                "{args:?} (logged {logged}): {r:?}"
            );
            assert!(
                r.stdout.contains("+++") || r.stderr.contains("+++"),
                "{args:?} (logged {logged}): no diff: {r:?}"
            );
            assert!(
                r.stderr.contains(&printed(TOKEN)),
                "{args:?} (logged {logged}): {r:?}"
            );
            no_token(&r, &format!("{args:?}"));
        }
        let r = h.run(&["fix", "--yes", SHOWN]);
        assert_eq!(r.code, 0, "(logged {logged}): {r:?}");
        no_token(&r, "fix --yes");
        let v: serde_json::Value =
            serde_json::from_str(&fs::read_to_string(&local).unwrap()).unwrap();
        assert!(
            v["enabledMcpjsonServers"]
                .as_array()
                .unwrap()
                .contains(&TOKEN.into()),
            "(logged {logged}): {v}"
        );
        assert!(
            !v["disabledMcpjsonServers"]
                .as_array()
                .unwrap()
                .contains(&TOKEN.into()),
            "(logged {logged}): {v}"
        );
    }
}
