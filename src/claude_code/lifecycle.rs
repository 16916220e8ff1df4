//! Claude Code's tool discovery, as real builds do it: the one model that scan's
//! classifier, the probe's prediction and `probe --contract` consult.
//!
//! It reads as tables. [`BOUNDARIES`] holds what differs between builds, newest first:
//! each row a behaviour, the last build observed without it, the first observed with it,
//! and the fixture that shows it; callers ask `build.has(Behaviour::X)`. [`TOOL_DEFECTS`]
//! says what each tool defect does to the list; the constants below them what the model
//! assumes of every build, each naming the builds it was observed on (on the others it
//! is assumed, not observed). [`OBSERVED`] names the builds `scripts/observe-build` ran
//! (docs/claude-code.md, "Build boundaries"; the runs are the fixtures under
//! tests/fixtures/lifecycle/). A build inside a boundary's gap (after the last without,
//! before the first with) is [`Has::Uncertain`]; a build newer than the newest observed
//! is predicted as that one ([`ClaudeVersion::extrapolated_from`]).
//!
//! A new boundary is one row: run `scripts/observe-build` on the builds around it, keep
//! the runs (`--record`), add the [`Behaviour`] and its row here, and a reader for it in
//! the script's `BEHAVIOURS`.

use std::fmt;

/// A Claude Code version `major.minor.patch`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ClaudeVersion(pub u32, pub u32, pub u32);

/// Build `2.1.patch` (every build the model knows is a 2.1 one).
pub(super) const fn v(patch: u32) -> ClaudeVersion {
    ClaudeVersion(2, 1, patch)
}

impl ClaudeVersion {
    /// `2.1.288`, `v2.1.288` or `claude --version`'s `2.1.288 (Claude Code)`.
    pub fn parse(s: &str) -> Option<ClaudeVersion> {
        let word = s.split_whitespace().next()?;
        let word = word.strip_prefix('v').unwrap_or(word);
        let mut it = word.split('.').map(|p| p.parse::<u32>().ok());
        let v = ClaudeVersion(it.next()??, it.next()??, it.next()??);
        if it.next().is_some() {
            return None;
        }
        Some(v)
    }

    /// Whether this build has `b` ([`BOUNDARIES`]): yes from the first build observed
    /// with it, no up to the last observed without it, uncertain in between.
    pub fn has(self, b: Behaviour) -> Has {
        b.boundary().answer(self)
    }

    /// Whether this build ran under `scripts/observe-build` (every modelled behaviour
    /// observed on it).
    pub fn is_known(self) -> bool {
        OBSERVED.contains(self)
    }

    pub fn is_older_than_known(self) -> bool {
        self < OBSERVED.from
    }

    /// For a build newer than the newest observed one: that build, which its
    /// predictions are extrapolated from.
    pub fn extrapolated_from(self) -> Option<ClaudeVersion> {
        (self > OBSERVED.to).then_some(OBSERVED.to)
    }

    /// What a prediction for this build rests on, when it is not a build observed with
    /// every behaviour known: `None` for an observed build.
    pub fn model_note(self) -> Option<String> {
        if let Some(from) = self.extrapolated_from() {
            return Some(format!(
                "Claude Code {self} is newer than the newest build observed, {from}: predictions extrapolate from {from}"
            ));
        }
        if self.is_older_than_known() {
            return Some(format!(
                "Claude Code {self} is older than the oldest build observed, {}: predictions extrapolate from it",
                OBSERVED.from
            ));
        }
        let uncertain = self.uncertain();
        if !uncertain.is_empty() {
            let rows: Vec<String> = uncertain
                .iter()
                .map(|b| {
                    format!(
                        "{} (not on {}, on {})",
                        b.behaviour.name(),
                        b.last_without,
                        b.first_with
                    )
                })
                .collect();
            return Some(format!(
                "Claude Code {self} was not observed and lies where the model is uncertain: {}",
                rows.join("; ")
            ));
        }
        if !self.is_known() {
            return Some(format!(
                "Claude Code {self} was never published between the observed builds {} and {}; predicted from its neighbours, which agree",
                OBSERVED.from, OBSERVED.to
            ));
        }
        None
    }

    /// The boundaries this build falls inside of (not bisected down to it).
    pub fn uncertain(self) -> Vec<&'static Boundary> {
        BOUNDARIES
            .iter()
            .filter(|row| matches!(self.has(row.behaviour), Has::Uncertain(_)))
            .collect()
    }

    /// stdio servers negotiate 2026-07-28 with nothing set (an uncertain build counts
    /// as the older ones; the probe says it is uncertain).
    pub fn stdio_defaults_to_modern(self) -> bool {
        self.has(Behaviour::StdioNegotiates).is_yes()
    }

    /// Whether a 2026-07-28 result of `list` that omits `resultType`/`ttlMs`/`cacheScope`
    /// is filled in (else rejected).
    pub fn fills_missing_fields(self, list: List) -> bool {
        self.has(Behaviour::fills_missing(list)).is_yes()
    }

    /// The most `tools/list` pages this build follows.
    pub fn page_cap(self) -> usize {
        PAGE_CAP.value
    }

    /// Whether a `nextCursor` already sent in this walk stops it at once (else it is
    /// followed until the page cap).
    pub fn stops_at_repeated_cursor(self) -> bool {
        self.has(Behaviour::CursorGuard).is_yes()
    }
}

impl fmt::Display for ClaudeVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.0, self.1, self.2)
    }
}

/// The builds `scripts/observe-build` ran: every published native build from `from` to
/// `to` (`npm view @anthropic-ai/claude-code-linux-x64 versions`); `unpublished` are
/// numbers in that range that were never published.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Observed {
    pub from: ClaudeVersion,
    pub to: ClaudeVersion,
    pub unpublished: &'static [ClaudeVersion],
}

impl Observed {
    pub fn contains(&self, b: ClaudeVersion) -> bool {
        self.from <= b && b <= self.to && !self.unpublished.contains(&b)
    }

    /// Every observed build, oldest first.
    pub fn builds(&self) -> Vec<ClaudeVersion> {
        (self.from.2..=self.to.2)
            .map(|p| ClaudeVersion(self.from.0, self.from.1, p))
            .filter(|b| self.contains(*b))
            .collect()
    }
}

