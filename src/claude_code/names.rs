//! Claude Code's folder-name encoding, and mapping encoded names back to real ones.
//!
//! `<project>` and `<server>` folder names are the original strings with every character
//! outside `[a-zA-Z0-9]` replaced by `-`, cut to 200 characters plus a hash suffix when
//! longer. The encoding is lossy, so the real names come from the configuration files
//! (`~/.claude.json`, `<project>/.mcp.json`) where they are available.

use std::collections::HashMap;
use std::path::Path;

const MAX_ENCODED_LEN: usize = 200;

/// Encodes a path or server name the way Claude Code names its log folders.
pub fn encode_folder_name(original: &str) -> String {
    // JavaScript replaces per UTF-16 code unit, so a character outside the BMP becomes
    // two dashes.
    let mut out = String::with_capacity(original.len());
    for c in original.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c);
        } else {
            for _ in 0..c.len_utf16() {
                out.push('-');
            }
        }
    }
    if out.len() <= MAX_ENCODED_LEN {
        return out;
    }
    out.truncate(MAX_ENCODED_LEN);
    out.push('-');
    out.push_str(&base36(name_hash_utf16(original).unsigned_abs()));
    out
}

/// Whether `original` encodes to `folder` ([`encode_folder_name`]), told without
/// making the encoding for a name within the length Claude Code keeps whole (a scan asks
/// it of each server's working directory).
pub fn encodes_to(original: &str, folder: &str) -> bool {
    let f = folder.as_bytes();
    let mut at = 0;
    for c in original.chars() {
        if at >= MAX_ENCODED_LEN {
            // cut and hashed past it: the whole encoding decides
            return encode_folder_name(original) == folder;
        }
        let ok = if c.is_ascii_alphanumeric() {
            f.get(at) == Some(&(c as u8))
        } else {
            (0..c.len_utf16()).all(|k| f.get(at + k) == Some(&b'-'))
        };
        if !ok {
            // (a name cut at 200 may still match through its hash: only past the cut)
            return at + c.len_utf16() > MAX_ENCODED_LEN && encode_folder_name(original) == folder;
        }
        at += if c.is_ascii_alphanumeric() {
            1
        } else {
            c.len_utf16()
        };
    }
    at == f.len()
}

/// The hash Claude Code appends to over-long names. The reference calls it djb2, but the
/// 2.1.332 binary computes `t = (t << 5) - t + charCode | 0` from 0 (a Java-style
/// `hashCode`) over UTF-16 code units; this follows the binary.
fn name_hash_utf16(s: &str) -> i32 {
    let mut h: i32 = 0;
    for unit in s.encode_utf16() {
        h = h
            .wrapping_shl(5)
            .wrapping_sub(h)
            .wrapping_add(i32::from(unit));
    }
    h
}

fn base36(mut n: u32) -> String {
    const DIGITS: &[u8; 36] = b"0123456789abcdefghijklmnopqrstuvwxyz";
    if n == 0 {
        return "0".to_string();
    }
    let mut out = Vec::new();
    while n > 0 {
        out.push(DIGITS[(n % 36) as usize]);
        n /= 36;
    }
    out.reverse();
    String::from_utf8(out).expect("ascii")
}

/// What joins the names of a log folder several configured servers share into the one
/// name every command prints for it (`api-v2 + api_v2`), and splits it again.
pub const SHARED_SEP: &str = " + ";

/// The project of the log folder `folder` (encoded) a working directory `cwd` is in:
/// `cwd` itself when it encodes to `folder`, else its nearest parent that does (a
/// session whose directory moved into its project's subfolder); `None` when neither
/// does.
pub fn project_in<'a>(cwd: &'a str, folder: &str) -> Option<&'a str> {
    let mut at = cwd;
    loop {
        if encodes_to(at, folder) {
            return Some(at);
        }
        let cut = at.rfind(['/', '\\'])?;
        if cut == 0 {
            return None;
        }
        at = &at[..cut];
    }
}

/// Real names read from configuration, keyed by their encoded folder form.
#[derive(Debug, Default, Clone)]
pub struct NameMap {
    servers: HashMap<String, String>,
    /// Every configured name per encoded folder, with the encoded project folder it is
    /// configured for (`None`: every project, top-level `mcpServers`).
    scoped: HashMap<String, Vec<(Option<String>, String)>>,
    projects: HashMap<String, String>,
    /// The encoded project folders two or more known project paths write
    /// (`~/work/my_app`, `~/work/my-app`).
    shared_projects: std::collections::HashSet<String>,
}

