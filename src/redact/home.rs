//! The forms a home folder and a user name take in Claude Code's logs: Unix and Windows
//! paths, JSON-escaped backslashes, forward-slash Windows paths, and the encoded project
//! folder names (every character outside `[A-Za-z0-9]` became `-`).

use std::sync::LazyLock;

use regex::Regex;

use crate::claude_code::names::encode_folder_name;

/// Folders under `/Users` or `C:\Users` that are not a person.
const NOT_USERS: [&str; 5] = ["shared", "public", "default", "default user", "all users"];

/// Home-looking paths anywhere in a text: `/Users/<name>`, `/home/<name>`,
/// `C:\Users\<name>` (any number of backslashes, or forward slashes), and the encoded
/// forms `-Users-<name>`, `-home-<name>`, `C--Users-<name>`. The name is group 1.
static HOME_PATHS: LazyLock<Vec<Regex>> = LazyLock::new(|| {
    [
        r#"(?i)(?:\b[a-z]:)?(?:\\+|/)(?:users|home)(?:\\+|/)([^\\/\s:*?<>|"']+)"#,
        r"(?i)(?:^|[^A-Za-z0-9])(?:[a-z]-)?-(?:users|home)-([A-Za-z0-9]+)",
        // A Windows home seen from WSL, Cygwin or Git Bash (`/mnt/c/Users/<name>`,
        // `/cygdrive/c/Users/<name>`, `/c/Users/<name>`: Windows' own `Users`, in its
        // case: `/v/users/settings` is a URL's path) and Silverblue's `/var/home/<name>`;
        // the prefix starts the path. And their encoded forms.
        r#"(?:(?:/mnt|/cygdrive)?/[A-Za-z]/Users|/var/home)/([^\\/\s:*?<>|"']+)"#,
        r"(?:^|[^A-Za-z0-9])(?:(?:mnt|cygdrive)-[A-Za-z]-Users|var-home)-([A-Za-z0-9]+)",
    ]
    .iter()
    .map(|p| Regex::new(p).expect("home pattern compiles"))
    .collect()
});

/// The word every [`HOME_PATHS`] match holds, matched as they match it: a text without
/// it (most texts, once the known homes are taken out) needs no look for a name.
static HOME_WORD: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)users|home").expect("home word pattern compiles"));

/// Whether a home-looking path found at `start` of `text` starts a path there: not
/// when the character before it belongs to a path component (`…/run-3/home/work/proj`
/// is a folder called `home` inside another path, not the home of a user `work`).
pub(crate) fn starts_a_path(text: &str, start: usize) -> bool {
    !text[..start]
        .chars()
        .next_back()
        .is_some_and(|c| c.is_alphanumeric() || matches!(c, '.' | '-' | '_' | '~'))
}

/// The user names visible in home-looking paths in `text`.
pub fn user_names_in(text: &str) -> Vec<String> {
    names_in(text, true)
}

/// The user name of a path known to be a home (`$HOME`, `--home`), wherever it lies
/// (`/tmp/.tmpAbC/Users/alice` is alice's).
pub fn user_names_in_home(path: &str) -> Vec<String> {
    names_in(path, false)
}

fn names_in(text: &str, at_path_start: bool) -> Vec<String> {
    let mut names = Vec::new();
    if !HOME_WORD.is_match(text) {
        return names;
    }
    for re in HOME_PATHS.iter() {
        for c in re.captures_iter(text) {
            if at_path_start && !starts_a_path(text, c.get(0).map_or(0, |m| m.start())) {
                continue;
            }
            let name = c[1].trim_end_matches(['"', '\'', ',', ')', ']', '}', '.']);
            if name.starts_with(|c: char| c.is_alphanumeric())
                && !NOT_USERS.contains(&name.to_ascii_lowercase().as_str())
                && !names.iter().any(|n: &String| n.eq_ignore_ascii_case(name))
            {
                names.push(name.to_string());
            }
        }
    }
    names
}

