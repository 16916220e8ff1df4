//! `mcplogs du`: where the disk went. Claude Code never rotates its MCP logs, so users
//! find caches of many gigabytes; this sums them per project and per server from file
//! sizes and names alone (start times), reading at most one line per project.

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use crate::claude_code::names::NameMap;
use crate::claude_code::paths::claude_json_in;
use crate::logs::discovery::{self, DiscoveryError, ServerDir};
use crate::scan::ScanOptions;
use crate::warning::Warning;

#[derive(Debug, Clone, PartialEq)]
pub struct ServerUse {
    pub name: String,
    /// The configured names sharing its folder, when two or more do (`name` is them
    /// joined with ` + `): each is printed with its own tag when it holds a secret.
    pub shared_by: Vec<String>,
    pub folder: String,
    pub path: PathBuf,
    pub bytes: u64,
    pub files: usize,
    /// Start time of the oldest and newest session file (from the file names).
    pub oldest: Option<String>,
    pub newest: Option<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ProjectUse {
    /// The real working directory when known, else the encoded folder name.
    pub project: String,
    pub folder: Option<String>,
    /// The project's folder in the cache.
    pub path: Option<PathBuf>,
    /// The cache root holding [`Self::path`], set when another row shows the same
    /// project (its logs under two roots): what tells the two rows apart.
    pub root: Option<PathBuf>,
    pub bytes: u64,
    pub files: usize,
    pub oldest: Option<String>,
    pub newest: Option<String>,
    /// Largest first.
    pub servers: Vec<ServerUse>,
}

#[derive(Debug, Clone, Default)]
pub struct DiskUse {
    /// Largest first.
    pub projects: Vec<ProjectUse>,
    pub bytes: u64,
    pub files: usize,
    /// mcplogs' own cache folder, when asked for ([`own_cache_use`]) and it exists.
    pub own_cache: Option<CacheUse>,
    /// Claude Code's MCP discovery cache folder (`files`: its entries), when asked for
    /// and it holds entries: Claude Code's state, not logs, so never in the total and
    /// never pruned.
    pub discovery_cache: Option<CacheUse>,
    pub warnings: Vec<Warning>,
}

/// What mcplogs' own cache folder holds (index, memos, told-lists).
#[derive(Debug, Clone, PartialEq)]
pub struct CacheUse {
    pub path: PathBuf,
    pub bytes: u64,
    pub files: u64,
}

/// The size of mcplogs' own cache folder at `dir` (regular files, links not followed);
/// `None` when it does not exist or holds no file. A folder that is someone else's or open to others is
/// refused: a warning.
pub fn own_cache_use(dir: &Path, warnings: &mut Vec<Warning>) -> Option<CacheUse> {
    match crate::store::Store::open_existing(dir) {
        Ok(Some(s)) => {
            let (files, bytes) = s.usage();
            (files > 0).then(|| CacheUse {
                path: dir.to_path_buf(),
                bytes,
                files,
            })
        }
        Ok(None) => None,
        Err(e) => {
            if e.is_refusal() {
                warnings.push(Warning::new(&e.path, e.problem.to_string()));
            }
            None
        }
    }
}

pub fn disk_use(opts: &ScanOptions) -> Result<DiskUse, DiscoveryError> {
    let found = discovery::discover(&opts.request)?;
    let mut names = NameMap::default();
    for home in &found.homes {
        names.add_claude_json(&claude_json_in(home));
    }
    let mut warnings = found.warnings;
    let mut projects: Vec<ProjectUse> = Vec::new();
    // Each project's place in `projects`, by its cache folder: a search of the list per
    // server folder made 100,000 folders take a minute.
    let mut index: std::collections::HashMap<Option<PathBuf>, usize> =
        std::collections::HashMap::new();
    // A printed form (`svc-[REDACTED:config]`) is matched as `du` prints the names
    // ([`redact`]): knowing the values the configuration of every project found marks
    // as secret, which a first pass without the filter finds.
    let want = match opts.server.as_deref() {
        Some(given) if crate::scan::select::is_printed_form(given) => {
            let mut all = opts.clone();
            all.server = None;
            let everything = disk_use(&all)?;
            Some(crate::scan::select::NameWant::knowing(
                given,
                &secrets_of(
                    &everything.projects,
                    &opts.request.homes,
                    opts.managed_dir.as_deref(),
                ),
            ))
        }
        given => given.map(crate::scan::select::NameWant::new),
    };
    // Each project's `.mcp.json` names its servers, as in `scan` (`my.ghp_…` for the
    // folder `my-ghp-…`): read once a project, before its first server is named (the
    // project's path kept for its row).
    let mut project_of: std::collections::HashMap<Option<String>, String> =
        std::collections::HashMap::new();
    for dir in &found.server_dirs {
        if dir.project_folder.is_some()
            && !project_of.contains_key(&dir.project_folder)
            && let Some(project) = dir
                .project_folder
                .as_deref()
                .and_then(|f| names.project(f).map(str::to_string))
                .or_else(|| first_cwd(&dir.path))
        {
            names.add_mcp_json(&Path::new(&project).join(".mcp.json"));
            project_of.insert(dir.project_folder.clone(), project);
        }
        let server = server_use(dir, &names, opts, &mut warnings);
        if server.files == 0 {
            continue;
        }
        // (`--server`: below, once every name is known)
        let key = dir.project_folder.clone();
        let path = dir.path.parent().map(Path::to_path_buf);
        let i = match index.get(&path) {
            Some(&i) => i,
            None => {
                index.insert(path.clone(), projects.len());
                let project = key
                    .is_some()
                    .then(|| project_of.get(&key).cloned())
                    .flatten()
                    .or_else(|| first_cwd(&server.path))
                    .or_else(|| key.clone())
                    .unwrap_or_else(|| dir.path.display().to_string());
                projects.push(ProjectUse {
                    project,
                    folder: key,
                    path,
                    root: None,
                    bytes: 0,
                    files: 0,
                    oldest: None,
                    newest: None,
                    servers: Vec::new(),
                });
                projects.len() - 1
            }
        };
        let p = &mut projects[i];
        p.bytes += server.bytes;
        p.files += server.files;
        p.oldest = min_opt(p.oldest.take(), server.oldest.clone());
        p.newest = max_opt(p.newest.take(), server.newest.clone());
        p.servers.push(server);
    }
    if let Some(want) = want {
        // a server of exactly the name given is chosen by name only, as `scan` chooses
        // (`api-v2`, not also `api.v2` of another project, whose folder is the same)
        let want = want.named_exactly_if_any(
            projects
                .iter()
                .flat_map(|p| &p.servers)
                .map(|s| s.name.as_str())
                .chain(names.configured_names()),
        );
        for p in &mut projects {
            let folder = p.folder.clone();
            p.servers.retain(|server| {
                want.selects(&server.name, Some(&server.folder))
                    || (want.is_printed_form()
                        && names
                            .sharing(&server.folder, folder.as_deref())
                            .iter()
                            .any(|n| want.is(n)))
            });
            p.bytes = p.servers.iter().map(|s| s.bytes).sum();
            p.files = p.servers.iter().map(|s| s.files).sum();
            p.oldest = p.servers.iter().filter_map(|s| s.oldest.clone()).min();
            p.newest = p.servers.iter().filter_map(|s| s.newest.clone()).max();
        }
        projects.retain(|p| !p.servers.is_empty());
    }
    // A project known only by its encoded folder here (old-format logs carry no `cwd`)
    // is shown by the path another root gives the same folder: one name per project.
    let known: std::collections::HashMap<String, String> = projects
        .iter()
        .filter_map(|p| {
            let f = p.folder.as_ref()?;
            (p.project != *f).then(|| (f.clone(), p.project.clone()))
        })
        .collect();
    for p in &mut projects {
        if let Some(f) = &p.folder
            && p.project == *f
            && let Some(path) = known.get(f)
        {
            p.project = path.clone();
        }
    }
    // Two rows of one project (its logs under two cache roots) say which root each is.
    let mut seen: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    for p in &projects {
        *seen.entry(p.project.clone()).or_default() += 1;
    }
    for p in &mut projects {
        if seen.get(&p.project).is_some_and(|&n| n > 1) {
            p.root = p
                .path
                .as_ref()
                .and_then(|d| d.parent())
                .map(Path::to_path_buf);
        }
    }
    if let Some(sub) = &opts.project {
        // as written, or as `du` prints the paths ([`redact`]): a printed form knowing
        // the configured values of the projects found
        let want = if crate::scan::select::is_printed_form(sub) {
            crate::scan::select::ProjectWant::knowing(
                sub,
                &secrets_of(&projects, &opts.request.homes, opts.managed_dir.as_deref()),
                crate::scan::home_of_screen(),
            )
        } else {
            crate::scan::select::ProjectWant::new(sub)
        };
        projects.retain(|p| want.selects(Some(&p.project), p.folder.as_deref()));
    }
    for p in &mut projects {
        p.servers
            .sort_by(|a, b| b.bytes.cmp(&a.bytes).then(a.name.cmp(&b.name)));
    }
    projects.sort_by(|a, b| b.bytes.cmp(&a.bytes).then(a.project.cmp(&b.project)));
    Ok(DiskUse {
        own_cache: None,
        discovery_cache: None,
        bytes: projects.iter().map(|p| p.bytes).sum(),
        files: projects.iter().map(|p| p.files).sum(),
        projects,
        warnings: crate::warning::collapse(warnings),
    })
}

fn server_use(
    dir: &ServerDir,
    names: &NameMap,
    opts: &ScanOptions,
    warnings: &mut Vec<Warning>,
) -> ServerUse {
    // A folder two configured names share is named by both (never silently by one).
    let (name, shared_by) = names.name_of(&dir.folder, dir.project_folder.as_deref());
    let mut s = ServerUse {
        name,
        shared_by,
        folder: dir.folder.clone(),
        path: dir.path.clone(),
        bytes: 0,
        files: 0,
        oldest: None,
        newest: None,
    };
    for f in dir.files() {
        let meta = match std::fs::metadata(&f) {
            Ok(m) => m,
            Err(e) => {
                warnings.push(Warning::new(&f, format!("cannot read: {e}")));
                continue;
            }
        };
        let modified = meta.modified().ok().map(crate::time::system_time_secs);
        if let (Some(since), Some(m)) = (opts.since, modified)
            && m < since
        {
            continue;
        }
        s.bytes += meta.len();
        s.files += 1;
        let started = f
            .file_name()
            .and_then(|n| n.to_str())
            .and_then(crate::time::file_name_time)
            .or_else(|| modified.map(crate::time::format_iso));
        s.oldest = min_opt(s.oldest.take(), started.clone());
        s.newest = max_opt(s.newest.take(), started);
    }
    s
}

/// The `cwd` of the first record of the newest file in a server's folder `dir` (one
/// line, bounded).
fn first_cwd(dir: &Path) -> Option<String> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .ok()?
        .flatten()
        .map(|e| e.path())
        .collect();
    files.sort();
    // A FIFO or device named like a log must not block `du` (issue 10): only a regular
    // file is opened, without following a link, and without blocking.
    let newest = files.last()?;
    if !std::fs::symlink_metadata(newest).ok()?.is_file() {
        return None;
    }
    let f = crate::safe_read::open_nonblocking(newest, crate::safe_read::Follow::NoLinks).ok()?;
    let mut line = Vec::new();
    BufReader::new(f.take(64 * 1024))
        .read_until(b'\n', &mut line)
        .ok()?;
    let v: serde_json::Value = serde_json::from_slice(line.trim_ascii()).ok()?;
    v.get("cwd")?.as_str().map(str::to_string)
}

