//! Where the logs are: the per-OS cache roots, home folders copied from any OS, and
//! whatever paths the user names (a root, a project folder, a server folder, a file).

use std::ffi::OsStr;
use std::fmt;
use std::path::{Path, PathBuf};

use crate::logs::decode::{self, LogFormat};
use crate::safe_read::{EntryKind, OpenFolder};
use crate::warning::Warning;

use crate::claude_code::paths::{
    HOME_LAYOUTS, Os, SERVER_DIR_PREFIX, default_cache_root, home_of_cache_root,
};

/// One `mcp-logs-<server>` folder (or a single log file standing for one).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerDir {
    pub path: PathBuf,
    /// The encoded server name: the folder name without `mcp-logs-`.
    pub folder: String,
    /// The encoded project folder name, when the layout shows it.
    pub project_folder: Option<String>,
    /// The log files' names in `path`, sorted (= by process start time); an empty name
    /// is `path` itself (a named file standing for its server). Names, not paths: the
    /// 341,785 paths of 100,000 folders were most of what discovery held.
    pub file_names: Vec<Box<OsStr>>,
    /// The home this cache belongs to, when the layout shows it (for config names).
    pub home: Option<PathBuf>,
    /// Whether `file_names` were listed: a scan with the summary index finds the folders
    /// without listing them ([`discover_unlisted`]) and lists each as it reads it
    /// ([`ServerDir::list_open`]), or takes the listing its index keeps for an unchanged
    /// folder.
    pub listed: bool,
}

impl ServerDir {
    /// Lists the folder's log files now, when [`discover_unlisted`] did not (what cannot
    /// be read is said in `warnings`, as discovery says it), keeping the folder open to
    /// read its files by name (`None`: listed before, or it cannot be read).
    pub fn list_open(&mut self, warnings: &mut Vec<Warning>) -> Option<OpenFolder> {
        if self.listed {
            return None;
        }
        self.listed = true;
        let (names, folder) = list_open(&self.path, warnings)?;
        self.file_names = names;
        Some(folder)
    }

    /// The log files, oldest first.
    pub fn files(&self) -> impl DoubleEndedIterator<Item = PathBuf> + ExactSizeIterator + '_ {
        self.file_names.iter().map(|n| file_in(&self.path, n))
    }
}

/// The path of a [`ServerDir::file_names`] entry, given the folder's path.
pub fn file_in(dir: &Path, name: &OsStr) -> PathBuf {
    if name.is_empty() {
        dir.to_path_buf()
    } else {
        dir.join(name)
    }
}

#[derive(Debug, Default)]
pub struct Discovered {
    pub server_dirs: Vec<ServerDir>,
    pub debug_logs: Vec<PathBuf>,
    /// Homes whose `.claude.json` can name servers.
    pub homes: Vec<PathBuf>,
    /// What was searched, for "nothing found" messages.
    pub searched: Vec<PathBuf>,
    pub warnings: Vec<Warning>,
    /// Server folders are found, not listed ([`discover_unlisted`]).
    unlisted: bool,
}

impl Discovered {
    /// An empty part of this discovery (for a walk of one subtree), with its rules.
    fn part(&self) -> Discovered {
        Discovered {
            unlisted: self.unlisted,
            ..Discovered::default()
        }
    }
}

/// What to search. Empty `homes` and `paths` mean the current OS's default root.
#[derive(Debug, Default, Clone)]
pub struct Request {
    pub homes: Vec<PathBuf>,
    pub paths: Vec<PathBuf>,
}

/// A path the user named that cannot be read at all: a usage or I/O error (exit 2).
#[derive(Debug)]
pub struct DiscoveryError {
    pub path: PathBuf,
    pub error: std::io::Error,
}

impl fmt::Display for DiscoveryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path.display(), self.error)
    }
}

impl std::error::Error for DiscoveryError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.error)
    }
}

pub fn discover(req: &Request) -> Result<Discovered, DiscoveryError> {
    discover_with(req, false)
}

