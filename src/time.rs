//! The little date arithmetic mcplogs needs (`--since`, file-name start times), in UTC.
//! Claude Code writes every timestamp as ISO-8601 UTC (`2026-11-29T11:50:31.063Z`), which
//! also sorts as text; this converts only at the edges.

use std::sync::OnceLock;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// Seconds since the Unix epoch.
pub type EpochSeconds = i64;

/// The environment variable that pins mcplogs' "now": an ISO-8601 UTC time
/// (`2026-11-29T13:00:00Z`) or seconds since the epoch. Everything time-relative
/// (`--since`, `--older-than`, prune's in-use age, "25 h ago") reads the clock through
/// [`now`] and [`now_system`], so tests and reproducible reports can set it; unset or
/// empty, it is the system clock.
pub const NOW_VAR: &str = "MCPLOGS_NOW";

/// Why [`NOW_VAR`] could not be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "{NOW_VAR}={value:?} is neither an ISO-8601 UTC time (2026-11-29T13:00:00Z) nor seconds since 1970"
)]
pub struct ClockError {
    pub value: String,
}

/// The pinned time, read from the environment once per process.
fn pinned() -> &'static Result<Option<EpochSeconds>, ClockError> {
    static PINNED: OnceLock<Result<Option<EpochSeconds>, ClockError>> = OnceLock::new();
    PINNED.get_or_init(|| {
        let Some(raw) = std::env::var_os(NOW_VAR).filter(|v| !v.is_empty()) else {
            return Ok(None);
        };
        let value = raw.to_string_lossy().into_owned();
        parse_clock(&value).map(Some).ok_or(ClockError { value })
    })
}

fn parse_clock(value: &str) -> Option<EpochSeconds> {
    let v = value.trim();
    v.parse::<i64>().ok().or_else(|| parse_iso(v))
}

/// Whether [`NOW_VAR`] holds something usable; the binary checks this before anything
/// reads the clock (an unusable value falls back to the system clock).
pub fn check_clock() -> Result<(), ClockError> {
    pinned().as_ref().map(|_| ()).map_err(Clone::clone)
}

/// Now, in seconds since the epoch: [`NOW_VAR`] when set, else the system clock.
pub fn now() -> EpochSeconds {
    match pinned() {
        Ok(Some(t)) => *t,
        _ => system_time_secs(wall_clock()),
    }
}

/// [`now`] as a `SystemTime`, for comparing with file modification times.
pub fn now_system() -> SystemTime {
    match pinned() {
        Ok(Some(t)) if *t >= 0 => UNIX_EPOCH + Duration::from_secs(*t as u64),
        Ok(Some(t)) => UNIX_EPOCH - Duration::from_secs(t.unsigned_abs()),
        _ => wall_clock(),
    }
}

/// The system clock. The one caller of `SystemTime::now` that decides anything a user
/// sees (clippy.toml forbids the others); file-cache bookkeeping that must compare with
/// the file system's own clock uses [`file_system_clock`].
#[allow(clippy::disallowed_methods)]
fn wall_clock() -> SystemTime {
    SystemTime::now()
}

/// The real time, never pinned: for comparing with modification times the file system
/// is writing right now (the summary cache's "was the file written while I read it"),
/// where a pinned clock would be wrong.
#[allow(clippy::disallowed_methods)]
pub fn file_system_clock() -> SystemTime {
    SystemTime::now()
}

pub fn system_time_secs(t: SystemTime) -> EpochSeconds {
    match t.duration_since(UNIX_EPOCH) {
        Ok(d) => d.as_secs() as i64,
        Err(e) => -(e.duration().as_secs() as i64),
    }
}

/// Days since 1970-01-01 of a civil date (proleptic Gregorian).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = if y >= 0 { y } else { y - 399 } / 400;
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = if z >= 0 { z } else { z - 146_096 } / 146_097;
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

/// Parses `YYYY-MM-DD`, `YYYY-MM-DDTHH:MM`, `YYYY-MM-DDTHH:MM:SS[.fff][Z]` (UTC).
pub fn parse_iso(s: &str) -> Option<EpochSeconds> {
    parse_claude_code_iso(s).unwrap_or_else(|| parse_iso_any(s))
}