fn min_opt(a: Option<String>, b: Option<String>) -> Option<String> {
    match (a, b) {
        (Some(x), Some(y)) => Some(x.min(y)),
        (x, y) => x.or(y),
    }
}

fn max_opt(a: Option<String>, b: Option<String>) -> Option<String> {
    match (a, b) {
        (Some(x), Some(y)) => Some(x.max(y)),
        (x, y) => x.or(y),
    }
}

/// Every value the configuration marks as secret that a command on the disk's logs must
/// hide, as `scan` hides them (a server named `svc-VALUE`, `VALUE` another entry's `env`
/// value, is `svc-[REDACTED:config]`): the configuration of the `homes` (none: this
/// machine's; managed files from `managed_dir` when given, else this OS's), of the working folder, of the `projects` that are folders here, and of
/// every project the homes list.
pub fn configured_secrets<'a>(
    projects: impl IntoIterator<Item = &'a str>,
    homes: &[PathBuf],
    managed_dir: Option<&Path>,
) -> crate::redact::configured::ConfiguredSecrets {
    // each project once (prune names one a server folder: 100,000 folders of 10,000
    // projects looked each project up, and read its `.mcp.json`, ten times)
    let mut seen: std::collections::HashSet<&str> = std::collections::HashSet::new();
    let projects: Vec<PathBuf> = std::env::current_dir()
        .into_iter()
        .chain(
            projects
                .into_iter()
                .filter(|p| seen.insert(p))
                .map(PathBuf::from)
                .filter(|p| p.is_absolute() && p.is_dir()),
        )
        .collect();
    crate::scan::secrets::collect(&crate::scan::secrets::Places {
        homes: homes.to_vec(),
        projects,
        managed_dir: managed_dir.map(Path::to_path_buf),
        listed: true,
    })
}