pub const OBSERVED: Observed = Observed {
    from: v(280),
    to: v(336),
    unpublished: &[v(297), v(298), v(313), v(320)],
};
/// The newest observed build: newer ones are predicted as it.
pub const NEWEST_KNOWN: ClaudeVersion = OBSERVED.to;

/// A behaviour that differs between builds (one row of [`BOUNDARIES`] each).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Behaviour {
    /// stdio servers negotiate 2026-07-28 (`server/discover` first) with nothing set
    /// (HTTP servers always do, SSE servers never: [`HTTP_NEGOTIATES`], [`SSE_NEGOTIATES`]).
    StdioNegotiates,
    /// A 2026-07-28 `tools/list` result without `resultType`/`ttlMs`/`cacheScope` is
    /// filled in (`resultType="complete", ttlMs=0, cacheScope="private"`, logged once)
    /// instead of rejected (three retries, then `Failed to fetch tools: ...`).
    FillsMissingTools,
    /// The same for `resources/list` (else `Failed to fetch resources: ...`).
    FillsMissingResources,
    /// The same for `prompts/list` (else `Failed to fetch commands: ...`).
    FillsMissingPrompts,
    /// A `nextCursor` already sent in this walk stops it at once (`tools/list returned a
    /// nextCursor already sent in this walk (page 2); stopping`), else it is followed
    /// until the page cap.
    CursorGuard,
    /// `MCP_TIMEOUT` in a project's settings (`.claude/settings.json`,
    /// `.claude/settings.local.json`) counts only when it is longer than what the other
    /// layers give (the default when none); the debug log warns `MCP_TIMEOUT in
    /// .claude/settings.json is ignored: a project's settings can give MCP servers more
    /// time to connect, not less.` Before it, the project's shorter value is used.
    ProjectTimeoutOnlyLengthens,
    /// On the negotiating path (a failed `server/discover`, then `initialize`), a stdio
    /// server's `initialize` gets all of `MCP_TIMEOUT` but the smaller of 3000 ms and a
    /// third of it ([`STDIO_INITIALIZE_BUDGET`]); before, the smaller of 5000 ms and two
    /// thirds were held back, as for HTTP servers on every build
    /// ([`HTTP_INITIALIZE_BUDGET`]).
    StdioShortDiscoverHold,
    /// A tool whose full name `mcp__<server>__<tool>` is longer than
    /// [`TOOL_NAME_MAX_CHARS`] is not sent to the model, with one `error` record in the
    /// server's log: `Tool "mcp__…" is not sent to Claude: its name has 129 characters
    /// and the API accepts at most 128` (once per name in a process). Before it, every
    /// name is sent (fixture `name-long`: 6 tools on 2.1.288 and 2.1.291, 4 from 2.1.292).
    ToolNameLimit,
}

impl Behaviour {
    pub fn fills_missing(list: List) -> Behaviour {
        match list {
            List::Tools => Behaviour::FillsMissingTools,
            List::Resources => Behaviour::FillsMissingResources,
            List::Prompts => Behaviour::FillsMissingPrompts,
        }
    }

    /// Its name in `scripts/observe-build` and `mcplogs model`.
    pub fn name(self) -> &'static str {
        match self {
            Behaviour::StdioNegotiates => "stdio-negotiates",
            Behaviour::FillsMissingTools => "fills-missing-tools",
            Behaviour::FillsMissingResources => "fills-missing-resources",
            Behaviour::FillsMissingPrompts => "fills-missing-prompts",
            Behaviour::CursorGuard => "cursor-guard",
            Behaviour::ProjectTimeoutOnlyLengthens => "project-timeout-only-lengthens",
            Behaviour::StdioShortDiscoverHold => "stdio-short-discover-hold",
            Behaviour::ToolNameLimit => "tool-name-limit",
        }
    }

    pub fn boundary(self) -> &'static Boundary {
        BOUNDARIES
            .iter()
            .find(|row| row.behaviour == self)
            .expect("every behaviour has a row")
    }

    /// The first build observed with it.
    pub fn first_build(self) -> ClaudeVersion {
        self.boundary().first_with
    }
}

/// Whether a build has a behaviour.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Has {
    Yes,
    No,
    /// Between the last build observed without it and the first observed with it.
    Uncertain(&'static Boundary),
}

impl Has {
    pub fn is_yes(self) -> bool {
        self == Has::Yes
    }

    /// `yes`, `no`, `uncertain`.
    pub fn as_str(self) -> &'static str {
        match self {
            Has::Yes => "yes",
            Has::No => "no",
            Has::Uncertain(_) => "uncertain",
        }
    }
}

/// Where a behaviour starts: both builds observed, the fixture
/// (`tests/fixtures/lifecycle/<fixture>/<build>/`) holds the runs on both.
#[derive(Debug, PartialEq, Eq)]
pub struct Boundary {
    pub behaviour: Behaviour,
    pub last_without: ClaudeVersion,
    pub first_with: ClaudeVersion,
    pub fixture: &'static str,
}

impl Boundary {
    /// Whether `build` has this row's behaviour.
    pub fn answer(&'static self, build: ClaudeVersion) -> Has {
        if build >= self.first_with {
            Has::Yes
        } else if build <= self.last_without {
            Has::No
        } else {
            Has::Uncertain(self)
        }
    }
}

/// Every per-build behaviour, newest boundary first.
pub const BOUNDARIES: [Boundary; 8] = [
    Boundary {
        behaviour: Behaviour::ProjectTimeoutOnlyLengthens,
        last_without: v(327),
        first_with: v(328),
        fixture: "timeout-project-3000",
    },
    Boundary {
        behaviour: Behaviour::FillsMissingTools,
        last_without: v(301),
        first_with: v(302),
        fixture: "tools-modern-missing",
    },
    Boundary {
        behaviour: Behaviour::FillsMissingResources,
        last_without: v(301),
        first_with: v(302),
        fixture: "rp-modern-missing",
    },
    Boundary {
        behaviour: Behaviour::FillsMissingPrompts,
        last_without: v(301),
        first_with: v(302),
        fixture: "rp-modern-missing",
    },
    Boundary {
        behaviour: Behaviour::CursorGuard,
        last_without: v(294),
        first_with: v(295),
        fixture: "cursor-repeat",
    },
    Boundary {
        behaviour: Behaviour::ToolNameLimit,
        last_without: v(291),
        first_with: v(292),
        fixture: "name-long",
    },
    Boundary {
        behaviour: Behaviour::StdioNegotiates,
        last_without: v(291),
        first_with: v(292),
        fixture: "stdio-default",
    },
    Boundary {
        behaviour: Behaviour::StdioShortDiscoverHold,
        last_without: v(287),
        first_with: v(288),
        fixture: "handshake-budget-stdio",
    },
];