/// [`parse_iso`] of any of its forms.
/// Whether `y-m-d` is a day of the (proleptic Gregorian) calendar: `2026-11-31` and
/// `2026-02-29` are not (they were read as the next month's first days).
fn is_date(y: i64, m: i64, d: i64) -> bool {
    let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    let days = match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    (1..=days).contains(&d)
}

fn parse_iso_any(s: &str) -> Option<EpochSeconds> {
    let s = s.trim().trim_end_matches('Z');
    let (date, time) = match s.split_once(['T', ' ']) {
        Some((d, t)) => (d, Some(t)),
        None => (s, None),
    };
    let mut dp = date.split('-');
    let y: i64 = dp.next()?.parse().ok()?;
    let m: i64 = dp.next()?.parse().ok()?;
    let d: i64 = dp.next()?.parse().ok()?;
    if dp.next().is_some() || !is_date(y, m, d) {
        return None;
    }
    let mut secs = 0;
    if let Some(t) = time {
        let t = t.split('.').next()?;
        let mut tp = t.split(':');
        let h: i64 = tp.next()?.parse().ok()?;
        let min: i64 = tp.next().unwrap_or("0").parse().ok()?;
        let sec: i64 = tp.next().unwrap_or("0").parse().ok()?;
        if h > 23 || min > 59 || sec > 60 {
            return None;
        }
        secs = h * 3600 + min * 60 + sec;
    }
    Some(days_from_civil(y, m, d) * 86_400 + secs)
}

/// [`parse_iso`] of the form Claude Code writes, `YYYY-MM-DDTHH:MM:SS` then nothing, `Z`
/// or `.` and anything: read by position, as the general parse of a scan's hundreds of
/// thousands of timestamps was most of its time table. `None` for any other form (which
/// the general parse reads); `Some` answers as the general parse does.
fn parse_claude_code_iso(s: &str) -> Option<Option<EpochSeconds>> {
    let b = s.as_bytes();
    let (head, rest) = b.split_at_checked(19)?;
    if !(rest.is_empty() || rest == b"Z" || rest[0] == b'.') {
        return None;
    }
    let mut n = [0i64; 6];
    for (k, part) in head.split(|&c| matches!(c, b'-' | b'T' | b':')).enumerate() {
        if k >= n.len() || part.len() != if k == 0 { 4 } else { 2 } {
            return None;
        }
        for &c in part {
            if !c.is_ascii_digit() {
                return None;
            }
            n[k] = n[k] * 10 + i64::from(c - b'0');
        }
    }
    if [head[4], head[7], head[10], head[13], head[16]] != *b"--T::" {
        return None;
    }
    let [y, m, d, h, min, sec] = n;
    if !is_date(y, m, d) || h > 23 || min > 59 || sec > 60 {
        return Some(None);
    }
    Some(Some(
        days_from_civil(y, m, d) * 86_400 + h * 3600 + min * 60 + sec,
    ))
}

