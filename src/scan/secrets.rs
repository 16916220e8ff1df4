//! Every value the configuration marks as a secret ([`ConfiguredSecrets`]), gathered
//! once a run: each configured MCP server's `env` and `headers` values and its `url`'s
//! credentials and query values, from every configuration file the scan reads
//! (`~/.claude.json`: user scope and every project's local scope; each project's
//! `.mcp.json`; `managed-mcp.json`), and the `OTEL_EXPORTER_OTLP_HEADERS` and
//! `OTEL_EXPORTER_OTLP_LOGS_HEADERS` values of the settings layers and the environment.
//!
//! A scan collects them itself ([`super::ScanReport::secrets`]) and every redaction of
//! its result learns them: [`super::redact_report`], the stderr tails, `report`,
//! `export`, `probe`. Each file is read once a run, never once a server folder, and the
//! values stay in memory: nothing of them is written anywhere (the summary index holds
//! the same text with or without them).

use std::path::{Path, PathBuf};

use crate::claude_code::config::{self, ConfiguredValue, GlobalConfig};
use crate::claude_code::paths;
use crate::redact::configured::ConfiguredSecrets;
use crate::settings::env::all_env_in_file;
use crate::settings::layers::{LayerKind, Sources};

/// The exporter's header variables: their values are credentials.
pub const HEADER_VARIABLES: [&str; 2] = [
    "OTEL_EXPORTER_OTLP_HEADERS",
    "OTEL_EXPORTER_OTLP_LOGS_HEADERS",
];

/// Where the configured secrets are read from.
#[derive(Debug, Clone, Default)]
pub struct Places {
    /// The homes read (`--home`); none: this machine's. `${VAR}` expands from this
    /// process's environment whichever home is read.
    pub homes: Vec<PathBuf>,
    /// Project folders whose `.mcp.json` and project settings count.
    pub projects: Vec<PathBuf>,
    /// The managed settings folder (`--managed-dir`); `None`: this OS's.
    pub managed_dir: Option<PathBuf>,
    /// Every project the homes' `~/.claude.json` lists whose folder is there counts too
    /// (after `projects`): a server of one project can echo another project's secret,
    /// and every view hides it, whichever servers it shows.
    pub listed: bool,
}

/// The `~/.claude.json` of each home (`homes` empty: this machine's).
fn globals(homes: &[PathBuf]) -> Vec<PathBuf> {
    if homes.is_empty() {
        paths::global_config_here().into_iter().collect()
    } else {
        homes.iter().map(|h| paths::claude_json_in(h)).collect()
    }
}

/// Every project folder the homes' `~/.claude.json` lists (none given: this machine's),
/// each once: where a printed project path is looked for
/// ([`super::select::printed_project`]).
pub(crate) fn listed_projects(homes: &[PathBuf]) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = Vec::new();
    for g in &globals(homes) {
        for (p, _) in config::listed_projects(Some(&GlobalConfig::read(g))) {
            if !out.contains(&p) {
                out.push(p);
            }
        }
    }
    out
}

/// The environment `${VAR}` expands from: this process's, for a scan of any home. For
/// another home's it need not be the one that home's Claude Code ran with, but a value
/// it gives a `${VAR}` the configuration marks as secret is one this user holds: hidden,
/// it costs nothing; left literal, a server echoing it printed it whole (helper-77 #5).
fn env_of() -> impl Fn(&str) -> Option<String> {
    |k: &str| std::env::var(k).ok()
}

/// Adds a configured value to `out`.
fn adder(out: &mut ConfiguredSecrets) -> impl FnMut(ConfiguredValue) + '_ {
    move |v: ConfiguredValue| match v {
        ConfiguredValue::Keyed(k, v) => out.add_configured(&k, &v),
        ConfiguredValue::Url(u) => out.add_url(&u),
        ConfiguredValue::Args(a) => out.add_args(&a),
    }
}