impl NameMap {
    /// The configured server name for a `mcp-logs-<folder>` folder, if known.
    pub fn server(&self, folder: &str) -> Option<&str> {
        self.servers.get(folder).map(String::as_str)
    }

    /// The configured names that encode to `folder` and apply in the project whose
    /// encoded folder is `project_folder`, sorted. Two or more: the servers share one
    /// log folder (Claude Code's encoding is lossy), their records interleaved.
    pub fn sharing(&self, folder: &str, project_folder: Option<&str>) -> Vec<String> {
        let mut names: Vec<String> = self
            .scoped
            .get(folder)
            .into_iter()
            .flatten()
            .filter(|(scope, _)| scope.is_none() || scope.as_deref() == project_folder)
            .map(|(_, n)| n.clone())
            .collect();
        names.sort();
        names.dedup();
        names
    }

    /// The name of the log folder `folder` of the project whose encoded folder is
    /// `project_folder`, and the names sharing it (empty unless two or more): the one
    /// name that project (or every project) configures for it; the names joined with
    /// ` + ` when several share it (never one of them silently); else the first name any
    /// project gave that folder (the folder's own name when they gave it several); else
    /// the folder's own name.
    pub fn name_of(&self, folder: &str, project_folder: Option<&str>) -> (String, Vec<String>) {
        let mut sharing = self.sharing(folder, project_folder);
        match sharing.len() {
            // configured in other projects only: their one name, or the folder's own when
            // they name it differently (none of theirs is this one's more than another)
            0 => {
                let mut others = self
                    .scoped
                    .get(folder)
                    .into_iter()
                    .flatten()
                    .map(|(_, n)| n);
                let name = match others.next() {
                    Some(first) if others.all(|n| n == first) => first.as_str(),
                    Some(_) => folder,
                    None => self.server(folder).unwrap_or(folder),
                };
                (name.to_string(), Vec::new())
            }
            1 => (sharing.remove(0), Vec::new()),
            _ => (sharing.join(SHARED_SEP), sharing),
        }
    }

    /// Every configured name read, in no order (each once per place configuring it).
    pub fn configured_names(&self) -> impl Iterator<Item = &str> {
        self.scoped.values().flatten().map(|(_, n)| n.as_str())
    }

    fn add_scoped(&mut self, name: &str, project: Option<&str>) {
        self.add_server(name);
        self.scoped
            .entry(encode_folder_name(name))
            .or_default()
            .push((project.map(encode_folder_name), name.to_string()));
    }

    /// The real project path for an encoded project folder, if known.
    pub fn project(&self, folder: &str) -> Option<&str> {
        self.projects.get(folder).map(String::as_str)
    }

    pub fn add_server(&mut self, name: &str) {
        self.servers
            .entry(encode_folder_name(name))
            .or_insert_with(|| name.to_string());
    }

    pub fn add_project(&mut self, path: &str) {
        let folder = encode_folder_name(path);
        match self.projects.get(&folder) {
            Some(known) if known != path => {
                self.shared_projects.insert(folder);
            }
            Some(_) => {}
            None => {
                self.projects.insert(folder, path.to_string());
            }
        }
    }

    /// The encoded project folders that two or more known project paths write: their
    /// log folders hold several projects' sessions.
    pub fn shared_project_folders(&self) -> &std::collections::HashSet<String> {
        &self.shared_projects
    }

    /// Reads `~/.claude.json`: top-level `mcpServers`, and `projects[path].mcpServers`.
    /// A missing or unreadable file adds nothing: names are a convenience, not evidence.
    pub fn add_claude_json(&mut self, path: &Path) {
        let Some(value) = read_json(path) else {
            return;
        };
        self.add_servers_of(&value, None);
        if let Some(projects) = value.get("projects").and_then(|p| p.as_object()) {
            for (project, cfg) in projects {
                self.add_project(project);
                self.add_servers_of(cfg, Some(project));
            }
        }
    }

