//! The scan's progress display: on stderr, only when stderr is a terminal, and only once
//! a scan has taken more than a second (a fast scan should not flash anything). It starts
//! as a spinner (while the logs are found and measured), becomes a bar once the total
//! is known, and moves with every block read, so one 2 GB file does not freeze it.

use std::io::IsTerminal;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use mcplogs::scan::Progress;

const SHOW_AFTER: Duration = Duration::from_secs(1);

pub struct ScanProgress {
    /// `None` when stderr is not a terminal: never drawn.
    bar: Option<Arc<Mutex<State>>>,
}

struct State {
    bar: ProgressBar,
    is_bar: bool,
    done: bool,
}

impl ScanProgress {
    pub fn new() -> Self {
        if !std::io::stderr().is_terminal() {
            return ScanProgress { bar: None };
        }
        let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::hidden());
        bar.set_style(
            ProgressStyle::with_template("{spinner} {msg}")
                .unwrap_or_else(|_| ProgressStyle::default_spinner()),
        );
        bar.set_message("looking for MCP logs…");
        let state = Arc::new(Mutex::new(State {
            bar,
            is_bar: false,
            done: false,
        }));
        let later = Arc::clone(&state);
        std::thread::spawn(move || {
            std::thread::sleep(SHOW_AFTER);
            let s = later.lock().unwrap_or_else(|e| e.into_inner());
            if !s.done {
                s.bar.set_draw_target(ProgressDrawTarget::stderr());
                s.bar.enable_steady_tick(Duration::from_millis(120));
            }
        });
        ScanProgress { bar: Some(state) }
    }

    /// Whether the display can ever be drawn (stderr is a terminal).
    pub fn shown(&self) -> bool {
        self.bar.is_some()
    }

    pub fn update(&self, p: Progress) {
        let Some(state) = &self.bar else { return };
        let mut s = state.lock().unwrap_or_else(|e| e.into_inner());
        if s.done {
            return;
        }
        if !s.is_bar {
            s.is_bar = true;
            s.bar.set_length(p.bytes_total);
            s.bar.reset_elapsed();
            s.bar.set_style(
                ProgressStyle::with_template(
                    "{bar:30} {binary_bytes}/{binary_total_bytes} {msg} ({binary_bytes_per_sec}, {eta} left)",
                )
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
            );
        }
        s.bar.set_position(p.bytes_done.min(p.bytes_total));
        s.bar
            .set_message(format!("{}/{} files", p.files_done, p.files_total));
    }

    pub fn finish(&self) {
        if let Some(state) = &self.bar {
            let mut s = state.lock().unwrap_or_else(|e| e.into_inner());
            s.done = true;
            s.bar.finish_and_clear();
        }
    }
}

/// The probe's live line: on stderr, only when stderr is a terminal, after a short
/// moment (a fast probe shows nothing). It names the step each server waits in, the
/// time it has waited and the most it will wait, and the budget that bounds it.
pub struct ProbeProgress {
    /// `None` when stderr is not a terminal: never drawn, nothing watched.
    state: Option<(mcplogs::probe::Watch, Arc<Mutex<bool>>, ProgressBar)>,
}

const PROBE_SHOW_AFTER: Duration = Duration::from_millis(300);

impl ProbeProgress {
    /// `budget`: what every wait is bounded by, in words (`--timeout 3000 ms`).
    pub fn new(budget: String) -> Self {
        if !std::io::stderr().is_terminal() {
            return ProbeProgress { state: None };
        }
        let watch = mcplogs::probe::Watch::default();
        let done = Arc::new(Mutex::new(false));
        let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::hidden());
        bar.set_style(
            ProgressStyle::with_template("{spinner} {wide_msg}")
                .unwrap_or_else(|_| ProgressStyle::default_spinner()),
        );
        let (w, d, b) = (watch.clone(), Arc::clone(&done), bar.clone());
        std::thread::spawn(move || {
            std::thread::sleep(PROBE_SHOW_AFTER);
            let mut shown = false;
            loop {
                {
                    let finished = d.lock().unwrap_or_else(|e| e.into_inner());
                    if *finished {
                        return;
                    }
                    if !shown {
                        shown = true;
                        b.set_draw_target(ProgressDrawTarget::stderr());
                        b.enable_steady_tick(Duration::from_millis(120));
                    }
                    b.set_message(probe_line(&w.snapshot(), &budget));
                }
                std::thread::sleep(Duration::from_millis(100));
            }
        });
        ProbeProgress {
            state: Some((watch, done, bar)),
        }
    }

    /// Where the probe reports its steps (`None` when nothing is drawn).
    pub fn watch(&self) -> Option<mcplogs::probe::Watch> {
        self.state.as_ref().map(|(w, _, _)| w.clone())
    }

    pub fn finish(&self) {
        if let Some((_, done, bar)) = &self.state {
            let mut d = done.lock().unwrap_or_else(|e| e.into_inner());
            *d = true;
            bar.finish_and_clear();
        }
    }
}

/// `github: tools/list page 2 (discover) · 3.1 of 30.1 s · MCP_TIMEOUT 30000 ms
/// (default)`: the step, the time waited of the most it will wait, and the budget that
/// bounds it; with several servers, the one that has waited longest and how many others
/// are still running.
fn probe_line(activity: &[mcplogs::probe::Activity], budget: &str) -> String {
    let now = std::time::Instant::now();
    let running: Vec<&mcplogs::probe::Activity> = activity
        .iter()
        .filter(|a| !a.done && !a.step.is_empty())
        .collect();
    let Some(a) = running.iter().min_by_key(|a| a.since) else {
        return format!("probing… · {budget}");
    };
    let waited = now.saturating_duration_since(a.since).as_secs_f64();
    let most = a.until.saturating_duration_since(a.since).as_secs_f64();
    let others = match running.len() - 1 {
        0 => String::new(),
        1 => "; 1 more server running".to_string(),
        n => format!("; {n} more servers running"),
    };
    // server names come from configuration files: the secret rules and the escaper
    let server = mcplogs::redact::output::text(&mcplogs::text::sanitize::text(&a.server));
    format!(
        "{server}: {} · {waited:.1} of {most:.1} s · {budget}{others}",
        a.step
    )
}