/// A project's own settings layers (project and local), not the user's or the managed
/// ones every project shares.
fn project_layers(homes: &[PathBuf], dir: &Path, managed_dir: Option<&Path>) -> Vec<PathBuf> {
    Sources::for_scan_in(homes, dir, managed_dir)
        .files()
        .into_iter()
        .filter(|(k, _)| matches!(k, LayerKind::Project | LayerKind::Local))
        .map(|(_, p)| p)
        .collect()
}

/// Learns the `env` values the settings files `files` set: Claude Code passes them on to
/// every stdio server, which may echo them. Each is learned as a server's `env` value is
/// (where its key or its shape says secret); the header variables' values per header.
fn learn_settings_env(out: &mut ConfiguredSecrets, files: &[PathBuf]) {
    for f in files {
        for (var, v) in all_env_in_file(f) {
            if HEADER_VARIABLES.contains(&var.as_str()) {
                out.add_header_list(&var, &v);
            } else {
                out.add(&var, &v);
            }
        }
    }
}

/// What only the project folder `dir`'s own files mark as secret: its `.mcp.json` and
/// its project and local settings layers, what [`collect`] adds for a project after
/// the first. For a caller that has collected the homes', the managed files' and the
/// environment's already (the summary index, for each deciding session's project):
/// `~/.claude.json`, which can be megabytes, is not read again.
pub fn of_project(homes: &[PathBuf], dir: &Path, managed_dir: Option<&Path>) -> ConfiguredSecrets {
    let env = env_of();
    let mut out = ConfiguredSecrets::new();
    if let Some(doc) = config::read_config_file(&paths::project_mcp_json(dir)) {
        config::configured_values(&doc, &env, &mut adder(&mut out));
    }
    learn_settings_env(&mut out, &project_layers(homes, dir, managed_dir));
    out
}