/// [`discover`] without listing the server folders (each is listed by [`ServerDir::list_open`] when
/// it is read): a scan with the summary index takes an unchanged folder's listing from
/// it, one `stat` instead of opening and reading the folder.
pub fn discover_unlisted(req: &Request) -> Result<Discovered, DiscoveryError> {
    discover_with(req, true)
}

fn discover_with(req: &Request, unlisted: bool) -> Result<Discovered, DiscoveryError> {
    // Check every named path before doing any work: a typo is a usage error.
    for p in req.homes.iter().chain(&req.paths) {
        std::fs::metadata(p).map_err(|error| DiscoveryError {
            path: p.clone(),
            error,
        })?;
    }
    for h in &req.homes {
        if !h.is_dir() {
            return Err(DiscoveryError {
                path: h.clone(),
                error: std::io::Error::other(
                    "not a folder: --home takes a home folder (one holding Library/Caches, AppData/Local or .cache); name log files without --home",
                ),
            });
        }
    }
    let mut found = Discovered {
        unlisted,
        ..Discovered::default()
    };
    if req.homes.is_empty() && req.paths.is_empty() {
        let home = directories::BaseDirs::new().map(|b| b.home_dir().to_path_buf());
        if let Some(h) = &home {
            found.homes.push(h.clone());
        }
        if let Some(dir) = crate::claude_code::paths::config_dir_override(&|k| std::env::var_os(k))
        {
            found.homes.push(dir);
        }
        if let Some(root) =
            default_cache_root(Os::current(), home.as_deref(), &|k| std::env::var_os(k))
        {
            found.searched.push(root.clone());
            // The home rule holds only when the root was made from the home (not from
            // $XDG_CACHE_HOME or %LOCALAPPDATA%, which may be anywhere).
            let within = home.as_deref().filter(|h| root.starts_with(h));
            if let Some(root) = confined_root(&root, within, &mut found.warnings) {
                walk_tree(&root, &mut found);
            }
        }
    }
    for home in &req.homes {
        found.homes.push(home.clone());
        for layout in HOME_LAYOUTS {
            let root = layout.iter().fold(home.clone(), |p, c| p.join(c));
            found.searched.push(root.clone());
            if let Some(real) = confined_root(&root, Some(home), &mut found.warnings) {
                // Walk the resolved folder, but name what is found by the home's
                // spelling, so the layout (and the home it belongs to) stays visible.
                walk_tree_as(&real, &root, &mut found);
            }
        }
    }
    for path in &req.paths {
        found.searched.push(path.clone());
        if path.is_dir() {
            let Some(real) = confined_root(path, None, &mut found.warnings) else {
                continue;
            };
            let before = (found.server_dirs.len(), found.debug_logs.len());
            walk_tree_as(&real, path, &mut found);
            if before == (found.server_dirs.len(), found.debug_logs.len()) {
                add_debug_logs_in(path, &mut found);
            }
        } else {
            add_file(path, &mut found);
        }
    }
    for dir in &found.server_dirs {
        if let Some(h) = &dir.home
            && !found.homes.contains(h)
        {
            found.homes.push(h.clone());
        }
    }
    use rayon::prelude::*;
    // In parallel (a path compares component by component: 100,000 folders took a
    // second alone); stable, as `sort_by` is.
    found.server_dirs.par_sort_by(|a, b| a.path.cmp(&b.path));
    found
        .server_dirs
        .dedup_by(|a, b| a.path == b.path && a.file_names == b.file_names && a.listed == b.listed);
    found.debug_logs.sort();
    found.debug_logs.dedup();
    Ok(found)
}

/// Folders that are never a log tree: walking them would read the whole machine (or
/// other users' files). A root that resolves to one of these is refused.
const SYSTEM_FOLDERS: &[&str] = &[
    "/",
    "/bin",
    "/boot",
    "/dev",
    "/etc",
    "/home",
    "/lib",
    "/lib32",
    "/lib64",
    "/media",
    "/mnt",
    "/opt",
    "/proc",
    "/root",
    "/run",
    "/sbin",
    "/srv",
    "/sys",
    "/tmp",
    "/usr",
    "/var",
    "/Applications",
    "/Library",
    "/System",
    "/Users",
    "/Volumes",
    "/private",
    "/private/tmp",
    "/private/var",
    "/cores",
];