    /// Reads a project's `.mcp.json` (its servers apply to the folder holding it).
    pub fn add_mcp_json(&mut self, path: &Path) {
        if let Some(value) = read_json(path) {
            let project = path.parent().map(|p| p.to_string_lossy().into_owned());
            self.add_servers_of(&value, project.as_deref());
        }
    }

    fn add_servers_of(&mut self, value: &serde_json::Value, project: Option<&str>) {
        if let Some(servers) = value.get("mcpServers").and_then(|s| s.as_object()) {
            for name in servers.keys() {
                self.add_scoped(name, project);
            }
        }
    }
}

fn read_json(path: &Path) -> Option<serde_json::Value> {
    // `~/.claude.json` can be large (it holds history), but not hostile-large; a FIFO
    // or a device there is skipped, never opened for a blocking read.
    let bytes = crate::safe_read::read_regular(
        path,
        crate::safe_read::SETTINGS_MAX_BYTES * 4,
        crate::safe_read::Follow::Links,
    )
    .ok()??
    .bytes;
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&bytes);
    serde_json::from_slice(bytes).ok()
}

/// The candidate closest to `want`, for every "did you mean" (`scan --server`, `probe
/// NAME`): a candidate that contains it or encodes to the same folder name, else the
/// nearest by case-insensitive edit distance, at most a third of its length (at least 1).
pub fn did_you_mean<'a>(
    want: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    let w = want.to_lowercase();
    let limit = (w.chars().count() / 3).max(1);
    candidates
        .into_iter()
        .map(|c| {
            let lc = c.to_lowercase();
            let d = if lc.contains(&w) || encode_folder_name(&lc) == encode_folder_name(&w) {
                0
            } else {
                edit_distance(&w, &lc)
            };
            (d, c)
        })
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

/// Levenshtein distance over chars: the one every did-you-mean uses.
pub fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != *cb)).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}

/// `--server NAME`, for every command that filters by it: the configured name, or the
/// log folder's name as written or as `NAME` encodes to, case-insensitively.
pub fn server_matches(name: &str, folder: Option<&str>, want: &str) -> bool {
    name.eq_ignore_ascii_case(want)
        || folder.is_some_and(|f| {
            f.eq_ignore_ascii_case(want) || f.eq_ignore_ascii_case(&encode_folder_name(want))
        })
}