/// The builds the contract answers for: the last observed without each behaviour and
/// the newest observed, oldest first (a test keeps it equal to [`contract_builds`]).
pub const CONTRACT_BUILDS: [ClaudeVersion; 6] =
    [v(287), v(291), v(294), v(301), v(327), NEWEST_KNOWN];

/// [`CONTRACT_BUILDS`] as the table gives them.
pub fn contract_builds() -> Vec<ClaudeVersion> {
    let mut out: Vec<ClaudeVersion> = BOUNDARIES
        .iter()
        .map(|row| row.last_without)
        .chain([NEWEST_KNOWN])
        .collect();
    out.sort();
    out.dedup();
    out
}

/// A list Claude Code fetches after the handshake.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum List {
    Tools,
    Resources,
    Prompts,
}

impl List {
    pub fn method(self) -> &'static str {
        match self {
            List::Tools => "tools/list",
            List::Resources => "resources/list",
            List::Prompts => "prompts/list",
        }
    }

    /// What the user loses when this list is rejected.
    pub fn what(self) -> &'static str {
        match self {
            List::Tools => "tools",
            List::Resources => "resources",
            List::Prompts => "prompts",
        }
    }
}

/// A fact the model gives every build, with the builds it was observed on (on the
/// others it is assumed).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shared<T: 'static> {
    pub value: T,
    pub observed_on: &'static [&'static str],
}

/// The builds the lifecycle corpus (`tests/e2e/lifecycle.py --generate`) ran on; the
/// facts below that cite it come from cases run on all four (a few later cases were
/// not: tests/fixtures/lifecycle/README.md).
const CORPUS: &[&str] = &["2.1.287", "2.1.288", "2.1.310", "2.1.332"];

/// `tools/list` pages followed: `tools/list still returning nextCursor after 20 pages;
/// stopping`, and the tools of the first 20 pages are kept.
pub const PAGE_CAP: Shared<usize> = Shared {
    value: 20,
    observed_on: CORPUS,
};
/// An empty-string `nextCursor` ends the walk (no record).
pub const EMPTY_CURSOR_ENDS: Shared<bool> = Shared {
    value: true,
    observed_on: CORPUS,
};
/// `MCP_TIMEOUT` when unset, in ms (`Starting connection with timeout of 30000ms`); it
/// bounds initialize and tools/list separately, and a tools/list past it gives
/// `Failed to fetch tools: Request timed out` without retries.
pub const DEFAULT_MCP_TIMEOUT_MS: Shared<u64> = Shared {
    value: 30_000,
    observed_on: CORPUS,
};
/// How long blocking `-p` waits for servers (`MCP_CONNECT_TIMEOUT_MS`) when unset, in ms;
/// the rest are `pending`.
pub const DEFAULT_CONNECT_WAIT_MS: Shared<u64> = Shared {
    value: 5_000,
    observed_on: CORPUS,
};
/// The variable that bounds the handshake and each `tools/list` request, in ms.
pub const MCP_TIMEOUT_VAR: &str = "MCP_TIMEOUT";
/// The variable that bounds how long blocking `-p` waits for servers, in ms.
pub const CONNECT_TIMEOUT_VAR: &str = "MCP_CONNECT_TIMEOUT_MS";
/// Both are read like `MCP_PROTOCOL_NEGOTIATION`: the `env` block of the highest settings
/// layer that sets them, the environment last (`slow-tools-settings`: shell 3000, user
/// settings 10000, `timeout of 10000ms`).
pub const TIMEOUTS_FROM_SETTINGS: Shared<bool> = Shared {
    value: true,
    observed_on: CORPUS,
};
/// A tool whose full name (`mcp__<server>__<tool>`, after the renaming of
/// [`model_tool_name`]) is longer than [`TOOL_NAME_MAX_CHARS`] is not sent to the model
/// from [`Behaviour::ToolNameLimit`]'s first build: only that tool is lost.
pub const TOOL_NAME_MAX_CHARS: Shared<usize> = Shared {
    value: 128,
    observed_on: &["2.1.292", "2.1.311", "2.1.332", "2.1.336"],
};

/// The newest protocol version the legacy handshake (`initialize`) proposes; a server
/// that answers it with a newer one speaks only the 2026-07-28 revision and fails there
/// with `Server's protocol version is not supported: 2026-07-28` (observed on 2.1.287,
/// 2.1.288, 2.1.300, 2.1.310, 2.1.332 and 2.1.336 under `MCP_PROTOCOL_NEGOTIATION=legacy`,
/// and on 2.1.288 for stdio with nothing set; `auto` made the same server connect).
pub const LEGACY_HANDSHAKE_NEWEST: Shared<&str> = Shared {
    value: "2025-11-25",
    observed_on: &[
        "2.1.287", "2.1.288", "2.1.300", "2.1.310", "2.1.332", "2.1.336",
    ],
};

/// Whether `answered` (a protocol version a server gave in its `initialize` answer, as
/// `YYYY-MM-DD`) is newer than every version the legacy handshake proposes.
pub fn newer_than_legacy_handshake(answered: &str) -> bool {
    let date = answered.trim_matches(|c: char| !c.is_ascii_alphanumeric());
    let is_date = date.len() == 10
        && date.bytes().enumerate().all(|(i, b)| {
            if i == 4 || i == 7 {
                b == b'-'
            } else {
                b.is_ascii_digit()
            }
        });
    is_date && date > LEGACY_HANDSHAKE_NEWEST.value
}

/// Whether Claude Code's failure record `record` says the server refused the legacy
/// handshake's version with a JSON-RPC error (`Connection failed (-32602): Unsupported
/// protocol version`): a server that speaks only the new protocol (see
/// [`LEGACY_HANDSHAKE_NEWEST`]). `probe` words its own failure as the record would.
pub fn refuses_legacy_version(record: &str) -> bool {
    static REFUSED: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(super::markers::INITIALIZE_VERSION_REFUSED_WORDING).expect("regex")
    });
    REFUSED.is_match(record)
}