/// The values the configuration marks as secret that `du` hides ([`redact`]): those of
/// the `homes` (none: this machine's), of the working folder, of the projects of `du`
/// and of every project the homes list.
fn secrets_of(
    projects: &[ProjectUse],
    homes: &[PathBuf],
    managed_dir: Option<&Path>,
) -> crate::redact::configured::ConfiguredSecrets {
    configured_secrets(
        projects.iter().map(|p| p.project.as_str()),
        homes,
        managed_dir,
    )
}

/// Hides the secrets in the names, paths and warnings of a `du` run (a token glued into
/// a server's folder name is shown as `[REDACTED:kind]`), and every value the
/// configuration marks as secret, as `scan` hides them (a server named `svc-VALUE`, with
/// `VALUE` another entry's `env` value, is `svc-[REDACTED:config]`): the configuration
/// of the `homes` (none: this machine's), of the working folder, of the projects shown
/// and of every project the homes list.
pub fn redact(du: &mut DiskUse, homes: &[PathBuf], managed_dir: Option<&Path>) {
    use crate::redact::output::{path, warning};
    let mut b = crate::redact::RedactorBuilder::new();
    b.learn_configured_secrets(&secrets_of(&du.projects, homes, managed_dir));
    let r = b.build();
    for p in &mut du.projects {
        r.apply(&mut p.project);
        if let Some(f) = p.folder.as_mut() {
            r.apply(f);
        }
        if let Some(x) = p.path.as_mut() {
            path(&r, x);
        }
        if let Some(x) = p.root.as_mut() {
            path(&r, x);
        }
        for s in &mut p.servers {
            // with its tag, as `scan` prints it; names sharing its folder each with their
            // own
            s.name = if s.shared_by.is_empty() {
                crate::scan::select::shown_by(&r, &s.name)
            } else {
                crate::scan::select::shown_sharing(&r, &mut s.shared_by)
            };
            r.apply(&mut s.folder);
            path(&r, &mut s.path);
        }
    }
    if let Some(c) = du.own_cache.as_mut() {
        path(&r, &mut c.path);
    }
    if let Some(c) = du.discovery_cache.as_mut() {
        path(&r, &mut c.path);
    }
    for w in &mut du.warnings {
        warning(&r, w);
    }
}

/// `1.5 GiB`, `340 KiB`, `12 B`.
pub fn human_bytes(n: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut v = n as f64;
    let mut u = 0;
    while v >= 1024.0 && u < UNITS.len() - 1 {
        v /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{n} B")
    } else {
        format!("{v:.1} {}", UNITS[u])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn human_sizes() {
        assert_eq!(human_bytes(12), "12 B");
        assert_eq!(human_bytes(1536), "1.5 KiB");
        assert_eq!(human_bytes(3 * 1024 * 1024 * 1024), "3.0 GiB");
    }
}