/// Whether `p` (resolved) is a system folder or a drive root (`C:\`, `C:\Windows`...).
pub fn is_system_folder(p: &Path) -> bool {
    if p.parent().is_none() {
        return true; // `/`, `C:\`, `\\?\C:\`
    }
    if SYSTEM_FOLDERS.iter().any(|f| p == Path::new(f)) {
        return true;
    }
    // Windows: the drive's top-level system folders.
    let comps: Vec<String> = p
        .components()
        .filter(|c| matches!(c, std::path::Component::Normal(_)))
        .map(|c| c.as_os_str().to_string_lossy().to_ascii_lowercase())
        .collect();
    comps.len() == 1
        && [
            "windows",
            "program files",
            "program files (x86)",
            "programdata",
            "users",
        ]
        .contains(&comps[0].as_str())
}

/// Resolves a root before it is walked. `None` (with a warning) when it is not a
/// folder, resolves to `/` or a system folder, or, when `home` is given, resolves
/// outside that home (a copied home whose `.cache/claude-cli-nodejs` is a symlink to
/// `/` must not make mcplogs walk the whole disk).
pub fn confined_root(
    root: &Path,
    home: Option<&Path>,
    warnings: &mut Vec<Warning>,
) -> Option<PathBuf> {
    let real = std::fs::canonicalize(root).ok()?;
    if !real.is_dir() {
        return None;
    }
    if is_system_folder(&real) {
        warnings.push(Warning::new(
            root,
            format!(
                "resolves to the system folder {}, not a log tree: skipped",
                real.display()
            ),
        ));
        return None;
    }
    if let Some(home) = home {
        let real_home = std::fs::canonicalize(home).unwrap_or_else(|_| home.to_path_buf());
        if !real.starts_with(&real_home) {
            warnings.push(Warning::new(
                root,
                format!(
                    "resolves to {}, outside the home {}: skipped",
                    real.display(),
                    home.display()
                ),
            ));
            return None;
        }
    }
    Some(real)
}

/// [`walk_tree`] over `real` (a resolved root); `shown` is the root as the user or the
/// layout spells it, for the home a cache belongs to and for warnings.
fn walk_tree_as(real: &Path, shown: &Path, found: &mut Discovered) {
    if real == shown {
        return walk_tree(real, found);
    }
    let mut inner = found.part();
    walk_tree(real, &mut inner);
    let respell = |p: &Path| match p.strip_prefix(real) {
        Ok(rest) if rest.as_os_str().is_empty() => shown.to_path_buf(),
        Ok(rest) => shown.join(rest),
        Err(_) => p.to_path_buf(),
    };
    // Files are read by their resolved paths (nothing can be swapped in between);
    // the layout, which names the home, is read from the spelling shown.
    for mut d in inner.server_dirs {
        let (project_folder, home) = layout_of(&respell(&d.path));
        d.project_folder = project_folder;
        d.home = home;
        found.server_dirs.push(d);
    }
    found.debug_logs.extend(inner.debug_logs);
    for mut w in inner.warnings {
        w.path = w.path.map(|p| respell(&p));
        found.warnings.push(w);
    }
}

/// Finds every `mcp-logs-*` folder under `root` (or `root` itself). Symlinks inside the
/// tree are never followed (they may loop, or lead out of it); the root was resolved
/// by [`confined_root`]. The top levels (where a cache's thousands of projects are) are
/// walked in parallel; what is found keeps the order of one depth-first walk.
fn walk_tree(root: &Path, found: &mut Discovered) {
    if !root.is_dir() {
        if let Err(e) = std::fs::metadata(root) {
            found
                .warnings
                .push(Warning::new(root, format!("cannot read: {e}")));
        }
        return;
    }
    let name = root.file_name().unwrap_or(root.as_os_str());
    if let Some(server) = name.to_string_lossy().strip_prefix(SERVER_DIR_PREFIX) {
        return add_server_dir(root, server.to_string(), found);
    }
    walk_children(root, 1, found);
}