/// Whether `version` sends the tool `tool` of server `server` to the model.
pub fn sends_tool_name(version: ClaudeVersion, server: &str, tool: &str) -> bool {
    !version.has(Behaviour::ToolNameLimit).is_yes()
        || model_tool_name(server, tool).chars().count() <= TOOL_NAME_MAX_CHARS.value
}

/// On a connection that negotiated 2026-07-28 over HTTP (never stdio, never the legacy
/// era), a tool whose `inputSchema` holds an invalid `x-mcp-header` declaration is left
/// out of the list and the other tools are kept; the only trace is a line on Claude
/// Code's own stderr, `[mcp-sdk] excluding tool 'hdr' from tools/list: invalid
/// x-mcp-header declaration — q: x-mcp-header 'bad header' is not a valid RFC 9110
/// token ...`, nothing in the server's log (fixtures `header-http`, kept:
/// `header-http-legacy`, `header-stdio`, `header-http-valid`). The rules are
/// `probe::validate::x_mcp_header_problem`'s.
pub const HEADER_CHECK_ON_MODERN_HTTP: Shared<bool> = Shared {
    value: true,
    observed_on: &["2.1.287", "2.1.288", "2.1.311", "2.1.332", "2.1.336"],
};

/// A timeout value as Claude Code reads it: milliseconds, a positive whole number;
/// anything else counts as unset (the 2.1.332 binary: `A value that isn't a positive
/// number counts as 30 seconds`).
pub fn timeout_ms(raw: &str) -> Option<u64> {
    raw.trim().parse::<u64>().ok().filter(|ms| *ms > 0)
}

/// The limits a build applies to one server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timeouts {
    /// `MCP_TIMEOUT`: the handshake (from before the spawn) and each `tools/list`
    /// request, each on its own.
    pub request_ms: u64,
    /// `MCP_CONNECT_TIMEOUT_MS`: how long blocking `-p` waits before it goes on with the
    /// server `pending` (its connection continues in the background).
    pub connect_wait_ms: u64,
}

impl Default for Timeouts {
    fn default() -> Self {
        Timeouts {
            request_ms: DEFAULT_MCP_TIMEOUT_MS.value,
            connect_wait_ms: DEFAULT_CONNECT_WAIT_MS.value,
        }
    }
}

/// Which `MCP_TIMEOUT` of several layers a build uses, and its value in ms. `layers`
/// are highest precedence first, the environment last, each with whether it is a
/// project layer (`.claude/settings.json`, `.claude/settings.local.json`) and its raw
/// value. A value that is set but not a positive number counts as the default (the
/// 2.1.332 binary's wording, not a run). `None`: nothing sets it, the default applies.
pub fn deciding_timeout(v: ClaudeVersion, layers: &[(bool, Option<&str>)]) -> (Option<usize>, u64) {
    let default = DEFAULT_MCP_TIMEOUT_MS.value;
    let value = |raw: &str| timeout_ms(raw).unwrap_or(default);
    let only_lengthens = v.has(Behaviour::ProjectTimeoutOnlyLengthens).is_yes();
    // what the layers other than the project's give
    let base = layers
        .iter()
        .find_map(|(project, raw)| raw.filter(|_| !project).map(value))
        .unwrap_or(default);
    for (i, (project, raw)) in layers.iter().enumerate() {
        let Some(raw) = raw else { continue };
        let ms = value(raw);
        if *project && only_lengthens && ms <= base {
            continue;
        }
        return (Some(i), ms);
    }
    (None, default)
}

/// Which `MCP_CONNECT_TIMEOUT_MS` of several layers is used (the first that sets it;
/// the project rule of [`deciding_timeout`] is `MCP_TIMEOUT`'s only), and its value.
pub fn deciding_connect_wait(layers: &[(bool, Option<&str>)]) -> (Option<usize>, u64) {
    let default = DEFAULT_CONNECT_WAIT_MS.value;
    layers
        .iter()
        .position(|(_, raw)| raw.is_some())
        .map_or((None, default), |i| {
            (Some(i), layers[i].1.and_then(timeout_ms).unwrap_or(default))
        })
}

/// An initialize result without a `tools` capability: `tools/list` is never sent.
pub const TOOLS_NEED_CAPABILITY: Shared<bool> = Shared {
    value: true,
    observed_on: CORPUS,
};
/// HTTP servers negotiate 2026-07-28 with nothing set; SSE servers never do.
pub const HTTP_NEGOTIATES: Shared<bool> = Shared {
    value: true,
    observed_on: &["2.1.280", "2.1.288", "2.1.310", "2.1.332"],
};
/// On the negotiating path (`server/discover` first, answered with an error such as
/// -32601, then the classic `initialize`), `initialize` does not get all of
/// `MCP_TIMEOUT`: part of it stays held for `server/discover` however fast that was
/// answered, and an `initialize` answered after the rest fails the connection
/// (`Connection failed after 7117ms, ... (CONNECT_TIMEOUT): Request timed out` with
/// `timeout of 10000ms`; HTTP: `HTTP Connection failed after 5040ms: Request timed out
/// (code: REQUEST_TIMEOUT, ...)`), while under `MCP_PROTOCOL_NEGOTIATION=legacy` the same
/// server connects. The part held is the smaller of `hold_cap_ms` and `hold_thirds`/3
/// of `MCP_TIMEOUT`, measured with initialize answered at several delays.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InitializeBudget {
    pub hold_cap_ms: u64,
    pub hold_thirds: u64,
}

impl InitializeBudget {
    /// What `initialize` gets of `mcp_timeout_ms` on the negotiating path.
    pub fn initialize_ms(&self, mcp_timeout_ms: u64) -> u64 {
        let held = self
            .hold_cap_ms
            .min(mcp_timeout_ms.saturating_mul(self.hold_thirds) / 3);
        mcp_timeout_ms.saturating_sub(held)
    }
}