/// `2026-11-29T11:50:31.000Z`: the form Claude Code's timestamps have, so the result
/// compares with them as text.
pub fn format_iso(t: EpochSeconds) -> String {
    let days = t.div_euclid(86_400);
    let rem = t.rem_euclid(86_400);
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.000Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// An ISO timestamp (`2026-11-29T11:50:31.063Z`) in the local time zone, to the minute,
/// with the zone: `2026-11-29 12:50 CET`. Unparseable input is returned as it is.
pub fn local_time(iso: &str) -> String {
    // Looked up once a run (a scan shows a time per server: the lookup was most of it).
    static TZ: std::sync::LazyLock<jiff::tz::TimeZone> = std::sync::LazyLock::new(|| {
        jiff::tz::TimeZone::try_system().unwrap_or(jiff::tz::TimeZone::UTC)
    });
    local_time_in(iso, &TZ)
}

/// [`local_time`] to the second (`2026-11-29 12:44:12 UTC`).
pub fn local_time_to_second(iso: &str) -> String {
    let shown = local_time(iso);
    match parse_iso(iso) {
        // `YYYY-MM-DD HH:MM ...`: the seconds after the minutes
        Some(secs) if shown.len() > 16 && shown.as_bytes()[13] == b':' => {
            format!(
                "{}:{:02}{}",
                &shown[..16],
                secs.rem_euclid(60),
                &shown[16..]
            )
        }
        _ => shown,
    }
}

/// A `--since` cut-off as every line of a screen shows it: to the minute when it is on
/// one, else to the second (`--since 10m` at 12:54:12 is 12:44:12, not 12:44).
pub fn cut_off(iso: &str) -> String {
    match parse_iso(iso) {
        Some(secs) if secs.rem_euclid(60) != 0 => local_time_to_second(iso),
        _ => local_time(iso),
    }
}

/// A cut-off ([`cut_off`]) and a last session's time, the last to the second when it
/// falls in the cut-off's minute: "no session since 12:43; the last at 12:43" read as a
/// contradiction (helper-81 #9).
pub fn local_times_apart(cut: &str, last: &str) -> (String, String) {
    let same_minute = local_time(cut) == local_time(last);
    (
        cut_off(cut),
        if same_minute {
            local_time_to_second(last)
        } else {
            local_time(last)
        },
    )
}

/// [`local_time`] in the zone `tz`.
fn local_time_in(iso: &str, tz: &jiff::tz::TimeZone) -> String {
    let Some(secs) = parse_iso(iso) else {
        return iso.to_string();
    };
    let Ok(ts) = jiff::Timestamp::from_second(secs) else {
        return iso.to_string();
    };
    // Written directly from the zone's offset and abbreviation at that instant, as
    // `strftime` writes them (a `strftime` of each part was most of a scan's table for
    // 100,000 servers); a zone shown by its offset, or a year of other than four
    // digits, takes `strftime`.
    let info = tz.to_offset_info(ts);
    // `%Z` writes the abbreviation in upper case.
    let zone = info.abbreviation().to_ascii_uppercase();
    if !zone.is_empty() && !zone.starts_with(['+', '-']) {
        let t = info.offset().to_datetime(ts);
        if (0..=9999).contains(&t.year()) {
            // Digit by digit: `format!` of the five numbers was half of this function.
            let mut out = String::with_capacity(17 + zone.len());
            push_digits(&mut out, i64::from(t.year()), 4);
            let parts = [t.month(), t.day(), t.hour(), t.minute()].map(i64::from);
            for (sep, v) in ['-', '-', ' ', ':'].into_iter().zip(parts) {
                out.push(sep);
                push_digits(&mut out, v, 2);
            }
            out.push(' ');
            out.push_str(&zone);
            return out;
        }
    }
    local_time_strftime(ts, tz)
}

/// Writes `v` (not negative) in `width` decimal digits, zero-padded on the left.
fn push_digits(out: &mut String, v: i64, width: u32) {
    for k in (0..width).rev() {
        let d = (v / 10_i64.pow(k)) % 10;
        out.push(char::from(b'0' + d as u8));
    }
}

/// [`local_time_in`] by `strftime`.
fn local_time_strftime(ts: jiff::Timestamp, tz: &jiff::tz::TimeZone) -> String {
    let zoned = ts.to_zoned(tz.clone());
    let zone = zoned.strftime("%Z").to_string();
    // Some zones have no abbreviation; show the offset then.
    let zone = if zone.is_empty() || zone.starts_with(['+', '-']) {
        zoned.strftime("%:z").to_string()
    } else {
        zone
    };
    format!("{} {zone}", zoned.strftime("%Y-%m-%d %H:%M"))
}

/// A duration in words for people: `40 s ago`, `12 min ago`, `25 h ago`, `3 days ago`.
pub fn age(secs: EpochSeconds) -> String {
    match secs {
        s if s < 0 => "in the future".to_string(),
        s if s < 90 => format!("{s} s ago"),
        s if s < 90 * 60 => format!("{} min ago", (s + 30) / 60),
        s if s < 48 * 3600 => format!("{} h ago", (s + 1800) / 3600),
        s => format!("{} days ago", (s + 43_200) / 86_400),
    }
}

/// Why a `--since` value was not understood.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SinceError {
    /// A number followed by letters that are not a unit.
    #[error("unknown unit '{unit}' in '{arg}' (use {UNITS})")]
    UnknownUnit { unit: String, arg: String },
    /// Neither a duration nor a date.
    #[error(
        "'{arg}' is neither a duration (7d, 36h, 90m) nor a date (2026-11-01, 2026-11-01T08:00)"
    )]
    NotADurationOrDate { arg: String },
}