/// Below this depth a folder's subfolders are walked in parallel; deeper, one walker
/// (iterative, so a hostile tree thousands of levels deep costs no stack).
const PARALLEL_DEPTH: usize = 3;

/// What one entry of a walked folder is to the walk.
enum Entry {
    Warn(Warning),
    Server(PathBuf, String),
    Walk(PathBuf),
    Skip,
}

/// The walk's rules for one entry below the root: symlinks are reported, not followed;
/// an `mcp-logs-*` folder is a server; `errors` folders are not logs; files are passed.
fn entry_of(path: &Path, file_type: std::io::Result<std::fs::FileType>) -> Entry {
    let t = match file_type {
        Ok(t) => t,
        Err(e) => return Entry::Warn(Warning::new(path, format!("cannot read: {e}"))),
    };
    if t.is_symlink() {
        let target = std::fs::read_link(path)
            .map(|t| format!(" (to {})", t.display()))
            .unwrap_or_default();
        return Entry::Warn(Warning::new(
            path,
            format!("symlink inside the log tree{target}, not followed"),
        ));
    }
    if !t.is_dir() {
        return Entry::Skip;
    }
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    if let Some(server) = name.strip_prefix(SERVER_DIR_PREFIX) {
        Entry::Server(path.to_path_buf(), server.to_string())
    } else if name == "errors" {
        Entry::Skip
    } else {
        Entry::Walk(path.to_path_buf())
    }
}

fn walk_children(dir: &Path, depth: usize, found: &mut Discovered) {
    use rayon::prelude::*;
    if depth > PARALLEL_DEPTH {
        return walk_serial(dir, found);
    }
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) => {
            return found
                .warnings
                .push(Warning::new(dir, format!("cannot read: {e}")));
        }
    };
    // Read whole before going down, so no folder stays open while its children are;
    // in name order, which is path order: what the walk finds is then sorted per root,
    // and `discover`'s sort of 100,000 folders (a merge sort that finds runs) is little
    // more than a check (comparing paths component by component was 4% of a scan).
    let mut listed: Vec<std::io::Result<std::fs::DirEntry>> = entries.collect();
    listed.sort_by_cached_key(|e| e.as_ref().ok().map(|e| e.file_name()));
    let entries: Vec<Entry> = listed
        .into_iter()
        .map(|e| match e {
            Ok(e) => entry_of(&e.path(), e.file_type()),
            Err(e) => Entry::Warn(Warning::new(dir, format!("cannot read: {e}"))),
        })
        .collect();
    let parts: Vec<Discovered> = entries
        .into_par_iter()
        .map(|e| {
            let mut part = found.part();
            match e {
                Entry::Warn(w) => part.warnings.push(w),
                Entry::Server(p, server) => add_server_dir(&p, server, &mut part),
                Entry::Walk(p) => walk_children(&p, depth + 1, &mut part),
                Entry::Skip => {}
            }
            part
        })
        .collect();
    for part in parts {
        found.server_dirs.extend(part.server_dirs);
        found.warnings.extend(part.warnings);
    }
}

/// [`walk_children`] below [`PARALLEL_DEPTH`]: the same rules and order (depth first,
/// each folder's entries in name order), one walker, iterative (a list of the entries
/// still to take, not the stack), one folder open at a time. A server folder is never
/// opened here (a walker that opens each folder it meets opened 100,000 server folders
/// only to be told to skip them: most of a second on one core).
fn walk_serial(dir: &Path, found: &mut Discovered) {
    // last first: a folder's entries go in reversed, so they are taken in name order,
    // each subfolder's before its next sibling's
    let mut to_take: Vec<Entry> = Vec::new();
    list_entries(dir, &mut to_take);
    while let Some(e) = to_take.pop() {
        match e {
            Entry::Warn(w) => found.warnings.push(w),
            Entry::Server(p, server) => add_server_dir(&p, server, found),
            Entry::Walk(p) => list_entries(&p, &mut to_take),
            Entry::Skip => {}
        }
    }
}