/// stdio from [`Behaviour::StdioShortDiscoverHold`] (2.1.332: MCP_TIMEOUT 5000 -> about
/// 3350 ms, 10000 -> 7000, 20000 -> 17000).
pub const STDIO_INITIALIZE_BUDGET: Shared<InitializeBudget> = Shared {
    value: InitializeBudget {
        hold_cap_ms: 3_000,
        hold_thirds: 1,
    },
    observed_on: &["2.1.332"],
};
/// HTTP on every observed build (fixture `handshake-budget-http`: initialize at 8.3 s
/// of 10000 ms times out on 2.1.280-2.1.336), and stdio before
/// [`Behaviour::StdioShortDiscoverHold`] (2.1.280 stdio: 6000 -> 2000 ms, 10000 -> 5000,
/// 20000 -> 15000; 2.1.287 stdio, 10000: an `initialize` answered after 5 s
/// (`slow-init-10s`) or 6 s (`handshake-budget-stdio`) fails after about 5100 ms;
/// 2.1.280 and 2.1.332 HTTP the same).
pub const HTTP_INITIALIZE_BUDGET: Shared<InitializeBudget> = Shared {
    value: InitializeBudget {
        hold_cap_ms: 5_000,
        hold_thirds: 2,
    },
    observed_on: &["2.1.280", "2.1.287", "2.1.332"],
};

/// What `initialize` gets of `mcp_timeout_ms` on the negotiating path (the classic
/// handshake after a `server/discover` that failed) in `build`, for an HTTP server or a
/// stdio one.
pub fn initialize_budget_ms(build: ClaudeVersion, http: bool, mcp_timeout_ms: u64) -> u64 {
    let b = if !http && build.has(Behaviour::StdioShortDiscoverHold).is_yes() {
        STDIO_INITIALIZE_BUDGET
    } else {
        HTTP_INITIALIZE_BUDGET
    };
    b.value.initialize_ms(mcp_timeout_ms)
}

pub const SSE_NEGOTIATES: Shared<bool> = Shared {
    value: false,
    observed_on: &["2.1.288", "2.1.332"],
};
/// `notifications/tools/list_changed` is acted on (`Received tools/list_changed
/// notification, refreshing tools`, then `tools/list` again) only when the server
/// declared `tools.listChanged`; if the refetch fails, the previous tools stay in use.
pub const LIST_CHANGED_REFETCH: Shared<bool> = Shared {
    value: true,
    observed_on: CORPUS,
};
/// A response whose id Claude Code has not used yet when it arrives (written right
/// after the `initialize` answer, `frame-early`) is dropped without a record; the real
/// answer is used.
pub const EARLY_RESPONSE_DROPPED: Shared<bool> = Shared {
    value: true,
    observed_on: CORPUS,
};
/// A response written before the server read the request it answers, arriving once
/// Claude Code has sent that request (`frame-early-late`: id 1 written on
/// `notifications/initialized`, before the server read `tools/list` id 1), is taken as
/// the answer; the real answer after it is ignored; nothing is logged.
pub const FIRST_ANSWER_TAKEN: Shared<bool> = Shared {
    value: true,
    observed_on: CORPUS,
};
/// The order of the lists after the handshake (the stub's `--trace`): modern
/// `prompts/list`, `resources/list`, `tools/list`; legacy `tools/list`, `prompts/list`,
/// `resources/list`; each only when its capability is declared. 2.1.288 retries a
/// rejected `prompts/list`/`resources/list` three times (250, 500, 1000 ms).
pub const LIST_ORDER: Shared<&str> = Shared {
    value: "modern: prompts, resources, tools; legacy: tools, prompts, resources",
    observed_on: &["2.1.288", "2.1.332"],
};
/// The variable that picks Claude Code's MCP client (`v1`, `v2`; anything else is
/// ignored with a warning in the debug log), read from the settings layers' `env` and
/// the environment as `MCP_PROTOCOL_NEGOTIATION` is (observed: `~/.claude/settings.json`'s
/// `env` alone sets it on 2.1.288, 2.1.310 and 2.1.332, fixture `sdk-v1-settings`).
pub const SDK_GENERATION_VAR: &str = "MCP_SDK_GENERATION";

/// What `MCP_SDK_GENERATION=v1` does on a build.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SdkV1 {
    /// The older MCP client runs (`mcp runtime arm: v1 (source: env)` in the debug log):
    /// the classic handshake only, even under `MCP_PROTOCOL_NEGOTIATION=auto`, and a
    /// `Connection established with capabilities` record without `protocolEra` or
    /// `negotiatedProtocolVersion`; a 2026-07-28 server's tools load as under legacy.
    OlderClient,
    /// The build has only the v2 client; `v1` forces the legacy handshake, over
    /// `MCP_PROTOCOL_NEGOTIATION=auto` too (`mcp runtime arm: v2 (source:
    /// env_v1_compat)`, a warning `The v1 MCP client was selected, but this build has
    /// only the v2 client...`; `"protocolEra":"legacy"` in the record). It also turns
    /// off an OAuth issuer check (read in the 2.1.332 code, not run).
    ForcedLegacy,
}

/// `MCP_SDK_GENERATION=v1` per build, as a table: the older client up to
/// `older_client_through`, the forced legacy handshake from `forced_legacy_from`
/// (fixtures `sdk-v1-modern`, `sdk-v1-missing`, `sdk-v1-settings`; the boundary found
/// in the code of 2.1.321, 2.1.322, 2.1.323, 2.1.324 and 2.1.326, then run on 2.1.322
/// and 2.1.323). Either way the
/// server gets the classic handshake. Unset, the builds with two clients pick by the
/// cached feature flag `tengu_brindle_causeway` (true or absent: v2), read in the 2.1.288
/// and 2.1.310 code; offline runs read no flags and ran v2.
pub struct SdkV1Table {
    pub older_client_through: ClaudeVersion,
    pub forced_legacy_from: ClaudeVersion,
    pub observed_on: &'static [&'static str],
}

pub const SDK_V1: SdkV1Table = SdkV1Table {
    older_client_through: v(322),
    forced_legacy_from: v(323),
    observed_on: &["2.1.288", "2.1.310", "2.1.322", "2.1.323", "2.1.332"],
};

impl SdkV1Table {
    /// What `v1` does on `build`; `None` between the two rows (not observed).
    pub fn on(&self, build: ClaudeVersion) -> Option<SdkV1> {
        if build <= self.older_client_through {
            Some(SdkV1::OlderClient)
        } else if build >= self.forced_legacy_from {
            Some(SdkV1::ForcedLegacy)
        } else {
            None
        }
    }
}