/// Why a duration (`--timeout`, `--older-than`) was not understood.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DurationError {
    /// Not a number followed by a unit.
    #[error("'{arg}' is not a duration (500ms, 30s, 90m, 36h, 7d, 2w)")]
    NotADuration { arg: String },
    /// A number followed by letters that are not a unit.
    #[error("unknown unit '{unit}' in '{arg}' (use {UNITS})")]
    UnknownUnit { unit: String, arg: String },
}

/// The units every duration flag takes, as its errors list them.
const UNITS: &str = "ms, s, m or min, h, d or w";

/// Seconds per unit of a duration: `ms`, `s`, `m`, `h`, `d`, `w` and their longer
/// spellings (`msec`, `sec`, `min`, `hr`, `hour`, `day`, `week`, with or without a
/// plural `s`).
fn unit_seconds(unit: &str) -> Option<f64> {
    Some(match unit.to_ascii_lowercase().as_str() {
        "ms" | "msec" | "msecs" | "millisecond" | "milliseconds" => 0.001,
        "s" | "sec" | "secs" | "second" | "seconds" => 1.0,
        "m" | "min" | "mins" | "minute" | "minutes" => 60.0,
        "h" | "hr" | "hrs" | "hour" | "hours" => 3600.0,
        "d" | "day" | "days" => 86_400.0,
        "w" | "wk" | "wks" | "week" | "weeks" => 7.0 * 86_400.0,
        _ => return None,
    })
}

/// What a number written without a unit means to a flag.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BareNumber {
    /// Refused: the flag needs a unit (`--older-than 7` could mean anything).
    Refused,
    /// Seconds (`--timeout 30`).
    Seconds,
}

/// A number (decimals allowed) and its unit, split; `None` when `arg` does not start
/// with one. The unit is what follows the number and any spaces, possibly empty.
fn split_number(arg: &str) -> Option<(f64, &str)> {
    let a = arg.trim();
    let len = a.len()
        - a.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.')
            .len();
    let (number, unit) = a.split_at(len);
    if !number.starts_with(|c: char| c.is_ascii_digit()) {
        return None;
    }
    Some((number.parse().ok()?, unit.trim_start()))
}

/// Every duration flag's one grammar: a number (`30`, `1.5`), optional spaces, a unit
/// (`ms`, `s`, `m`, `h`, `d`, `w`, spelled short or long); a bare number as `bare` says.
/// Too large a number saturates.
pub fn parse_duration(arg: &str, bare: BareNumber) -> Result<Duration, DurationError> {
    let not_one = || DurationError::NotADuration {
        arg: arg.to_string(),
    };
    let (n, unit) = split_number(arg).ok_or_else(not_one)?;
    let per = match unit {
        "" if bare == BareNumber::Seconds => 1.0,
        "" => return Err(not_one()),
        u if u.chars().all(|c| c.is_ascii_alphabetic()) => {
            unit_seconds(u).ok_or_else(|| DurationError::UnknownUnit {
                unit: u.to_string(),
                arg: arg.to_string(),
            })?
        }
        _ => return Err(not_one()),
    };
    Ok(Duration::try_from_secs_f64(n * per).unwrap_or(Duration::MAX))
}