/// `--match-project SUBSTRING`: in the project's path or its encoded folder name,
/// case-insensitively.
pub fn project_matches(project: Option<&str>, folder: Option<&str>, sub: &str) -> bool {
    let sub = sub.to_lowercase();
    project.is_some_and(|p| p.to_lowercase().contains(&sub))
        || folder.is_some_and(|f| f.to_lowercase().contains(&sub))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `encodes_to` answers as comparing the encodings does, over short, long (cut and
    /// hashed), non-ASCII and astral names, a character outside the BMP straddling the
    /// cut included.
    #[test]
    fn encodes_to_agrees_with_the_encoding() {
        let long = format!("/home/me/{}", "x".repeat(250));
        let straddle = format!("{}\u{1F680}tail", "a".repeat(199));
        let names = [
            "/home/me/work/my-app",
            "/home/me/work/my_app",
            "/home/me/work/my app",
            "db\u{1F680}",
            "caf\u{e9}",
            "",
            long.as_str(),
            &long[..long.len() - 1],
            straddle.as_str(),
        ];
        for a in names {
            for b in names {
                let folder = encode_folder_name(b);
                assert_eq!(
                    encodes_to(a, &folder),
                    encode_folder_name(a) == folder,
                    "{a:?} {b:?}"
                );
            }
            assert!(!encodes_to(a, "-nothing-of-it"), "{a:?}");
        }
    }

    /// A working directory's project for a log folder: itself, or its nearest parent
    /// that encodes to the folder; none past the root.
    #[test]
    fn a_working_directory_is_in_the_project_its_folder_encodes() {
        let folder = encode_folder_name("/home/me/work/my-app");
        assert_eq!(folder, encode_folder_name("/home/me/work/my_app"));
        for (cwd, want) in [
            ("/home/me/work/my-app", Some("/home/me/work/my-app")),
            ("/home/me/work/my_app/src/lib", Some("/home/me/work/my_app")),
            ("/home/me/work/other", None),
            ("/", None),
            ("", None),
        ] {
            assert_eq!(project_in(cwd, &folder), want, "{cwd}");
        }
    }

    #[test]
    fn encodes_like_claude_code() {
        assert_eq!(encode_folder_name("/Users/me/my_proj"), "-Users-me-my-proj");
        assert_eq!(encode_folder_name("C:\\Users\\x"), "C--Users-x");
        assert_eq!(
            encode_folder_name("Roblox Studio.bridge"),
            "Roblox-Studio-bridge"
        );
        assert_eq!(encode_folder_name("é😀"), "---");
    }

    #[test]
    fn hash_matches_javascript() {
        // Computed with the binary's function in node:
        // let t=0; for (c of "abc") t=(t<<5)-t+c.charCodeAt(0)|0  -> 96354
        assert_eq!(name_hash_utf16("abc"), 96354);
        assert_eq!(base36(96354), "22ci");
    }

    #[test]
    fn long_names_are_cut_and_hashed() {
        // Expected values printed by node running the 2.1.332 binary's own function.
        let long = "a/".repeat(150);
        assert_eq!(
            encode_folder_name(&long),
            format!("{}-5ui3n8", "a-".repeat(100))
        );
        let wide = format!("/home/zoë/😀{}", "x".repeat(300));
        assert_eq!(
            encode_folder_name(&wide),
            format!("-home-zo----{}-1e23fh", "x".repeat(188))
        );
    }

    #[test]
    fn names_encoding_to_one_folder_are_found_per_project() {
        let dir = tempfile::tempdir().unwrap();
        let cj = dir.path().join(".claude.json");
        std::fs::write(
            &cj,
            r#"{"mcpServers":{"api_v2":{},"GitHub":{}},
                "projects":{"/w/a":{"mcpServers":{"api-v2":{},"github":{}}},
                            "/w/b":{"mcpServers":{"api.v2":{}}}}}"#,
        )
        .unwrap();
        let mut m = NameMap::default();
        m.add_claude_json(&cj);
        assert_eq!(m.sharing("api-v2", Some("-w-a")), ["api-v2", "api_v2"]);
        assert_eq!(m.sharing("api-v2", Some("-w-b")), ["api.v2", "api_v2"]);
        assert_eq!(m.sharing("api-v2", Some("-w-c")), ["api_v2"]);
        // Names differing in case get separate folders.
        assert_eq!(m.sharing("GitHub", Some("-w-a")), ["GitHub"]);
        // A project's .mcp.json counts for that project only.
        let proj = dir.path().join("p");
        std::fs::create_dir(&proj).unwrap();
        std::fs::write(proj.join(".mcp.json"), r#"{"mcpServers":{"api+v2":{}}}"#).unwrap();
        m.add_mcp_json(&proj.join(".mcp.json"));
        let pf = encode_folder_name(&proj.to_string_lossy());
        assert_eq!(m.sharing("api-v2", Some(&pf)), ["api+v2", "api_v2"]);
        assert_eq!(m.sharing("api-v2", Some("-w-c")), ["api_v2"]);
    }

    #[test]
    fn did_you_mean_finds_near_names_only() {
        let names = ["acme.docs", "modern-ok", "wrong-types"];
        assert_eq!(did_you_mean("acme-docs", names), Some("acme.docs"));
        assert_eq!(did_you_mean("modren-ok", names), Some("modern-ok"));
        assert_eq!(did_you_mean("wrong", names), Some("wrong-types"));
        assert_eq!(did_you_mean("nope", names), None);
        // what probe's own rule used to find, the one rule finds too
        let names = ["github", "filesystem", "sso-gateway"];
        assert_eq!(did_you_mean("githb", names), Some("github"));
        assert_eq!(did_you_mean("GitHub", names), Some("github"));
        assert_eq!(did_you_mean("sso_gateway", names), Some("sso-gateway"));
        assert_eq!(did_you_mean("postgres", names), None);
    }

    #[test]
    fn maps_folder_names_back() {
        let mut m = NameMap::default();
        m.add_server("acme.docs");
        m.add_project("/home/ana/work/api");
        assert_eq!(m.server("acme-docs"), Some("acme.docs"));
        assert_eq!(m.project("-home-ana-work-api"), Some("/home/ana/work/api"));
        assert_eq!(m.server("other"), None);
    }
}