/// The feature flag that picks the MCP client when `MCP_SDK_GENERATION` is unset, on the
/// builds with two clients (those where [`SDK_V1`] runs the older client): cached
/// `false` gives v1, `true` or absent v2 (read in the 2.1.288 and 2.1.310 code; offline
/// runs read no flags and ran v2). Claude Code caches it in `cachedGrowthBookFeatures`
/// of `~/.claude.json`.
pub const CLIENT_FLAG: &str = "tengu_brindle_causeway";

/// `MCP_SDK_GENERATION=v1` means the classic handshake on every observed build, whatever
/// `MCP_PROTOCOL_NEGOTIATION` says ([`SDK_V1`]).
pub const SDK_V1_MEANS_LEGACY: Shared<bool> = Shared {
    value: true,
    observed_on: &["2.1.288", "2.1.310", "2.1.332"],
};

/// Tool names keep `[A-Za-z0-9_-]`; every other character becomes `_`.
pub const NAME_CHARSET: Shared<&str> = Shared {
    value: "A-Za-z0-9_-",
    observed_on: CORPUS,
};

/// What Claude Code does with one tool defect.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Treatment {
    /// The whole `tools/list` result is rejected (three retries, then `Failed to fetch
    /// tools: Invalid result for tools/list: tools.N....`): zero tools.
    DropsList,
    /// Loaded as it is.
    Accepted,
    /// Loaded under another name.
    Renamed,
    /// Loaded once, however often it is listed.
    Deduplicated,
}

/// A defect of one tool in a `tools/list` result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolDefect {
    NotAnObject,
    MissingName,
    NameNotAString,
    MissingInputSchema,
    /// `inputSchema.type` absent (a top-level `anyOf`, say) or not `"object"`.
    InputSchemaTypeNotObject,
    /// `title`/`description` not a string, `properties` not an object...
    FieldWrongType,
    /// `outputSchema.type` not `"object"`.
    OutputSchemaTypeNotObject,
    /// `$ref`/`$defs` inside the schema.
    SchemaRef,
    /// A schema of about 1 MB.
    HugeSchema,
    /// Hundreds of tools on a page (500 observed).
    ManyTools,
    /// A character outside [`NAME_CHARSET`].
    NameCharacters,
    /// `""`: the tool becomes `mcp__<server>__`.
    EmptyName,
    /// A name listed twice.
    DuplicateName,
}

/// Each defect's treatment, and the builds it was observed on.
pub const TOOL_DEFECTS: [(ToolDefect, Treatment, &[&str]); 13] = [
    (
        ToolDefect::NotAnObject,
        Treatment::DropsList,
        &["2.1.288", "2.1.332"],
    ),
    (ToolDefect::MissingName, Treatment::DropsList, CORPUS),
    (
        ToolDefect::NameNotAString,
        Treatment::DropsList,
        &["2.1.288", "2.1.332"],
    ),
    (ToolDefect::MissingInputSchema, Treatment::DropsList, CORPUS),
    (
        ToolDefect::InputSchemaTypeNotObject,
        Treatment::DropsList,
        CORPUS,
    ),
    (
        ToolDefect::FieldWrongType,
        Treatment::DropsList,
        &["2.1.288", "2.1.332"],
    ),
    (
        ToolDefect::OutputSchemaTypeNotObject,
        Treatment::Accepted,
        CORPUS,
    ),
    (ToolDefect::SchemaRef, Treatment::Accepted, CORPUS),
    (ToolDefect::HugeSchema, Treatment::Accepted, CORPUS),
    (ToolDefect::ManyTools, Treatment::Accepted, CORPUS),
    (ToolDefect::NameCharacters, Treatment::Renamed, CORPUS),
    (ToolDefect::EmptyName, Treatment::Renamed, CORPUS),
    (ToolDefect::DuplicateName, Treatment::Deduplicated, CORPUS),
];

/// A fact the model gives every build, as `mcplogs model` lists it: its name, its value
/// and the builds it was observed on (on the others it is assumed).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fact {
    pub name: String,
    pub value: String,
    pub observed_on: &'static [&'static str],
    /// The behaviour from whose first build it holds; `None`: every build.
    pub applies_with: Option<Behaviour>,
}

impl Fact {
    /// Whether it holds on `build`: on every build, or as `build` has its behaviour.
    pub fn holds_on(&self, build: ClaudeVersion) -> Has {
        self.applies_with.map_or(Has::Yes, |b| build.has(b))
    }
}

/// Every [`Shared`] fact and every tool defect's treatment (a test keeps the list whole).
pub fn facts() -> Vec<Fact> {
    fn fact<T: fmt::Debug>(name: &str, s: &Shared<T>) -> Fact {
        Fact {
            name: name.to_string(),
            value: format!("{:?}", s.value).trim_matches('"').to_string(),
            observed_on: s.observed_on,
            applies_with: None,
        }
    }
    fn budget(name: &str, s: &Shared<InitializeBudget>) -> Fact {
        let b = &s.value;
        Fact {
            name: name.to_string(),
            value: format!(
                "MCP_TIMEOUT less the smaller of {} ms and {}/3 of it",
                b.hold_cap_ms, b.hold_thirds
            ),
            observed_on: s.observed_on,
            applies_with: None,
        }
    }
    let with = |mut f: Fact, b: Behaviour| {
        f.applies_with = Some(b);
        f
    };
    let mut out = vec![
        fact("page-cap", &PAGE_CAP),
        fact("empty-cursor-ends", &EMPTY_CURSOR_ENDS),
        fact("default-mcp-timeout-ms", &DEFAULT_MCP_TIMEOUT_MS),
        fact("default-connect-wait-ms", &DEFAULT_CONNECT_WAIT_MS),
        fact("timeouts-from-settings", &TIMEOUTS_FROM_SETTINGS),
        with(
            fact("tool-name-max-chars", &TOOL_NAME_MAX_CHARS),
            Behaviour::ToolNameLimit,
        ),
        fact("header-check-on-modern-http", &HEADER_CHECK_ON_MODERN_HTTP),
        fact("tools-need-capability", &TOOLS_NEED_CAPABILITY),
        fact("http-negotiates", &HTTP_NEGOTIATES),
        fact("legacy-handshake-newest", &LEGACY_HANDSHAKE_NEWEST),
        with(
            budget("stdio-initialize-budget", &STDIO_INITIALIZE_BUDGET),
            Behaviour::StdioShortDiscoverHold,
        ),
        budget("http-initialize-budget", &HTTP_INITIALIZE_BUDGET),
        fact("sse-negotiates", &SSE_NEGOTIATES),
        fact("list-changed-refetch", &LIST_CHANGED_REFETCH),
        fact("early-response-dropped", &EARLY_RESPONSE_DROPPED),
        fact("first-answer-taken", &FIRST_ANSWER_TAKEN),
        fact("list-order", &LIST_ORDER),
        fact("name-charset", &NAME_CHARSET),
        fact("sdk-v1-means-legacy", &SDK_V1_MEANS_LEGACY),
    ];
    for (defect, treatment, observed_on) in TOOL_DEFECTS {
        out.push(Fact {
            name: format!("tool-defect:{}", kebab(&format!("{defect:?}"))),
            value: kebab(&format!("{treatment:?}")),
            observed_on,
            applies_with: None,
        });
    }
    out
}