/// `dir`'s entries, read whole and sorted by name, pushed onto `to_take` last first
/// ([`walk_serial`]); a folder that cannot be read is a warning there.
fn list_entries(dir: &Path, to_take: &mut Vec<Entry>) {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) => {
            return to_take.push(Entry::Warn(Warning::new(dir, format!("cannot read: {e}"))));
        }
    };
    let mut listed: Vec<std::io::Result<std::fs::DirEntry>> = entries.collect();
    listed.sort_by_cached_key(|e| e.as_ref().ok().map(|e| e.file_name()));
    let from = to_take.len();
    to_take.extend(listed.into_iter().map(|e| match e {
        Ok(e) => entry_of(&e.path(), e.file_type()),
        Err(e) => Entry::Warn(Warning::new(dir, format!("cannot read: {e}"))),
    }));
    to_take[from..].reverse();
}

fn add_server_dir(path: &Path, folder: String, found: &mut Discovered) {
    let (files, listed) = if found.unlisted {
        (Vec::new(), false)
    } else {
        match list_files(path, &mut found.warnings) {
            Some(files) => (files, true),
            None => return,
        }
    };
    let (project_folder, home) = layout_of(path);
    found.server_dirs.push(ServerDir {
        path: path.to_path_buf(),
        folder,
        project_folder,
        file_names: files,
        home,
        listed,
    });
}

/// A server folder's log files' names, sorted; `None` when the folder cannot be read.
/// What is not a regular file is said in `warnings`, never followed or read.
pub fn list_files(path: &Path, warnings: &mut Vec<Warning>) -> Option<Vec<Box<OsStr>>> {
    list_open(path, warnings).map(|(files, _)| files)
}

/// [`list_files`], with the folder kept open to read the files it lists
/// ([`OpenFolder::open_listed`]).
pub fn list_open(
    path: &Path,
    warnings: &mut Vec<Warning>,
) -> Option<(Vec<Box<OsStr>>, OpenFolder)> {
    let mut folder = match OpenFolder::open(path) {
        Ok(f) => f,
        Err(e) => {
            warnings.push(Warning::new(path, format!("cannot read: {e}")));
            return None;
        }
    };
    let mut files = Vec::new();
    for entry in folder.entries() {
        let (name, kind) = match entry {
            Ok(e) => e,
            Err(e) => {
                warnings.push(Warning::new(path, format!("cannot read folder: {e}")));
                continue;
            }
        };
        if name.as_encoded_bytes().starts_with(b".") {
            continue; // .DS_Store and friends
        }
        // The kind as listed, links not followed: inside a log tree nothing is followed
        // (a link can point at /dev/zero, a FIFO, or out of the tree).
        match kind {
            EntryKind::File => files.push(name.into_boxed_os_str()),
            EntryKind::Folder => {}
            EntryKind::Other => {
                let p = path.join(&name);
                match std::fs::symlink_metadata(&p) {
                    Ok(m) => {
                        let what = describe_special(&m.file_type(), &p);
                        warnings.push(Warning::new(p, what));
                    }
                    Err(e) => warnings.push(Warning::new(p, format!("cannot read: {e}"))),
                }
            }
        }
    }
    // Ordered as bytes, names are ordered as the paths they make (all in one folder).
    files.sort_by(|a, b| a.as_encoded_bytes().cmp(b.as_encoded_bytes()));
    Some((files, folder))
}

/// The warning for a file that is not a regular file.
fn describe_special(t: &std::fs::FileType, p: &Path) -> String {
    if t.is_symlink() {
        return match std::fs::read_link(p) {
            Ok(target) => format!(
                "symlink inside a log folder (to {}), not followed",
                target.display()
            ),
            Err(_) => "symlink inside a log folder, not followed".to_string(),
        };
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "a FIFO, not a regular file, not read".to_string();
        }
        if t.is_socket() {
            return "a socket, not a regular file, not read".to_string();
        }
        if t.is_char_device() || t.is_block_device() {
            return "a device, not a regular file, not read".to_string();
        }
    }
    "not a regular file, not read".to_string()
}