/// Every literal form of one home path, longest first. `home` is the path as this
/// machine or the logs spell it (`/home/alice`, `C:\Users\alice`, `C:/Users/alice`).
pub fn home_forms(home: &str) -> Vec<String> {
    let trimmed = home.trim_end_matches(['/', '\\']);
    if trimmed.is_empty() {
        return Vec::new();
    }
    let parts: Vec<&str> = trimmed.split(['/', '\\']).collect();
    let mut forms = vec![
        trimmed.to_string(),
        parts.join("/"),
        parts.join("\\"),
        parts.join("\\\\"),
        parts.join("\\\\\\\\"),
        encode_folder_name(trimmed),
    ];
    // A home holding a quote, as a printed command quotes it (`'\''` in `sh`, `\'` in
    // `$'...'`, `''` in PowerShell; and that in a JSON string) and as JSON escapes it.
    if trimmed.contains('\'') {
        let sh = trimmed.replace('\'', r"'\''");
        forms.push(sh.replace('\\', r"\\"));
        forms.push(sh);
        forms.push(trimmed.replace('\'', r"\'"));
        forms.push(trimmed.replace('\'', "''"));
    }
    if trimmed.contains('"') {
        forms.push(trimmed.replace('"', r#"\""#));
    }
    // A one-letter home (`/h`) would eat ordinary text.
    forms.retain(|f| f.len() >= 3);
    forms.sort_by_key(|f| std::cmp::Reverse(f.len()));
    forms.dedup();
    forms
}

/// A regex for every home of user `name`, whatever the OS or escaping, in both the
/// path and the encoded-folder forms.
pub fn generic_home_pattern(name: &str) -> String {
    let mut alternatives: Vec<String> = Vec::new();
    let mut spellings = vec![name.to_string()];
    let encoded = encode_folder_name(name);
    if encoded != name {
        spellings.push(encoded);
    }
    for n in &spellings {
        let n = regex::escape(n);
        alternatives.push(format!(r"(?:[a-z]:)?(?:\\+|/)(?:users|home)(?:\\+|/){n}"));
        alternatives.push(format!(
            r"(?:(?:/mnt|/cygdrive)?/[a-z](?-i:/Users)|/var(?-i:/home))/{n}"
        ));
        alternatives.push(format!(r"(?:[a-z]-)?-(?:users|home)-{n}"));
        alternatives.push(format!(
            r"(?:(?:mnt|cygdrive)-[a-z](?-i:-Users)|var(?-i:-home))-{n}"
        ));
    }
    format!("(?i)(?:{})", alternatives.join("|"))
}

/// The spellings of a bare user name: as written, and encoded (`alice.smith` is
/// `alice-smith` inside an encoded folder name).
pub fn user_spellings(name: &str) -> Vec<String> {
    let mut v = vec![name.to_string()];
    let encoded = encode_folder_name(name);
    if encoded != name {
        v.push(encoded);
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_user_names_in_every_home_form() {
        let text = r#"cwd /Users/alice/proj, /home/bob, C:\Users\carol\x, "C:\\Users\\dave\\y", C:/Users/erin/z, -Users-frank-proj, C--Users-gina-proj, /Users/Shared/x"#;
        assert_eq!(
            user_names_in(text),
            vec!["alice", "bob", "carol", "dave", "erin", "frank", "gina"]
        );
        // The word looked for first is matched as the paths are: in any case, and
        // with Unicode's case folding (`ſ` is an `s`).
        for (text, name) in [
            ("/HOME/hal", "hal"),
            (r"c:\uSeRs\ivy", "ivy"),
            ("-HOME-jo-x", "jo"),
            ("/uſers/kim", "kim"),
        ] {
            assert_eq!(user_names_in(text), vec![name], "{text}");
        }
    }

    /// A Windows home seen from WSL, Cygwin or Git Bash, and Silverblue's, in their
    /// path and encoded forms (helper-77 #7: printed whole by `report` and `export`).
    #[test]
    fn homes_under_a_mount_or_var_name_their_user() {
        for text in [
            "/mnt/c/Users/RobertS/proj",
            "open '/cygdrive/d/Users/RobertS/x'",
            "/c/Users/RobertS/proj",
            "/var/home/RobertS/proj",
            "-mnt-c-Users-RobertS-proj",
            "-var-home-RobertS-proj",
        ] {
            assert_eq!(user_names_in(text), vec!["RobertS"], "{text}");
        }
        // a one-letter folder inside another path is no drive, a drive's `home` or a
        // URL's `users` no home (helper-78: `/mnt/d/home/data`, `/v/users/settings`)
        for text in [
            "/tmp/x/home/work/proj",
            "-tmp-x-home-work-proj",
            "reading /mnt/d/home/data/file.csv",
            "GET /v/users/settings 200",
        ] {
            assert!(user_names_in(text).is_empty(), "{text}");
        }
    }

    #[test]
    fn ordinary_paths_name_no_user() {
        assert!(user_names_in("/tmp/x/y -tmp-x-y /usr/lib users/home").is_empty());
    }

    #[test]
    fn home_forms_cover_escapes_and_encoding() {
        let f = home_forms(r"C:\Users\alice");
        for want in [
            r"C:\Users\alice",
            "C:/Users/alice",
            r"C:\\Users\\alice",
            "C--Users-alice",
        ] {
            assert!(f.contains(&want.to_string()), "{want} in {f:?}");
        }
        // a quote, as a printed command or JSON writes it (helper-81 #2: a report kept
        // `python3 '/tmp/my home '\''q'\''/bin/stub.py'`)
        let f = home_forms("/tmp/my home 'q\"");
        for want in [
            r#"/tmp/my home '\''q""#,
            r#"/tmp/my home '\\''q""#,
            r#"/tmp/my home \'q""#,
            r#"/tmp/my home ''q""#,
            r#"/tmp/my home 'q\""#,
        ] {
            assert!(f.contains(&want.to_string()), "{want} in {f:?}");
        }
        let f = home_forms("/home/alice/");
        assert!(f.contains(&"/home/alice".to_string()));
        assert!(f.contains(&"-home-alice".to_string()));
        assert!(f.windows(2).all(|w| w[0].len() >= w[1].len()));
    }
}