/// `DropsList` -> `drops-list`.
fn kebab(name: &str) -> String {
    let mut out = String::new();
    for (i, c) in name.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 {
                out.push('-');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

impl ToolDefect {
    pub fn treatment(self) -> Treatment {
        TOOL_DEFECTS
            .iter()
            .find(|(d, _, _)| *d == self)
            .map(|(_, t, _)| *t)
            .expect("every defect has a row")
    }

    pub fn observed_on(self) -> &'static [&'static str] {
        TOOL_DEFECTS
            .iter()
            .find(|(d, _, _)| *d == self)
            .map(|(_, _, o)| *o)
            .expect("every defect has a row")
    }
}

/// The name the model sees for `tool` of `server`: `mcp__<server>__<tool>`, every
/// character outside [`NAME_CHARSET`] replaced by `_` (observed: `a b` -> `a_b`, `café`
/// -> `caf_`, `""` -> `mcp__<server>__`).
pub fn model_tool_name(server: &str, tool: &str) -> String {
    format!("mcp__{}__{}", clean_name(server), clean_name(tool))
}

/// The `<tool>` part of [`model_tool_name`].
pub fn model_tool_part(tool: &str) -> String {
    clean_name(tool)
}

fn clean_name(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// Whether Claude Code would show `tool` under a name other than its own (empty, or a
/// character outside [`NAME_CHARSET`]).
pub fn renames(tool: &str) -> Option<ToolDefect> {
    if tool.is_empty() {
        Some(ToolDefect::EmptyName)
    } else if clean_name(tool) != tool {
        Some(ToolDefect::NameCharacters)
    } else {
        None
    }
}

/// Whether a `Connection established with capabilities: {...}` object says Claude Code
/// will never list tools ([`TOOLS_NEED_CAPABILITY`]): `"hasTools":false`, and no prompts
/// or resources that the server could be meant for instead.
pub fn declares_no_tools(capabilities: &serde_json::Value) -> bool {
    let flag = |k: &str| capabilities.get(k).and_then(serde_json::Value::as_bool);
    TOOLS_NEED_CAPABILITY.value
        && flag("hasTools") == Some(false)
        && flag("hasPrompts") != Some(true)
        && flag("hasResources") != Some(true)
}

/// The `MCP_TIMEOUT` value to suggest when a request took longer than `current_ms`:
/// twice the current limit, at least 60 s.
pub fn suggested_mcp_timeout_ms(current_ms: u64) -> u64 {
    current_ms.saturating_mul(2).max(60_000)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_shared_fact_and_defect_is_listed_once_with_builds_it_ran_on() {
        let source = include_str!("lifecycle.rs");
        let consts = source
            .lines()
            .filter(|l| l.starts_with("pub const ") && l.contains(": Shared<"))
            .count();
        let f = facts();
        assert_eq!(f.len(), consts + TOOL_DEFECTS.len());
        let mut names: Vec<&str> = f.iter().map(|x| x.name.as_str()).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), f.len(), "a name twice");
        for x in &f {
            assert!(!x.observed_on.is_empty(), "{}", x.name);
            for b in x.observed_on {
                let v = ClaudeVersion::parse(b).expect(b);
                assert!(
                    OBSERVED.contains(v),
                    "{}: {b} is not an observed build",
                    x.name
                );
                // a fact of a behaviour was observed on builds that have it
                assert!(x.holds_on(v).is_yes(), "{}: does not hold on {b}", x.name);
            }
        }
        let cap = f.iter().find(|x| x.name == "page-cap").unwrap();
        assert_eq!(cap.value, "20");
        let d = f
            .iter()
            .find(|x| x.name == "tool-defect:missing-input-schema")
            .unwrap();
        assert_eq!(d.value, "drops-list");
        let b = f
            .iter()
            .find(|x| x.name == "stdio-initialize-budget")
            .unwrap();
        assert_eq!(
            b.value,
            "MCP_TIMEOUT less the smaller of 3000 ms and 1/3 of it"
        );
    }

    #[test]
    fn versions_parse() {
        assert_eq!(
            ClaudeVersion::parse("2.1.288 (Claude Code)"),
            Some(ClaudeVersion(2, 1, 288))
        );
        assert_eq!(ClaudeVersion::parse("v2.1.3"), Some(ClaudeVersion(2, 1, 3)));
        assert_eq!(ClaudeVersion::parse("2.1"), None);
        assert_eq!(ClaudeVersion::parse("2.1.x"), None);
    }

    #[test]
    fn each_behaviour_starts_at_its_bisected_build() {
        for row in &BOUNDARIES {
            let b = row.behaviour;
            assert!(row.last_without < row.first_with, "{}", b.name());
            assert!(OBSERVED.contains(row.last_without), "{}", b.name());
            assert!(OBSERVED.contains(row.first_with), "{}", b.name());
            // bisected: no published build lies between the two
            assert!(
                OBSERVED
                    .builds()
                    .iter()
                    .all(|v| *v <= row.last_without || *v >= row.first_with),
                "{}",
                b.name()
            );
            assert_eq!(row.last_without.has(b), Has::No);
            assert_eq!(row.first_with.has(b), Has::Yes);
            assert_eq!(NEWEST_KNOWN.has(b), Has::Yes);
            assert_eq!(BOUNDARIES.iter().filter(|r| r.behaviour == b).count(), 1);
        }
        // newest first
        assert!(
            BOUNDARIES
                .windows(2)
                .all(|w| w[0].first_with >= w[1].first_with)
        );
        assert!(!v(301).fills_missing_fields(List::Resources));
        assert!(v(302).fills_missing_fields(List::Prompts));
        assert!(v(295).stops_at_repeated_cursor());
        assert!(!v(294).stops_at_repeated_cursor());
        assert!(v(292).stdio_defaults_to_modern());
        assert!(!v(291).stdio_defaults_to_modern());
        // 2.1.332 stops at 20 pages too (observed), not 250
        assert_eq!(NEWEST_KNOWN.page_cap(), 20);
        assert_eq!(CONTRACT_BUILDS.to_vec(), contract_builds());
    }

    #[test]
    fn a_build_in_a_gap_is_uncertain_and_newer_builds_extrapolate() {
        let gap = Boundary {
            behaviour: Behaviour::CursorGuard,
            last_without: v(294),
            first_with: v(299),
            fixture: "cursor-repeat",
        };
        // the table's rows are adjacent published builds; 2.1.297 and 2.1.298 were
        // never published, so a gap row of the same shape shows what a build inside
        // one gets
        assert!(!OBSERVED.contains(v(297)));
        let row: &'static Boundary = Box::leak(Box::new(gap));
        assert_eq!(row.answer(v(297)), Has::Uncertain(row));
        assert_eq!(row.answer(v(294)), Has::No);
        assert_eq!(row.answer(v(299)), Has::Yes);
        assert_eq!(Has::Uncertain(row).as_str(), "uncertain");
        assert!(!Has::Uncertain(row).is_yes());
        // the real table: 2.1.297 lies in no gap (every neighbour was observed)
        assert!(v(297).uncertain().is_empty());
        assert!(!v(297).is_known());
        assert!(v(297).model_note().unwrap().contains("never published"));
        assert_eq!(v(300).model_note(), None);
        let newer = v(340);
        assert_eq!(newer.extrapolated_from(), Some(NEWEST_KNOWN));
        let note = newer.model_note().unwrap();
        assert!(
            note.contains("2.1.340") && note.contains(&NEWEST_KNOWN.to_string()),
            "{note}"
        );
        assert!(v(100).model_note().unwrap().contains("older"));
        assert_eq!(v(336).extrapolated_from(), None);
        assert_eq!(OBSERVED.builds().len(), 53);
    }

    #[test]
    fn initialize_gets_what_is_left_after_the_discover_hold() {
        // the measured points (2.1.332; 2.1.280)
        let new = v(332);
        assert_eq!(initialize_budget_ms(new, false, 10_000), 7_000);
        assert_eq!(initialize_budget_ms(new, false, 20_000), 17_000);
        assert_eq!(initialize_budget_ms(new, false, 5_000), 3_334);
        assert_eq!(initialize_budget_ms(new, true, 10_000), 5_000);
        assert_eq!(initialize_budget_ms(new, true, 20_000), 15_000);
        assert_eq!(initialize_budget_ms(new, true, 6_000), 2_000);
        assert_eq!(initialize_budget_ms(new, true, 0), 0);
        let old = v(280);
        assert_eq!(initialize_budget_ms(old, false, 6_000), 2_000);
        assert_eq!(initialize_budget_ms(old, false, 10_000), 5_000);
        assert_eq!(initialize_budget_ms(old, false, 20_000), 15_000);
        assert_eq!(initialize_budget_ms(v(287), false, 10_000), 5_000);
        assert_eq!(initialize_budget_ms(v(288), false, 10_000), 7_000);
    }

    #[test]
    fn names_are_rewritten_as_observed() {
        assert_eq!(model_tool_name("name-space", "a b"), "mcp__name-space__a_b");
        assert_eq!(
            model_tool_name("name-accent", "café"),
            "mcp__name-accent__caf_"
        );
        assert_eq!(model_tool_name("name-empty", ""), "mcp__name-empty__");
        assert_eq!(renames("ok_tool-2"), None);
        assert_eq!(renames(""), Some(ToolDefect::EmptyName));
        assert_eq!(renames("a.b"), Some(ToolDefect::NameCharacters));
    }

    #[test]
    fn timeouts_are_read_as_each_build_reads_them() {
        let old = ClaudeVersion(2, 1, 310);
        let new = ClaudeVersion(2, 1, 332);
        // (project layer?, value): project 3000 alone (fixture timeout-project-3000)
        let alone = [(true, Some("3000")), (false, None)];
        assert_eq!(deciding_timeout(old, &alone), (Some(0), 3000));
        assert_eq!(deciding_timeout(new, &alone), (None, 30_000));
        // project 10000 over a shell 3000: longer, so it counts everywhere
        // (timeout-project-over-shell)
        let longer = [(true, Some("10000")), (false, Some("3000"))];
        assert_eq!(deciding_timeout(old, &longer), (Some(0), 10_000));
        assert_eq!(deciding_timeout(new, &longer), (Some(0), 10_000));
        // user settings over the shell
        let user = [(true, None), (false, Some("10000")), (false, Some("3000"))];
        assert_eq!(deciding_timeout(new, &user), (Some(1), 10_000));
        assert_eq!(
            deciding_timeout(new, &[(false, Some("abc"))]),
            (Some(0), 30_000)
        );
        assert_eq!(deciding_timeout(new, &[]), (None, 30_000));
        assert_eq!(timeout_ms(" 60000 "), Some(60_000));
        assert_eq!(timeout_ms("0"), None);
    }

    #[test]
    fn every_defect_has_one_row() {
        for (d, t, _) in TOOL_DEFECTS {
            assert_eq!(d.treatment(), t);
            assert_eq!(TOOL_DEFECTS.iter().filter(|(x, _, _)| *x == d).count(), 1);
        }
        assert_eq!(suggested_mcp_timeout_ms(3_000), 60_000);
        assert_eq!(suggested_mcp_timeout_ms(40_000), 80_000);
    }
}