/// Reads every configuration file of `places` once and gathers what it marks as secret.
pub fn collect(places: &Places) -> ConfiguredSecrets {
    let env = env_of();
    let mut out = ConfiguredSecrets::new();
    let mut add = adder(&mut out);
    let mut projects = places.projects.clone();
    let mut seen: std::collections::HashSet<PathBuf> = projects.iter().cloned().collect();
    // the projects the homes list, not yet known to be there: each one's folder is
    // looked at only when its `.mcp.json` is not (for the hundreds a `~/.claude.json`
    // can list)
    let mut listed: Vec<PathBuf> = Vec::new();
    for g in &globals(&places.homes) {
        let global = GlobalConfig::read(g);
        if let Some(doc) = global.document() {
            config::configured_values(&doc, &env, &mut add);
        } else if global.problem().is_some() {
            // Not parsed (a write cut short, a trailing comma): its servers are not
            // known, but every value it holds under a key that says secret, or shaped
            // like one, is hidden all the same (helper-77 #6).
            // (`${VAR}` expanded as in a file read whole; a list of arguments as a
            // server's `args`)
            let mut args: Vec<String> = Vec::new();
            for (k, v) in global.string_pairs() {
                let v = config::expand_vars(&v, &env).0;
                if k == "args" {
                    args.push(v);
                } else {
                    add(ConfiguredValue::Keyed(k, v));
                }
            }
            add(ConfiguredValue::Args(args));
        }
        if places.listed {
            for (p, _) in config::listed_projects(Some(&global)) {
                if !seen.contains(&p) {
                    seen.insert(p.clone());
                    listed.push(p);
                }
            }
        }
    }
    // no project given: the first listed one there is the first
    if projects.is_empty()
        && let Some(at) = listed.iter().position(|p| p.is_dir())
    {
        projects.push(listed.remove(at));
        listed.drain(..at);
    }
    let sources_for =
        |dir: &Path| Sources::for_scan_in(&places.homes, dir, places.managed_dir.as_deref());
    let first = sources_for(projects.first().map_or(Path::new(""), |p| p));
    let managed = paths::managed_mcp_json(&first.managed_dir);
    let mut files: Vec<PathBuf> = vec![managed];
    files.extend(projects.iter().map(|p| paths::project_mcp_json(p)));
    for f in &files {
        if let Some(doc) = config::read_config_file(f) {
            config::configured_values(&doc, &env, &mut add);
        }
    }
    for p in listed {
        match config::read_config_file_there(&paths::project_mcp_json(&p)) {
            Some(doc) => {
                if let Some(doc) = doc {
                    config::configured_values(&doc, &env, &mut add);
                }
                projects.push(p);
            }
            // no `.mcp.json`: its settings count when its folder is there
            None if p.is_dir() => projects.push(p),
            None => {}
        }
    }
    drop(add);
    // The settings layers' `env` values: every settings layer of the first project
    // (managed, user, its own), the project layers of the others; and the header
    // variables of the environment.
    let mut settings: Vec<PathBuf> = first.files().into_iter().map(|(_, p)| p).collect();
    for p in projects.iter().skip(1) {
        settings.extend(project_layers(
            &places.homes,
            p,
            places.managed_dir.as_deref(),
        ));
    }
    learn_settings_env(&mut out, &settings);
    for var in HEADER_VARIABLES {
        if let Some(v) = env(var) {
            out.add_header_list(var, &v);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every project `~/.claude.json` lists counts (read in one open a file, its folder
    /// looked at only when its `.mcp.json` is not there): one with a `.mcp.json` and
    /// settings, one with settings only, and the first listed one there as the first
    /// project when none is given (its user settings read); a gone one and a file
    /// listed as a project add nothing and stop nothing.
    #[test]
    fn every_listed_project_there_is_learned_from() {
        let home = tempfile::tempdir().unwrap();
        let managed = tempfile::tempdir().unwrap();
        let w = |p: &Path, s: &str| {
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, s).unwrap();
        };
        let h = home.path();
        let (gone, file, both, settings_only) = (
            h.join("gone"),
            h.join("a-file"),
            h.join("both"),
            h.join("settings-only"),
        );
        w(&file, "not a folder");
        w(
            &both.join(".mcp.json"),
            r#"{"mcpServers":{"p":{"command":"y","env":{"BOTH_API_KEY":"bothMcpSecret1"}}}}"#,
        );
        let otel = |v: &str| {
            format!(r#"{{"env":{{"OTEL_EXPORTER_OTLP_HEADERS":"Authorization=Bearer {v}"}}}}"#)
        };
        w(&both.join(".claude/settings.json"), &otel("bothOtelTok2"));
        w(
            &settings_only.join(".claude/settings.local.json"),
            &otel("localOtelTok3"),
        );
        w(&h.join(".claude/settings.json"), &otel("userOtelTok4"));
        let key = |p: &Path| p.to_string_lossy().into_owned();
        w(
            &h.join(".claude.json"),
            &serde_json::json!({"projects": {
                key(&gone): {}, key(&file): {}, key(&both): {}, key(&settings_only): {},
            }})
            .to_string(),
        );
        for given in [vec![], vec![h.join("elsewhere")]] {
            let s = collect(&Places {
                homes: vec![h.to_path_buf()],
                projects: given.clone(),
                managed_dir: Some(managed.path().to_path_buf()),
                listed: true,
            });
            let mut b = crate::redact::RedactorBuilder::new();
            b.learn_configured_secrets(&s);
            let red = b
                .build()
                .redact("bothMcpSecret1 bothOtelTok2 localOtelTok3 userOtelTok4");
            for v in [
                "bothMcpSecret1",
                "bothOtelTok2",
                "localOtelTok3",
                "userOtelTok4",
            ] {
                assert!(!red.contains(v), "{given:?}: {v} in {red}");
            }
        }
    }

    /// Every settings layer's `env` (managed, user, project, local), which Claude Code
    /// passes on to every stdio server: a value whose key or shape says secret is
    /// learned, plain configuration is not.
    #[test]
    fn every_settings_layers_env_is_learned_like_a_servers() {
        let home = tempfile::tempdir().unwrap();
        let project = tempfile::tempdir().unwrap();
        let other = tempfile::tempdir().unwrap();
        let managed = tempfile::tempdir().unwrap();
        let w = |p: &Path, s: &str| {
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, s).unwrap();
        };
        let env =
            |k: &str, v: &str| format!(r#"{{"env":{{"{k}":"{v}","NODE_ENV":"production"}}}}"#);
        w(
            &managed.path().join("managed-settings.json"),
            &env("CORP_PASSWORD", "managedPw77"),
        );
        w(
            &home.path().join(".claude/settings.json"),
            &env("GITHUB_TOKEN", "userEnvTok55"),
        );
        w(
            &project.path().join(".claude/settings.json"),
            &env("MY_PASSWORD", "settingsPw1234"),
        );
        w(
            &project.path().join(".claude/settings.local.json"),
            &env("SESSION", "aPnfYclXezicN0pYbC77Jt95EQo"),
        );
        w(
            &other.path().join(".claude/settings.local.json"),
            &env("OTHER_API_KEY", "otherKey9988"),
        );
        let s = collect(&Places {
            homes: vec![home.path().to_path_buf()],
            projects: vec![project.path().to_path_buf(), other.path().to_path_buf()],
            managed_dir: Some(managed.path().to_path_buf()),
            listed: false,
        });
        let mut b = crate::redact::RedactorBuilder::new();
        b.learn_configured_secrets(&s);
        let r = b.build();
        let all =
            "managedPw77 userEnvTok55 settingsPw1234 aPnfYclXezicN0pYbC77Jt95EQo otherKey9988";
        let red = r.redact(all);
        for v in all.split_whitespace() {
            assert!(!red.contains(v), "{v} in {red}");
        }
        assert_eq!(r.redact("NODE_ENV production"), "NODE_ENV production");
        // a project's own layers, for the summary index
        let mut b = crate::redact::RedactorBuilder::new();
        b.learn_configured_secrets(&of_project(
            &[home.path().to_path_buf()],
            other.path(),
            Some(managed.path()),
        ));
        assert_eq!(b.build().redact("otherKey9988"), "[REDACTED:config]");
    }

    #[test]
    fn every_file_is_read_and_every_kind_of_value_is_learned() {
        let home = tempfile::tempdir().unwrap();
        let project = tempfile::tempdir().unwrap();
        let managed = tempfile::tempdir().unwrap();
        let w = |p: &Path, s: &str| {
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, s).unwrap();
        };
        let key = project.path().to_string_lossy().into_owned();
        w(
            &home.path().join(".claude.json"),
            &serde_json::json!({
                "mcpServers": {"u": {"command": "x", "env": {"USER_SVC_KEY": "userSecret0001"}}},
                "projects": {key: {"mcpServers": {"l": {"type": "http",
                    "url": "https://bob:urlPassword77@h.example/mcp?api_key=queryValue55&x=1",
                    "headers": {"X-Api-Key": "headerValue99"}}}}}
            })
            .to_string(),
        );
        w(
            &project.path().join(".mcp.json"),
            r#"{"mcpServers":{"p":{"command":"y","env":{"PROJECT_TOKEN":"projectTok42"}}}}"#,
        );
        w(
            &managed.path().join("managed-mcp.json"),
            r#"{"mcpServers":{"m":{"command":"z","env":{"M_SECRET":"managedSecret3"}}}}"#,
        );
        w(
            &home.path().join(".claude/settings.json"),
            r#"{"env":{"OTEL_EXPORTER_OTLP_HEADERS":"Authorization=Bearer otelTok8x,x-team=core"}}"#,
        );
        let s = collect(&Places {
            homes: vec![home.path().to_path_buf()],
            projects: vec![project.path().to_path_buf()],
            managed_dir: Some(managed.path().to_path_buf()),
            listed: false,
        });
        let mut b = crate::redact::RedactorBuilder::new();
        b.learn_configured_secrets(&s);
        let r = b.build();
        let all = "userSecret0001 urlPassword77 queryValue55 headerValue99 projectTok42 \
                   managedSecret3 otelTok8x";
        let red = r.redact(all);
        for v in all.split_whitespace() {
            assert!(!red.contains(v), "{v} in {red}");
        }
        assert!(!format!("{s:?}").contains("userSecret0001"));
        // plain configuration stays
        assert_eq!(
            r.redact("x-team core bob h.example"),
            "x-team core bob h.example"
        );
    }
}