/// `--since`: a duration back from `now` (`90m`, `10min`, `36h`, `7d`, `2w`, in
/// [`parse_duration`]'s grammar) or a UTC date/time.
pub fn parse_since(arg: &str, now: EpochSeconds) -> Result<EpochSeconds, SinceError> {
    let a = arg.trim();
    let is_duration = split_number(a)
        .is_some_and(|(_, unit)| !unit.is_empty() && unit.chars().all(|c| c.is_ascii_alphabetic()));
    if is_duration {
        return match parse_duration(a, BareNumber::Refused) {
            Ok(d) => Ok(now.saturating_sub(i64::try_from(d.as_secs()).unwrap_or(i64::MAX))),
            Err(DurationError::UnknownUnit { unit, .. }) => Err(SinceError::UnknownUnit {
                unit,
                arg: arg.to_string(),
            }),
            Err(DurationError::NotADuration { .. }) => Err(SinceError::NotADurationOrDate {
                arg: arg.to_string(),
            }),
        };
    }
    parse_iso(a).ok_or_else(|| SinceError::NotADurationOrDate {
        arg: arg.to_string(),
    })
}

/// The process start time in a log file name (`2026-11-29T11-50-31-063Z.jsonl`), as the
/// ISO timestamp it encodes.
pub fn file_name_time(name: &str) -> Option<String> {
    let stem = name.split('.').next()?;
    let b = stem.as_bytes();
    if b.len() != 24 || b[10] != b'T' || b[23] != b'Z' {
        return None;
    }
    let iso = format!(
        "{}T{}:{}:{}.{}Z",
        &stem[..10],
        &stem[11..13],
        &stem[14..16],
        &stem[17..19],
        &stem[20..23]
    );
    parse_iso(&iso).map(|_| iso)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// helper-81 #9: two times in one minute are shown to the second, apart.
    #[test]
    fn times_in_one_minute_are_shown_apart() {
        let (a, b) = local_times_apart("2026-11-29T12:43:58Z", "2026-11-29T12:43:05Z");
        assert_ne!(a, b);
        assert!(a.contains(":58") && b.contains(":05"), "{a} / {b}");
        // a cut-off off the minute is to the second wherever it is shown (helper-83
        // #4); a last session in another minute, to the minute
        let (a, b) = local_times_apart("2026-11-29T12:44:05Z", "2026-11-29T12:43:05Z");
        assert_eq!(a, cut_off("2026-11-29T12:44:05Z"));
        assert!(a.contains(":05"), "{a}");
        assert_eq!(b, local_time("2026-11-29T12:43:05Z"));
        assert_eq!(
            cut_off("2026-11-29T12:44:00Z"),
            local_time("2026-11-29T12:44:00Z")
        );
    }

    #[test]
    fn round_trips_dates() {
        let t = parse_iso("2026-11-29T11:50:31.063Z").unwrap();
        assert_eq!(format_iso(t), "2026-11-29T11:50:31.000Z");
        assert_eq!(parse_iso("1970-01-01"), Some(0));
        assert_eq!(parse_iso("2000-03-01T00:00"), Some(951_868_800));
        assert_eq!(parse_iso("2026-13-01"), None);
        // days a month does not have are no date (they rolled over into the next month)
        assert_eq!(parse_iso("2026-11-31"), None);
        assert_eq!(parse_iso("2026-02-29"), None);
        assert_eq!(parse_iso("2026-02-30T00:00:00.000Z"), None);
        assert_eq!(parse_iso("2024-02-29"), Some(1_709_164_800));
        assert_eq!(parse_iso("2000-02-29T00:00:00Z"), Some(951_782_400));
        assert_eq!(parse_iso("1900-02-29"), None);
        assert_eq!(parse_iso("yesterday"), None);
    }

    proptest::proptest! {
        /// The read by position answers as the general parse, on Claude Code's form,
        /// damaged copies of it, and text of the same characters.
        #[test]
        fn the_claude_code_form_is_read_as_any_form_is(
            edits in proptest::collection::vec((0usize..26, "[0-9TZ:. +-]"), 0..3),
            cut in 0usize..27,
            tail in "(|Z|\\.[0-9]{0,4}Z?|\\.x|Z |\\+01:00|:00)",
            noise in "[0-9TZ:. +-]{0,26}",
        ) {
            let mut t = format!("2026-11-29T11:50:31{tail}").into_bytes();
            for (at, c) in edits {
                if at < t.len() {
                    t[at] = c.as_bytes()[0];
                }
            }
            t.truncate(cut.max(19).min(t.len()));
            for s in [String::from_utf8(t).unwrap(), noise] {
                if let Some(fast) = parse_claude_code_iso(&s) {
                    proptest::prop_assert_eq!(fast, parse_iso_any(&s), "{:?}", s);
                }
            }
        }
    }

    #[test]
    fn the_claude_code_form_is_read_by_position() {
        for s in [
            "2026-11-29T11:50:31.063Z",
            "2026-11-29T11:50:31Z",
            "2026-11-29T11:50:31",
            "2026-11-29T23:59:60.1",
        ] {
            assert!(parse_claude_code_iso(s).is_some(), "{s}");
            assert_eq!(parse_iso(s), parse_iso_any(s), "{s}");
            assert!(parse_iso(s).is_some(), "{s}");
        }
        for s in [
            "2026-13-29T11:50:31Z",
            "2026-11-29T24:00:00Z",
            "2026-11-29T11:60:00",
            "2026-02-31T00:00:00Z",
        ] {
            assert_eq!(parse_claude_code_iso(s), Some(None), "{s}");
        }
        // Other forms are left to the general parse.
        for s in [
            " 2026-11-29T11:50:31Z",
            "2026-11-29 11:50:31",
            "2026-11-29T11:50:31+01:00",
        ] {
            assert_eq!(parse_claude_code_iso(s), None, "{s}");
        }
    }

    #[test]
    fn since_accepts_durations_and_dates() {
        let now = parse_iso("2026-11-29T12:00:00Z").unwrap();
        assert_eq!(parse_since("90m", now).unwrap(), now - 5400);
        assert_eq!(parse_since("7d", now).unwrap(), now - 7 * 86_400);
        assert_eq!(parse_since("2w", now).unwrap(), now - 14 * 86_400);
        assert_eq!(
            parse_since("2026-11-01", now).unwrap(),
            parse_iso("2026-11-01").unwrap()
        );
        for (arg, back) in [
            ("10min", 600),
            ("10 min", 600),
            ("10mins", 600),
            ("2hours", 7200),
            ("1day", 86_400),
            ("3 weeks", 21 * 86_400),
            ("45sec", 45),
            ("36H", 36 * 3600),
        ] {
            assert_eq!(parse_since(arg, now).unwrap(), now - back, "{arg}");
        }
        assert_eq!(
            parse_since("7y", now),
            Err(SinceError::UnknownUnit {
                unit: "y".into(),
                arg: "7y".into()
            })
        );
        assert_eq!(
            parse_since("10mn", now),
            Err(SinceError::UnknownUnit {
                unit: "mn".into(),
                arg: "10mn".into()
            })
        );
        // A number too large for the clock saturates instead of overflowing.
        assert!(parse_since("99999999999999999w", now).unwrap() < 0);
        assert_eq!(
            parse_since("soon", now).unwrap_err().to_string(),
            "'soon' is neither a duration (7d, 36h, 90m) nor a date (2026-11-01, 2026-11-01T08:00)"
        );
    }

    #[test]
    fn one_duration_grammar_for_every_flag() {
        let d = |a: &str, bare| parse_duration(a, bare);
        assert_eq!(
            d("500ms", BareNumber::Refused),
            Ok(Duration::from_millis(500))
        );
        assert_eq!(
            d("1.5 h", BareNumber::Refused),
            Ok(Duration::from_secs(5400))
        );
        assert_eq!(
            d("10min", BareNumber::Refused),
            Ok(Duration::from_secs(600))
        );
        assert_eq!(d("30", BareNumber::Seconds), Ok(Duration::from_secs(30)));
        assert_eq!(
            d("30", BareNumber::Refused),
            Err(DurationError::NotADuration { arg: "30".into() })
        );
        for bad in ["", "ms", ".5s", "2026-11-01", "5 m s", "-5m", "1.2.3s"] {
            assert!(
                matches!(
                    d(bad, BareNumber::Seconds),
                    Err(DurationError::NotADuration { .. })
                ),
                "{bad:?}"
            );
        }
        assert_eq!(
            d("3x", BareNumber::Seconds).unwrap_err().to_string(),
            "unknown unit 'x' in '3x' (use ms, s, m or min, h, d or w)"
        );
        assert_eq!(d("1e400w", BareNumber::Refused).ok(), None);
        assert_eq!(
            d("99999999999999999999w", BareNumber::Refused),
            Ok(Duration::MAX)
        );
        // --since reads durations the same way, dates besides.
        let now = parse_iso("2026-11-29T12:00:00Z").unwrap();
        assert_eq!(parse_since("1.5h", now), Ok(now - 5400));
        assert_eq!(parse_since("500ms", now), Ok(now));
    }

    #[test]
    fn ages_read_like_people_say_them() {
        assert_eq!(age(5), "5 s ago");
        assert_eq!(age(12 * 60), "12 min ago");
        assert_eq!(age(25 * 3600), "25 h ago");
        assert_eq!(age(10 * 86_400), "10 days ago");
        assert_eq!(age(-5), "in the future");
    }

    #[test]
    fn file_names_give_start_times() {
        assert_eq!(
            file_name_time("2026-11-29T11-50-31-063Z.jsonl").as_deref(),
            Some("2026-11-29T11:50:31.063Z")
        );
        assert_eq!(file_name_time("notes.txt"), None);
    }

    #[test]
    fn local_time_writes_what_strftime_writes_in_every_kind_of_zone() {
        use jiff::tz::{Offset, TimeZone};
        let zones = [
            TimeZone::UTC,
            TimeZone::posix("CET-1CEST,M3.5.0,M10.5.0/3").unwrap(),
            TimeZone::posix("EST5EDT,M3.2.0,M11.1.0").unwrap(),
            TimeZone::posix("<+0530>-5:30").unwrap(),
            TimeZone::posix("abc-3").unwrap(),
            TimeZone::fixed(Offset::from_seconds(-(3 * 3600 + 25 * 60 + 7)).unwrap()),
            TimeZone::fixed(Offset::from_seconds(13 * 3600).unwrap()),
        ];
        let mut stamps: Vec<String> = vec![
            "0001-01-01T00:00:00Z".into(),
            "0999-12-31T23:59:59Z".into(),
            "9999-12-30T00:00:00Z".into(),
            "1970-01-01T00:00:00Z".into(),
        ];
        // Each hour across both of 2026's switches to and from summer time, in minutes
        // and seconds either side of them.
        for (day, hour) in [(29, 0), (29, 1), (29, 2), (25, 0), (25, 1), (25, 2)] {
            let month = if day == 29 { "03" } else { "10" };
            for (m, sec) in [(0, 0), (0, 1), (59, 59), (30, 0)] {
                stamps.push(format!(
                    "2026-{month}-{day:02}T{hour:02}:{m:02}:{sec:02}.5Z"
                ));
            }
        }
        for tz in &zones {
            for iso in &stamps {
                let ts = jiff::Timestamp::from_second(parse_iso(iso).unwrap()).unwrap();
                assert_eq!(
                    local_time_in(iso, tz),
                    local_time_strftime(ts, tz),
                    "{iso} in {tz:?}"
                );
            }
        }
        assert_eq!(
            local_time_in("2026-03-29T01:30:00Z", &zones[1]),
            "2026-03-29 03:30 CEST"
        );
        assert_eq!(local_time_in("not a time", &zones[1]), "not a time");
        // Past the last instant a zone can show: given back as it is.
        assert_eq!(
            local_time_in("9999-12-31T23:59:59Z", &zones[1]),
            "9999-12-31T23:59:59Z"
        );
    }
}