/// From `<root>/<project>/mcp-logs-<server>`, the project folder name and, when the root
/// is one of the known cache layouts, the home it lives in.
fn layout_of(server_dir: &Path) -> (Option<String>, Option<PathBuf>) {
    let project = server_dir.parent();
    let project_folder = project
        .and_then(|p| p.file_name())
        .map(|n| n.to_string_lossy().into_owned());
    let root = project.and_then(|p| p.parent());
    let home = root.and_then(home_of_root);
    (project_folder, home)
}

/// [`home_of_cache_root`], remembered for the root looked up last: a root holds
/// thousands of server folders, and walking a long path's parts from its end for each
/// was half of the cost of finding a server folder.
fn home_of_root(root: &Path) -> Option<PathBuf> {
    thread_local! {
        static LAST: std::cell::RefCell<Option<(PathBuf, Option<PathBuf>)>> =
            const { std::cell::RefCell::new(None) };
    }
    LAST.with_borrow_mut(|last| match last {
        Some((r, home)) if r.as_os_str() == root.as_os_str() => home.clone(),
        _ => {
            let home = home_of_cache_root(root);
            *last = Some((root.to_path_buf(), home.clone()));
            home
        }
    })
}

/// A named file: a per-server log (by its folder or by content) or a debug log.
/// A named symlink is followed (the user chose it), but only to a regular file: opening
/// a FIFO would block and a device never ends.
fn add_file(path: &Path, found: &mut Discovered) {
    match std::fs::metadata(path) {
        Ok(m) if m.is_file() => {}
        Ok(m) => {
            let what = describe_special(&m.file_type(), path);
            found.warnings.push(Warning::new(path, what));
            return;
        }
        Err(e) => {
            found
                .warnings
                .push(Warning::new(path, format!("cannot read: {e}")));
            return;
        }
    }
    let parent_server = path
        .parent()
        .and_then(|p| p.file_name())
        .and_then(|n| n.to_str())
        .and_then(|n| n.strip_prefix(SERVER_DIR_PREFIX))
        .map(str::to_string);
    let format = sniff_file(path);
    match (format, parent_server) {
        (Some(LogFormat::DebugLog), _) => found.debug_logs.push(path.to_path_buf()),
        (_, Some(server)) => {
            let dir = path.parent().expect("has a parent").to_path_buf();
            let (project_folder, home) = layout_of(&dir);
            found.server_dirs.push(ServerDir {
                path: dir,
                folder: server,
                project_folder,
                file_names: path.file_name().map(Box::from).into_iter().collect(),
                home,
                listed: true,
            });
        }
        (Some(_), None) => {
            let stem = path
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_else(|| "unknown".to_string());
            found.server_dirs.push(ServerDir {
                path: path.to_path_buf(),
                folder: stem,
                project_folder: None,
                file_names: vec![Box::from(OsStr::new(""))],
                home: None,
                listed: true,
            });
        }
        (None, None) => found.warnings.push(Warning::new(
            path,
            "not a Claude Code MCP log or debug log (unrecognised content), skipped",
        )),
    }
}

/// A folder without `mcp-logs-*` inside may be `~/.claude/debug`: take its debug logs.
fn add_debug_logs_in(dir: &Path, found: &mut Discovered) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut any = false;
    let mut files: Vec<PathBuf> = entries
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .map(|e| e.path())
        .collect();
    files.sort();
    for f in files {
        if sniff_file(&f) == Some(LogFormat::DebugLog) {
            found.debug_logs.push(f);
            any = true;
        }
    }
    if !any {
        found.warnings.push(Warning::new(
            dir,
            "no MCP log folders (mcp-logs-*) or debug logs found here",
        ));
    }
}

fn sniff_file(path: &Path) -> Option<LogFormat> {
    use std::io::Read;
    let mut head = vec![0u8; 8192];
    let (mut f, _) = crate::safe_read::open_regular(path).ok()?;
    let n = f.read(&mut head).ok()?;
    decode::sniff(&head[..n])
}
